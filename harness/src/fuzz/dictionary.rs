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
    "http://a\u{17b4}b/",
    "ftp:a\u{180e}",
    "http:xn--\u{200b}xn---3ra",
    "http:\u{180e}xn--xn---3ra",
    "http:xn--xn---3r\u{ff21}",
    "http://xn--xn---3ra.a\u{301}/",
    "http://xn--ab-v17n/",
    "http://a%E1%A0%8Eb/",
    "foo://a\u{10023}b/",
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

/// The code points whose verdict in a domain hangs on the IDNA table: Bun 1.3.8's (UTS #46 for
/// Unicode 15.1, the authority of behaviour.md §5.5) disallows every one, while the newer tables
/// of 16.0 and 17.0 map them to nothing (U+180E, U+17B4), map them (U+04C0, Georgian capitals),
/// make them valid (U+1806) or have them as characters assigned since. Found by a sweep of every
/// code point U+0080..U+10FFFF in a host, judged by Bun 1.3.8 and by the `url` crate; inclusive
/// ranges.
#[rustfmt::skip]
pub const IDNA_RANGES: &[(u32, u32)] = &[
    (0x4C0, 0x4C0), (0x88F, 0x88F), (0x897, 0x897), (0xC5C, 0xC5C), (0xCDC, 0xCDC),
    (0x10A0, 0x10C5), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x1806, 0x1806), (0x180E, 0x180E),
    (0x1ACF, 0x1ADD), (0x1AE0, 0x1AEB), (0x1B4E, 0x1B4F), (0x1B7F, 0x1B7F), (0x1C89, 0x1C8A),
    (0x2061, 0x2063), (0x206A, 0x206F), (0x20C1, 0x20C1), (0x2132, 0x2132), (0x2183, 0x2183),
    (0x2427, 0x2429), (0x2B96, 0x2B96), (0x3164, 0x3164), (0x31E4, 0x31E5), (0xA7CB, 0xA7CF),
    (0xA7D2, 0xA7D2), (0xA7D4, 0xA7D4), (0xA7DA, 0xA7DC), (0xA7F1, 0xA7F1), (0xFBC3, 0xFBD2),
    (0xFD90, 0xFD91), (0xFDC8, 0xFDCE), (0xFFA0, 0xFFA0), (0x105C0, 0x105F3), (0x10940, 0x10959),
    (0x10D4A, 0x10D65), (0x10D69, 0x10D85), (0x10D8E, 0x10D8F), (0x10EC2, 0x10EC7),
    (0x10ED0, 0x10ED8), (0x10EFA, 0x10EFC), (0x11380, 0x11389), (0x1138B, 0x1138B),
    (0x1138E, 0x1138E), (0x11390, 0x113B5), (0x113B7, 0x113C0), (0x113C2, 0x113C2),
    (0x113C5, 0x113C5), (0x113C7, 0x113CA), (0x113CC, 0x113D5), (0x113D7, 0x113D8),
    (0x113E1, 0x113E2), (0x116D0, 0x116E3), (0x11B60, 0x11B67), (0x11BC0, 0x11BE1),
    (0x11BF0, 0x11BF9), (0x11DB0, 0x11DDB), (0x11DE0, 0x11DE9), (0x11F5A, 0x11F5A),
    (0x13460, 0x143FA), (0x16100, 0x16139), (0x16D40, 0x16D79), (0x16EA0, 0x16EB8),
    (0x16EBB, 0x16ED3), (0x16FF2, 0x16FF6), (0x187F8, 0x187FF), (0x18CFF, 0x18CFF),
    (0x18D09, 0x18D1E), (0x18D80, 0x18DF2), (0x1CC00, 0x1CCFC), (0x1CD00, 0x1CEB3),
    (0x1CEBA, 0x1CED0), (0x1CEE0, 0x1CEF0), (0x1D173, 0x1D17A), (0x1E5D0, 0x1E5FA),
    (0x1E5FF, 0x1E5FF), (0x1E6C0, 0x1E6DE), (0x1E6E0, 0x1E6F5), (0x1E6FE, 0x1E6FF),
    (0x1F6D8, 0x1F6D8), (0x1F777, 0x1F77A), (0x1F8B2, 0x1F8BB), (0x1F8C0, 0x1F8C1),
    (0x1F8D0, 0x1F8D8), (0x1FA54, 0x1FA57), (0x1FA89, 0x1FA8A), (0x1FA8E, 0x1FA8F),
    (0x1FABE, 0x1FABE), (0x1FAC6, 0x1FAC6), (0x1FAC8, 0x1FAC8), (0x1FACD, 0x1FACD),
    (0x1FADC, 0x1FADC), (0x1FADF, 0x1FADF), (0x1FAE9, 0x1FAEA), (0x1FAEF, 0x1FAEF),
    (0x1FBCB, 0x1FBEF), (0x1FBFA, 0x1FBFA), (0x2B73A, 0x2B73F), (0x2CEA2, 0x2CEAD),
    (0x2F868, 0x2F868), (0x2F874, 0x2F874), (0x2F91F, 0x2F91F), (0x2F95F, 0x2F95F),
    (0x2F9BF, 0x2F9BF), (0x323B0, 0x33479),
];

/// The controls on each side of [`IDNA_RANGES`]: code points both tables map to nothing (soft
/// hyphen, combining grapheme joiner, zero-width space, word joiner, variation selectors, the
/// other Mongolian free variation selectors, byte order mark, shorthand format control) and ones
/// both refuse in a host (the zero-width joiners, the language tag).
pub const IDNA_CONTROLS: &[char] = &[
    '\u{ad}',
    '\u{34f}',
    '\u{200b}',
    '\u{2060}',
    '\u{fe00}',
    '\u{fe0f}',
    '\u{feff}',
    '\u{180b}',
    '\u{180c}',
    '\u{180d}',
    '\u{180f}',
    '\u{1bca0}',
    '\u{e0100}',
    '\u{200c}',
    '\u{200d}',
    '\u{e0001}',
];

/// The forbidden host code points. Above U+FFFF, a code point whose low 16 bits are one of these
/// fails in an opaque host on Bun 1.3.8 (ada reads the code point cut to 16 bits there).
pub const FORBIDDEN_HOST: &[char] = &[
    '\0', '\t', '\n', '\r', ' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|',
];

/// Hosts around one code point (`{}`): inside a label, alone, and before, inside and after an
/// `xn--` label.
pub const IDNA_HOSTS: &[&str] = &[
    "a{}b",
    "{}",
    "{}xn--xn---3ra",
    "xn--{}xn---3ra",
    "xn--xn---3ra.a{}",
];

/// A code point of [`IDNA_RANGES`] (or just outside one), of [`IDNA_CONTROLS`], or above
/// U+FFFF ending in a forbidden host code point.
pub fn idna_char(rng: &mut Rng) -> char {
    let code = match rng.below(8) {
        0 => u32::from(*rng.pick(IDNA_CONTROLS).unwrap_or(&'\u{200b}')),
        1 => {
            let plane = u32::try_from(rng.between(1, 16)).unwrap_or(1);
            plane * 0x1_0000 + u32::from(*rng.pick(FORBIDDEN_HOST).unwrap_or(&'#'))
        }
        2 => {
            let &(first, last) = rng.pick(IDNA_RANGES).unwrap_or(&(0x180e, 0x180e));
            if rng.percent(50) { first - 1 } else { last + 1 }
        }
        _ => {
            let &(first, last) = rng.pick(IDNA_RANGES).unwrap_or(&(0x180e, 0x180e));
            let span = usize::try_from(last - first).unwrap_or(0);
            first + u32::try_from(rng.below(span + 1)).unwrap_or(0)
        }
    };
    char::from_u32(code).unwrap_or('\u{180e}')
}

/// A URL: a whole one from the list, or one assembled from hard parts (a fifth of the time with
/// a host around a code point of [`idna_char`]).
pub fn url(rng: &mut Rng) -> JsString {
    if rng.percent(50) {
        return JsString::from(*rng.pick(URLS).unwrap_or(&"http://a"));
    }
    let mut text = String::new();
    for part in [SCHEMES, SEPARATORS, USERINFO] {
        text.push_str(rng.pick(part).unwrap_or(&""));
    }
    if rng.percent(20) {
        let host = rng.pick(IDNA_HOSTS).unwrap_or(&"{}");
        text.push_str(&host.replace("{}", idna_char(rng).encode_utf8(&mut [0; 4])));
    } else {
        text.push_str(rng.pick(HOSTS).unwrap_or(&""));
    }
    for part in [PORTS, URL_PATHS] {
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
