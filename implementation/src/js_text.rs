//! Text written straight into UTF-16: messages from pieces (`js!`) and constants at compile time (`js_static!`).
//!
//! Issue messages are most of what a refusal costs. Built with `format!`, each went through
//! `core::fmt` into a `String` and was then copied into UTF-16; built here, each is one
//! allocation, written a piece at a time, and a constant text costs no allocation at all.

use crate::js_string::JsString;

/// Something a message is built from: text, UTF-16 units, or a decimal integer.
pub trait Piece {
    /// Appends this piece to `text`.
    fn push_onto(self, text: &mut JsString);
}

/// The room a message starts with, in units: most messages fit, the longest grow once.
pub const MESSAGE_ROOM: usize = 96;

/// A message made of pieces, in order: `js!["Too big: expected ", noun, " to be <=", max]`.
///
/// A string literal piece is converted to UTF-16 at compile time (it must be ASCII) and copied as
/// it is; any other piece is a [`Piece`] written when the message is built.
macro_rules! js {
    (@push $text:ident;) => {};
    (@push $text:ident; $piece:literal $(, $($rest:tt)*)?) => {
        $text.push_units($crate::js_text::js_static!($piece).units());
        $crate::js_text::js!(@push $text; $($($rest)*)?)
    };
    (@push $text:ident; $piece:expr $(, $($rest:tt)*)?) => {
        $crate::js_text::Piece::push_onto($piece, &mut $text);
        $crate::js_text::js!(@push $text; $($($rest)*)?)
    };
    ($($pieces:tt)*) => {{
        #[allow(unused_mut)]
        let mut text = $crate::js_string::JsString::with_capacity($crate::js_text::MESSAGE_ROOM);
        $crate::js_text::js!(@push text; $($pieces)*);
        text
    }};
}
pub(crate) use js;

/// A constant ASCII text as a `JsString` that borrows units computed at compile time.
macro_rules! js_static {
    ($text:expr) => {{
        const UNITS: [u16; $text.len()] = $crate::js_text::ascii_units($text);
        $crate::js_string::JsString::borrowed(&UNITS)
    }};
}
pub(crate) use js_static;

/// The UTF-16 units of an ASCII text; a text that is not ASCII fails the build.
pub const fn ascii_units<const N: usize>(text: &str) -> [u16; N] {
    let bytes = text.as_bytes();
    assert!(bytes.len() == N, "the length must be the text's");
    let mut units = [0; N];
    let mut i = 0;
    while i < N {
        assert!(bytes[i].is_ascii(), "a static text must be ASCII");
        units[i] = bytes[i] as u16;
        i += 1;
    }
    units
}

impl Piece for &str {
    fn push_onto(self, text: &mut JsString) {
        text.push_str(self);
    }
}

impl Piece for &String {
    fn push_onto(self, text: &mut JsString) {
        text.push_str(self);
    }
}

impl Piece for &[u16] {
    fn push_onto(self, text: &mut JsString) {
        text.push_units(self);
    }
}

impl Piece for &JsString {
    fn push_onto(self, text: &mut JsString) {
        text.push_units(self.units());
    }
}

impl Piece for char {
    fn push_onto(self, text: &mut JsString) {
        text.push(self);
    }
}

impl Piece for u32 {
    fn push_onto(self, text: &mut JsString) {
        push_decimal(text, false, u64::from(self));
    }
}

impl Piece for usize {
    fn push_onto(self, text: &mut JsString) {
        push_decimal(text, false, self as u64);
    }
}

impl Piece for i64 {
    fn push_onto(self, text: &mut JsString) {
        push_decimal(text, self < 0, self.unsigned_abs());
    }
}

/// Appends `items` in order, each between `quote`s and `separator` between two: `"a"|"b"` or
/// `a, b`.
pub fn push_joined(text: &mut JsString, items: &[&str], separator: &str, quote: &str) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            text.push_str(separator);
        }
        text.push_str(quote);
        text.push_str(item);
        text.push_str(quote);
    }
}

/// Appends `n` in decimal, after a minus sign when `negative`.
fn push_decimal(text: &mut JsString, negative: bool, mut n: u64) {
    // u64::MAX has 20 digits.
    let mut digits = [0u16; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = u16::from(b'0') + (n % 10) as u16;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if negative {
        text.push('-');
    }
    text.push_units(&digits[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_written_in_order_as_format_would_write_them() {
        let name = JsString::from("é😀");
        let units: &[u16] = &[0xd800, 0x41];
        let (space, seven, zero) = (' ', 7u32, 0usize);
        let text = js![
            "a ",
            &name,
            space,
            seven,
            "/",
            zero,
            units,
            &String::from("z")
        ];
        let mut expected: Vec<u16> = "a é😀 7/0".encode_utf16().collect();
        expected.extend([0xd800, 0x41, u16::from(b'z')]);
        assert_eq!(text.units(), expected.as_slice());
        assert_eq!(js![].units(), &[] as &[u16]);
    }

    #[test]
    fn decimals_match_rust_formatting_at_every_magnitude_and_sign() {
        let mut values = vec![0i64, 1, -1, 9, 10, -10, 99, 100, i64::MAX, i64::MIN];
        values.extend((0..19).map(|p| 10i64.pow(p)));
        values.extend((0..19).map(|p| 10i64.pow(p) - 1));
        values.extend((0..19).map(|p| -(10i64.pow(p)) + 1));
        for n in values {
            assert_eq!(js![n].to_string(), n.to_string(), "{n}");
        }
        for n in [0u32, 5, 10, 4_294_967_295] {
            assert_eq!(js![n].to_string(), n.to_string(), "{n}");
        }
        assert_eq!(js![usize::MAX].to_string(), usize::MAX.to_string());
    }

    #[test]
    fn joined_items_are_quoted_and_separated_only_between_two() {
        let mut text = js!["one of "];
        push_joined(&mut text, &["a", "b", "c"], "|", "\"");
        assert_eq!(text, JsString::from("one of \"a\"|\"b\"|\"c\""));
        let mut plain = JsString::new();
        push_joined(&mut plain, &["x"], ", ", "");
        assert_eq!(plain, JsString::from("x"));
        let mut none = JsString::new();
        push_joined(&mut none, &[], ", ", "\"");
        assert_eq!(none, JsString::new());
    }

    #[test]
    fn static_texts_are_their_ascii_units_without_an_allocation() {
        let text = js_static!("Invalid input");
        assert_eq!(text, JsString::from("Invalid input"));
        assert!(text.is_borrowed());
        assert_eq!(js_static!(""), JsString::new());
    }
}
