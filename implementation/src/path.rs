//! Issue paths: a chain of segments on the stack, rendered only when an issue is kept (§1.4).

use std::fmt::Write as _;

use crate::issue::MAX_PATH;
use crate::js_string::JsString;
use crate::text::{push_path_name, truncate};

/// A path into the input: a member name, an array index, or a union branch (invisible in issues).
#[derive(Clone, Copy, Debug)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Option<Seg<'a>>,
}

#[derive(Clone, Copy, Debug)]
enum Seg<'a> {
    Field(&'a str),
    Key(&'a [u16]),
    Index(usize),
    Branch(usize),
}

impl<'a> Path<'a> {
    /// The whole input.
    pub const ROOT: Path<'static> = Path {
        parent: None,
        seg: None,
    };

    /// The declared member `name` of this object.
    pub fn field(&'a self, name: &'a str) -> Path<'a> {
        self.child(Seg::Field(name))
    }

    /// The input member `name` of this object (any name, lone surrogates included).
    pub fn key(&'a self, name: &'a JsString) -> Path<'a> {
        self.child(Seg::Key(name.units()))
    }

    /// Element `i` of this array.
    pub fn index(&'a self, i: usize) -> Path<'a> {
        self.child(Seg::Index(i))
    }

    /// Branch `i` (0-based) of this union; it shows in rule patterns, not in issue paths.
    pub fn branch(&'a self, i: usize) -> Path<'a> {
        self.child(Seg::Branch(i))
    }

    fn child(&'a self, seg: Seg<'a>) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Some(seg),
        }
    }

    /// The path as an issue writes it: escaped names, `[i]` indexes, cut at 120 units, `(root)` when empty.
    pub fn render(&self) -> JsString {
        let mut text = JsString::with_capacity(32);
        for seg in self.segments() {
            match seg {
                // Declared names are identifiers, which need no escaping and no copy.
                Seg::Field(name)
                    if name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
                {
                    if !text.is_empty() {
                        text.push('.');
                    }
                    text.push_str(name);
                }
                Seg::Field(name) => push_name(&mut text, &name.encode_utf16().collect::<Vec<_>>()),
                Seg::Key(units) => push_name(&mut text, units),
                Seg::Index(i) => {
                    // Writing to a `JsString` cannot fail.
                    let _ = write!(text, "[{i}]");
                }
                Seg::Branch(_) => continue,
            }
            if text.len() >= MAX_PATH {
                return truncate(text.units(), MAX_PATH);
            }
        }
        if text.is_empty() {
            JsString::from("(root)")
        } else {
            text
        }
    }

    /// The path as a rule pattern: indexes as `[]`, union branches as `#1`, `#2`, input keys left out.
    pub fn pattern(&self) -> String {
        let mut text = String::new();
        for seg in self.segments() {
            match seg {
                Seg::Field(name) => {
                    if !text.is_empty() {
                        text.push('.');
                    }
                    text.push_str(name);
                }
                Seg::Index(_) => text.push_str("[]"),
                Seg::Branch(i) => text.push_str(&format!("#{}", i + 1)),
                Seg::Key(_) => {}
            }
        }
        if text.is_empty() {
            "(root)".to_owned()
        } else {
            text
        }
    }

    /// The segments from the root down, found by walking up from here for each: paths are as
    /// deep as the catalog's shapes (a few levels), and an issue's path is rendered without
    /// allocating a list of them.
    fn segments(&self) -> impl Iterator<Item = Seg<'a>> + '_ {
        let depth = self.ancestors().count();
        (0..depth)
            .rev()
            .filter_map(|up| self.ancestors().nth(up)?.seg)
    }

    /// This path, its parent, and so on up to the root.
    fn ancestors(&self) -> impl Iterator<Item = &Path<'a>> {
        std::iter::successors(Some(self), |p| p.parent)
    }
}

fn push_name(text: &mut JsString, name: &[u16]) {
    if !text.is_empty() {
        text.push('.');
    }
    push_path_name(text, name);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_join_with_dots_and_indexes_with_brackets() {
        let root = Path::ROOT;
        let items = root.field("items");
        let first = items.index(0);
        let typo = JsString::from("typo");
        assert_eq!(first.key(&typo).render(), "items[0].typo");
        assert_eq!(root.render(), "(root)");
    }

    #[test]
    fn an_empty_name_renders_as_root_at_the_top_and_as_a_trailing_dot_below() {
        let empty = JsString::new();
        let root = Path::ROOT;
        assert_eq!(root.key(&empty).render(), "(root)");
        let items = root.field("items");
        let first = items.index(0);
        assert_eq!(first.key(&empty).render(), "items[0].");
    }

    #[test]
    fn a_path_of_120_units_is_kept_and_a_longer_one_is_cut() {
        let root = Path::ROOT;
        let k120 = JsString::from("k".repeat(120));
        assert_eq!(root.key(&k120).render(), k120);
        let k121 = JsString::from("k".repeat(121));
        assert_eq!(
            root.key(&k121).render(),
            JsString::from(format!("{}…", "k".repeat(119)))
        );
    }

    #[test]
    fn branches_show_in_patterns_but_not_in_paths() {
        let root = Path::ROOT;
        let execution = root.field("execution");
        let source = execution.field("source");
        let second = source.branch(1);
        let reference = second.field("reference");
        assert_eq!(reference.render(), "execution.source.reference");
        assert_eq!(reference.pattern(), "execution.source#2.reference");
        let items = root.field("items");
        let first = items.index(3);
        assert_eq!(first.field("mode").pattern(), "items[].mode");
    }
}
