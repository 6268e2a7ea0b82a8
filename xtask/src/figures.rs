//! The figures the docs quote about the suite (counts of vectors, scenarios, files, rules and
//! rows, the built-in set's digest), computed from the code, and the check that each quote of
//! one in a doc is right (`xtask/tests/figures.rs` holds the table of quotes).

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use anyhow::{Context as _, Result};
use vvoc_reference::catalog::{Tool, ToolSpec};
use vvoc_reference::inventory::inventory;

/// The true value of every figure a doc may quote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figures {
    /// Vectors of the workspace's `vectors/`.
    pub vectors: usize,
    /// Scenarios of the workspace's `vectors/`, editor and web.
    pub scenarios: usize,
    /// Files holding vectors.
    pub vector_files: usize,
    /// Files holding scenarios.
    pub scenario_files: usize,
    /// Vectors marked `"doc": true` (the reference document's checked examples).
    pub doc_vectors: usize,
    /// Files of the built-in set (`conform --version`'s count: notes included).
    pub builtin_files: usize,
    /// The built-in set's digest as `conform --version` shows it (12 hex digits).
    pub digest: String,
    /// Rules of the refusal inventory, execution rules included.
    pub inventory_rules: usize,
    /// Rules of the inventory that refuse inputs (all but the rules of execution).
    pub input_rules: usize,
    /// Rules of execution (`<tool>:exec:<name>`).
    pub exec_rules: usize,
    /// Mutation rows of `mutants/`.
    pub rows: usize,
    /// Mutation rows that break a rule of execution.
    pub exec_rows: usize,
    /// Files `cargo xtask docs` generates (its "pages").
    pub pages: usize,
    /// Workflow files the `workflows` check lints (`.github/workflows/` and the implementers' one).
    pub workflows: usize,
    /// Checks `cargo xtask check` runs.
    pub checks: usize,
    /// Bytes of the model-facing descriptions (the reference document's size line).
    pub description_bytes: usize,
    /// Bytes of the compact published input schemas (the size line).
    pub schema_bytes: usize,
}

/// What the harness tells about the suite; the one place this module calls the harness's loader
/// and built-in set, so that a move of their modules is fixed here alone.
struct HarnessFacts {
    vectors: usize,
    scenarios: usize,
    vector_files: usize,
    scenario_files: usize,
    doc_vectors: usize,
    builtin_files: usize,
    digest: String,
}

fn harness_facts() -> Result<HarnessFacts> {
    let suite = vvoc_harness::load::suite::load_suite(&[vvoc_harness::default_vectors_dir()])
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("the workspace's vectors and scenarios do not load")?;
    Ok(HarnessFacts {
        vectors: suite.vectors.len(),
        scenarios: suite.scenarios.len() + suite.web.len() + suite.workflow.len(),
        vector_files: suite.files.0,
        scenario_files: suite.files.1,
        doc_vectors: suite.vectors.iter().filter(|v| v.doc).count(),
        builtin_files: vvoc_harness::load::builtin::files().len(),
        digest: vvoc_harness::load::builtin::short_digest().to_owned(),
    })
}

impl Figures {
    /// The figures of the workspace at `root`.
    pub fn of_workspace(root: &Path) -> Result<Figures> {
        let harness = harness_facts()?;
        let rules = inventory();
        let exec_ids: BTreeSet<String> = rules
            .iter()
            .filter(|r| r.is_exec())
            .map(ToString::to_string)
            .collect();
        let rows = crate::mutants::rows::load(root)?;
        let exec_rows = rows
            .iter()
            .filter(|row| {
                exec_ids.iter().any(|id| {
                    row.id
                        .strip_prefix(id.as_str())
                        .is_some_and(|rest| rest.starts_with(": "))
                })
            })
            .count();
        let specs: Vec<&ToolSpec> = Tool::ALL.iter().map(|t| t.spec()).collect();
        let (description_bytes, schema_bytes) = vvoc_reference::document::model_facing_size(&specs);
        Ok(Figures {
            vectors: harness.vectors,
            scenarios: harness.scenarios,
            vector_files: harness.vector_files,
            scenario_files: harness.scenario_files,
            doc_vectors: harness.doc_vectors,
            builtin_files: harness.builtin_files,
            digest: harness.digest,
            inventory_rules: rules.len(),
            input_rules: rules.len() - exec_ids.len(),
            exec_rules: exec_ids.len(),
            rows: rows.len(),
            exec_rows,
            pages: crate::docs::generate(root, true)?.changes.len(),
            workflows: workflow_files(root)?,
            checks: crate::check::CHECKS.len(),
            description_bytes,
            schema_bytes,
        })
    }
}

/// The files the `workflows` check of `cargo xtask check` lints.
fn workflow_files(root: &Path) -> Result<usize> {
    let dir = root.join(".github/workflows");
    let listed =
        std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))?;
    let own = listed
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".yml") || name.ends_with(".yaml")
        })
        .count();
    Ok(own + 1)
}

/// A figure a doc may quote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// [`Figures::vectors`].
    Vectors,
    /// [`Figures::scenarios`].
    Scenarios,
    /// [`Figures::vector_files`].
    VectorFiles,
    /// [`Figures::scenario_files`].
    ScenarioFiles,
    /// [`Figures::doc_vectors`].
    DocVectors,
    /// [`Figures::builtin_files`].
    BuiltinFiles,
    /// [`Figures::digest`].
    Digest,
    /// [`Figures::inventory_rules`].
    InventoryRules,
    /// [`Figures::input_rules`].
    InputRules,
    /// [`Figures::exec_rules`].
    ExecRules,
    /// [`Figures::rows`].
    Rows,
    /// [`Figures::exec_rows`].
    ExecRows,
    /// [`Figures::pages`].
    Pages,
    /// [`Figures::workflows`].
    Workflows,
    /// [`Figures::checks`].
    Checks,
    /// [`Figures::description_bytes`].
    DescriptionBytes,
    /// [`Figures::schema_bytes`].
    SchemaBytes,
}

impl Figure {
    /// What the figure counts, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Figure::Vectors => "the number of vectors",
            Figure::Scenarios => "the number of scenarios",
            Figure::VectorFiles => "the number of vector files",
            Figure::ScenarioFiles => "the number of scenario files",
            Figure::DocVectors => "the number of documented examples (`\"doc\": true` vectors)",
            Figure::BuiltinFiles => "the number of files of the built-in set",
            Figure::Digest => "the built-in set's digest (`conform --version`)",
            Figure::InventoryRules => "the number of inventory rules",
            Figure::InputRules => "the number of input rules (the inventory without execution)",
            Figure::ExecRules => "the number of rules of execution",
            Figure::Rows => "the number of mutation rows",
            Figure::ExecRows => "the number of mutation rows of rules of execution",
            Figure::Pages => "the number of files `cargo xtask docs` generates",
            Figure::Workflows => "the number of workflow files `cargo xtask check` lints",
            Figure::Checks => "the number of checks `cargo xtask check` runs",
            Figure::DescriptionBytes => "the bytes of the model-facing descriptions",
            Figure::SchemaBytes => "the bytes of the compact published input schemas",
        }
    }

    /// The figure's true value, written plainly (digits, or hex digits for the digest).
    pub fn value(self, figures: &Figures) -> String {
        let count = match self {
            Figure::Digest => return figures.digest.clone(),
            Figure::Vectors => figures.vectors,
            Figure::Scenarios => figures.scenarios,
            Figure::VectorFiles => figures.vector_files,
            Figure::ScenarioFiles => figures.scenario_files,
            Figure::DocVectors => figures.doc_vectors,
            Figure::BuiltinFiles => figures.builtin_files,
            Figure::InventoryRules => figures.inventory_rules,
            Figure::InputRules => figures.input_rules,
            Figure::ExecRules => figures.exec_rules,
            Figure::Rows => figures.rows,
            Figure::ExecRows => figures.exec_rows,
            Figure::Pages => figures.pages,
            Figure::Workflows => figures.workflows,
            Figure::Checks => figures.checks,
            Figure::DescriptionBytes => figures.description_bytes,
            Figure::SchemaBytes => figures.schema_bytes,
        };
        count.to_string()
    }

    fn is_hex(self) -> bool {
        self == Figure::Digest
    }
}

/// One place a doc quotes a figure: in `file`, every line with `pattern`'s text, where each `{}`
/// stands for the figure (a number, with or without thousands commas, or hex digits for the
/// digest). Every row must match at least one line, so that the table cannot go stale.
#[derive(Clone, Copy, Debug)]
pub struct Quote {
    /// The doc, relative to the workspace root.
    pub file: &'static str,
    /// The quoted text, `{}` where the figure stands (on one line of the doc).
    pub pattern: &'static str,
    /// The figure it quotes.
    pub figure: Figure,
}

/// A count in the shape the sweep looks for that is not a figure of the suite (a measurement, or
/// the output of one recorded run), with the reason; the phrase must occur in the file.
#[derive(Clone, Copy, Debug)]
pub struct Exempt {
    /// The doc, relative to the workspace root.
    pub file: &'static str,
    /// The exact text, on one line of the doc.
    pub phrase: &'static str,
    /// Why it is not a figure of the suite.
    pub why: &'static str,
}

/// What follows a number when a doc quotes a count of the suite (the sweep's nouns); such a
/// count must be a row of the table or an exemption.
pub const COUNTED: &[&str] = &[
    "vectors",
    "vector files",
    "scenarios",
    "scenario files",
    "rules",
    "input rules",
    "rows",
    "files",
    "pages",
    "workflows",
    "documented examples",
    "description bytes",
    "schema bytes",
];

/// One thing wrong with a doc's figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The doc.
    pub file: String,
    /// Its line (from 1), when the problem is at one.
    pub line: Option<usize>,
    /// What is wrong and the fix.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// A figure found in a line: where it starts (byte column) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Token {
    column: usize,
    text: String,
}

/// One figure a doc's text quotes where a pattern matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The line, from 1.
    pub line: usize,
    /// The byte column in the line where the figure starts.
    pub column: usize,
    /// The figure as written (`2,546`, `e6335f2cfaec`).
    pub text: String,
}

/// Every figure `text` quotes where `quote`'s pattern matches, in line order.
pub fn find(text: &str, quote: &Quote) -> Vec<Found> {
    let mut out = Vec::new();
    for (number, line) in text.lines().enumerate() {
        for tokens in matches(line, quote.pattern, quote.figure.is_hex()) {
            out.extend(tokens.into_iter().map(|t| Found {
                line: number + 1,
                column: t.column,
                text: t.text,
            }));
        }
    }
    out
}

/// Checks the docs (`(file, text)` pairs) against the figures: every quote of the table matches
/// somewhere in its file and quotes the true value; every exemption's phrase occurs; and every
/// count the sweep finds (a number before one of [`COUNTED`], or `sha256:` and hex digits) is
/// checked by a quote or exempt. Problems come in file order, then line order.
pub fn check(
    docs: &[(&str, &str)],
    quotes: &[Quote],
    exempt: &[Exempt],
    figures: &Figures,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (file, text) in docs {
        let mut covered: BTreeSet<(usize, usize)> = BTreeSet::new();
        let mut found = Vec::new();
        for quote in quotes.iter().filter(|q| q.file == *file) {
            let right = quote.figure.value(figures);
            let quoted = find(text, quote);
            for token in &quoted {
                covered.insert((token.line - 1, token.column));
                if token.text.replace(',', "") != right {
                    let right = written_like(&right, &token.text);
                    found.push(Problem {
                        file: (*file).to_owned(),
                        line: Some(token.line),
                        message: format!(
                            "`{}` quotes {} for {}, which is {right}: write {right}",
                            shown(quote.pattern, &token.text),
                            token.text,
                            quote.figure.what(),
                        ),
                    });
                }
            }
            if quoted.is_empty() {
                found.push(Problem {
                    file: (*file).to_owned(),
                    line: None,
                    message: format!(
                        "no line quotes `{}` ({}); the doc was reworded: update or remove this \
                         row of the table in xtask/tests/figures.rs",
                        quote.pattern,
                        quote.figure.what()
                    ),
                });
            }
        }
        for exemption in exempt.iter().filter(|e| e.file == *file) {
            let mut seen = false;
            for (number, line) in text.lines().enumerate() {
                for (start, _) in line.match_indices(exemption.phrase) {
                    seen = true;
                    let end = start + exemption.phrase.len();
                    for column in start..end {
                        covered.insert((number, column));
                    }
                }
            }
            if !seen {
                found.push(Problem {
                    file: (*file).to_owned(),
                    line: None,
                    message: format!(
                        "the exempt phrase `{}` no longer occurs; remove it from the exemptions \
                         in xtask/tests/figures.rs",
                        exemption.phrase
                    ),
                });
            }
        }
        for (number, line) in text.lines().enumerate() {
            for token in sweep(line) {
                if !covered.contains(&(number, token.column)) {
                    found.push(Problem {
                        file: (*file).to_owned(),
                        line: Some(number + 1),
                        message: format!(
                            "`{}` quotes a figure of the suite that no row of the table in \
                             xtask/tests/figures.rs checks: add a row (file, pattern, figure), \
                             or reword the line so that it needs no number",
                            token.text
                        ),
                    });
                }
            }
        }
        found.sort_by_key(|p| p.line.unwrap_or(0));
        problems.extend(found);
    }
    problems
}

/// The pattern as a message shows it: with the quoted figure in place of a single `{}`, as it is
/// when it has several (only one of which may be wrong).
fn shown(pattern: &str, quoted: &str) -> String {
    let shown = if pattern.matches("{}").count() == 1 {
        pattern.replace("{}", quoted)
    } else {
        pattern.to_owned()
    };
    shown.trim().to_owned()
}

/// `right` with thousands commas when the doc wrote the figure with them.
fn written_like(right: &str, quoted: &str) -> String {
    if !quoted.contains(',') {
        return right.to_owned();
    }
    let digits: Vec<char> = right.chars().collect();
    let mut out = String::new();
    for (i, c) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(*c);
    }
    out
}

/// Every place `pattern` matches in `line`, each with the tokens standing for its `{}`s.
fn matches(line: &str, pattern: &str, hex: bool) -> Vec<Vec<Token>> {
    let pieces: Vec<&str> = pattern.split("{}").collect();
    let mut out = Vec::new();
    let Some((first, rest)) = pieces.split_first() else {
        return out;
    };
    for (start, _) in line.match_indices(first) {
        let mut at = start + first.len();
        let mut tokens = Vec::new();
        let mut whole = true;
        for piece in rest {
            let Some(token) = token_at(line, at, hex) else {
                whole = false;
                break;
            };
            at += token.text.len();
            tokens.push(token);
            if !line[at..].starts_with(piece) {
                whole = false;
                break;
            }
            at += piece.len();
        }
        if whole {
            out.push(tokens);
        }
    }
    out
}

/// The number (digits and thousands commas, ending in a digit) or the hex digits at `at`.
fn token_at(line: &str, at: usize, hex: bool) -> Option<Token> {
    let rest = line.get(at..)?;
    let len = if hex {
        rest.find(|c: char| !matches!(c, '0'..='9' | 'a'..='f'))
            .unwrap_or(rest.len())
    } else {
        let run = rest
            .find(|c: char| !(c.is_ascii_digit() || c == ','))
            .unwrap_or(rest.len());
        rest[..run].trim_end_matches(',').len()
    };
    let text = &rest[..len];
    if text.is_empty() || !text.starts_with(|c: char| c.is_ascii_digit() || hex) {
        return None;
    }
    Some(Token {
        column: at,
        text: text.to_owned(),
    })
}

/// The counts of the suite a line seems to quote: a number (not inside a word or another number)
/// followed by a space and one of [`COUNTED`], and the hex digits after `sha256:`.
fn sweep(line: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let starts_number = bytes[at].is_ascii_digit()
            && (at == 0
                || !(bytes[at - 1].is_ascii_alphanumeric()
                    || matches!(bytes[at - 1], b'.' | b',' | b'_' | b'-')));
        if starts_number && let Some(token) = token_at(line, at, false) {
            let after = &line[at + token.text.len()..];
            // The longest noun that follows ("input rules" before "rules").
            let counted = after.strip_prefix(' ').and_then(|words| {
                COUNTED
                    .iter()
                    .filter(|noun| {
                        words.strip_prefix(**noun).is_some_and(|tail| {
                            !tail.starts_with(|c: char| c.is_ascii_alphanumeric())
                        })
                    })
                    .max_by_key(|noun| noun.len())
            });
            at += token.text.len();
            if let Some(noun) = counted {
                out.push(Token {
                    column: token.column,
                    text: format!("{} {noun}", token.text),
                });
            }
            continue;
        }
        at += 1;
    }
    for (start, prefix) in line.match_indices("sha256:") {
        if let Some(token) = token_at(line, start + prefix.len(), true) {
            out.push(Token {
                column: token.column,
                text: format!("sha256:{}", token.text),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> Figures {
        Figures {
            vectors: 2546,
            scenarios: 533,
            vector_files: 91,
            scenario_files: 14,
            doc_vectors: 125,
            builtin_files: 111,
            digest: "e6335f2cfaec".to_owned(),
            inventory_rules: 774,
            input_rules: 716,
            exec_rules: 58,
            rows: 817,
            exec_rows: 95,
            pages: 24,
            workflows: 3,
            checks: 9,
            description_bytes: 8794,
            schema_bytes: 22572,
        }
    }

    fn quote(pattern: &'static str, figure: Figure) -> Quote {
        Quote {
            file: "doc.md",
            pattern,
            figure,
        }
    }

    fn problems(text: &str, quotes: &[Quote], exempt: &[Exempt]) -> Vec<String> {
        check(&[("doc.md", text)], quotes, exempt, &figures())
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_right_figure_passes_with_or_without_thousands_commas() {
        let quotes = [quote("has {} vectors", Figure::Vectors)];
        assert!(problems("The suite has 2546 vectors.", &quotes, &[]).is_empty());
        assert!(problems("The suite has 2,546 vectors.", &quotes, &[]).is_empty());
    }

    #[test]
    fn a_wrong_figure_is_named_with_its_line_and_the_right_value_in_the_docs_style() {
        let quotes = [quote("has {} vectors", Figure::Vectors)];
        assert_eq!(
            problems("Intro.\nThe suite has 2,425 vectors.\n", &quotes, &[]),
            [
                "doc.md:2: `has 2,425 vectors` quotes 2,425 for the number of vectors, which is \
              2,546: write 2,546"
            ]
        );
    }

    #[test]
    fn every_placeholder_of_a_pattern_is_checked() {
        let quotes = [quote("effect {}/{}", Figure::Scenarios)];
        assert!(problems("effect 533/533", &quotes, &[]).is_empty());
        let found = problems("effect 533/525", &quotes, &[]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("quotes 525 for the number of scenarios"),
            "{found:?}"
        );
    }

    #[test]
    fn a_digest_is_read_as_hex_digits() {
        let quotes = [quote("vectors sha256:{})", Figure::Digest)];
        assert!(problems("(vectors sha256:e6335f2cfaec)", &quotes, &[]).is_empty());
        assert_eq!(
            problems("(vectors sha256:67705332727f)", &quotes, &[]),
            [
                "doc.md:1: `vectors sha256:67705332727f)` quotes 67705332727f for the built-in \
              set's digest (`conform --version`), which is e6335f2cfaec: write e6335f2cfaec"
            ]
        );
    }

    #[test]
    fn a_row_that_matches_no_line_is_stale() {
        let quotes = [quote("has {} vectors", Figure::Vectors)];
        let found = problems("The suite has many vectors.", &quotes, &[]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("doc.md: no line quotes `has {} vectors`"),
            "{found:?}"
        );
    }

    #[test]
    fn a_count_no_row_checks_is_reported() {
        let found = problems("It holds 525 scenarios and 3 workflows.", &[], &[]);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].starts_with("doc.md:1: `525 scenarios` quotes a figure of the suite"),
            "{found:?}"
        );
        assert!(
            found[1].starts_with("doc.md:1: `3 workflows` quotes"),
            "{found:?}"
        );
    }

    #[test]
    fn an_exempt_phrase_covers_its_counts_and_must_occur() {
        let exempt = [Exempt {
            file: "doc.md",
            phrase: "then 2,546 vectors",
            why: "a measurement",
        }];
        assert!(problems("measured with then 2,546 vectors", &[], &exempt).is_empty());
        let found = problems("measured", &[], &exempt);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("no longer occurs"), "{found:?}");
    }

    #[test]
    fn numbers_inside_words_versions_and_other_nouns_are_not_counts() {
        let found = problems(
            "sha2 0.11 vectors, v2 rules, 1.6.0 rules, 3 mutants, 24 pagesx",
            &[],
            &[],
        );
        assert!(found.is_empty(), "{found:?}");
    }
}
