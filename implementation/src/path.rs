//! Issue paths: a chain of segments on the stack, rendered only when an issue is kept (§1.4).

use crate::issue::MAX_PATH;
use crate::js_string::JsString;
use crate::js_text::{Piece, js_static};
use crate::rule::Pattern;
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
        if self.write_from_root(&mut text) {
            truncate(text.units(), MAX_PATH)
        } else if text.is_empty() {
            js_static!("(root)")
        } else {
            text
        }
    }

    /// The path as a rule pattern: indexes as `[]`, union branches as `#1`, `#2`, input keys left out.
    pub fn pattern(&self) -> String {
        let mut pattern = Pattern::root();
        for seg in self.segments() {
            match seg {
                Seg::Field(name) => pattern.push_field(name),
                Seg::Index(_) => pattern.push_element(),
                Seg::Branch(i) => pattern.push_branch(i),
                Seg::Key(_) => {}
            }
        }
        pattern.into_string()
    }

    /// The segments from the root down, for the rule pattern: found by walking up from here for
    /// each, since paths are as deep as the catalog's shapes (a few levels).
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

    /// Writes the segments from the root down to this one, and whether the text reached the
    /// longest path, where writing stops (§1.4). The recursion is as deep as the path, which is
    /// as deep as the catalog's shapes: a few levels.
    fn write_from_root(&self, text: &mut JsString) -> bool {
        if let Some(parent) = self.parent
            && parent.write_from_root(text)
        {
            return true;
        }
        match self.seg {
            // Declared names are identifiers, which need no escaping.
            Some(Seg::Field(name))
                if name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
            {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(name);
            }
            Some(Seg::Field(name)) => {
                push_name(text, &name.encode_utf16().collect::<Vec<_>>());
            }
            Some(Seg::Key(units)) => {
                // Only the units before the cut can show, and escaping never shortens a unit: a
                // long name is escaped as far as the cut, not whole.
                let room = (MAX_PATH + 1).saturating_sub(text.len());
                push_name(text, &units[..units.len().min(room)]);
            }
            Some(Seg::Index(i)) => {
                text.push('[');
                Piece::push_onto(i, text);
                text.push(']');
            }
            Some(Seg::Branch(_)) | None => return false,
        }
        text.len() >= MAX_PATH
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
    fn a_long_name_is_cut_as_if_escaped_whole_whatever_comes_before_it() {
        // Escapes (`\.`, `\u0001`) and a surrogate pair on both sides of the cut, after parents
        // of several lengths.
        let unit_kinds: [&[u16]; 4] = [&[0x6B], &[0x2E], &[0x01], &[0xD83D, 0xDE00]];
        for parent_len in [0, 1, 7, 60, 118, 119] {
            let parent_name = JsString::from("p".repeat(parent_len));
            for kind in unit_kinds {
                for len in [115, 119, 120, 121, 122, 130, 400] {
                    let mut name = Vec::new();
                    while name.len() < len {
                        name.extend_from_slice(kind);
                        name.push(0x6B);
                    }
                    let name = JsString::from_units(name);
                    let (root, parent) = (Path::ROOT, Path::ROOT.key(&parent_name));
                    let path = if parent_len == 0 {
                        root.key(&name)
                    } else {
                        parent.key(&name)
                    };
                    // Escaped whole, then cut.
                    let mut whole = JsString::new();
                    if parent_len > 0 {
                        push_path_name(&mut whole, parent_name.units());
                        whole.push('.');
                    }
                    push_path_name(&mut whole, name.units());
                    let expected = truncate(whole.units(), MAX_PATH);
                    assert_eq!(path.render(), expected, "{parent_len} + {kind:x?} x {len}");
                }
            }
        }
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
