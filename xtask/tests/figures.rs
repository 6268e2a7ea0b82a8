//! The figures the docs quote about the suite (vectors, scenarios, files, rules, rows, pages, the
//! built-in set's digest) are the suite's, computed from the code; a stale one fails, naming the
//! file, the line and the right value.
//!
//! `QUOTES` says where each doc quotes which figure. Any other count in the shape "<number>
//! vectors" (or scenarios, rules, rows, files, ...; `figures::COUNTED`) or `sha256:<hex>` in the
//! checked docs fails too, unless `EXEMPT` says why it is not a figure of the suite (a
//! measurement, a recorded run). History (`CHANGELOG.md`) is not checked.

use std::sync::OnceLock;

use xtask::figures::{Exempt, Figure, Figures, Quote, check, find};
use xtask::workspace_root;

/// The docs whose figures must be the suite's.
const DOCS: &[&str] = &[
    "README.md",
    "docs/protocol.md",
    "docs/interfaces.md",
    "reports/README.md",
    "mutants/cargo-mutants.md",
];

const fn quote(file: &'static str, pattern: &'static str, figure: Figure) -> Quote {
    Quote {
        file,
        pattern,
        figure,
    }
}

/// Where the docs quote a figure of the suite: the file, the text with `{}` for the figure, and
/// which figure it is.
const QUOTES: &[Quote] = &[
    // README: the example output of `cargo xtask check`.
    quote(
        "README.md",
        "PASS workflows {} workflows lint clean",
        Figure::Workflows,
    ),
    quote(
        "README.md",
        "PASS reference {} pages match their sources",
        Figure::Pages,
    ),
    quote("README.md", "ok: {} vectors in ", Figure::Vectors),
    quote("README.md", " vectors in {} files, ", Figure::VectorFiles),
    quote("README.md", ", {} scenarios in ", Figure::Scenarios),
    quote("README.md", " scenarios in {} files", Figure::ScenarioFiles),
    quote(
        "README.md",
        "coverage {} of {} rules have",
        Figure::InventoryRules,
    ),
    quote("README.md", "mutation-rows {} rows checked", Figure::Rows),
    quote(
        "README.md",
        "verdict {}/{}, first {}/{}, issues {}/{}, exact {}/{}",
        Figure::Vectors,
    ),
    quote("README.md", "effect {}/{}, exact {}/{}", Figure::Scenarios),
    quote("README.md", "== {} passed, 0 failed", Figure::Checks),
    // README: `conform --version`.
    quote("README.md", "vectors sha256:{}, ", Figure::Digest),
    quote("README.md", ", {} files)", Figure::BuiltinFiles),
    // README: the suite, the inventory, the generated files.
    quote(
        "README.md",
        "holds the {} documented examples",
        Figure::DocVectors,
    ),
    quote(
        "README.md",
        "The suite has {} vectors and ",
        Figure::Vectors,
    ),
    quote("README.md", " vectors and {} scenarios;", Figure::Scenarios),
    quote("README.md", "all {} input rules", Figure::InputRules),
    quote("README.md", "its other {} rules", Figure::ExecRules),
    quote(
        "README.md",
        "FAIL reference 1 of {} pages differ",
        Figure::Pages,
    ),
    quote(
        "README.md",
        "so {} description bytes",
        Figure::DescriptionBytes,
    ),
    quote("README.md", "and {} schema bytes", Figure::SchemaBytes),
    // README: the mutation check.
    quote(
        "README.md",
        "There are {} rows, one or more per inventory rule",
        Figure::Rows,
    ),
    quote(
        "README.md",
        "({} of them for the rules of execution)",
        Figure::ExecRows,
    ),
    // interfaces.md.
    quote(
        "docs/interfaces.md",
        "the {} documented examples",
        Figure::DocVectors,
    ),
    quote(
        "docs/interfaces.md",
        "mutation-rows {} rows checked",
        Figure::Rows,
    ),
    quote(
        "docs/interfaces.md",
        "PASS reference {} pages match their sources",
        Figure::Pages,
    ),
];

/// Counts in the sweep's shape that are not figures of the suite.
const EXEMPT: &[Exempt] = &[
    Exempt {
        file: "README.md",
        phrase: "had 2,425 vectors, 525 scenarios and 813 rows",
        why: "the suite when the mutation check's timings were measured",
    },
    Exempt {
        file: "README.md",
        phrase: "rules: 67 of 67 input rules fired",
        why: "the output of the recorded `conform fuzz` run against the example Python peer (the \
              input rules of its four tools)",
    },
];

fn figures() -> &'static Figures {
    static FIGURES: OnceLock<Figures> = OnceLock::new();
    FIGURES.get_or_init(|| {
        Figures::of_workspace(&workspace_root()).expect("the suite's figures are computed")
    })
}

/// Every checked doc with its text.
fn docs() -> Vec<(&'static str, String)> {
    DOCS.iter()
        .map(|file| {
            let text = std::fs::read_to_string(workspace_root().join(file))
                .unwrap_or_else(|e| format!("{file} cannot be read: {e}"));
            (*file, text)
        })
        .collect()
}

fn problems_of(docs: &[(&'static str, String)]) -> Vec<String> {
    let docs: Vec<(&str, &str)> = docs.iter().map(|(f, t)| (*f, t.as_str())).collect();
    check(&docs, QUOTES, EXEMPT, figures())
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn every_figure_the_docs_quote_is_the_suites() {
    let problems = problems_of(&docs());
    assert!(
        problems.is_empty(),
        "figures in the docs differ from the suite's (xtask/tests/figures.rs):\n{}",
        problems.join("\n")
    );
}

#[test]
fn changing_any_quoted_figure_fails_naming_the_file_the_line_and_the_right_value() {
    let docs = docs();
    for quote in QUOTES {
        let (index, text) = docs
            .iter()
            .enumerate()
            .find_map(|(i, (file, text))| (*file == quote.file).then_some((i, text)))
            .expect("every quoted file is a checked doc");
        let found = find(text, quote);
        assert!(
            !found.is_empty(),
            "{}: `{}` matches no line",
            quote.file,
            quote.pattern
        );
        let first = &found[0];
        let wrong = if quote.figure == Figure::Digest {
            "000000000000".to_owned()
        } else {
            let n: u64 = first.text.replace(',', "").parse().expect("a number");
            (n + 1).to_string()
        };
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let line = &mut lines[first.line - 1];
        line.replace_range(first.column..first.column + first.text.len(), &wrong);
        let mut changed = docs.clone();
        changed[index].1 = lines.join("\n");
        let problems = problems_of(&changed);
        let right = quote.figure.value(figures());
        let at = format!("{}:{}: ", quote.file, first.line);
        assert!(
            problems.iter().any(|p| p.starts_with(&at)
                && p.contains(&wrong)
                && p.ends_with(&format!("write {right}"))),
            "writing {wrong} for `{}` in {} gave {problems:?}",
            quote.pattern,
            quote.file
        );
    }
}

#[test]
fn a_count_of_the_suite_that_no_row_checks_fails() {
    let before = problems_of(&docs());
    let mut docs = docs();
    docs[0].1.push_str("\nThe suite has 12 scenario files.\n");
    let lines = docs[0].1.lines().count();
    let problems: Vec<String> = problems_of(&docs)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert_eq!(
        problems,
        [format!(
            "README.md:{lines}: `12 scenario files` quotes a figure of the suite that no row of the table in \
             xtask/tests/figures.rs checks: add a row (file, pattern, figure), or reword the line \
             so that it needs no number"
        )]
    );
}

#[test]
fn the_figures_are_counted_from_the_suite() {
    let f = figures();
    assert!(
        f.exec_rules > 0 && f.exec_rules < f.inventory_rules,
        "{f:?}"
    );
    assert!(f.exec_rows > 0 && f.exec_rows < f.rows, "{f:?}");
    assert!(f.doc_vectors > 0 && f.doc_vectors < f.vectors, "{f:?}");
    assert!(
        f.builtin_files >= f.vector_files + f.scenario_files,
        "the built-in set holds every vector and scenario file: {f:?}"
    );
    assert!(
        f.digest.len() == 12 && f.digest.chars().all(|c| c.is_ascii_hexdigit()),
        "{f:?}"
    );
}
