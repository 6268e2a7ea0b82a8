//! The path rules of scenario files: clean relative keys for files, and `{root}`-paths that stay
//! inside the scenario's directory (interfaces.md §9.1).

use vvoc_reference::catalog::PathKind;
use vvoc_reference::{JsString, Json, Object, Tool};

/// The placeholder for the scenario's directory.
pub const ROOT: &str = "{root}";

/// The members of a `tool` call that name a file on the host: the fields the catalog declares
/// absolute-file (§5.4), in declared order. A scenario keeps each of them inside `{root}`.
pub(crate) fn path_fields(tool: Tool) -> impl Iterator<Item = &'static str> {
    tool.spec()
        .path_kinds
        .iter()
        .filter(|declared| match declared.kind {
            PathKind::AbsoluteFile => true,
            PathKind::ExactFile | PathKind::DirectorySubtree | PathKind::Url => false,
        })
        .map(|declared| declared.field)
}

/// What a key of `files`, `after` or `write` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyKind {
    /// A file (`a/b.txt`).
    File,
    /// An empty directory (`empty/`).
    Dir,
}

/// Whether `key` is a clean relative path: `/`-separated, not absolute, no empty, `.` or `..`
/// segment, no NUL, no `{root}`; a trailing `/` makes it a directory.
pub(crate) fn check_key(key: &JsString) -> Result<KeyKind, String> {
    let Some(key) = key.to_str() else {
        return Err("holds a lone surrogate; a path must be valid Unicode".to_owned());
    };
    if key.is_empty() {
        return Err("is empty".to_owned());
    }
    if key.starts_with('/') {
        return Err(
            "is absolute; keys are relative to the scenario's directory (no leading /)".to_owned(),
        );
    }
    if key.contains('\0') {
        return Err("holds a NUL character".to_owned());
    }
    if key.contains(ROOT) {
        return Err(
            "holds {root}; keys are already relative to the scenario's directory".to_owned(),
        );
    }
    let (body, kind) = match key.strip_suffix('/') {
        Some(body) => (body, KeyKind::Dir),
        None => (key.as_str(), KeyKind::File),
    };
    for segment in body.split('/') {
        match segment {
            "" => return Err("has an empty segment (//)".to_owned()),
            "." => return Err("has a . segment; write the path without it".to_owned()),
            ".." => {
                return Err(
                    "has a .. segment; no key may leave the scenario's directory".to_owned(),
                );
            }
            _ => {}
        }
    }
    Ok(kind)
}

/// Where a path given to a tool (or to an `anchors` step) points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// `{root}` or `{root}/...`, never climbing above `{root}`.
    Inside,
    /// Not absolute and not a `{root}`-path (`a.txt`, `~/a`, `C:/a`).
    Relative,
    /// Absolute outside `{root}`, or climbing out of it; the text says how.
    Outside(String),
}

/// Where `path` points, judged on its text before `{root}` is substituted.
pub(crate) fn placement(path: &JsString) -> Placement {
    let text = path.to_string_lossy();
    let Some(rest) = text.strip_prefix(ROOT) else {
        return if text.starts_with('/') {
            Placement::Outside(
                "is an absolute path outside the scenario's directory; start it with {root}/"
                    .to_owned(),
            )
        } else {
            Placement::Relative
        };
    };
    if !(rest.is_empty() || rest.starts_with('/')) {
        return Placement::Outside(
            "names a sibling of the scenario's directory; {root} must be followed by / or end the path"
                .to_owned(),
        );
    }
    let mut depth: usize = 0;
    for segment in rest.split('/') {
        match segment {
            "" | "." => {}
            ".." => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => {
                    return Placement::Outside(
                        "climbs out of the scenario's directory with ..".to_owned(),
                    );
                }
            },
            _ => depth += 1,
        }
    }
    Placement::Inside
}

/// `text` with every `{root}` replaced by `root`.
pub(crate) fn substitute(text: &JsString, root: &str) -> JsString {
    replace(text.units(), ROOT, root)
}

/// `text` with every occurrence of `root` replaced by `{root}`.
pub(crate) fn unsubstitute(text: &JsString, root: &str) -> JsString {
    replace(text.units(), root, ROOT)
}

/// `value` with `{root}` replaced by `root` in every string (member names stay as they are), at
/// any depth.
pub(crate) fn substitute_json(value: &Json, root: &str) -> Json {
    replace_json(value, ROOT, root)
}

/// `value` with every `from` replaced by `to` in every string (member names stay as they are),
/// at any depth.
pub(crate) fn replace_json(value: &Json, from: &str, to: &str) -> Json {
    value.fold(
        |leaf| match leaf {
            Json::String(text) => Json::String(replace(text.units(), from, to)),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::Array(_) | Json::Object(_) => {
                leaf.clone()
            }
        },
        Json::Array,
        |members| {
            Json::Object(Object::from_members(
                members.into_iter().map(|(k, v)| (k.clone(), v)),
            ))
        },
    )
}

pub(crate) fn replace(units: &[u16], from: &str, to: &str) -> JsString {
    let from: Vec<u16> = from.encode_utf16().collect();
    let to: Vec<u16> = to.encode_utf16().collect();
    if from.is_empty() {
        return JsString::from_units(units);
    }
    let mut out = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        if units[i..].starts_with(&from) {
            out.extend_from_slice(&to);
            i += from.len();
        } else {
            out.push(units[i]);
            i += 1;
        }
    }
    JsString::from_units(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Result<KeyKind, String> {
        check_key(&JsString::from(text))
    }

    fn place(text: &str) -> Placement {
        placement(&JsString::from(text))
    }

    #[test]
    fn the_path_fields_are_top_level_members_and_only_executed_tools_have_them() {
        for tool in Tool::ALL {
            let fields: Vec<&str> = path_fields(tool).collect();
            assert_eq!(
                !fields.is_empty(),
                vvoc_reference::exec::executes(tool),
                "{tool}: {fields:?}"
            );
            for field in fields {
                // A call is checked by looking the field up as a member of the input object.
                assert!(
                    tool.spec().fields.iter().any(|f| f.name == field),
                    "{tool}: {field} is no member of the input"
                );
            }
        }
    }

    #[test]
    fn the_root_is_substituted_in_strings_at_any_depth_but_not_in_names() {
        let input = Json::parse(r#"{"path":"{root}/a","{root}":["{root}",1,null]}"#).expect("JSON");
        assert_eq!(
            substitute_json(&input, "/tmp/x").to_compact(),
            r#"{"path":"/tmp/x/a","{root}":["/tmp/x",1,null]}"#
        );
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let depth = 100_000;
                let deep = |s: &str| format!(r#"{}"{s}"{}"#, "[".repeat(depth), "]".repeat(depth));
                let input = Json::parse(&deep("{root}/b")).expect("any depth is read");
                assert_eq!(substitute_json(&input, "/r").to_compact(), deep("/r/b"));
            })
            .expect("a thread")
            .join()
            .expect("substituted on a small stack");
    }

    #[test]
    fn clean_keys_pass_and_the_others_say_why() {
        assert_eq!(key("a/b.txt"), Ok(KeyKind::File));
        assert_eq!(key("empty/"), Ok(KeyKind::Dir));
        assert_eq!(key(".git/config"), Ok(KeyKind::File));
        assert_eq!(key("a..b"), Ok(KeyKind::File));
        for bad in [
            "", "/a", "a//b", "./a", "a/../b", "..", "a/./b", "{root}/a", "a\0b", "/",
        ] {
            assert!(key(bad).is_err(), "{bad:?}");
        }
        assert!(
            check_key(&JsString::from_units(vec![0xd800])).is_err(),
            "a lone surrogate"
        );
    }

    #[test]
    fn root_paths_stay_inside() {
        assert_eq!(place("{root}"), Placement::Inside);
        assert_eq!(place("{root}/"), Placement::Inside);
        assert_eq!(place("{root}/a/../b"), Placement::Inside);
        assert_eq!(place("{root}/./a.txt"), Placement::Inside);
        assert_eq!(place("a.txt"), Placement::Relative);
        assert_eq!(place("   "), Placement::Relative);
        for outside in [
            "/etc/passwd",
            "{root}/../x",
            "{root}/a/../../x",
            "{root}x",
            "{root}..",
        ] {
            assert!(
                matches!(place(outside), Placement::Outside(_)),
                "{outside:?}"
            );
        }
    }

    #[test]
    fn root_is_substituted_and_replaced_back() {
        let root = "/tmp/vvoc-0123456789012345678901234567890";
        let sent = substitute(&JsString::from("{root}/a and {root}"), root);
        assert_eq!(sent.to_string_lossy(), format!("{root}/a and {root}"));
        assert_eq!(
            unsubstitute(&sent, root).to_string_lossy(),
            "{root}/a and {root}"
        );
    }
}
