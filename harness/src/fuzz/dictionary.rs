//! Hard cases the generator draws from: URLs and their parts, workspace paths and their
//! segments, the trimming set and its look-alikes, astral and combining characters, member names
//! and numbers that sit on the edges of the host's conversions.

use vvoc_reference::{JsString, Json};

use super::rng::Rng;

/// The trimming set of §2.1.5, every member (the host's `String.prototype.trim`).
pub const TRIM: &[char] = &[
    '\t', '\n', '\u{b}', '\u{c}', '\r', ' ', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2001}',
    '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}',
    '\u{200a}', '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}', '\u{feff}',
];

/// Characters outside the trimming set that look or behave as if they were in it: next line,
/// zero-width space and joiner, the Mongolian vowel separator, word joiner, NUL and other
/// controls.
pub const NEAR_TRIM: &[char] = &[
    '\u{85}', '\u{200b}', '\u{200d}', '\u{180e}', '\u{2060}', '\u{0}', '\u{1}', '\u{1f}', '\u{7f}',
];

/// Characters of more than one UTF-16 unit, or of several code points: astral characters
/// (two units each), combining marks, a joined emoji sequence, text of other scripts.
pub const WIDE: &[&str] = &[
    "😀",
    "𝔘",
    "𐍈",
    "\u{10ffff}",
    "e\u{301}",
    "\u{301}",
    "a\u{20dd}",
    "👨\u{200d}👩\u{200d}👧",
    "日本",
    "é",
    "ß",
    "İ",
    "ﬁ",
    "Ａ",
    "\u{fffd}",
    "\u{fffe}",
];

/// Lone surrogates and a reversed pair: text neither UTF-8 nor `serde_json` can hold.
pub const LONE: &[&[u16]] = &[&[0xD800], &[0xDFFF], &[0xDC00, 0xD800], &[0x61, 0xD83D]];

/// Short plain words.
pub const WORDS: &[&str] = &[
    "a",
    "x",
    "q",
    "ab",
    "src",
    "main",
    "id-1",
    "Ab",
    "task",
    "spec",
    "code",
    "null",
    "true",
    "0",
    "-1",
    "1e3",
    "NaN",
    "constructor",
    "__proto__",
    "toString",
    "length",
];

/// Member names an input may carry beside the declared ones: host-sensitive names (`length`,
/// prototype members), array-index names (the host moves them first), names that need escaping
/// in paths, and odd text.
pub const KEYS: &[&str] = &[
    "typo",
    "length",
    "__proto__",
    "constructor",
    "toString",
    "valueOf",
    "hasOwnProperty",
    "",
    "0",
    "1",
    "01",
    "4294967294",
    "4294967295",
    " ",
    "a.b",
    "a[0]",
    "\\",
    "\u{0}",
    "é",
    "😀",
    "fake_",
    "x",
    "URL",
    "Path",
];

/// Values of a `length` member of a wrongly typed value (§2.1.8): numbers near the bounds and
/// texts the host's `ToNumber` reads as one (binary, exponent, padded, signed), or not at all.
pub const LENGTH_TEXTS: &[&str] = &[
    "2",
    "0b10",
    "2e0",
    " 2 ",
    "+2",
    "\u{a0}2\u{a0}",
    "\u{feff}2",
    "0x2",
    "0o2",
    "",
    " ",
    "abc",
    "Infinity",
    "-0",
    "1e400",
    "2.0",
    "02",
    "1_0",
    "\u{85}2",
];

/// Numbers at the edges of the host's doubles and of the contract's integers.
pub const NUMBERS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    1e-7,
    5e-324,
    1e21,
    1e300,
    1.797_693_134_862_315_7e308,
    f64::INFINITY,
    f64::NEG_INFINITY,
    9_007_199_254_740_991.0,
    9_007_199_254_740_992.0,
    9_007_199_254_740_994.0,
    -9_007_199_254_740_991.0,
    -9_007_199_254_740_992.0,
    -9_007_199_254_740_994.0,
    4_294_967_295.0,
    4_294_967_296.0,
    2_147_483_648.0,
    0.1,
    1.000_000_000_000_000_2,
];

/// Whole URLs with a known hard part.
pub const URLS: &[&str] = &[
    "http://a",
    "https://example.com/",
    "HTTP://EXAMPLE.COM",
    "HtTpS://A",
    "http://xn--nxasmq6b.com/",
    "http://xn--xn---3ra.test/",
    "foo://xn--xn---3ra/",
    "http://xn--/",
    "http://xn--a.test/",
    "http://xn--ls8h.la/",
    "http://ab--cd.test/",
    "http://日本.jp/",
    "http://faß.de/",
    "http://ℌ.test/",
    "http://💩.la/",
    "http://ＡＢＣ.com/",
    "http://a。b/",
    "http://a\u{200b}b.test/",
    "http://a\u{180e}b/",
    "http://a\u{ad}b/",
    "http://1.2.3.4/",
    "http://0x7f.1/",
    "http://127.1/",
    "http://4294967295/",
    "http://4294967296/",
    "http://1.2.3.4.5/",
    "http://0177.0.0.1/",
    "http://09.0.0.1/",
    "http://1.2.3.08/",
    "http://256.0.0.0/",
    "http://0x/",
    "http://[::1]/",
    "http://[::ffff:1.2.3.4]/",
    "http://[1:2:3:4:5:6:7:8:9]/",
    "http://[::1/",
    "http://[v1.x]/",
    "http://[fe80::1%25en0]/",
    "http://%41.test/",
    "http://a%2Fb/",
    "http://%zz/",
    "http://a%00b/",
    "http://user:pass@host/",
    "http://@host/",
    "http://a:b@/",
    "http://a:b:c@d/",
    "http://host:65535/",
    "http://host:65536/",
    "http://host:0/",
    "http://host:/",
    "http://host:8a/",
    "http:\\\\host\\path",
    "http:/host",
    "http:host",
    "http://",
    "http:///a",
    "https:",
    "ftp://host/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "data:text/plain,a",
    "mailto:a@b",
    "ws://a",
    "sc://@",
    "sc://a\\b/",
    "sc://a:1\\/",
    "//host/path",
    "/path",
    "host",
    " http://a ",
    "\u{0}http://a",
    "http://a\tb/",
    "http://a\nb/",
    "http://a b/",
    "http://a<b/",
    "http://a^b/",
    "http://a|b/",
    "http://\u{feff}a/",
    "http://a./",
    "http://a../",
    "http://.a/",
    "http://a..b/",
    "http://-a.test/",
    "http://a-.test/",
    "http://a_b/",
    "https://a/b?c#d",
    "https://a/%",
    "https://a/\u{3000}",
];

const SCHEMES: &[&str] = &[
    "http", "https", "HTTP", "hTTps", "ftp", "foo", "file", "ws", "data", "h-t+t.p", "", "1http",
];
const SEPARATORS: &[&str] = &["://", ":/", ":", ":\\\\", ":///", "://\\", ": //"];
const USERINFO: &[&str] = &["", "", "", "u@", "u:p@", "@", ":@", "a%40b@", "a@b@"];
const HOSTS: &[&str] = &[
    "a",
    "example.com",
    "xn--nxasmq6b",
    "xn--xn---3ra",
    "xn--a",
    "xn--",
    "1.2.3.4",
    "0x7f.1",
    "4294967296",
    "[::1]",
    "[::",
    "日本",
    "faß",
    "a\u{200b}b",
    "%41",
    "%zz",
    "",
    "a b",
    "a.",
    "-a",
    "a\u{180e}",
    "ＡＢＣ",
];
const PORTS: &[&str] = &[
    "", "", "", ":80", ":0", ":65535", ":65536", ":", ":8a", ":-1",
];
const URL_PATHS: &[&str] = &[
    "", "/", "/a/../b", "/%2e%2e/", "\\a", "/a b", "?q", "#f", "/ä", "/\u{0}", "/?#",
];

/// Sound workspace path segments.
const SOUND: &[&str] = &[
    "a", "src", "lib.rs", "b", ".a", "a..b", "...", "é", "a b", "{a}",
];

/// Workspace path segments, most of them broken in one way (§5.1).
const SEGMENTS: &[&str] = &[
    ".", "..", "", "~", "~a", "C:", "c:", "a:b", "日本", "a*b", "?", "[x]", "a]", "a\\b", "\u{1}",
    "\u{7f}", "\u{85}", " ", "\u{a0}", "\u{feff}", "😀", "a\u{301}", "!a",
];
const PATH_PREFIXES: &[&str] = &[
    "/", "//", "~/", "~", "C:/", "c:\\", "z:", "\\\\", "a\\", " ", "\u{a0}", "\t", "./", "../",
    "*", "\u{1}", "/",
];
const PATH_SUFFIXES: &[&str] = &[
    "/", "//", " ", "/\u{a0}", "/ /", "\r", "\u{a0}/", "/.", "/..", "?", "]", "\u{7f}", "/",
];

/// Directory subtrees that are, or become once one trailing `/` is dropped, empty or broken.
pub const DIRECTORIES: &[&str] = &[
    "/", " /", "/ ", "\u{a0}/", "/\u{a0}", "//", "a//", "./", "~/",
];

/// Anchors of `hashline_edit` (`LINE#HASH#ANCHOR`), well and badly formed.
pub const ANCHORS: &[&str] = &[
    "1#ABCD#x", "12#Z#", " 1#AB#c ", "2#AB#c", "1#ABCD", "#", "1", "", " ", "\u{3000}", "\t\n",
];

/// Absolute file paths of the editors.
pub const ABSOLUTE: &[&str] = &[
    "/a",
    "/tmp/a.txt",
    "/a b/c",
    " /a ",
    "/",
    "a",
    "C:\\a",
    "/a/../b",
    "/\u{0}",
    "\u{3000}",
];

/// A URL: a whole one from the list, or one assembled from hard parts.
pub fn url(rng: &mut Rng) -> JsString {
    if rng.percent(50) {
        return JsString::from(*rng.pick(URLS).unwrap_or(&"http://a"));
    }
    let mut text = String::new();
    for part in [SCHEMES, SEPARATORS, USERINFO, HOSTS, PORTS, URL_PATHS] {
        text.push_str(rng.pick(part).unwrap_or(&""));
    }
    let mut url = JsString::from(text);
    if rng.percent(15) {
        sprinkle(rng, &mut url);
    }
    url
}

/// A workspace path: sound segments joined by `/`, half the time broken in one way (each of
/// the malformed reasons of §5.1 about as often), sometimes padded with the trimming set.
pub fn workspace_path(rng: &mut Rng) -> JsString {
    let mut text = String::new();
    let segments = rng.between(1, 3);
    for i in 0..segments {
        if i > 0 {
            text.push('/');
        }
        text.push_str(rng.pick(SOUND).unwrap_or(&"a"));
    }
    if rng.percent(50) {
        let at = text.rfind('/').map_or(0, |i| i + 1);
        match rng.below(4) {
            0 => text.insert_str(0, rng.pick(PATH_PREFIXES).unwrap_or(&"")),
            1 => text.push_str(rng.pick(PATH_SUFFIXES).unwrap_or(&"")),
            2 => text.replace_range(at.., rng.pick(SEGMENTS).unwrap_or(&"")),
            _ => text.insert_str(at, rng.pick(SEGMENTS).unwrap_or(&"")),
        }
    }
    let mut path = JsString::from(text);
    if rng.percent(10) {
        pad(rng, &mut path);
    }
    path
}

/// A hard character: from the trimming set, its look-alikes, or the wide characters.
pub fn hard_char(rng: &mut Rng, text: &mut JsString) {
    match rng.below(4) {
        0 => text.push(*rng.pick(TRIM).unwrap_or(&' ')),
        1 => text.push(*rng.pick(NEAR_TRIM).unwrap_or(&'\u{85}')),
        2 => text.push_str(rng.pick(WIDE).unwrap_or(&"😀")),
        _ => text.push_units(rng.pick(LONE).unwrap_or(&&[0xD800][..])),
    }
}

/// Pads `text` with members of the trimming set on one side or both.
pub fn pad(rng: &mut Rng, text: &mut JsString) {
    let mut out = JsString::new();
    let (before, after) = match rng.below(3) {
        0 => (1, 0),
        1 => (0, 1),
        _ => (1, 1),
    };
    for _ in 0..before {
        out.push(*rng.pick(TRIM).unwrap_or(&' '));
    }
    out.push_units(text.units());
    for _ in 0..after {
        out.push(*rng.pick(TRIM).unwrap_or(&' '));
    }
    *text = out;
}

/// Puts one hard character at a random place in `text`.
pub fn sprinkle(rng: &mut Rng, text: &mut JsString) {
    let units = text.units();
    let at = rng.below(units.len() + 1);
    let mut out = JsString::from_units(&units[..at]);
    hard_char(rng, &mut out);
    out.push_units(&units[at..]);
    *text = out;
}

/// A value for a `length` member: a number near a bound, a text `ToNumber` may read, or a value
/// of another type (an array, an object with a `toString` member, `null`, a boolean).
pub fn length_value(rng: &mut Rng, bounds: &[u32]) -> Json {
    match rng.below(6) {
        0 | 1 => {
            let bound = f64::from(*rng.pick(bounds).unwrap_or(&2));
            Json::Number(bound + [-1.0, 0.0, 1.0, 0.5][rng.below(4)])
        }
        2 => Json::str(rng.pick(LENGTH_TEXTS).unwrap_or(&"2")),
        3 => match rng.below(5) {
            0 => Json::Array(vec![Json::Number(2.0)]),
            1 => Json::Array(vec![Json::Array(vec![Json::str("2")])]),
            2 => Json::Array(Vec::new()),
            3 => Json::Array(vec![Json::Null]),
            _ => Json::Array(vec![Json::Number(1.0), Json::Number(2.0)]),
        },
        4 => {
            let inner = vvoc_reference::Object::from_members([(
                JsString::from("toString"),
                Json::Number(1.0),
            )]);
            Json::Object(inner)
        }
        _ => match rng.below(4) {
            0 => Json::Null,
            1 => Json::Bool(rng.percent(50)),
            2 => Json::Number(*rng.pick(NUMBERS).unwrap_or(&0.0)),
            _ => Json::Object(vvoc_reference::Object::new()),
        },
    }
}
