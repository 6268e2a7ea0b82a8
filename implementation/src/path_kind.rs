//! The path-kind rules of §5.1 and §5.2: exact files and directory subtrees.

use std::fmt;

use crate::text::trim;

/// Why a declared path is malformed; the first failing check, in the order of §5.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathReason {
    /// The path is empty.
    EmptyPath,
    /// The path contains `\`.
    BackslashSeparator,
    /// The path starts with `/`.
    AbsolutePath,
    /// The path starts with an ASCII letter and `:`.
    DriveAbsolutePath,
    /// The path starts with `~`.
    HomeRelativePath,
    /// The path contains `*`, `?`, `[` or `]`.
    WildcardCharacters,
    /// The path contains U+0000–U+001F or U+007F.
    ControlCharacters,
    /// A segment between `/` is empty.
    EmptyPathSegment,
    /// A segment is `.` or `..`.
    TraversalSegment,
}

impl PathReason {
    /// Every reason, in the order of the checks.
    pub const ALL: [PathReason; 9] = [
        PathReason::EmptyPath,
        PathReason::BackslashSeparator,
        PathReason::AbsolutePath,
        PathReason::DriveAbsolutePath,
        PathReason::HomeRelativePath,
        PathReason::WildcardCharacters,
        PathReason::ControlCharacters,
        PathReason::EmptyPathSegment,
        PathReason::TraversalSegment,
    ];

    /// The reason as messages write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            PathReason::EmptyPath => "empty path",
            PathReason::BackslashSeparator => "backslash separator",
            PathReason::AbsolutePath => "absolute path",
            PathReason::DriveAbsolutePath => "drive-absolute path",
            PathReason::HomeRelativePath => "home-relative path",
            PathReason::WildcardCharacters => "wildcard characters",
            PathReason::ControlCharacters => "control characters",
            PathReason::EmptyPathSegment => "empty path segment",
            PathReason::TraversalSegment => "traversal segment",
        }
    }
}

impl fmt::Display for PathReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A path-kind rule: the normalized form of a trimmed path, or why it is malformed.
pub type PathRule = fn(&[u16]) -> Result<&[u16], PathReason>;

const SLASH: u16 = b'/' as u16;
const DOT: u16 = b'.' as u16;

/// The exact-file rule (§5.1) on a trimmed path: its normalized form (the path itself), or why not.
pub fn exact_file(t: &[u16]) -> Result<&[u16], PathReason> {
    let is = |u: u16, c: u8| u == u16::from(c);
    if t.is_empty() {
        return Err(PathReason::EmptyPath);
    }
    if t.iter().any(|&u| is(u, b'\\')) {
        return Err(PathReason::BackslashSeparator);
    }
    if is(t[0], b'/') {
        return Err(PathReason::AbsolutePath);
    }
    if t.len() >= 2 && u8::try_from(t[0]).is_ok_and(|b| b.is_ascii_alphabetic()) && is(t[1], b':') {
        return Err(PathReason::DriveAbsolutePath);
    }
    if is(t[0], b'~') {
        return Err(PathReason::HomeRelativePath);
    }
    if t.iter()
        .any(|&u| is(u, b'*') || is(u, b'?') || is(u, b'[') || is(u, b']'))
    {
        return Err(PathReason::WildcardCharacters);
    }
    if t.iter().any(|&u| u <= 0x1F || u == 0x7F) {
        return Err(PathReason::ControlCharacters);
    }
    for segment in t.split(|&u| u == SLASH) {
        match segment {
            [] => return Err(PathReason::EmptyPathSegment),
            [DOT] | [DOT, DOT] => return Err(PathReason::TraversalSegment),
            _ => {}
        }
    }
    Ok(t)
}

/// The directory-subtree rule (§5.2): one trailing `/` removed, the rest trimmed again (§6.2:
/// the removed `/` may have hidden trailing spaces, so `"b/\u{a0}/"` is `b/` and `"a\r/"` is `a`),
/// then the exact-file rule (which finds `/` to be an empty path, not an absolute one, because the
/// emptiness check comes first).
pub fn directory_subtree(t: &[u16]) -> Result<&[u16], PathReason> {
    exact_file(trim(t.strip_suffix(&[SLASH]).unwrap_or(t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(s: &str) -> Result<String, &'static str> {
        let units: Vec<u16> = s.encode_utf16().collect();
        exact_file(&units)
            .map(String::from_utf16_lossy)
            .map_err(PathReason::as_str)
    }

    fn dir(s: &str) -> Result<String, &'static str> {
        let units: Vec<u16> = s.encode_utf16().collect();
        directory_subtree(&units)
            .map(String::from_utf16_lossy)
            .map_err(PathReason::as_str)
    }

    #[test]
    fn the_first_failing_check_names_the_reason() {
        for (path, reason) in [
            ("", "empty path"),
            ("/a\\b", "backslash separator"),
            ("/a*", "absolute path"),
            ("C:/x", "drive-absolute path"),
            ("a:b", "drive-absolute path"),
            ("C:", "drive-absolute path"),
            ("~/x", "home-relative path"),
            ("a/*.ts", "wildcard characters"),
            ("a]", "wildcard characters"),
            ("a\u{7f}", "control characters"),
            ("a/", "empty path segment"),
            ("a//b", "empty path segment"),
            ("./a.ts", "traversal segment"),
            ("a//../b", "empty path segment"),
            ("a/../b/", "traversal segment"),
        ] {
            assert_eq!(file(path), Err(reason), "{path:?}");
        }
    }

    #[test]
    fn unusual_but_valid_files_are_accepted() {
        for path in [
            ".vvoc/x",
            "...",
            "a/..b",
            "a b/é.ts",
            "a{b}.ts",
            "!a.ts",
            "Ab:c",
            "é:x",
            "C",
        ] {
            assert_eq!(file(path), Ok(path.to_owned()), "{path:?}");
        }
    }

    #[test]
    fn directories_lose_one_trailing_separator() {
        assert_eq!(dir("src/lib/"), Ok("src/lib".to_owned()));
        assert_eq!(dir("/"), Err("empty path"));
        assert_eq!(dir("src//"), Err("empty path segment"));
        assert_eq!(dir("//"), Err("absolute path"));
        assert_eq!(dir("./"), Err("traversal segment"));
    }

    #[test]
    fn directories_are_trimmed_again_after_the_separator_is_removed() {
        assert_eq!(dir("b/\u{a0}/"), Err("empty path segment"));
        assert_eq!(dir("a\r/"), Ok("a".to_owned()));
        assert_eq!(dir("a\u{3000}/"), Ok("a".to_owned()));
        assert_eq!(dir("\u{feff}/"), Err("empty path"));
    }
}
