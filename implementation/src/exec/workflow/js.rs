//! The JavaScript semantics the workflow plugin's texts depend on: dates, numbers in templates, `JSON.stringify`, lines.

use crate::js_string::JsString;
use crate::json::{Json, Object, format_number};
use crate::text::is_trim_unit;

/// `new Date(ms).toISOString()`: `YYYY-MM-DDTHH:MM:SS.mmmZ`, with a signed six-digit year
/// outside 0000-9999. A clock outside the range of a JavaScript date (±8.64e15 ms) is clamped to
/// it, where JavaScript would raise; hosts never give such a clock.
pub(crate) fn iso(ms: i64) -> String {
    let ms = ms.clamp(-8_640_000_000_000_000, 8_640_000_000_000_000);
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    let (h, m, s, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    let year = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else if year < 0 {
        format!("-{:06}", -year)
    } else {
        format!("+{year:06}")
    };
    format!("{year}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// `String(n)`: a number as a template literal writes it.
pub(crate) fn number_text(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_owned()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        format_number(n)
    }
}

/// `JSON.stringify(value, null, 2)`: two-space indentation, members in order, and a number that
/// is not finite written `null`.
pub(crate) fn stringify(value: &Json) -> JsString {
    if has_non_finite(value) {
        JsString::from(finite(value).to_pretty())
    } else {
        JsString::from(value.to_pretty())
    }
}

/// `text.replace(/\r\n/g, "\n").split("\n")`.
pub(crate) fn lines(text: &[u16]) -> Vec<Vec<u16>> {
    let mut out = vec![Vec::new()];
    let mut i = 0;
    while i < text.len() {
        let u = text[i];
        if u == 0x0D && text.get(i + 1) == Some(&0x0A) {
            out.push(Vec::new());
            i += 2;
            continue;
        }
        if u == 0x0A {
            out.push(Vec::new());
        } else if let Some(last) = out.last_mut() {
            last.push(u);
        }
        i += 1;
    }
    out
}

/// `text.replace(/\r\n/g, "\n")`.
pub(crate) fn crlf_to_lf(text: &[u16]) -> Vec<u16> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == 0x0D && text.get(i + 1) == Some(&0x0A) {
            i += 1;
            continue;
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

/// A unit `\s` matches in a JavaScript regular expression (the same set `trim` removes).
pub(crate) fn is_space(u: u16) -> bool {
    is_trim_unit(u)
}

/// A unit `.` matches: anything but a line terminator.
pub(crate) fn is_dot(u: u16) -> bool {
    !matches!(u, 0x0A | 0x0D | 0x2028 | 0x2029)
}

/// A unit `\w` matches.
pub(crate) fn is_word(u: u16) -> bool {
    matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F)
}

/// Whether `units` are exactly the ASCII text `s`.
pub(crate) fn is(units: &[u16], s: &str) -> bool {
    units.len() == s.len() && units.iter().zip(s.bytes()).all(|(&u, b)| u == u16::from(b))
}

/// Whether `units` start with the ASCII text `s`.
pub(crate) fn starts_with(units: &[u16], s: &str) -> bool {
    units.len() >= s.len() && is(&units[..s.len()], s)
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Whether a number anywhere in `value` is not finite (a state file may hold `1e400`).
fn has_non_finite(value: &Json) -> bool {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Json::Number(n) if !n.is_finite() => return true,
            Json::Array(items) => stack.extend(items.iter()),
            Json::Object(o) => stack.extend(o.iter().map(|(_, v)| v)),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
        }
    }
    false
}

/// A copy of `value` with every number that is not finite replaced by `null`, built without
/// recursion (a hydrated record may nest as deep as its file).
fn finite(value: &Json) -> Json {
    enum Frame<'a> {
        Array(std::slice::Iter<'a, Json>, Vec<Json>),
        Object(Vec<(&'a JsString, &'a Json)>, usize, Vec<(JsString, Json)>),
    }
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        let mut done = match next.take() {
            Some(Json::Array(items)) => {
                stack.push(Frame::Array(items.iter(), Vec::with_capacity(items.len())));
                None
            }
            Some(Json::Object(o)) => {
                let members: Vec<_> = o.iter().collect();
                stack.push(Frame::Object(members, 0, Vec::new()));
                None
            }
            Some(Json::Number(n)) if !n.is_finite() => Some(Json::Null),
            Some(leaf) => Some(leaf.clone()),
            None => None,
        };
        loop {
            let Some(frame) = stack.last_mut() else {
                return done.unwrap_or(Json::Null);
            };
            match frame {
                Frame::Array(iter, out) => {
                    if let Some(v) = done.take() {
                        out.push(v);
                    }
                    if let Some(child) = iter.next() {
                        next = Some(child);
                        break;
                    }
                    let Some(Frame::Array(_, out)) = stack.pop() else {
                        unreachable!("the frame just matched")
                    };
                    done = Some(Json::Array(out));
                }
                Frame::Object(members, at, out) => {
                    if let Some(v) = done.take() {
                        out.push((members[*at - 1].0.clone(), v));
                    }
                    if let Some((_, child)) = members.get(*at) {
                        *at += 1;
                        next = Some(child);
                        break;
                    }
                    let Some(Frame::Object(_, _, out)) = stack.pop() else {
                        unreachable!("the frame just matched")
                    };
                    done = Some(Json::Object(Object::from_members(out)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_writes_dates_as_javascript_does() {
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(1_767_225_600_000), "2026-01-01T00:00:00.000Z");
        assert_eq!(iso(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(iso(253_402_300_800_000), "+010000-01-01T00:00:00.000Z");
        assert_eq!(iso(-62_198_755_200_000), "-000001-01-01T00:00:00.000Z");
    }

    #[test]
    fn stringify_writes_non_finite_numbers_as_null() {
        let v = Json::Array(vec![Json::Number(f64::INFINITY), Json::Number(1.5)]);
        assert_eq!(stringify(&v), "[\n  null,\n  1.5\n]");
        assert_eq!(number_text(f64::NAN), "NaN");
        assert_eq!(number_text(3.0), "3");
    }

    #[test]
    fn lines_split_on_lf_after_crlf_becomes_lf() {
        let text: Vec<u16> = "a\r\nb\rc\nd".encode_utf16().collect();
        let got: Vec<String> = lines(&text)
            .iter()
            .map(|l| String::from_utf16_lossy(l))
            .collect();
        assert_eq!(got, ["a", "b\rc", "d"]);
    }
}
