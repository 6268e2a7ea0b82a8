//! Property tests of execution: no file content or edit batch makes an editor panic, every text
//! has one of the documented forms, and a one-line replace applied again with fresh anchors
//! changes nothing (`execution.md` §1.10).

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::Config;
use vvoc_reference::exec::{Outcome, Session, anchors, execute};
use vvoc_reference::{JsString, Json, Tool};

proptest! {
    #![proptest_config(Config { cases: 128, failure_persistence: None, ..Config::default() })]

    #[test]
    fn any_content_and_batch_gets_a_documented_text(content in content(), edits in prop::collection::vec(edit(), 1..5)) {
        let dir = scratch().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let file = dir.path().join("f.txt");
        std::fs::write(&file, &content).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let view = anchors(&file).map_err(|e| TestCaseError::fail(e.to_string()))?.to_string_lossy();
        let rows: Vec<&str> = view.split('\n').collect();
        let edits: Vec<Json> = edits.iter().map(|e| e.to_json(&rows)).collect();
        let input = call(&file, edits);
        let text = run(Tool::HashlineEdit, &input, &mut Session::new())?;
        prop_assert!(
            ["Updated ", "Moved ", "Error: "].iter().any(|p| text.starts_with(p)),
            "{text}"
        );
    }

    #[test]
    fn a_one_line_replace_applied_again_with_fresh_anchors_changes_nothing(content in content(), pick in any::<prop::sample::Index>(), line in "[a-z ]{1,8}") {
        let dir = scratch().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let file = dir.path().join("f.txt");
        std::fs::write(&file, &content).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let view = anchors(&file).map_err(|e| TestCaseError::fail(e.to_string()))?.to_string_lossy();
        let Some(row) = anchored_row(&view, pick) else { return Ok(()) };
        let first = run(Tool::HashlineEdit, &replace(&file, &row, &line), &mut Session::new())?;
        if !first.starts_with("Updated ") {
            return Ok(());
        }
        let written = std::fs::read(&file).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let view = anchors(&file).map_err(|e| TestCaseError::fail(e.to_string()))?.to_string_lossy();
        let n = row.split('#').next().unwrap_or_default();
        let again = view.split('\n').find(|r| r.split('#').next() == Some(n)).unwrap_or_default();
        let second = run(Tool::HashlineEdit, &replace(&file, again, &line), &mut Session::new())?;
        prop_assert!(second.starts_with("Error: No changes made to "), "{first}\n---\n{second}");
        prop_assert!(second.ends_with("No-op edits: 1. Re-read the file and provide content that differs from the current lines."), "{second}");
        prop_assert_eq!(std::fs::read(&file).map_err(|e| TestCaseError::fail(e.to_string()))?, written);
    }

    #[test]
    fn the_editor_answers_any_content_without_panicking(content in content(), old in "[a-z\n]{1,3}", line in 0u32..6) {
        let dir = scratch().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let file = dir.path().join("f.txt");
        std::fs::write(&file, &content).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let path = file.to_string_lossy().into_owned();
        let mut session = Session::new();
        for input in [
            format!(r#"{{"command":"view","path":{}}}"#, quote(&path)),
            format!(r#"{{"command":"view","path":{},"view_range":[{},-1]}}"#, quote(&path), line.max(1)),
            format!(r#"{{"command":"str_replace","path":{},"old_str":{},"new_str":"x"}}"#, quote(&path), quote(&old)),
            format!(r#"{{"command":"insert","path":{},"insert_line":{line},"new_str":"y"}}"#, quote(&path)),
            format!(r#"{{"command":"view","path":{}}}"#, quote(&dir.path().to_string_lossy())),
        ] {
            let input = Json::parse(&input).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let text = run(Tool::StrReplaceEditor, &input, &mut session)?;
            prop_assert!(
                ["Here", "The file ", "Error: "].iter().any(|p| text.starts_with(p)),
                "{text}"
            );
        }
    }
}

/// Bytes with what makes files hard: invalid UTF-8, NUL, CR, BOM, line separators, long lines.
fn content() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just("\u{feff}".as_bytes().to_vec()),
        Just("\u{2028}".as_bytes().to_vec()),
        Just(vec![0xFF, 0xC3]),
        Just(vec![0]),
        Just("é😀".as_bytes().to_vec()),
        Just(b"}".to_vec()),
        "[a-c ]{0,6}".prop_map(String::into_bytes),
        Just(vec![b'x'; 2100]),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

/// An edit whose anchors are picked from the file's view (or made up), with a random payload.
#[derive(Clone, Debug)]
struct Edit {
    op: &'static str,
    pos: Option<prop::sample::Index>,
    end: Option<prop::sample::Index>,
    made_up: bool,
    lines: Vec<String>,
    as_string: bool,
}

impl Edit {
    fn to_json(&self, rows: &[&str]) -> Json {
        let reference = |pick: &prop::sample::Index| {
            let row = pick.get(rows);
            let reference = row.split('|').next().unwrap_or_default();
            if self.made_up {
                format!("{reference}#ZZ")
            } else {
                reference.to_owned()
            }
        };
        let mut text = format!(r#"{{"op":"{}""#, self.op);
        for (name, pick) in [("pos", &self.pos), ("end", &self.end)] {
            if let Some(pick) = pick {
                text.push_str(&format!(r#","{name}":{}"#, quote(&reference(pick))));
            }
        }
        let lines = if self.as_string {
            quote(&self.lines.join("\n"))
        } else {
            format!(
                "[{}]",
                self.lines
                    .iter()
                    .map(|l| quote(l))
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        text.push_str(&format!(r#","lines":{lines}}}"#));
        Json::parse(&text).unwrap_or(Json::Null)
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    (
        prop::sample::select(vec!["replace", "replace_range", "append", "prepend"]),
        prop::option::of(any::<prop::sample::Index>()),
        prop::option::of(any::<prop::sample::Index>()),
        any::<bool>(),
        prop::collection::vec("[ab+|#1 ]{0,4}", 0..4),
        any::<bool>(),
    )
        .prop_map(|(op, pos, end, made_up, lines, as_string)| Edit {
            op,
            pos,
            end,
            made_up,
            lines,
            as_string,
        })
}

fn call(file: &Path, edits: Vec<Json>) -> Json {
    let edits = edits
        .iter()
        .map(Json::to_compact)
        .collect::<Vec<_>>()
        .join(",");
    let text = format!(
        r#"{{"filePath":{},"edits":[{edits}]}}"#,
        quote(&file.to_string_lossy())
    );
    Json::parse(&text).unwrap_or(Json::Null)
}

fn replace(file: &Path, row: &str, line: &str) -> Json {
    let reference = row.split('|').next().unwrap_or_default();
    let edit = format!(
        r#"{{"op":"replace","pos":{},"lines":[{}]}}"#,
        quote(reference),
        quote(line)
    );
    call(file, vec![Json::parse(&edit).unwrap_or(Json::Null)])
}

/// One anchored row of the view (`<n>#<HASH>#<ANCHOR>|...`), if the view has one.
fn anchored_row(view: &str, pick: prop::sample::Index) -> Option<String> {
    let rows: Vec<&str> = view
        .split('\n')
        .filter(|r| r.contains('|') && r.contains('#'))
        .collect();
    (!rows.is_empty()).then(|| pick.get(&rows).to_string())
}

fn run(tool: Tool, input: &Json, session: &mut Session) -> Result<String, TestCaseError> {
    match execute(tool, input, session) {
        Ok(Outcome::Output(text) | Outcome::Throws(text)) => Ok(lossy(&text)),
        Err(e) => Err(TestCaseError::fail(e.to_string())),
    }
}

fn lossy(text: &JsString) -> String {
    text.to_string_lossy()
}

/// A temporary directory, in memory (`/dev/shm`) where that exists: file work there is several
/// times faster than on a disk.
fn scratch() -> std::io::Result<tempfile::TempDir> {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        return tempfile::tempdir_in(shm);
    }
    tempfile::tempdir()
}

fn quote(s: &str) -> String {
    Json::String(JsString::from(s)).to_compact()
}
