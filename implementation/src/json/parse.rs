//! Reading JSON texts into `Json` the way the contract's host reads them (§2.1.3, §6.5).

use std::fmt;

use super::{Json, Object};
use crate::js_string::JsString;

/// Why a JSON text could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the offending character.
    pub line: usize,
    /// 1-based column (in characters) of the offending character.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}

impl Json {
    /// Parses one JSON text (surrounding whitespace allowed, nothing else). Arrays and objects
    /// may nest to any depth: the parser keeps its open containers on a stack of its own.
    pub fn parse(text: &str) -> Result<Json, ParseError> {
        let mut p = Parser {
            text,
            pos: 0,
            // Room for a usual message, so that reading one rarely grows the stacks.
            elements: Vec::with_capacity(16),
            members: Vec::with_capacity(16),
            names: Vec::with_capacity(4),
        };
        p.skip_ws();
        let value = p.value()?;
        p.skip_ws();
        if p.pos < text.len() {
            return Err(p.error("unexpected text after the JSON value"));
        }
        Ok(value)
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    /// The elements read so far of every open array, innermost last.
    elements: Vec<Json>,
    /// The members read so far of every open object, innermost last.
    members: Vec<(JsString, Json)>,
    /// The name of the member being read, for every open object.
    names: Vec<JsString>,
}

/// An array or object being read, with where its elements or members start on their stack.
#[derive(Clone, Copy)]
enum Open {
    Array(usize),
    Object(usize),
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ParseError {
        let before = &self.text[..self.pos];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ParseError {
            line,
            column,
            message: message.to_owned(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), ParseError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected {what}")))
        }
    }

    /// Reads one value, whitespace before it already skipped. Containers are opened and closed
    /// on `open`, so the depth of the text costs heap, not stack.
    fn value(&mut self) -> Result<Json, ParseError> {
        let mut open: Vec<Open> = Vec::with_capacity(4);
        loop {
            let mut value = match self.peek() {
                None => return Err(self.error("unexpected end of text, expected a JSON value")),
                Some(b'[') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        Json::Array(Vec::new())
                    } else {
                        open.push(Open::Array(self.elements.len()));
                        continue;
                    }
                }
                Some(b'{') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        Json::Object(Object::default())
                    } else {
                        let name = self.member_name()?;
                        self.names.push(name);
                        open.push(Open::Object(self.members.len()));
                        continue;
                    }
                }
                Some(b'"') => Json::String(self.string()?),
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(b't') => self.literal("true", Json::Bool(true))?,
                Some(b'f') => self.literal("false", Json::Bool(false))?,
                Some(b'n') => self.literal("null", Json::Null)?,
                Some(_) => return Err(self.error("expected a JSON value")),
            };
            // Put the value in its container; close each container that ends after it.
            loop {
                let Some(&container) = open.last() else {
                    return Ok(value);
                };
                self.skip_ws();
                match container {
                    Open::Array(start) => match self.peek() {
                        Some(b',') => {
                            self.elements.push(value);
                            self.pos += 1;
                            self.skip_ws();
                            break;
                        }
                        Some(b']') => {
                            self.pos += 1;
                            open.pop();
                            // An array of one value (each level of a deep one) skips the stack.
                            let items = if self.elements.len() == start {
                                vec![value]
                            } else {
                                self.elements.push(value);
                                self.elements.split_off(start)
                            };
                            value = Json::Array(items);
                        }
                        _ => return Err(self.error("expected ',' or ']' in the array")),
                    },
                    Open::Object(start) => {
                        let name = self.names.pop().unwrap_or_default();
                        self.members.push((name, value));
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                let name = self.member_name()?;
                                self.names.push(name);
                                break;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                open.pop();
                                value =
                                    Json::Object(Object::from_vec(self.members.split_off(start)));
                            }
                            _ => return Err(self.error("expected ',' or '}' in the object")),
                        }
                    }
                }
            }
        }
    }

    /// Reads `"name":` and the whitespace around it.
    fn member_name(&mut self) -> Result<JsString, ParseError> {
        self.skip_ws();
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a member name in double quotes"));
        }
        let name = self.string()?;
        self.skip_ws();
        self.expect(b':', "':' after the member name")?;
        self.skip_ws();
        Ok(name)
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, ParseError> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a JSON value"))
        }
    }

    fn number(&mut self) -> Result<Json, ParseError> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let digits = |p: &mut Self| {
            let from = p.pos;
            while bytes.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos - from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.error("expected a digit in the number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(self.error("expected a digit after the decimal point"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        // Rust's parser rounds to nearest and gives an infinity on overflow, as the host does.
        let value: f64 = self.text[start..self.pos]
            .parse()
            .map_err(|_| self.error("invalid number"))?;
        Ok(Json::Number(value))
    }

    fn string(&mut self) -> Result<JsString, ParseError> {
        self.pos += 1;
        let mut out: Vec<u16> = Vec::new();
        loop {
            // A run of printable ASCII other than `"` and `\` is its own units.
            let bytes = &self.text.as_bytes()[self.pos..];
            let run = plain_run(bytes);
            // Most strings are one such run: their units are allocated once, at their size.
            // Later runs grow the units as a vector grows, so many escapes stay linear.
            if out.is_empty() {
                out.reserve_exact(run);
            }
            out.extend(bytes[..run].iter().map(|&b| u16::from(b)));
            self.pos += run;
            let rest = &self.text[self.pos..];
            let Some(c) = rest.chars().next() else {
                return Err(self.error("unterminated string"));
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Ok(JsString::from_units(out));
                }
                '\\' => {
                    self.pos += 1;
                    let Some(e) = self.peek() else {
                        return Err(self.error("unterminated string"));
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push(0x22),
                        b'\\' => out.push(0x5C),
                        b'/' => out.push(0x2F),
                        b'b' => out.push(0x08),
                        b'f' => out.push(0x0C),
                        b'n' => out.push(0x0A),
                        b'r' => out.push(0x0D),
                        b't' => out.push(0x09),
                        b'u' => {
                            let hex = self.text.get(self.pos..self.pos + 4).unwrap_or("");
                            let unit = u16::from_str_radix(hex, 16)
                                .ok()
                                .filter(|_| {
                                    hex.len() == 4 && hex.bytes().all(|b| b.is_ascii_hexdigit())
                                })
                                .ok_or_else(|| self.error("expected four hex digits after \\u"))?;
                            self.pos += 4;
                            out.push(unit);
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(self.error("invalid escape in string"));
                        }
                    }
                }
                '\u{0}'..='\u{1f}' => {
                    return Err(self.error("unescaped control character in string"));
                }
                _ => {
                    let mut buf = [0u16; 2];
                    out.extend_from_slice(c.encode_utf16(&mut buf));
                    self.pos += c.len_utf8();
                }
            }
        }
    }
}

/// The length of the run of bytes at the start of `bytes` that a string holds as they are:
/// printable ASCII other than `"` and `\`.
fn plain_run(bytes: &[u8]) -> usize {
    // Eight bytes at a time while none of them ends the run, then byte by byte.
    let mut at = 0;
    while let Some(&chunk) = bytes[at..].first_chunk::<8>() {
        let w = u64::from_le_bytes(chunk);
        if w & HIGH != 0
            || any_byte_below(w, 0x20)
            || any_byte_equal(w, b'"')
            || any_byte_equal(w, b'\\')
        {
            break;
        }
        at += 8;
    }
    let rest = &bytes[at..];
    at + rest
        .iter()
        .position(|&b| !(0x20..0x80).contains(&b) || b == b'"' || b == b'\\')
        .unwrap_or(rest.len())
}

/// A word of eight bytes `0x01`.
const ONES: u64 = u64::from_le_bytes([0x01; 8]);
/// A word of eight bytes `0x80`, the top bit of each.
const HIGH: u64 = u64::from_le_bytes([0x80; 8]);

/// Whether some byte of `w`, a word of ASCII bytes, is below `n` (at most 0x80).
fn any_byte_below(w: u64, n: u8) -> bool {
    w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH != 0
}

/// Whether some byte of `w`, a word of ASCII bytes, is `b` (ASCII).
fn any_byte_equal(w: u64, b: u8) -> bool {
    any_byte_below(w ^ (ONES * u64::from(b)), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Json {
        Json::parse(s).expect("valid JSON")
    }

    #[test]
    fn repeated_names_keep_the_first_position_and_the_last_value() {
        let v = parse(r#"{"x":1,"query":"a","x":2,"y":3}"#);
        assert_eq!(v.to_compact(), r#"{"x":2,"query":"a","y":3}"#);
    }

    #[test]
    fn repeated_names_in_large_objects_keep_the_first_position_and_the_last_value() {
        // Past 16 members the names are looked up through an index, before that in place.
        let members: Vec<String> = (0..30).map(|i| format!(r#""k{i}":{i}"#)).collect();
        let text = format!(
            r#"{{{},"k3":"a","k25":"b","k0":"c","7":0}}"#,
            members.join(",")
        );
        let expected: Vec<String> = (0..30)
            .map(|i| match i {
                0 => r#""k0":"c""#.to_owned(),
                3 => r#""k3":"a""#.to_owned(),
                25 => r#""k25":"b""#.to_owned(),
                _ => format!(r#""k{i}":{i}"#),
            })
            .collect();
        assert_eq!(
            parse(&text).to_compact(),
            format!(r#"{{"7":0,{}}}"#, expected.join(","))
        );
    }

    #[test]
    fn array_index_names_come_first_in_numeric_order() {
        let v = parse(
            r#"{"zzz":1,"query":5,"10":2,"2":3,"aaa":4,"01":5,"4294967295":6,"4294967294":7}"#,
        );
        assert_eq!(
            v.to_compact(),
            r#"{"2":3,"10":2,"4294967294":7,"zzz":1,"query":5,"aaa":4,"01":5,"4294967295":6}"#
        );
    }

    #[test]
    fn a_plain_run_ends_at_the_first_quote_backslash_control_or_non_ascii_byte() {
        let naive = |bytes: &[u8]| {
            bytes
                .iter()
                .position(|&b| !(0x20..0x80).contains(&b) || b == b'"' || b == b'\\')
                .unwrap_or(bytes.len())
        };
        // Every stopping byte (and some that do not stop) at every offset of a 20-byte text,
        // so that it falls in the first word, the second, and the bytes after them; among
        // plain bytes with odd and even values and the lowest and highest.
        for fill in [b'a', b'b', b' ', b'~'] {
            for stop in [
                0x00, 0x1f, 0x20, 0x21, 0x22, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xc3, 0xff,
            ] {
                for at in 0..20 {
                    let mut bytes = vec![fill; 20];
                    bytes[at] = stop;
                    let case = format!("byte {stop:#x} at {at} among {:?}", char::from(fill));
                    assert_eq!(plain_run(&bytes), naive(&bytes), "{case}");
                    assert_eq!(plain_run(&bytes[..at]), at, "{case}: the bytes before it");
                }
            }
        }
        // Words made only of one stopping byte.
        for stop in [0x00, 0x1f, 0x22, 0x5c, 0x7f, 0x80, 0xff] {
            assert_eq!(
                plain_run(&[stop; 20]),
                naive(&[stop; 20]),
                "byte {stop:#x} alone"
            );
        }
        assert_eq!(plain_run(b""), 0);
    }

    #[test]
    fn numbers_read_as_doubles_and_overflow_to_infinity() {
        assert_eq!(parse("1e400"), Json::Number(f64::INFINITY));
        assert_eq!(parse("-1e400"), Json::Number(f64::NEG_INFINITY));
        assert_eq!(parse("1.0000000000000001"), Json::Number(1.0));
        assert_eq!(parse("9007199254740993"), Json::Number(9007199254740992.0));
        assert_eq!(parse("1e-400"), Json::Number(0.0));
    }

    #[test]
    fn lone_surrogates_are_kept_and_written_back_escaped() {
        let v = parse(r#""a\ud800b\udc00""#);
        assert_eq!(
            v.as_string().map(|s| s.units().to_vec()),
            Some(vec![0x61, 0xD800, 0x62, 0xDC00])
        );
        assert_eq!(v.to_compact(), r#""a\ud800b\udc00""#);
        assert_eq!(parse(r#""\ud83d\ude00""#), Json::str("😀"));
    }

    #[test]
    fn malformed_texts_are_refused_with_their_position() {
        for (text, line, column) in [
            ("{\"a\":}", 1, 6),
            ("[1,]", 1, 4),
            ("{\n  \"a\" 1}", 2, 7),
            ("\"abc", 1, 5),
            ("01", 1, 2),
            ("1.", 1, 3),
            ("tru", 1, 1),
            ("{} x", 1, 4),
            ("\"\\x\"", 1, 3),
            ("", 1, 1),
        ] {
            let e = Json::parse(text).expect_err(text);
            assert_eq!((e.line, e.column), (line, column), "{text}: {e}");
        }
    }

    #[test]
    fn nesting_has_no_limit_and_errors_inside_it_keep_their_position() {
        let depth = 100_000;
        let text = "[".repeat(depth) + &"]".repeat(depth);
        let value = Json::parse(&text).expect("any depth is read");
        assert_eq!(value.to_compact(), text);
        // A fault at the bottom of a deep text is found there, and what was read is dropped.
        let text = format!(
            r#"{}{{"a":1,"b":}}{}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let e = Json::parse(&text).expect_err("no value for b");
        assert_eq!((e.line, e.column), (1, depth + 12), "{e}");
        assert_eq!(e.message, "expected a JSON value");
        let e = Json::parse(&"[".repeat(depth)).expect_err("unclosed");
        assert_eq!(e.message, "unexpected end of text, expected a JSON value");
    }
}
