//! Where a row's change can be switched: the smallest expression, statement or block around it
//! whose mutated text is again such a node, then the statements and blocks around that, to fall
//! back to when the compiler refuses a smaller one.

use std::ops::Range;

use super::change::Change;
use super::syntax::{self, Kind, Node};

/// A switchable place of a mutant in its file: the byte range of the original node, and the
/// node's text with and without the mutation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Start of the node in the original file.
    pub start: usize,
    /// End of the node in the original file.
    pub end: usize,
    /// The node's original text.
    pub original: String,
    /// The node's text with the row applied.
    pub mutated: String,
}

/// A Rust file read once, for the regions of every row changing it.
#[derive(Clone, Debug)]
pub struct Source {
    text: String,
    nodes: Vec<Node>,
}

impl Source {
    /// The file's text read as Rust, or `None` when `syn` cannot read it (nothing is switched in
    /// it then).
    pub fn parse(text: String) -> Option<Source> {
        let nodes = syntax::nodes(&text)?;
        Some(Source { text, nodes })
    }

    /// The regions of the change of `find` (which occurs in the file) into `replace`, smallest
    /// first; empty when no node around it can be switched.
    pub fn regions(&self, find: &str, replace: &str) -> Vec<Region> {
        let text = &self.text;
        let Some(exact) = Change::of(text, find, replace) else {
            return Vec::new();
        };
        // The mutated text is read again only within the smallest block around the change
        // (inside its braces): a block is closed by them, so what lies outside parses as before.
        let Some(block) = self
            .nodes
            .iter()
            .filter(|n| {
                matches!(n.kind, Kind::Block | Kind::Group)
                    && n.range.start < exact.range.start
                    && exact.range.end < n.range.end
            })
            .min_by_key(|n| n.range.len())
        else {
            return Vec::new();
        };
        // Without the whitespace at its ends, the change fits inside the nodes it touches; that
        // whitespace means nothing when the block's tokens are the same either way.
        let trimmed = exact.trimmed(text);
        let change = if tokens(&splice(text, &block.range, &trimmed))
            == tokens(&splice(text, &block.range, &exact))
        {
            trimmed
        } else {
            exact
        };
        let block_start = block.range.start;
        let mutated_block = splice(text, &block.range, &change);
        let mutated_nodes = match block.kind {
            Kind::Group => syntax::group_nodes(&mutated_block),
            Kind::Block | Kind::Expr | Kind::Stmt => syntax::block_nodes(&mutated_block),
        };
        let Some(mutated_nodes) = mutated_nodes else {
            return Vec::new();
        };
        let mutated_nodes: Vec<Node> = mutated_nodes
            .into_iter()
            .map(|n| Node {
                range: n.range.start + block_start..n.range.end + block_start,
                ..n
            })
            .collect();
        let mut around: Vec<&Node> = self
            .nodes
            .iter()
            .filter(|n| n.switchable && contains(&n.range, &change.range))
            .collect();
        around.sort_by_key(|n| (n.range.len(), n.kind));
        let mut regions: Vec<Region> = Vec::new();
        for node in around {
            let larger = regions
                .last()
                .is_none_or(|r| r.end - r.start < node.range.len());
            // After the smallest region, only statements and blocks: a larger expression
            // rarely mends what the compiler refused in a smaller one.
            let wanted = regions.is_empty() || (larger && node.kind != Kind::Expr);
            if !wanted {
                continue;
            }
            let mutated = splice(text, &node.range, &change);
            let lead = mutated.len() - mutated.trim_start().len();
            let trimmed = mutated.trim();
            let at = node.range.start + lead;
            let is_node = match node.kind {
                // Around the block, the mutated file is the same nodes.
                _ if contains(&node.range, &block.range) => true,
                Kind::Stmt if trimmed.is_empty() => true,
                Kind::Stmt => {
                    let end = at + trimmed.len();
                    mutated_nodes
                        .iter()
                        .any(|n| n.kind == Kind::Stmt && n.range.start == at)
                        && mutated_nodes
                            .iter()
                            .any(|n| n.kind == Kind::Stmt && n.range.end == end)
                }
                Kind::Expr | Kind::Block | Kind::Group => mutated_nodes
                    .iter()
                    .any(|n| n.kind == node.kind && n.range == (at..at + trimmed.len())),
            };
            if is_node {
                regions.push(Region {
                    start: node.range.start,
                    end: node.range.end,
                    original: text[node.range.clone()].to_owned(),
                    mutated: trimmed.to_owned(),
                });
            }
        }
        regions
    }
}

/// The text of `range` of the file with `change` made (`range` holds it).
fn splice(text: &str, range: &Range<usize>, change: &Change<'_>) -> String {
    format!(
        "{}{}{}",
        &text[range.start..change.range.start],
        change.middle,
        &text[change.range.end..range.end]
    )
}

/// A text's tokens, as `proc_macro2` prints them (whitespace between tokens does not count).
fn tokens(text: &str) -> Option<String> {
    text.parse::<proc_macro2::TokenStream>()
        .ok()
        .map(|t| t.to_string())
}

/// Whether `outer` holds `inner` (an empty `inner` at either end included).
fn contains(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The regions of a row in `file`, as (original, mutated) texts.
    fn regions(file: &str, find: &str, replace: &str) -> Vec<(String, String)> {
        Source::parse(file.to_owned())
            .expect("Rust")
            .regions(find, replace)
            .into_iter()
            .map(|r| (r.original, r.mutated))
            .collect()
    }

    fn first(file: &str, find: &str, replace: &str) -> Option<(String, String)> {
        regions(file, find, replace).into_iter().next()
    }

    fn pair(original: &str, mutated: &str) -> Option<(String, String)> {
        Some((original.to_owned(), mutated.to_owned()))
    }

    #[test]
    fn a_change_that_binds_to_its_neighbours_takes_them_along() {
        // `a * b + c` is `(a * b) + c`: switching `b` alone would make it `a * (b + c)`.
        let file = "fn f(a: u8, b: u8, c: u8) -> u8 {\n    a * b\n}\n";
        assert_eq!(
            first(file, "a * b\n", "a * b + c\n"),
            pair("a * b", "a * b + c")
        );
        assert_eq!(first(file, "a * b", "a * c"), pair("b", "c"));
    }

    #[test]
    fn constant_contexts_have_no_region() {
        for file in [
            "const MAX: usize = 40;\n",
            "static NAMES: [&str; 2] = [\"a\", \"b\"];\n",
            "const fn f() -> usize { 40 }\n",
            "fn f() -> [u8; 40] { [0; 40] }\n",
            "enum E { A = 40 }\n",
        ] {
            assert_eq!(first(file, "40", "41"), None, "{file}");
        }
        // A constant of a function's body changes with the whole body.
        let file = "fn f() { const MAX: usize = 40; }\n";
        assert_eq!(
            first(file, "40", "41"),
            pair("{ const MAX: usize = 40; }", "{ const MAX: usize = 41; }")
        );
    }

    #[test]
    fn a_place_is_not_switched_where_it_is_assigned_borrowed_or_used_in_place() {
        let file = "fn f(v: &mut Vec<u8>, w: &mut Vec<u8>) {\n    v[0] = 3;\n    v.push(1);\n    let r = &mut v;\n}\n";
        assert_eq!(
            first(file, "v[0] = 3;", "w[0] = 3;"),
            pair("v[0] = 3", "w[0] = 3")
        );
        assert_eq!(
            first(file, "v.push(1)", "w.push(1)"),
            pair("v.push(1)", "w.push(1)")
        );
        assert_eq!(first(file, "&mut v", "&mut w"), pair("&mut v", "&mut w"));
    }

    #[test]
    fn the_head_of_a_statement_is_not_switched_alone() {
        // `{ .. }.g();` would end the statement after the block.
        let file = "fn f() {\n    a().g();\n}\n";
        assert_eq!(
            first(file, "a().g()", "b().g()"),
            pair("a().g()", "b().g()")
        );
        let file = "fn f() -> u8 {\n    let x = a().g();\n    x\n}\n";
        assert_eq!(first(file, "a().g()", "b().g()"), pair("a", "b"));
    }

    #[test]
    fn a_condition_that_binds_names_is_switched_with_its_body() {
        let file = "fn f(a: Option<u8>, b: Option<u8>) {\n    if let Some(x) = a && x > 1 {\n        g(x);\n    }\n}\n";
        let (original, mutated) = first(file, "= a &&", "= b &&").expect("a region");
        assert!(
            original.starts_with("if let Some(x) = a") && original.ends_with('}'),
            "{original}"
        );
        assert!(mutated.starts_with("if let Some(x) = b"), "{mutated}");
    }

    #[test]
    fn a_shorthand_field_is_switched_with_its_struct() {
        let file = "fn f(x: u8) -> S {\n    S { x }\n}\n";
        assert_eq!(
            first(file, "S { x }", "S { x: 0 }"),
            pair("S { x }", "S { x: 0 }")
        );
    }

    #[test]
    fn larger_regions_are_statements_and_blocks_around_the_smallest() {
        let file = "fn f(n: u8) -> u8 {\n    if n > 1 {\n        g(n + 1);\n    }\n    n\n}\n";
        let all = regions(file, "n + 1", "n + 2");
        let originals: Vec<&str> = all.iter().map(|(o, _)| o.as_str()).collect();
        assert_eq!(originals[0], "1");
        assert_eq!(originals[1], "g(n + 1);");
        assert!(
            originals[2].starts_with("{\n        g(n + 1);"),
            "{originals:?}"
        );
        assert!(originals[3].starts_with("if n > 1 {"), "{originals:?}");
        assert!(
            originals
                .last()
                .is_some_and(|o| o.starts_with("{\n    if n > 1")),
            "{originals:?}"
        );
    }

    #[test]
    fn whitespace_inside_a_literal_is_part_of_the_change() {
        let file = "fn f() -> &'static str {\n    \"a  b\"\n}\n";
        assert_eq!(first(file, "a  b", "a b"), pair("\"a  b\"", "\"a b\""));
    }

    #[test]
    fn an_insertion_never_joins_tokens() {
        // Moved left over the space after `let`, the inserted `n` would make `letn`.
        let file = "fn f(n: u8, k: u8) -> u8 {\n    let m = n;\n    m\n}\n";
        let all = regions(
            file,
            "    let m = n;\n",
            "    let n = (n + 1).min(k);\n    let m = n;\n",
        );
        let (original, mutated) = all.first().expect("a region");
        assert!(original.starts_with("{\n    let m = n;"), "{original}");
        assert!(
            mutated.contains("let n = (n + 1).min(k);\n    let m = n;"),
            "{mutated}"
        );
        // An inserted line keeps to the token before it (and `a && b && false` is
        // `(a && b) && false`).
        let file = "fn f(a: bool, b: bool) -> bool {\n    a\n        && b\n}\n";
        assert_eq!(
            first(file, "        && b\n", "        && b\n        && false\n"),
            pair("a\n        && b", "a\n        && b        && false")
        );
    }

    #[test]
    fn expressions_inside_macro_tokens_are_switched() {
        // As `rules!` declares requirements: `NAME: Type = value;` in a group of its own.
        let file = "rules! {\n    fn names {\n        REQ: Requirements = Requirements(&[\n            (\"a\", Present(\"x\")),\n            (\"b\", Present(\"y\")),\n        ]);\n    }\n}\n";
        let (original, mutated) =
            first(file, "            (\"a\", Present(\"x\")),\n", "").expect("a region");
        assert!(
            original.starts_with("&[") && original.ends_with(']'),
            "{original}"
        );
        assert!(
            mutated.starts_with("&[") && !mutated.contains("\"a\""),
            "{mutated}"
        );
        let file = "fn f(a: u8) -> String {\n    format!(\"{}-\", a + 1)\n}\n";
        assert_eq!(first(file, "a + 1", "a + 2"), pair("1", "2"));
        // A format string is no place for a switch, nor is a pattern.
        assert_eq!(
            first(file, "\"{}-\"", "\"{}+\""),
            pair("format!(\"{}-\", a + 1)", "format!(\"{}+\", a + 1)")
        );
        let file = "fn f(o: Op) -> bool {\n    matches!(o, Op::A | Op::B)\n}\n";
        assert_eq!(
            first(file, "Op::A | Op::B", "Op::A"),
            pair("matches!(o, Op::A | Op::B)", "matches!(o, Op::A )")
        );
        let file = "macro_rules! m {\n    () => {\n        f(1)\n    };\n}\n";
        assert_eq!(first(file, "f(1)", "f(2)"), None);
    }
}
