//! Mutant switching: many rows compiled into one build, each behind a run-time switch.
//!
//! A row's change is narrowed to the smallest Rust expression (or statement) that contains it,
//! and that region becomes `{ if on(K) { <mutated> } else { <original> } }`. The suite then runs
//! once per mutant with `VVOC_MUTANT=K`. Regions are found by a small lexical heuristic; a row
//! whose region is not an expression simply fails to compile, is dropped from the switched
//! build, and is rebuilt on its own instead.

/// The environment variable that selects the active mutant.
pub const ENV: &str = "VVOC_MUTANT";

/// The module injected into the mutated crate's `lib.rs`: `on(K)` is true for the active mutant.
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

/// Where a switched mutant sits in its file: the byte range of the original region, and the
/// region's text with and without the mutation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Start of the region in the original file.
    pub start: usize,
    /// End of the region in the original file.
    pub end: usize,
    /// The region's original text.
    pub original: String,
    /// The region's text with the row applied.
    pub mutated: String,
}

/// The region of a row's change in `text`, where `find` occurs once; `None` when no region
/// looks like an expression or statement.
pub fn region(text: &str, find: &str, replace: &str) -> Option<Region> {
    let at = text.find(find)?;
    let strings = string_spans(text);
    let prefix = common_prefix(find, replace);
    let suffix = common_suffix(&find[prefix..], &replace[prefix..]);
    let (mut start, mut end) = (at + prefix, at + find.len() - suffix);
    // Surrounding whitespace is not part of the change.
    while start < end && text[start..].starts_with(char::is_whitespace) {
        start += text[start..].chars().next().map_or(1, char::len_utf8);
    }
    while end > start && text[..end].ends_with(char::is_whitespace) {
        end -= text[..end].chars().next_back().map_or(1, char::len_utf8);
    }
    for _ in 0..64 {
        (start, end) = widen_to_tokens(text, &strings, start, end);
        (start, end) = balance(text, &strings, start, end);
        (start, end) = widen_to_tokens(text, &strings, start, end);
        let mutated_fits = || {
            let (changed_start, changed_end) = (at + prefix, at + find.len() - suffix);
            let head = text.get(start..changed_start).unwrap_or_default();
            let tail = text.get(changed_end..end).unwrap_or_default();
            let middle = &replace[prefix..replace.len() - suffix];
            let mutated = format!("{head}{middle}{tail}");
            balanced(&mutated) && !top_level_comma(&mutated)
        };
        if end > start
            && balanced(&text[start..end])
            && !top_level_comma(&text[start..end])
            && fits(text, start, end)
            && mutated_fits()
        {
            // The region holds the change (or, when only whitespace around it was dropped, the
            // change without that whitespace).
            let (changed_start, changed_end) = (at + prefix, at + find.len() - suffix);
            let middle = &replace[prefix..replace.len() - suffix];
            let head = text.get(start..changed_start).unwrap_or_default();
            let tail = text.get(changed_end..end).unwrap_or_default();
            let middle = if start > changed_start || end < changed_end {
                middle.trim()
            } else {
                middle
            };
            return Some(Region {
                start,
                end,
                original: text[start..end].to_owned(),
                mutated: format!("{head}{middle}{tail}"),
            });
        }
        (start, end) = enclosing_group(text, &strings, start, end)?;
    }
    None
}

/// `text` with every region wrapped in its switch. Regions must not overlap, except that
/// mutants of exactly the same region share one chain of switches.
pub fn apply(text: &str, regions: &[(u32, &Region)]) -> String {
    let mut out = text.to_owned();
    for (start, end, switches) in chains(regions).into_iter().rev() {
        out.replace_range(start..end, &wrap(&text[start..end], &switches));
    }
    out
}

/// Mutants sharing one range of a file: the range, and each mutant's id with its mutated text.
pub type Chain = (usize, usize, Vec<(u32, String)>);

/// The regions grouped by exact range, in file order.
pub fn chains(regions: &[(u32, &Region)]) -> Vec<Chain> {
    let mut grouped: std::collections::BTreeMap<(usize, usize), Vec<(u32, String)>> =
        std::collections::BTreeMap::new();
    for (id, r) in regions {
        grouped
            .entry((r.start, r.end))
            .or_default()
            .push((*id, r.mutated.clone()));
    }
    grouped
        .into_iter()
        .map(|((start, end), switches)| (start, end, switches))
        .collect()
}

/// `{ if on(A) { a } else if on(B) { b } else { original } }`.
pub fn wrap(original: &str, switches: &[(u32, String)]) -> String {
    let mut out = String::from("{ ");
    for (id, mutated) in switches {
        out.push_str(&format!(
            "if crate::__vvoc_mutant::on({id}) {{ {mutated} }} else "
        ));
    }
    out.push_str(&format!("{{ {original} }} }}"));
    out
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i)
}

fn common_suffix(a: &str, b: &str) -> usize {
    let n = a
        .chars()
        .rev()
        .zip(b.chars().rev())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum::<usize>();
    n.min(a.len()).min(b.len())
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Widens a range to whole words, `::` paths, string literals, a call's arguments and a
/// leading `&`.
fn widen_to_tokens(
    text: &str,
    strings: &[(usize, usize)],
    mut start: usize,
    mut end: usize,
) -> (usize, usize) {
    loop {
        let before = (start, end);
        for &(s, e) in strings {
            if (s < start && start < e) || (s < end && end < e) {
                start = start.min(s);
                end = end.max(e);
            }
        }
        while let Some(c) = text[..start].chars().next_back() {
            if is_word(c) {
                start -= c.len_utf8();
            } else if text[..start].ends_with("::") {
                start -= 2;
            } else {
                break;
            }
        }
        while let Some(c) = text[end..].chars().next() {
            if is_word(c) {
                end += c.len_utf8();
            } else if text[end..].starts_with("::") {
                end += 2;
            } else {
                break;
            }
        }
        // A call or macro: take its arguments along (`Node::array(...)`, `vec![...]`).
        if end > start {
            let rest = &text[end..];
            let open = if rest.starts_with("![") || rest.starts_with("!(") {
                Some(end + 1)
            } else if rest.starts_with('(') || rest.starts_with('[') {
                Some(end)
            } else {
                None
            };
            if let Some(open) =
                open.filter(|_| text[..end].chars().next_back().is_some_and(is_word))
            {
                if let Some(close) = matching(text, strings, open) {
                    end = close + 1;
                }
            }
        }
        if text[..start].ends_with('&') {
            start -= 1;
        }
        if (start, end) == before {
            return (start, end);
        }
    }
}

/// The smallest range around `start..end` whose brackets are balanced: an opener inside takes
/// its closer along, a closer inside takes its opener along.
fn balance(
    text: &str,
    strings: &[(usize, usize)],
    mut start: usize,
    mut end: usize,
) -> (usize, usize) {
    let in_string = |i: usize| strings.iter().any(|&(s, e)| s <= i && i < e);
    loop {
        let mut open: Vec<usize> = Vec::new();
        let mut stray_close = None;
        for (i, c) in text[start..end].char_indices() {
            let i = i + start;
            if in_string(i) {
                continue;
            }
            match c {
                '(' | '[' | '{' => open.push(i),
                ')' | ']' | '}' => {
                    let unmatched = open.pop().is_none();
                    if unmatched {
                        stray_close = stray_close.or(Some(i));
                    }
                }
                _ => {}
            }
        }
        if let Some(close) = open.first().and_then(|&o| matching(text, strings, o)) {
            end = end.max(close + 1);
            continue;
        }
        if let Some(close) = stray_close {
            // The opener of a stray closer lies before the range.
            match (0..start).rev().find(|&o| {
                !in_string(o)
                    && matches!(text.as_bytes()[o], b'(' | b'[' | b'{')
                    && matching(text, strings, o) == Some(close)
            }) {
                Some(o) => {
                    start = o;
                    continue;
                }
                None => return (start, end),
            }
        }
        return (start, end);
    }
}

/// Whether the region sits where an expression or a statement may stand.
fn fits(text: &str, start: usize, end: usize) -> bool {
    let prev = text[..start].trim_end().chars().next_back();
    let next = text[end..].trim_start().chars().next();
    let region = text[start..end].trim_end();
    let statement =
        (region.ends_with(';') || region.ends_with('}')) && matches!(prev, Some(';' | '{' | '}'));
    let before = text[..start].trim_end();
    let keyword = before
        .rsplit(|c: char| !is_word(c))
        .next()
        .unwrap_or_default();
    // After `if`, `while` or `match` an expression may also be followed by its block (or, for a
    // match guard, by `=>`).
    let condition = matches!(keyword, "if" | "while" | "match") && matches!(next, Some('{' | '='));
    let expression = (matches!(prev, Some('(' | '[' | '{' | ',' | '=' | ':' | '>'))
        || matches!(keyword, "return" | "in"))
        && !before.ends_with("::")
        && !before.ends_with("->")
        && matches!(next, Some(')' | ']' | '}' | ',' | ';' | '.'));
    statement || expression || condition
}

/// Whether a text has a comma outside brackets and strings (a list, not one expression).
fn top_level_comma(region: &str) -> bool {
    outside_strings(region).any(|(depth, c)| c == ',' && depth == 0)
}

/// Whether every bracket of a text outside its strings is closed, and never closed too early.
fn balanced(region: &str) -> bool {
    let mut last = 0;
    for (depth, _) in outside_strings(region) {
        if depth < 0 {
            return false;
        }
        last = depth;
    }
    last == 0 && !ends_in_a_string(region)
}

/// The characters of a text outside string literals, each with the bracket depth after it.
fn outside_strings(region: &str) -> impl Iterator<Item = (i32, char)> + '_ {
    let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
    region.chars().filter_map(move |c| {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            return None;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        Some((depth, c))
    })
}

/// Whether a text ends inside a string literal.
fn ends_in_a_string(region: &str) -> bool {
    let (mut in_string, mut escaped) = (false, false);
    for c in region.chars() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (_, false, '"') => in_string = !in_string,
            _ => {}
        }
    }
    in_string
}

/// The innermost bracket group strictly around the range, brackets included.
fn enclosing_group(
    text: &str,
    strings: &[(usize, usize)],
    start: usize,
    end: usize,
) -> Option<(usize, usize)> {
    let in_string = |i: usize| strings.iter().any(|&(s, e)| s <= i && i < e);
    let mut depth = 0i32;
    let mut open = None;
    for (i, c) in text[..start].char_indices().rev() {
        if in_string(i) {
            continue;
        }
        match c {
            ')' | ']' | '}' => depth += 1,
            '(' | '[' | '{' if depth == 0 => {
                open = Some(i);
                break;
            }
            '(' | '[' | '{' => depth -= 1,
            _ => {}
        }
    }
    let open = open?;
    let close = matching(text, strings, open)?;
    (close >= end.saturating_sub(1)).then_some((open, close + 1))
}

/// The index of the bracket closing the one at `open`.
fn matching(text: &str, strings: &[(usize, usize)], open: usize) -> Option<usize> {
    let in_string = |i: usize| strings.iter().any(|&(s, e)| s <= i && i < e);
    let mut depth = 0i32;
    for (i, c) in text[open..].char_indices() {
        let i = i + open;
        if in_string(i) {
            continue;
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The byte ranges of the string literals of a Rust file (quotes included), comments skipped.
fn string_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'\''
                if bytes.get(i + 2) == Some(&b'\'')
                    || (bytes.get(i + 1) == Some(&b'\\') && bytes.get(i + 3) == Some(&b'\'')) =>
            {
                // A character literal such as 'x' or '\n' (a lifetime has no closing quote).
                i += if bytes[i + 1] == b'\\' { 4 } else { 3 };
                continue;
            }
            b'r' if bytes.get(i + 1) == Some(&b'#')
                || (bytes.get(i + 1) == Some(&b'"')
                    && (i == 0 || !is_word(bytes[i - 1] as char))) =>
            {
                let start = i;
                let mut hashes = 0;
                i += 1;
                while bytes.get(i) == Some(&b'#') {
                    hashes += 1;
                    i += 1;
                }
                if bytes.get(i) != Some(&b'"') {
                    continue;
                }
                let closing = format!("\"{}", "#".repeat(hashes));
                match text[i + 1..].find(&closing) {
                    Some(n) => {
                        i = i + 1 + n + closing.len();
                        spans.push((start, i));
                    }
                    None => return spans,
                }
                continue;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                spans.push((start, i.min(bytes.len())));
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrapped(text: &str, find: &str, replace: &str) -> Option<String> {
        region(text, find, replace).map(|r| apply(text, &[(7, &r)]))
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
        let a = region(text, "f(ID)", "f(NONBLANK)").expect("a region");
        let b = region(text, "f(ID)", "f(RAW)").expect("a region");
        assert_eq!(
            apply(text, &[(1, &a), (2, &b)]),
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
}
