//! Issues and verdicts: what a validator answers, and the one-line form of a refusal (§1.2–§1.6).

use std::fmt;
use std::str::FromStr;

use crate::js_string::JsString;
use crate::json::{Json, Object};
use crate::text::{push_json_escaped_utf8, truncate};

/// The most issues a refusal carries.
pub const MAX_ISSUES: usize = 8;
/// The longest path, in units.
pub const MAX_PATH: usize = 120;
/// The longest message or `expected`, in units.
pub const MAX_MESSAGE: usize = 200;

/// The closed set of issue codes (§1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    /// A member whose name is not declared.
    UnrecognizedKeys,
    /// A value outside an enum or literal, or a branch-rule conflict.
    InvalidValue,
    /// A value of the wrong JSON type.
    InvalidType,
    /// A URL that cannot be parsed.
    InvalidFormat,
    /// A value under its lower bound.
    TooSmall,
    /// A value over its upper bound.
    TooBig,
    /// A value a branch rule requires.
    MissingValue,
    /// Never produced in 1.6.0.
    InvalidUnion,
    /// Never produced in 1.6.0.
    Custom,
}

impl Code {
    /// Every code, in the order of §1.3.
    pub const ALL: [Code; 9] = [
        Code::UnrecognizedKeys,
        Code::InvalidValue,
        Code::InvalidType,
        Code::InvalidFormat,
        Code::TooSmall,
        Code::TooBig,
        Code::MissingValue,
        Code::InvalidUnion,
        Code::Custom,
    ];

    /// The code as issues write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Code::UnrecognizedKeys => "unrecognized_keys",
            Code::InvalidValue => "invalid_value",
            Code::InvalidType => "invalid_type",
            Code::InvalidFormat => "invalid_format",
            Code::TooSmall => "too_small",
            Code::TooBig => "too_big",
            Code::MissingValue => "missing_value",
            Code::InvalidUnion => "invalid_union",
            Code::Custom => "custom",
        }
    }

    /// Whether the code reports a bound (§2.1.10 calls these bound issues).
    pub const fn is_bound(self) -> bool {
        match self {
            Code::TooSmall | Code::TooBig => true,
            Code::UnrecognizedKeys
            | Code::InvalidValue
            | Code::InvalidType
            | Code::InvalidFormat
            | Code::MissingValue
            | Code::InvalidUnion
            | Code::Custom => false,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Code {
    type Err = String;

    fn from_str(s: &str) -> Result<Code, String> {
        Code::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
                format!(
                    "unknown issue code {s:?}: expected one of {}",
                    known.join(", ")
                )
            })
    }
}

/// One problem of a refused input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// What kind of problem.
    pub code: Code,
    /// Where (§1.4), at most 120 units.
    pub path: JsString,
    /// What is wrong, at most 200 units.
    pub message: JsString,
    /// What would have been accepted, at most 200 units.
    pub expected: Option<JsString>,
    /// Only `Infinity`, for a number too large for a double.
    pub received: Option<JsString>,
}

impl Issue {
    /// The issue as a JSON object with its members in the order of §1.2.
    pub fn to_json(&self) -> Json {
        let mut o = Object::new();
        o.insert("code", Json::str(self.code.as_str()));
        o.insert("path", Json::String(self.path.clone()));
        o.insert("message", Json::String(self.message.clone()));
        if let Some(expected) = &self.expected {
            o.insert("expected", Json::String(expected.clone()));
        }
        if let Some(received) = &self.received {
            o.insert("received", Json::String(received.clone()));
        }
        Json::Object(o)
    }

    /// Appends the compact JSON text of [`Issue::to_json`] to `out`, without building the object.
    pub fn write_compact(&self, out: &mut String) {
        // A code is a lowercase identifier: nothing in it needs escaping.
        out.push_str("{\"code\":\"");
        out.push_str(self.code.as_str());
        out.push('"');
        let mut member = |name: &str, text: &[u16]| {
            out.push_str(name);
            push_json_escaped_utf8(out, text);
            out.push('"');
        };
        member(",\"path\":\"", self.path.units());
        member(",\"message\":\"", self.message.units());
        if let Some(expected) = &self.expected {
            member(",\"expected\":\"", expected.units());
        }
        if let Some(received) = &self.received {
            member(",\"received\":\"", received.units());
        }
        out.push('}');
    }

    /// Reads an issue object, refusing any other member and any missing or mistyped one.
    pub fn from_json(value: &Json) -> Result<Issue, String> {
        let object = value
            .as_object()
            .ok_or_else(|| format!("an issue must be an object, found {}", value.type_name()))?;
        for (name, _) in object.iter() {
            if !["code", "path", "message", "expected", "received"]
                .iter()
                .any(|k| name.eq_str(k))
            {
                return Err(format!(
                    "unknown issue member {name:?}: an issue has only code, path, message, expected and received"
                ));
            }
        }
        let text = |name: &str| -> Result<Option<JsString>, String> {
            match object.get(name) {
                None => Ok(None),
                Some(Json::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!(
                    "issue member {name:?} must be a string, found {}",
                    other.type_name()
                )),
            }
        };
        let required =
            |name: &str| text(name)?.ok_or_else(|| format!("issue member {name:?} is missing"));
        Ok(Issue {
            code: required("code")?.to_string_lossy().parse()?,
            path: required("path")?,
            message: required("message")?,
            expected: text("expected")?,
            received: text("received")?,
        })
    }
}

/// What a validator answers for one input.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The normalized input (§1.7).
    Accept(Json),
    /// One to eight issues, in order.
    Reject(Vec<Issue>),
}

impl Verdict {
    /// Whether the input was accepted.
    pub fn is_accept(&self) -> bool {
        matches!(self, Verdict::Accept(_))
    }

    /// The verdict as JSON: `{"accept": output}` or `{"reject": [issue, ...]}`.
    pub fn to_json(&self) -> Json {
        let mut o = Object::new();
        match self {
            Verdict::Accept(output) => o.insert("accept", output.clone()),
            Verdict::Reject(issues) => o.insert(
                "reject",
                Json::Array(issues.iter().map(Issue::to_json).collect()),
            ),
        }
        Json::Object(o)
    }
}

/// The one-line form of a refusal (§1.6): `INVALID_INPUT: <path>: <message>; expected <e> | ...`.
pub fn one_line(issues: &[Issue]) -> JsString {
    let mut line = JsString::from("INVALID_INPUT: ");
    for (i, issue) in issues.iter().enumerate() {
        if i > 0 {
            line.push_str(" | ");
        }
        let mut part = issue.path.clone();
        part.push_str(": ");
        part.push_units(issue.message.units());
        if let Some(expected) = issue.expected.as_ref().filter(|e| !e.is_empty()) {
            part.push_str("; expected ");
            part.push_units(expected.units());
        }
        if let Some(received) = &issue.received {
            part.push_str("; received ");
            part.push_units(received.units());
        }
        line.push_units(truncate(part.units(), MAX_MESSAGE).units());
    }
    truncate(line.units(), 1800)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(code: Code, path: &str, message: &str, expected: Option<&str>) -> Issue {
        Issue {
            code,
            path: path.into(),
            message: message.into(),
            expected: expected.map(JsString::from),
            received: None,
        }
    }

    #[test]
    fn an_issue_is_written_as_the_compact_text_of_its_object() {
        let mut odd = issue(
            Code::UnrecognizedKeys,
            "a\\.b[0]",
            "unrecognized key \"\u{1}😀\"",
            Some("é\u{2028}"),
        );
        odd.received = Some(JsString::from_units(vec![0xD800, 0x41]));
        for one in [
            issue(Code::InvalidType, "(root)", "Invalid input", None),
            issue(Code::TooBig, "query", "Too big", Some("<=8")),
            odd,
        ] {
            let mut written = String::new();
            one.write_compact(&mut written);
            assert_eq!(written, one.to_json().to_compact());
        }
    }

    #[test]
    fn one_issue_without_expected_is_path_and_message() {
        let line = one_line(&[issue(
            Code::TooSmall,
            "count",
            "Too small: expected number to be >=1",
            None,
        )]);
        assert_eq!(
            line,
            "INVALID_INPUT: count: Too small: expected number to be >=1"
        );
    }

    #[test]
    fn parts_carry_expected_and_received_and_join_with_bars() {
        let mut infinite = issue(
            Code::InvalidType,
            "count",
            "Invalid input: expected number, received number",
            Some("number"),
        );
        infinite.received = Some("Infinity".into());
        assert_eq!(
            one_line(&[infinite]),
            "INVALID_INPUT: count: Invalid input: expected number, received number; expected number; received Infinity"
        );
        let unknown = |name: &str| {
            issue(
                Code::UnrecognizedKeys,
                name,
                &format!("unrecognized key \"{name}\""),
                Some("a known property of this request object"),
            )
        };
        assert_eq!(
            one_line(&[unknown("apiKey"), unknown("provider")]),
            "INVALID_INPUT: apiKey: unrecognized key \"apiKey\"; expected a known property of this request object | provider: unrecognized key \"provider\"; expected a known property of this request object"
        );
    }

    #[test]
    fn an_empty_expected_is_left_out() {
        assert_eq!(
            one_line(&[issue(Code::Custom, "(root)", "m", Some(""))]),
            "INVALID_INPUT: (root): m"
        );
    }

    #[test]
    fn each_part_is_cut_at_200_units() {
        // The fifth example of §1.6: a part of more than 200 units ends in an ellipsis at 200.
        let message = "Invalid option: expected one of \"register\"|\"start\"|\"verify\"|\"recover\"|\"review\"|\"bind\"|\"complete\"|\"amend\"|\"authorize\"|\"record_approval\"|\"revoke_authority\"";
        let expected = "\"register\" | \"start\" | \"verify\" | \"recover\" | \"review\" | \"bind\" | \"complete\" | \"amend\" | \"authorize\" | \"record_approval\" | \"revoke_authority\"";
        let line = one_line(&[issue(Code::InvalidValue, "action", message, Some(expected))]);
        assert_eq!(line.len(), "INVALID_INPUT: ".len() + 200);
        assert!(
            line.to_string()
                .ends_with("expected \"register\" | \"start\" | \"ver…"),
            "{line}"
        );
        assert_eq!(line.len(), 215, "the whole example line is 215 units");
    }

    #[test]
    fn eight_long_parts_stay_under_the_line_bound() {
        let long = "x".repeat(300);
        let issues: Vec<Issue> = (0..8)
            .map(|_| issue(Code::InvalidValue, "p", &long, Some(&long)))
            .collect();
        let line = one_line(&issues);
        assert_eq!(line.len(), "INVALID_INPUT: ".len() + 8 * 200 + 7 * 3);
    }
}
