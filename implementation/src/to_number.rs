//! The host's conversion of a `length` member to a number, used by the length rule of §2.1.8.

use crate::json::{Json, format_number};
use crate::text::trim;

/// The number a `length` member's value converts to; `NaN` when it is not a number at all.
pub fn to_number(value: &Json) -> f64 {
    match value {
        Json::Number(n) => *n,
        Json::Bool(true) => 1.0,
        Json::Bool(false) | Json::Null => 0.0,
        Json::String(s) => string_to_number(&s.to_string_lossy()),
        Json::Array(items) => string_to_number(&join(items)),
        Json::Object(_) => f64::NAN,
    }
}

/// An array as text: its elements joined with `,`, `null` as empty text, nested arrays likewise
/// (however deep: the arrays being joined are kept on a stack, not in calls).
fn join(items: &[Json]) -> String {
    let mut out = String::new();
    // Each array being joined: its remaining elements, and whether one was written yet.
    let mut open = vec![(items.iter(), false)];
    while let Some((elements, started)) = open.last_mut() {
        let Some(item) = elements.next() else {
            open.pop();
            continue;
        };
        if *started {
            out.push(',');
        }
        *started = true;
        match item {
            Json::Null => {}
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(&format_js_number(*n)),
            Json::String(s) => out.push_str(&s.to_string_lossy()),
            Json::Array(inner) => open.push((inner.iter(), false)),
            Json::Object(_) => out.push_str("[object Object]"),
        }
    }
    out
}

fn format_js_number(n: f64) -> String {
    if n.is_infinite() {
        return if n > 0.0 {
            "Infinity".to_owned()
        } else {
            "-Infinity".to_owned()
        };
    }
    format_number(n)
}

/// A string as a number: trimmed; empty is 0; a decimal literal, `Infinity` (signed or not), or an
/// unsigned `0x`/`0o`/`0b` integer is its value; anything else is `NaN`.
fn string_to_number(text: &str) -> f64 {
    let units: Vec<u16> = text.encode_utf16().collect();
    let trimmed = String::from_utf16_lossy(trim(&units));
    let s = trimmed.as_str();
    if s.is_empty() {
        return 0.0;
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = s.strip_prefix(prefix) {
            return radix_integer(digits, radix);
        }
    }
    let (sign, unsigned) = match s.as_bytes()[0] {
        b'+' => (1.0, &s[1..]),
        b'-' => (-1.0, &s[1..]),
        _ => (1.0, s),
    };
    if unsigned == "Infinity" {
        return sign * f64::INFINITY;
    }
    if is_decimal_literal(unsigned) {
        // The grammar was checked above, so Rust's parser (which also knows `inf` and `nan`)
        // only ever sees a decimal literal here.
        return unsigned.parse::<f64>().map_or(f64::NAN, |v| sign * v);
    }
    f64::NAN
}

fn radix_integer(digits: &str, radix: u32) -> f64 {
    if digits.is_empty() {
        return f64::NAN;
    }
    let mut value = 0.0f64;
    for c in digits.chars() {
        match c.to_digit(radix) {
            Some(d) => value = value * f64::from(radix) + f64::from(d),
            None => return f64::NAN,
        }
    }
    value
}

/// `digits [. digits] [exponent]` or `. digits [exponent]`, or `digits .` (as the host allows).
fn is_decimal_literal(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    let int_digits = count_digits(&bytes[i..]);
    i += int_digits;
    let mut frac_digits = 0;
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = count_digits(&bytes[i..]);
        i += frac_digits;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = count_digits(&bytes[i..]);
        if exp_digits == 0 {
            return false;
        }
        i += exp_digits;
    }
    i == bytes.len()
}

fn count_digits(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_digit()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> f64 {
        to_number(&Json::parse(text).expect("valid JSON"))
    }

    #[test]
    fn scalars_convert_like_the_host() {
        assert_eq!(n("5"), 5.0);
        assert_eq!(n("true"), 1.0);
        assert_eq!(n("false"), 0.0);
        assert_eq!(n("null"), 0.0);
        assert!(n("{}").is_nan());
    }

    #[test]
    fn strings_convert_after_trimming() {
        assert_eq!(n(r#""""#), 0.0);
        assert_eq!(n(r#"" 5 ""#), 5.0);
        assert_eq!(n(r#""\ufeff5\u3000""#), 5.0);
        assert_eq!(n(r#""1e3""#), 1000.0);
        assert_eq!(n(r#""-2.5""#), -2.5);
        assert_eq!(n(r#""5.""#), 5.0);
        assert_eq!(n(r#"".5""#), 0.5);
        assert_eq!(n(r#""0x10""#), 16.0);
        assert_eq!(n(r#""0o17""#), 15.0);
        assert_eq!(n(r#""0b101""#), 5.0);
        assert_eq!(n(r#""-Infinity""#), f64::NEG_INFINITY);
        for bad in [
            r#""abc""#,
            r#""-0x10""#,
            r#""inf""#,
            r#""nan""#,
            r#""1e""#,
            r#"".""#,
            r#""1_000""#,
            r#""0x""#,
            r#""\u00855""#,
        ] {
            assert!(n(bad).is_nan(), "{bad}");
        }
    }

    #[test]
    fn arrays_convert_through_their_joined_text() {
        assert_eq!(n("[]"), 0.0);
        assert_eq!(n("[5]"), 5.0);
        assert_eq!(n("[[5]]"), 5.0);
        assert_eq!(n("[null]"), 0.0);
        assert_eq!(n(r#"[" 7 "]"#), 7.0);
        assert!(n("[1,2]").is_nan());
        assert!(n("[true]").is_nan());
        assert!(n("[{}]").is_nan());
        assert_eq!(n("[[[7]]]"), 7.0);
        assert_eq!(n("[[[]]]"), 0.0);
        assert!(n("[[],[]]").is_nan(), "joined as \",\"");
        assert!(n("[[1],2]").is_nan(), "joined as \"1,2\"");
    }

    #[test]
    fn arrays_of_any_depth_convert_on_a_small_stack() {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let depth = 1_000_000;
                let text = format!(r#"{}" 200 "{}"#, "[".repeat(depth), "]".repeat(depth));
                assert_eq!(n(&text), 200.0);
            })
            .expect("a thread")
            .join()
            .expect("converted on a small stack");
    }
}
