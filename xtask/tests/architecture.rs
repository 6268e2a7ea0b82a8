//! The invariants of ARCHITECTURE.md that a reading of the harness's source can check: no import
//! circle between its files, no file over 600 lines, no function over 100 lines but the listed
//! data tables.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::spanned::Spanned as _;
use syn::visit::{self, Visit};

/// The longest a file may be, in lines.
const MAX_FILE_LINES: usize = 600;

/// The longest a function may be, in lines.
const MAX_FN_LINES: usize = 100;

/// Functions that are data tables rather than logic, allowed past [`MAX_FN_LINES`]: the file, the
/// function, and why. The test fails when one of them fits the limit again, so the list cannot
/// go stale.
const DATA_TABLES: &[(&str, &str, &str)] = &[
    (
        "meta_schema.rs",
        "scenario_file",
        "the JSON Schema of scenario files, one literal",
    ),
    (
        "meta_schema_web.rs",
        "web_scenario_file",
        "the JSON Schema of web scenario files, one literal",
    ),
    (
        "meta_schema_workflow.rs",
        "workflow_scenario_file",
        "the JSON Schema of workflow scenario files, one literal",
    ),
];

#[test]
fn no_file_of_the_harness_imports_one_that_imports_it_back() {
    let modules = modules();
    let graph: BTreeMap<&str, BTreeSet<String>> = modules
        .iter()
        .map(|(name, module)| (name.as_str(), imports(name, &module.file, &modules)))
        .collect();
    let circles = circles(&graph);
    assert!(
        circles.is_empty(),
        "import circles between the files of harness/src (each a path back to where it \
         started; move what both sides need into a file of its own, below both):\n{}",
        circles
            .iter()
            .map(|c| format!("  {}", c.join(" -> ")))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_circle_finder_finds_a_circle_through_three_files_and_none_in_a_chain() {
    let edges = |pairs: &[(&'static str, &'static str)]| {
        let mut graph: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in pairs {
            graph.entry(from).or_default().insert((*to).to_owned());
            graph.entry(to).or_default();
        }
        graph
    };
    let circle = edges(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]);
    assert_eq!(circles(&circle), vec![vec!["a", "b", "c", "a"]]);
    let chain = edges(&[("a", "b"), ("b", "c"), ("a", "c")]);
    assert!(circles(&chain).is_empty());
}

#[test]
fn the_import_reader_sees_grouped_uses_inline_paths_and_super() {
    let modules: BTreeMap<String, Module> = ["load", "load::suite", "load::error", "peer", "run"]
        .iter()
        .map(|m| {
            let module = Module {
                relative: String::new(),
                lines: 0,
                file: syn::parse_file("").expect("an empty file parses"),
            };
            ((*m).to_owned(), module)
        })
        .collect();
    let file: syn::File = syn::parse_str(
        "use crate::{load::{error::LoadError, suite}, peer};
         use super::error;
         fn f() { crate::run::go(); }",
    )
    .expect("the sample parses");
    let found = imports("load::suite", &file, &modules);
    let expected: BTreeSet<String> = ["load::error", "peer", "run"]
        .iter()
        .map(|m| (*m).to_owned())
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn no_file_of_the_harness_is_longer_than_600_lines() {
    let long: Vec<String> = modules()
        .values()
        .filter(|m| m.lines > MAX_FILE_LINES)
        .map(|m| format!("  harness/src/{} has {} lines", m.relative, m.lines))
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines (split each into files of one concept):\n{}",
        long.join("\n")
    );
}

#[test]
fn no_function_of_the_harness_is_longer_than_100_lines_but_the_listed_data_tables() {
    let mut long = BTreeSet::new();
    for module in modules().values() {
        let mut finder = LongFunctions::default();
        finder.visit_file(&module.file);
        for (name, lines) in finder.found {
            long.insert((module.relative.clone(), name, lines));
        }
    }
    let listed =
        |file: &str, name: &str| DATA_TABLES.iter().any(|(f, n, _)| *f == file && *n == name);
    let unlisted: Vec<String> = long
        .iter()
        .filter(|(file, name, _)| !listed(file, name))
        .map(|(file, name, lines)| format!("  harness/src/{file}: fn {name} has {lines} lines"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "functions over {MAX_FN_LINES} lines (split each into steps with names):\n{}",
        unlisted.join("\n")
    );
    let stale: Vec<String> = DATA_TABLES
        .iter()
        .filter(|(file, name, _)| !long.iter().any(|(f, n, _)| f == file && n == name))
        .map(|(file, name, _)| format!("  {file}: fn {name}"))
        .collect();
    assert!(
        stale.is_empty(),
        "listed as data tables past {MAX_FN_LINES} lines but no longer past it (remove them \
         from DATA_TABLES):\n{}",
        stale.join("\n")
    );
}

/// One file of the harness's library.
struct Module {
    relative: String,
    lines: usize,
    file: syn::File,
}

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../harness/src")
}

/// Every file of the harness, by module path (`load::suite`; the crate root is `crate`); the
/// binaries are files too, named `bin::<file>`, so their length counts, though nothing imports
/// them.
fn modules() -> BTreeMap<String, Module> {
    let root = source_root();
    let mut modules = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let entry = entry.expect("harness/src can be walked");
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path
            .strip_prefix(&root)
            .expect("inside harness/src")
            .to_string_lossy()
            .replace('\\', "/");
        let name = match relative.trim_end_matches(".rs") {
            "lib" => "crate".to_owned(),
            stem => stem.trim_end_matches("/mod").replace('/', "::"),
        };
        let text = std::fs::read_to_string(path).expect("every file of harness/src can be read");
        let file = syn::parse_file(&text).expect("every file of harness/src parses");
        let module = Module {
            relative,
            lines: text.lines().count(),
            file,
        };
        modules.insert(name, module);
    }
    modules
}

/// The other files `module` imports: `use` trees and inline paths rooted at `crate`, `super` or
/// `self`, each resolved to the longest module path it names. A file's own submodules and the
/// modules that hold it are not imports of it (declaring `mod x;` is no `use`), except when it
/// names them in a path.
fn imports(module: &str, file: &syn::File, modules: &BTreeMap<String, Module>) -> BTreeSet<String> {
    let mut paths = Paths::default();
    paths.visit_file(file);
    let parent = match module.rsplit_once("::") {
        Some((parent, _)) => parent.to_owned(),
        None => "crate".to_owned(),
    };
    let mut found = BTreeSet::new();
    for path in paths.found {
        let Some((root, rest)) = path.split_first() else {
            continue;
        };
        let base: Vec<String> = match root.as_str() {
            "crate" => Vec::new(),
            "super" => match parent.as_str() {
                "crate" => Vec::new(),
                p => p.split("::").map(str::to_owned).collect(),
            },
            "self" => module.split("::").map(str::to_owned).collect(),
            _ => continue,
        };
        let full: Vec<String> = base.into_iter().chain(rest.iter().cloned()).collect();
        let target = (1..=full.len())
            .rev()
            .map(|n| full[..n].join("::"))
            .find(|candidate| modules.contains_key(candidate));
        if let Some(target) = target
            && target != module
        {
            found.insert(target);
        }
    }
    found
}

/// Every path of a file, as segments: each leaf of a `use` tree, and each path in code.
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
}

impl Paths {
    fn tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.leaf(prefix, &n.ident),
            syn::UseTree::Rename(r) => self.leaf(prefix, &r.ident),
            syn::UseTree::Glob(_) => self.found.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.tree(prefix, item);
                }
            }
        }
    }

    fn leaf(&mut self, prefix: &[String], ident: &syn::Ident) {
        let mut path = prefix.to_vec();
        // `use a::b::{self}` names the module `a::b` itself.
        if ident != "self" {
            path.push(ident.to_string());
        }
        self.found.push(path);
    }
}

impl<'a> Visit<'a> for Paths {
    fn visit_item_use(&mut self, item: &'a syn::ItemUse) {
        self.tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'a syn::Path) {
        let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.found.push(segments);
        visit::visit_path(self, path);
    }
}

/// Functions (free, or in an `impl`) longer than [`MAX_FN_LINES`], with their line counts.
#[derive(Default)]
struct LongFunctions {
    found: Vec<(String, usize)>,
}

impl LongFunctions {
    fn check(&mut self, name: &syn::Ident, span: proc_macro2::Span) {
        let lines = span.end().line - span.start().line + 1;
        if lines > MAX_FN_LINES {
            self.found.push((name.to_string(), lines));
        }
    }
}

impl<'a> Visit<'a> for LongFunctions {
    fn visit_item_fn(&mut self, item: &'a syn::ItemFn) {
        self.check(&item.sig.ident, item.span());
        visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'a syn::ImplItemFn) {
        self.check(&item.sig.ident, item.span());
        visit::visit_impl_item_fn(self, item);
    }
}

/// Every import circle, each once: from its least module, along the least next step, back to it.
fn circles(graph: &BTreeMap<&str, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut found = BTreeSet::new();
    for &start in graph.keys() {
        // A breadth-first search for the shortest way back to `start` through modules after it,
        // so each circle is reported once, from its least module.
        let mut previous: BTreeMap<String, String> = BTreeMap::new();
        let mut frontier = vec![start.to_owned()];
        let mut back = None;
        while back.is_none() && !frontier.is_empty() {
            let mut next = Vec::new();
            for from in &frontier {
                for to in graph.get(from.as_str()).into_iter().flatten() {
                    if to == start {
                        back = Some(from.clone());
                        break;
                    }
                    if to.as_str() > start && !previous.contains_key(to) {
                        previous.insert(to.clone(), from.clone());
                        next.push(to.clone());
                    }
                }
                if back.is_some() {
                    break;
                }
            }
            frontier = next;
        }
        if let Some(last) = back {
            let mut circle = vec![start.to_owned()];
            let mut at = last;
            let mut way = vec![at.clone()];
            while let Some(p) = previous.get(&at) {
                way.push(p.clone());
                at = p.clone();
            }
            if way.last().is_some_and(|m| m == start) {
                way.pop();
            }
            circle.extend(way.into_iter().rev());
            circle.push(start.to_owned());
            found.insert(circle);
        }
    }
    found.into_iter().collect()
}
