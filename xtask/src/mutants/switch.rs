//! Mutant switching: many rows compiled into one build, each behind a run-time switch.
//!
//! Each switched mutant has a [`Region`] (a node of the syntax tree around its change, see
//! `region.rs`), which becomes `{ if on(K) { <mutated> } else { <original> } }`; the suite then
//! runs once per mutant with `VVOC_MUTANT=K`. Regions are nodes, so two of them are nested or
//! apart: mutants of the same node share one chain of switches, and a region inside another is
//! switched inside the other's original branch.

use std::ops::Range;

use super::region::Region;

/// The environment variable that selects the active mutant.
pub const ENV: &str = "VVOC_MUTANT";

/// The module injected into the mutated crate's library root: `on(K)` is true for the active
/// mutant.
pub const MODULE: &str = r#"

#[doc(hidden)]
#[allow(missing_docs, unreachable_pub, clippy::all)]
pub mod __vvoc_mutant {
    pub fn on(id: u32) -> bool {
        static ACTIVE: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
        *ACTIVE.get_or_init(|| std::env::var("VVOC_MUTANT").ok().and_then(|v| v.parse().ok()).unwrap_or(0)) == id
    }
}
"#;

/// A file with its switches, and where each landed (for blaming compiler errors).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    /// The file's text.
    pub text: String,
    /// Each mutant's mutated branch.
    pub branches: Vec<(u32, Range<usize>)>,
    /// Each chain of switches as a whole, with its mutants.
    pub chains: Vec<(Vec<u32>, Range<usize>)>,
}

impl Rendered {
    /// The mutants to blame for a compiler error at `error`: those whose mutated branch it
    /// touches, else those of the innermost chain holding it; `None` when it lies outside
    /// every switch.
    pub fn blame(&self, error: &Range<usize>) -> Option<Vec<u32>> {
        let touches =
            |r: &Range<usize>| r.start < error.end.max(error.start + 1) && error.start < r.end;
        let hits: Vec<u32> = self
            .branches
            .iter()
            .filter(|(_, r)| touches(r))
            .map(|(id, _)| *id)
            .collect();
        if !hits.is_empty() {
            return Some(hits);
        }
        self.chains
            .iter()
            .filter(|(_, r)| r.start <= error.start && error.end <= r.end)
            .min_by_key(|(_, r)| r.len())
            .map(|(ids, _)| ids.clone())
    }
}

/// `text` with every region switched. Regions must be nested or apart (the caller sets aside
/// one that overlaps another partly); mutants of exactly the same region share a chain.
pub fn render(text: &str, regions: &[(u32, &Region)]) -> Rendered {
    let mut chains: Vec<Chain<'_>> = Vec::new();
    let mut sorted: Vec<&(u32, &Region)> = regions.iter().collect();
    sorted.sort_by_key(|(id, r)| (r.start, std::cmp::Reverse(r.end), *id));
    for (id, region) in sorted {
        match chains.last_mut() {
            Some(chain) if (chain.start, chain.end) == (region.start, region.end) => {
                chain.switches.push((*id, &region.mutated));
            }
            _ => chains.push(Chain {
                start: region.start,
                end: region.end,
                switches: vec![(*id, &region.mutated)],
            }),
        }
    }
    let mut out = Rendered::default();
    render_range(text, 0..text.len(), &chains, &mut out);
    out
}

/// Mutants sharing one region, in file order (outer before inner).
struct Chain<'a> {
    start: usize,
    end: usize,
    switches: Vec<(u32, &'a str)>,
}

/// `{ if on(A) { a } else if on(B) { b } else { original } }` for each chain in `range`, the
/// chains nested in one rendered inside its original branch.
fn render_range(text: &str, range: Range<usize>, chains: &[Chain<'_>], out: &mut Rendered) {
    let mut at = range.start;
    let mut i = 0;
    while let Some(chain) = chains.get(i) {
        let nested = chains[i + 1..]
            .iter()
            .take_while(|c| c.start < chain.end)
            .count();
        out.text.push_str(&text[at..chain.start]);
        let chain_start = out.text.len();
        out.text.push_str("{ ");
        for (id, mutated) in &chain.switches {
            out.text
                .push_str(&format!("if crate::__vvoc_mutant::on({id}) {{ "));
            let branch = out.text.len();
            out.text.push_str(mutated);
            out.branches.push((*id, branch..out.text.len()));
            out.text.push_str(" } else ");
        }
        out.text.push_str("{ ");
        render_range(
            text,
            chain.start..chain.end,
            &chains[i + 1..i + 1 + nested],
            out,
        );
        out.text.push_str(" } }");
        let ids = chain.switches.iter().map(|(id, _)| *id).collect();
        out.chains.push((ids, chain_start..out.text.len()));
        at = chain.end;
        i += 1 + nested;
    }
    out.text.push_str(&text[at..range.end]);
}

#[cfg(test)]
mod tests {
    use super::super::region::Source;
    use super::*;

    /// The fragment with the row switched as mutant 7, or `None` when it has no region. The
    /// fragment is read inside a function, as statements or as the elements of an array.
    fn wrapped(text: &str, find: &str, replace: &str) -> Option<String> {
        let (source, head, tail) = parsed(text)?;
        let region = source.regions(find, replace).into_iter().next()?;
        let file = render(&format!("{head}{text}{tail}"), &[(7, &region)]).text;
        Some(file[head.len()..file.len() - tail.len()].to_owned())
    }

    fn parsed(text: &str) -> Option<(Source, &'static str, &'static str)> {
        [("fn __f() {\n", "\n}\n"), ("fn __f() { [\n", "\n]; }\n")]
            .into_iter()
            .find_map(|(head, tail)| {
                Source::parse(format!("{head}{text}{tail}")).map(|s| (s, head, tail))
            })
    }

    #[test]
    fn a_changed_number_is_switched_alone() {
        let text =
            "let r = Range { min: Some(Limit::Inclusive(1)), max: Some(Limit::Inclusive(20)) };";
        assert_eq!(
            wrapped(text, "Inclusive(20)", "Inclusive(21)").as_deref(),
            Some(
                "let r = Range { min: Some(Limit::Inclusive(1)), max: Some(Limit::Inclusive({ if crate::__vvoc_mutant::on(7) { 21 } else { 20 } })) };"
            )
        );
    }

    #[test]
    fn a_changed_token_is_switched_as_a_whole_word() {
        let text = "    field(\"count\", OPT).of(NONBLANK).describe(\"x\"),";
        let got =
            wrapped(text, "field(\"count\", OPT)", "field(\"count\", REQ)").expect("a region");
        assert!(
            got.contains(
                "field(\"count\", { if crate::__vvoc_mutant::on(7) { REQ } else { OPT } })"
            ),
            "{got}"
        );
        let got = wrapped(text, "of(NONBLANK)", "of(ID)").expect("a region");
        assert!(
            got.contains(".of({ if crate::__vvoc_mutant::on(7) { ID } else { NONBLANK } })"),
            "{got}"
        );
    }

    #[test]
    fn a_shortened_list_is_switched_as_the_whole_literal() {
        let text = "x(Node::Enum(&[\"day\", \"week\", \"year\"]));";
        let got = wrapped(text, ", \"year\"]", "]").expect("a region");
        assert_eq!(
            got,
            "x(Node::Enum({ if crate::__vvoc_mutant::on(7) { &[\"day\", \"week\"] } else { &[\"day\", \"week\", \"year\"] } }));"
        );
    }

    #[test]
    fn a_changed_condition_is_switched_alone() {
        let text = "fn f(n: f64) {\n    if n.is_infinite() {\n        g();\n    }\n}\n";
        let got = wrapped(text, "if n.is_infinite() {", "if false {").expect("a region");
        assert!(
            got.contains(
                "if { if crate::__vvoc_mutant::on(7) { false } else { n.is_infinite() } } {"
            ),
            "{got}"
        );
    }

    #[test]
    fn mutants_of_the_same_region_share_a_chain() {
        let text = "f(ID);";
        let (source, head, tail) = parsed(text).expect("Rust");
        let a = source.regions("f(ID)", "f(NONBLANK)").remove(0);
        let b = source.regions("f(ID)", "f(RAW)").remove(0);
        let file = render(&format!("{head}{text}{tail}"), &[(1, &a), (2, &b)]).text;
        assert_eq!(
            &file[head.len()..file.len() - tail.len()],
            "f({ if crate::__vvoc_mutant::on(1) { NONBLANK } else if crate::__vvoc_mutant::on(2) { RAW } else { ID } });"
        );
    }

    #[test]
    fn an_appended_list_element_is_switched_as_the_whole_list() {
        let text = "MatrixRow { value: \"start\", consumes: &[\"runId\", \"reviewer\"] },";
        let got = wrapped(text, "\"reviewer\"]", "\"reviewer\", \"planPath\"]").expect("a region");
        assert!(got.contains("consumes: { if crate::__vvoc_mutant::on(7) { &[\"runId\", \"reviewer\", \"planPath\"] } else { &[\"runId\", \"reviewer\"] } } },"), "{got}");
    }

    #[test]
    fn a_replaced_enum_is_switched_as_the_whole_node() {
        let text = "    field(\"mode\", REQ).of(Node::Enum(&[\"a\", \"b\"])).describe(\"m\"),";
        let got = wrapped(
            text,
            "of(Node::Enum(&[\"a\", \"b\"]))",
            "of(Node::String(StringKind::Raw))",
        )
        .expect("a region");
        assert!(got.contains(".of({ if crate::__vvoc_mutant::on(7) { Node::String(StringKind::Raw) } else { Node::Enum(&[\"a\", \"b\"]) } })"), "{got}");
    }

    #[test]
    fn a_call_in_a_match_arm_is_switched_as_the_call() {
        let text = "match a {\n    A::S => require(X, input, \"c\", out),\n    A::T => {}\n}";
        let got = wrapped(text, "require(X, input, \"c\", out)", "()").expect("a region");
        assert!(
            got.contains("A::S => { if crate::__vvoc_mutant::on(7) { () } else { require(X, input, \"c\", out) } },"),
            "{got}"
        );
    }

    #[test]
    fn a_deleted_statement_is_switched_as_a_statement() {
        let text = "fn f() {\n    a();\n    out.branch(X, y);\n    b();\n}\n";
        let got = wrapped(text, "    out.branch(X, y);\n", "").expect("a region");
        assert!(
            got.contains("{ if crate::__vvoc_mutant::on(7) {  } else { out.branch(X, y); } }"),
            "{got}"
        );
    }

    #[test]
    fn a_changed_string_is_switched_as_the_whole_string() {
        let text = "let m = String::from(\"must be >= 1\");";
        let got = wrapped(text, ">= 1", ">= 2").expect("a region");
        assert!(
            got.contains(
                "String::from({ if crate::__vvoc_mutant::on(7) { \"must be >= 2\" } else { \"must be >= 1\" } })"
            ),
            "{got}"
        );
    }

    #[test]
    fn a_region_inside_another_is_switched_in_its_original_branch() {
        let region = |start: usize, end: usize, mutated: &str| Region {
            start,
            end,
            original: String::new(),
            mutated: mutated.to_owned(),
        };
        let text = "f(g(1), 2);";
        let outer = region(0, 10, "f(g(1), 3)");
        let inner = region(4, 5, "7");
        let rendered = render(text, &[(1, &outer), (2, &inner)]);
        assert_eq!(
            rendered.text,
            "{ if crate::__vvoc_mutant::on(1) { f(g(1), 3) } else { f(g({ if crate::__vvoc_mutant::on(2) { 7 } else { 1 } }), 2) } };"
        );
        let at = |needle: &str| {
            let start = rendered.text.find(needle).expect("in the text");
            start..start + needle.len()
        };
        assert_eq!(rendered.blame(&at("f(g(1), 3)")), Some(vec![1]));
        assert_eq!(rendered.blame(&at("7")), Some(vec![2]));
        assert_eq!(
            rendered.blame(&at("{ 1 }")),
            Some(vec![2]),
            "the innermost chain"
        );
        assert_eq!(rendered.blame(&at(", 2)")), Some(vec![1]));
        assert_eq!(
            rendered.blame(&(rendered.text.len() - 1..rendered.text.len())),
            None
        );
    }
}
