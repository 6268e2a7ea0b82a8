//! The issue lines of a rule on the rules page: messages and expected strings of the vectors,
//! grouped by code and path, written as templates where they differ.

use std::fmt::Write as _;

use vvoc_reference::RuleId;

use super::Seen;

/// The issue lines of one rule: one per code and path (the path only for a branch rule, since a
/// structural rule's id holds its pattern), with the messages and expected strings as templates.
pub(super) fn message_lines(rule: &RuleId, seen: &[Seen]) -> Vec<String> {
    let branch = matches!(rule, RuleId::Branch { .. });
    let mut groups: Vec<((String, String), Vec<&Seen>)> = Vec::new();
    for issue in seen {
        let key = (
            issue.0.clone(),
            if branch {
                issue.1.clone()
            } else {
                String::new()
            },
        );
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(issue),
            None => groups.push((key, vec![issue])),
        }
    }
    groups
        .into_iter()
        .map(|((code, path), issues)| {
            let messages: Vec<&str> = issues.iter().map(|i| i.2.as_str()).collect();
            let expected: Vec<&str> = issues.iter().filter_map(|i| i.3.as_deref()).collect();
            let at = if path.is_empty() {
                String::new()
            } else {
                format!(" at {}", code_span(&path))
            };
            let mut line = format!("`{code}`{at}: {}", texts(&messages));
            if !expected.is_empty() {
                let _ = write!(line, " (expected {})", texts(&expected));
            }
            line
        })
        .collect()
}

/// How many distinct texts an issue line shows when they share too little for a template.
const TEXTS_SHOWN: usize = 3;

/// A few texts as they are; more as one template when they share at least half of the shortest,
/// else the first few.
fn texts(list: &[&str]) -> String {
    let mut distinct: Vec<&str> = Vec::new();
    for text in list {
        if !distinct.contains(text) {
            distinct.push(text);
        }
    }
    let shared = template(&distinct);
    let fixed = shared.chars().count().saturating_sub(HOLE.chars().count());
    let shortest = distinct
        .iter()
        .map(|t| t.chars().count())
        .min()
        .unwrap_or(0);
    if distinct.len() > TEXTS_SHOWN && 2 * fixed >= shortest {
        return code_span(&shared);
    }
    let shown: Vec<String> = distinct
        .iter()
        .take(TEXTS_SHOWN)
        .map(|t| code_span(t))
        .collect();
    match distinct.len().saturating_sub(TEXTS_SHOWN) {
        0 => shown.join(", "),
        more => format!("{}, and {more} more", shown.join(", ")),
    }
}

/// What marks the part of a template that differs between texts.
const HOLE: &str = "<…>";

/// What the texts share, with the part that differs between them written `<…>`; the cut falls
/// on a word boundary, so `received number` and `received null` give `received <…>`.
fn template(texts: &[&str]) -> String {
    let mut distinct: Vec<&str> = Vec::new();
    for text in texts {
        if !distinct.contains(text) {
            distinct.push(text);
        }
    }
    let [first, others @ ..] = distinct.as_slice() else {
        return String::new();
    };
    if others.is_empty() {
        return (*first).to_owned();
    }
    let chars: Vec<Vec<char>> = distinct.iter().map(|t| t.chars().collect()).collect();
    let shortest = chars.iter().map(Vec::len).min().unwrap_or(0);
    let same_at = |pick: &dyn Fn(&Vec<char>) -> Option<char>| {
        let first = chars.first().and_then(pick);
        chars.iter().all(|c| pick(c) == first)
    };
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let reference = chars.first().cloned().unwrap_or_default();
    let mut prefix = 0;
    while prefix < shortest && same_at(&|c: &Vec<char>| c.get(prefix).copied()) {
        prefix += 1;
    }
    while prefix > 0 && reference.get(prefix - 1).copied().is_some_and(word) {
        prefix -= 1;
    }
    let mut suffix = 0;
    while suffix < shortest - prefix
        && same_at(&|c: &Vec<char>| c.get(c.len() - 1 - suffix).copied())
    {
        suffix += 1;
    }
    while suffix > 0
        && reference
            .get(reference.len() - suffix)
            .copied()
            .is_some_and(word)
    {
        suffix -= 1;
    }
    let head: String = reference[..prefix].iter().collect();
    let tail: String = reference[reference.len() - suffix..].iter().collect();
    format!("{head}{HOLE}{tail}")
}

/// Text as a Markdown code span that survives backquotes, line breaks and table pipes.
pub(super) fn code_span(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| match c {
            '\n' => '⏎',
            c if c.is_control() => '�',
            c => c,
        })
        .collect();
    let mut fence = "`".to_owned();
    while flat.contains(fence.as_str()) {
        fence.push('`');
    }
    let pad = if flat.starts_with('`') || flat.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{flat}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::{code_span, template};

    #[test]
    fn templates_cut_on_word_boundaries() {
        assert_eq!(
            template(&[
                "Invalid input: expected string, received number",
                "Invalid input: expected string, received null",
            ]),
            "Invalid input: expected string, received <…>"
        );
        assert_eq!(
            template(&["unrecognized key \"typo\"", "unrecognized key \"x\""]),
            "unrecognized key \"<…>\""
        );
        assert_eq!(template(&["same", "same"]), "same");
        assert_eq!(template(&["a b", "c d"]), "<…>");
    }

    #[test]
    fn spans_take_their_backquotes() {
        assert_eq!(code_span("a `b` c"), "``a `b` c``");
        assert_eq!(code_span("x\ny"), "`x⏎y`");
    }
}
