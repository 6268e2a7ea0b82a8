//! The repository stands alone: no tracked file cites a document outside it, every `<name>.md`
//! cited in code comments, JSON notes, scripts and Markdown resolves to a tracked file, and every
//! `<name>.md §N` (or `section N`) names a heading of that file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use vvoc_reference::Json;
use xtask::workspace_root;

/// Texts that point outside the repository, wherever they occur (except in this file, which
/// names them).
const OUTSIDE: [&str; 3] = ["shared/spec", "../shared", "/work/"];

/// This file, relative to the workspace root.
const THIS_FILE: &str = "xtask/tests/citations.rs";

/// Cited names that are not documents of the repository, with the reason.
const NOT_DOCUMENTS: [(&str, &str); 4] = [
    (
        "conformance.md",
        "the report `conform run --report DIR` writes (a run output, git-ignored)",
    ),
    (
        "summary.md",
        "the report `conform fuzz --out DIR` writes (a run output)",
    ),
    (
        "mutants.md",
        "the report `cargo xtask mutants` writes into reports/mutants/ (a run output, git-ignored)",
    ),
    (
        "tool-contracts.md",
        "the reference document inside an installed vv-opencode package, which work_item_list names as contract.referencePath",
    ),
];

/// Files whose citations are not the project's own, with the reason.
const VERBATIM: [(&str, &str); 1] = [(
    "implementation/tests/upstream/tool-contracts-1.6.0.md",
    "the published 1.6.0 document, verbatim: its paths are upstream's",
)];

/// Citations in files this test may not fix yet (`file`, `citation`): each must still occur, so
/// the list shrinks as they are fixed.
const KNOWN_REMAINING: [(&str, &str); 0] = [];

/// One citation: where it is, what it names, and the section it names, if any.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Citation {
    file: String,
    line: usize,
    name: String,
    section: Option<String>,
}

fn tracked() -> Vec<String> {
    let output = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(workspace_root())
        .output()
        .expect("git runs (this test lists the tracked files with `git ls-files`)");
    assert!(output.status.success(), "git ls-files failed");
    String::from_utf8_lossy(&output.stdout)
        .split('\0')
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
        .collect()
}

fn read(file: &str) -> Option<String> {
    std::fs::read_to_string(workspace_root().join(file)).ok()
}

/// The parts of a file that cite: comments of code, notes and descriptions of JSON, the text of
/// Markdown outside fenced code blocks, and whole scripts and workflows. Each part keeps its line.
fn citing_text(file: &str, text: &str) -> Vec<(usize, String)> {
    let lines = || text.lines().enumerate().map(|(i, l)| (i + 1, l.to_owned()));
    match Path::new(file).extension().and_then(|e| e.to_str()) {
        Some("rs") => lines()
            .filter_map(|(n, line)| rust_comment(&line).map(|c| (n, c.to_owned())))
            .collect(),
        Some("md") => {
            let mut fenced = false;
            lines()
                .filter(|(_, line)| {
                    if line.trim_start().starts_with("```") {
                        fenced = !fenced;
                        return false;
                    }
                    !fenced
                })
                .collect()
        }
        Some("json") => json_notes(text),
        Some("py" | "yml" | "toml") | None => lines().collect(),
        Some(_) => Vec::new(),
    }
}

/// The comment of a line of Rust, if it has one outside a string literal.
fn rust_comment(line: &str) -> Option<&str> {
    let mut in_string = false;
    let mut escaped = false;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return line.get(i..),
            _ => {}
        }
    }
    None
}

/// The members of a JSON file that explain (`note`, `description`, `$comment`, `title`,
/// `reason`), each string value with its line; a JSON string never spans lines, and inputs and
/// expected texts are not read.
fn json_notes(text: &str) -> Vec<(usize, String)> {
    let mut notes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for key in [
            "\"note\"",
            "\"description\"",
            "\"$comment\"",
            "\"title\"",
            "\"reason\"",
        ] {
            for (at, _) in line.match_indices(key) {
                let value = line[at + key.len()..].trim_start();
                let Some(value) = value.strip_prefix(':').map(str::trim_start) else {
                    continue;
                };
                if let Some(string) = json_string(value) {
                    notes.push((n + 1, string));
                }
            }
        }
    }
    notes
}

/// The JSON string literal at the start of `text`, decoded.
fn json_string(text: &str) -> Option<String> {
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => {
                return match Json::parse(&text[..=i]) {
                    Ok(json) => json.as_string().map(|s| s.to_string_lossy()),
                    Err(_) => None,
                };
            }
            _ => {}
        }
    }
    None
}

/// Every `<name>.md` of a text, with the section number that follows it, if any.
fn citations(file: &str, line: usize, text: &str) -> Vec<Citation> {
    let mut found = Vec::new();
    let name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    for (at, _) in text.match_indices(".md") {
        let after = &text[at + 3..];
        if after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            continue;
        }
        let start = text[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| name_char(*c))
            .last()
            .map_or(at, |(i, _)| i);
        let name = text[start..at + 3].trim_start_matches("./");
        if name == ".md" || name.contains("//") || text[..start].ends_with(':') {
            continue;
        }
        found.push(Citation {
            file: file.to_owned(),
            line,
            name: name.to_owned(),
            section: section_after(after),
        });
    }
    found
}

/// The section number right after a citation: ` §2.1.8`, ` section 3`.
fn section_after(text: &str) -> Option<String> {
    let rest = text.trim_start();
    let rest = rest
        .strip_prefix('§')
        .or_else(|| rest.strip_prefix("section "))?
        .trim_start();
    let number: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let number = number.trim_end_matches('.');
    (!number.is_empty()).then(|| number.to_owned())
}

/// The tracked file a citation names, if any.
fn resolve(citation: &Citation, files: &BTreeSet<String>) -> Option<String> {
    if !citation.name.contains('/') {
        return files
            .iter()
            .find(|f| f.rsplit('/').next() == Some(citation.name.as_str()))
            .cloned();
    }
    let from_file = Path::new(&citation.file)
        .parent()
        .unwrap_or(Path::new(""))
        .join(&citation.name);
    [from_file, PathBuf::from(&citation.name)]
        .into_iter()
        .filter_map(|p| normalize(&p))
        .find(|p| files.contains(p))
}

fn normalize(path: &Path) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

/// The numbers of a Markdown file's headings (`## 4. The tools` gives `4`, `#### 2.1.8 ...`
/// gives `2.1.8`).
fn headings(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix('#'))
        .map(|line| line.trim_start_matches('#').trim_start())
        .map(|title| {
            title
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect::<String>()
                .trim_end_matches('.')
                .to_owned()
        })
        .filter(|number| !number.is_empty())
        .collect()
}

/// What the check found.
#[derive(Debug, Default)]
struct Findings {
    /// Texts pointing outside, citations that resolve to nothing, sections that are not headings.
    problems: Vec<String>,
    /// How many citations resolved to a tracked file.
    resolved: usize,
    /// How many cited sections were found among their document's headings.
    sections: usize,
    /// The exceptions that applied (names of `NOT_DOCUMENTS`, files of `VERBATIM`).
    exceptions: BTreeSet<String>,
}

fn findings() -> Findings {
    let files = tracked();
    let set: BTreeSet<String> = files.iter().cloned().collect();
    let mut found = Findings::default();
    let mut sections_of: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let problems = &mut found.problems;
    for file in &files {
        if VERBATIM.iter().any(|(f, _)| f == file) {
            found.exceptions.insert(file.clone());
            continue;
        }
        let Some(text) = read(file) else { continue };
        for (n, line) in text.lines().enumerate().filter(|_| file != THIS_FILE) {
            for outside in OUTSIDE {
                if line.contains(outside) {
                    problems.push(format!(
                        "{file}:{}: cites {outside:?}, outside the repository",
                        n + 1
                    ));
                }
            }
        }
        for (line, part) in citing_text(file, &text) {
            for citation in citations(file, line, &part) {
                let base = citation.name.rsplit('/').next().unwrap_or_default();
                if NOT_DOCUMENTS.iter().any(|(name, _)| *name == base) {
                    found.exceptions.insert(base.to_owned());
                    continue;
                }
                let place = format!("{}:{}", citation.file, citation.line);
                let Some(target) = resolve(&citation, &set) else {
                    problems.push(format!(
                        "{place}: cites {}, which is no file of the repository",
                        citation.name
                    ));
                    continue;
                };
                found.resolved += 1;
                if let Some(section) = &citation.section {
                    let numbers = sections_of
                        .entry(target.clone())
                        .or_insert_with(|| read(&target).map(|t| headings(&t)).unwrap_or_default());
                    if numbers.contains(section) {
                        found.sections += 1;
                    } else {
                        problems.push(format!(
                            "{place}: cites {} §{section}, which is no heading of {target}",
                            citation.name
                        ));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn no_tracked_file_cites_a_document_outside_the_repository() {
    let found = findings();
    let problems = &found.problems;
    // The check reads what it should: hundreds of citations, most with a section.
    assert!(
        found.resolved > 300,
        "only {} citations found",
        found.resolved
    );
    assert!(
        found.sections > 200,
        "only {} sections checked",
        found.sections
    );
    let unused: Vec<&str> = NOT_DOCUMENTS
        .iter()
        .map(|(name, _)| *name)
        .chain(VERBATIM.iter().map(|(file, _)| *file))
        .filter(|e| !found.exceptions.contains(*e))
        .collect();
    assert!(
        unused.is_empty(),
        "exceptions no longer needed; remove them: {unused:?}"
    );
    let known = |p: &String| {
        KNOWN_REMAINING
            .iter()
            .any(|(file, cited)| p.starts_with(&format!("{file}:")) && p.contains(cited))
    };
    let new: Vec<&String> = problems.iter().filter(|p| !known(p)).collect();
    assert!(
        new.is_empty(),
        "{} citations do not resolve inside the repository:\n{}",
        new.len(),
        new.iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let fixed: Vec<String> = KNOWN_REMAINING
        .iter()
        .filter(|(file, cited)| {
            !problems
                .iter()
                .any(|p| p.starts_with(&format!("{file}:")) && p.contains(cited))
        })
        .map(|(file, cited)| format!("{file}: {cited}"))
        .collect();
    assert!(
        fixed.is_empty(),
        "fixed since; remove them from KNOWN_REMAINING:\n{}",
        fixed.join("\n")
    );
}

#[test]
fn the_reader_finds_citations_and_their_sections() {
    let found = citations(
        "a/b.rs",
        3,
        "// see behaviour.md §2.1.8 and [x](../docs/rules.md)",
    );
    let names: Vec<(&str, Option<&str>)> = found
        .iter()
        .map(|c| (c.name.as_str(), c.section.as_deref()))
        .collect();
    assert_eq!(
        names,
        [("behaviour.md", Some("2.1.8")), ("../docs/rules.md", None)]
    );
    assert_eq!(
        section_after(" section 3)"),
        Some("3".to_owned()),
        "schemas write `interfaces.md section 3`"
    );
    assert!(citations("x.md", 1, "https://example.com/README.md").is_empty());
    assert_eq!(
        rust_comment(r#"let url = "https://x"; // cites execution.md"#),
        Some("// cites execution.md")
    );
    assert_eq!(rust_comment(r#"let url = "https://x";"#), None);
    let set: BTreeSet<String> = ["docs/rules.md".to_owned()].into_iter().collect();
    let cited = &found[1];
    assert_eq!(resolve(cited, &set).as_deref(), Some("docs/rules.md"));
    assert!(headings("## 4. The tools\n#### 2.1.8 The length rule\n").contains("2.1.8"));
}
