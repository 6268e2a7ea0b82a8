//! `web_fetch`'s HTML conversions against upstream's, recorded from turndown 7.2.4 and
//! htmlparser2 12 on Bun 1.3.8 (`tests/html/record.mjs`), and against hostile input.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::Value;
use similar_asserts::SimpleDiff;
use vvoc_reference::exec::web::html::{Thrown, to_markdown, to_text};

/// Documents whose conversion is known to differ from upstream's, with the reason. The test fails
/// when one of them starts to match, so the list only shrinks.
const KNOWN_DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "known-adoption-agency-deep.html",
        "markdown",
        "misnested formatting elements many levels deep (`</b>` over a dozen open `<font>`, \
         `<small>`, `<a>`...): domino 2.2's adoption agency is an older revision of the \
         algorithm, and an `<hr>` lands outside the reconstructed `<b><small>` instead of in it",
    ),
    (
        "known-foreign-end-br-formatting.html",
        "markdown",
        "`</br>` in MathML with formatting elements to reconstruct: domino runs the body's `</br>` \
     rules there, which reconstruct the active formatting elements before the `<br>`; the port \
     inserts the `<br>` alone",
    ),
];

fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/html/corpus");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("the corpus folder")
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "html"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (
                name,
                fs::read_to_string(&path).expect("a UTF-8 corpus document"),
            )
        })
        .collect()
}

fn expected() -> serde_json::Map<String, Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/html/expected.json");
    let text = fs::read_to_string(path).expect("expected.json");
    let value: Value = serde_json::from_str(&text).expect("expected.json is JSON");
    value
        .as_object()
        .expect("expected.json is an object")
        .clone()
}

/// The markdown as recorded: the text, or `throws: <message>`.
fn recorded_markdown(value: &Value) -> String {
    match value.as_str() {
        Some(s) => s.to_owned(),
        None => format!(
            "throws: {}",
            value["throws"].as_str().expect("a string or a throw")
        ),
    }
}

fn markdown_of(html: &str) -> String {
    match to_markdown(html) {
        Ok(markdown) => markdown,
        Err(Thrown(message)) => format!("throws: {message}"),
    }
}

#[test]
fn every_corpus_document_converts_as_upstream() {
    let expected = expected();
    let corpus = corpus();
    assert!(
        corpus.len() >= 150,
        "the corpus has {} documents",
        corpus.len()
    );
    let mut failures = Vec::new();
    let mut differing = BTreeSet::new();
    let (mut markdown_ok, mut text_ok) = (0, 0);
    for (name, html) in &corpus {
        let record = expected
            .get(name)
            .expect("every corpus document is recorded");
        for (kind, want, got) in [
            (
                "markdown",
                recorded_markdown(&record["markdown"]),
                markdown_of(html),
            ),
            (
                "text",
                record["text"].as_str().expect("a text").to_owned(),
                to_text(html),
            ),
        ] {
            if want == got {
                if kind == "markdown" {
                    markdown_ok += 1
                } else {
                    text_ok += 1
                }
                continue;
            }
            differing.insert((name.clone(), kind));
            if !KNOWN_DIFFERENCES
                .iter()
                .any(|(n, k, _)| n == name && *k == kind)
            {
                let diff = SimpleDiff::from_str(&want, &got, "upstream", "port");
                failures.push(format!("{name} ({kind}):\n{diff}"));
            }
        }
    }
    for (name, kind, reason) in KNOWN_DIFFERENCES {
        if !differing.contains(&((*name).to_owned(), *kind)) {
            failures.push(format!(
                "{name} ({kind}) now matches: drop it from KNOWN_DIFFERENCES ({reason})"
            ));
        }
    }
    let total = corpus.len();
    eprintln!("markdown {markdown_ok}/{total}, text {text_ok}/{total}");
    assert!(
        failures.is_empty(),
        "{} differences:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Pieces of tag soup: tags the conversions treat specially, broken markup, references, text.
const PIECES: &[&str] = &[
    "<p>",
    "</p>",
    "<div>",
    "</div>",
    "<ul>",
    "<ol start=\"x\">",
    "<li>",
    "</li>",
    "<pre>",
    "</pre>",
    "<code class=\"language-\">",
    "</code>",
    "<a href=\"(x y)\" title=\"\n\">",
    "</a>",
    "<img src=\"\" alt=\"*\">",
    "<br>",
    "</br>",
    "<hr/>",
    "<em>",
    "</b>",
    "<table>",
    "<td>",
    "<blockquote>",
    "<h1>",
    "</h6>",
    "<script>",
    "</script>",
    "<script/>",
    "<style/>",
    "<title>",
    "<textarea/>",
    "<svg>",
    "<math>",
    "</svg>",
    "<select>",
    "<option>",
    "<template>",
    "<noscript>",
    "<frameset>",
    "<plaintext>",
    "<xmp>",
    "<iframe/>",
    "<![CDATA[",
    "]]>",
    "<!--",
    "-->",
    "<!",
    "<?",
    "</ >",
    "<",
    ">",
    "&",
    "&#",
    "&#x",
    "&amp",
    "&notin",
    "&#x110000;",
    "&#0;",
    "&#150",
    "\u{0}",
    "\r",
    "\n",
    " ",
    "\u{a0}",
    "\u{2028}",
    "\u{feff}",
    "`",
    "```",
    "*",
    "_",
    "# ",
    "1. ",
    "- ",
    "+ ",
    "=",
    "~~~",
    "\\",
    "[",
    "]",
    "x",
    "é",
    "🎉",
    "\u{d7ff}",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..80).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(Config { cases: 512, ..Config::default() })]

    /// Any bytes, read as the host reads a body it decodes (lossily), convert without a panic.
    #[test]
    fn arbitrary_bytes_convert_without_panicking(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let html = String::from_utf8_lossy(&bytes);
        let _ = to_markdown(&html);
        let _ = to_text(&html);
    }

    /// Tag soup, the markup both conversions have special paths for, converts without a panic.
    #[test]
    fn tag_soup_converts_without_panicking(html in soup()) {
        let _ = to_markdown(&html);
        let _ = to_text(&html);
    }
}

/// Nesting deeper than a call stack would allow: every walk of the port keeps its own stack.
#[test]
fn deep_nesting_converts() {
    let depth = 3_000;
    let html = format!(
        "{}deep{}",
        "<div><blockquote>".repeat(depth),
        "</blockquote></div>".repeat(depth)
    );
    let markdown = to_markdown(&html).expect("a root");
    assert!(
        markdown.ends_with("deep"),
        "{}",
        &markdown[markdown.len().saturating_sub(40)..]
    );
    assert_eq!(to_text(&html), "deep");
}
