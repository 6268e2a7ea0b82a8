//! The JSON reader and writer at the edges vectors cannot reach: texts the host's `JSON.parse` refuses, what a refusal says, and how values compare and print.

use vvoc_reference::Json;

fn parse(text: &str) -> Json {
    Json::parse(text).expect("valid JSON")
}

#[test]
fn texts_the_host_refuses_are_refused_where_they_go_wrong() {
    for (text, column, message) in [
        // `\u` takes exactly four hex digits: no sign, although Rust's integer parser takes one.
        (r#""\u+041""#, 4, "expected four hex digits after \\u"),
        // A control character must be escaped inside a string.
        ("\"a\u{1}b\"", 3, "unescaped control character in string"),
        ("\"a\tb\"", 3, "unescaped control character in string"),
    ] {
        let e = Json::parse(text).expect_err(text);
        assert_eq!(
            (e.line, e.column, e.message.as_str()),
            (1, column, message),
            "{text:?}"
        );
    }
}

#[test]
fn a_refusal_says_its_line_and_column_before_what_is_wrong() {
    let e = Json::parse("{\n  \"a\" 1}").expect_err("no colon");
    assert_eq!(
        e.to_string(),
        "line 2, column 7: expected ':' after the member name"
    );
}

#[test]
fn an_escaped_slash_is_a_slash_and_delete_needs_no_escape() {
    assert_eq!(parse(r#""a\/b""#), Json::str("a/b"));
    assert_eq!(parse("\"a\u{7f}b\""), Json::str("a\u{7f}b"));
}

#[test]
fn infinite_numbers_print_as_texts_that_read_back_with_their_sign() {
    let value = parse("[1e400,-1e400]");
    assert_eq!(value.to_compact(), "[1e400,-1e400]");
    assert_eq!(value.to_string(), "[1e400,-1e400]");
    assert_eq!(parse(&value.to_compact()), value);
}

#[test]
fn objects_with_other_member_names_differ_even_with_equal_values() {
    let (a, b) = (parse(r#"{"a":1}"#), parse(r#"{"b":1}"#));
    assert_ne!(a, b);
    assert!(!a.same_as(&b));
    assert!(a.same_as(&parse(r#"{"a":1.0}"#)));
}

#[test]
fn not_a_number_is_the_same_only_as_not_a_number() {
    let nan = Json::Number(f64::NAN);
    assert!(nan.same_as(&Json::Number(f64::NAN)));
    assert!(!nan.same_as(&Json::Number(0.0)));
    assert!(!Json::Number(0.0).same_as(&nan));
}
