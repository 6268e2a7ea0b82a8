//! `str_replace_editor`: view, create, str_replace and insert on real files (`execution.md` §2).

use std::fs::Metadata;
use std::path::Path;

use super::listing::listing;
use super::text::{LF, Text, decode, encode, find, join_lf, member_units, number, split_lf};
use super::{Outcome, Session, Snapshot, fs};
use crate::js_string::JsString;
use crate::json::{Json, Object};

/// The longest text a view returns before it is cut, in units.
pub(super) const MAX_VIEW: usize = 16_000;
/// What follows a cut view.
pub(super) const CLIPPED: &str = "<response clipped><NOTE>To save on context only part of this file was been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>";

/// Runs one accepted call of the editor (§2.2).
pub(super) fn run(input: &Object, session: &mut Session) -> Outcome {
    let path = member_units(input, "path");
    if path.first() != Some(&u16::from(b'/')) {
        let mut out = Text::default();
        out.s("Error: The path ").u(&path);
        out.s(" is not an absolute path, it should start with `/`. Maybe you meant /")
            .u(&path)
            .s("?");
        return output(out);
    }
    let os_path = fs::os_path(&JsString::from_units(path.clone()));
    let result = match input
        .get("command")
        .and_then(Json::as_string)
        .map(JsString::to_string_lossy)
        .as_deref()
    {
        Some("view") => view(input, &path, &os_path, session),
        Some("create") => create(input, &path, &os_path, session),
        Some("str_replace") => edit(input, &path, &os_path, session, replace),
        Some("insert") => edit(input, &path, &os_path, session, insert),
        Some(_) | None => Err(Failure::Returned(
            Text::default().s("Error: Unknown command").clone(),
        )),
    };
    match result {
        Ok(text) => output(text),
        Err(Failure::Returned(text)) => output(text),
        Err(Failure::Raised(text)) => Outcome::Throws(JsString::from_units(text.0)),
    }
}

/// What `str_replace` or `insert` makes of the file's text: the new text, or an `Error: ` text.
type Change = fn(&Object, &[u16], &[u16]) -> Result<Vec<u16>, Text>;

/// A call that did not succeed: an `Error: ` text returned, or a runtime error raised (§2.8).
enum Failure {
    Returned(Text),
    Raised(Text),
}

/// `view` (§2.3, §2.4).
fn view(
    input: &Object,
    path: &[u16],
    os_path: &Path,
    session: &mut Session,
) -> Result<Text, Failure> {
    let metadata = existing(path, os_path)?;
    let range = input.get("view_range").and_then(Json::as_array).map(|r| {
        let at = |i: usize| r.get(i).and_then(Json::as_f64).unwrap_or(0.0);
        (at(0), at(1))
    });
    if metadata.is_dir() {
        if range.is_some() {
            return Err(returned(
                "Error: The `view_range` parameter is not allowed when `path` points to a directory.",
            ));
        }
        return listing(path, os_path).map_err(|e| Failure::Raised(raised(&e, "scandir", path)));
    }
    let snapshot = Snapshot::of(&metadata);
    let bytes = std::fs::read(os_path).map_err(|e| Failure::Raised(raised(&e, "open", path)))?;
    let text = decode(&bytes);
    let lines = split_lf(&text);
    let n = lines.len() as f64;
    let mut out = Text::default();
    out.s("Here's the content of ").u(path).s(&format!(
        " with line numbers (which has a total of {} lines)",
        lines.len()
    ));
    let (first, last) = match range {
        None => (1.0, n),
        Some((a, b)) => {
            if a > n {
                return Err(returned(&format!(
                    "Error: Invalid `view_range`: [{}, {}]. Its first element `{}` should be within the range of lines of the file: [1, {}]",
                    number(a),
                    number(b),
                    number(a),
                    lines.len()
                )));
            }
            if b > n {
                return Err(returned(&format!(
                    "Error: Invalid `view_range`: [{}, {}]. Its second element `{}` should be smaller than the number of lines in the file: `{}`",
                    number(a),
                    number(b),
                    number(b),
                    lines.len()
                )));
            }
            out.s(&format!(" with view_range=[{}, {}]", number(a), number(b)));
            (a, if b == -1.0 { n } else { b })
        }
    };
    out.s(":\n");
    for (i, line) in lines.iter().enumerate() {
        let number = (i + 1) as f64;
        if number >= first && number <= last {
            out.s(&format!("{:>6}  ", i + 1)).u(line).s("\n");
        }
    }
    let text = clip(out.0);
    session
        .snapshots
        .insert(JsString::from_units(path), snapshot);
    Ok(Text(text))
}

/// `create` (§2.5).
fn create(
    input: &Object,
    path: &[u16],
    os_path: &Path,
    session: &mut Session,
) -> Result<Text, Failure> {
    if fs::status(os_path).is_some() {
        let mut out = Text::default();
        out.s("Error: File already exists at: ")
            .u(path)
            .s(". Cannot overwrite files using command `create`.");
        return Err(Failure::Returned(out));
    }
    fs::write(os_path, &encode(&member_units(input, "file_text")))
        .map_err(|e| Failure::Raised(raised(&e, "open", path)))?;
    record(session, path, os_path);
    let mut out = Text::default();
    out.s("New file created successfully at: ").u(path);
    Ok(out)
}

/// `str_replace` and `insert`: the shared checks, the change, the write (§2.6, §2.7).
fn edit(
    input: &Object,
    path: &[u16],
    os_path: &Path,
    session: &mut Session,
    change: Change,
) -> Result<Text, Failure> {
    let metadata = existing(path, os_path)?;
    if metadata.is_dir() {
        let mut out = Text::default();
        out.s("Error: The path ")
            .u(path)
            .s(" is a directory and only the `view` command can be used on directories");
        return Err(Failure::Returned(out));
    }
    let key = JsString::from_units(path);
    if session
        .snapshots
        .get(&key)
        .is_some_and(|seen| *seen != Snapshot::of(&metadata))
    {
        let mut out = Text::default();
        out.s("Error: The file ")
            .u(path)
            .s(" has changed since it was last viewed. Run the view command again before editing.");
        return Err(Failure::Returned(out));
    }
    let bytes = std::fs::read(os_path).map_err(|e| Failure::Raised(raised(&e, "open", path)))?;
    let changed = change(input, path, &decode(&bytes)).map_err(Failure::Returned)?;
    fs::write(os_path, &encode(&changed)).map_err(|e| Failure::Raised(raised(&e, "open", path)))?;
    record(session, path, os_path);
    let mut out = Text::default();
    out.s("The file ")
        .u(path)
        .s(" has been edited successfully.");
    Ok(out)
}

/// The text after `str_replace` (§2.6 steps 5 to 8).
fn replace(input: &Object, path: &[u16], text: &[u16]) -> Result<Vec<u16>, Text> {
    let old = member_units(input, "old_str");
    let new = member_units(input, "new_str");
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = find(text, &old, from) {
        found.push(at);
        from = at + old.len().max(1);
    }
    match found.as_slice() {
        [] => {
            let mut out = Text::default();
            out.s("Error: No replacement was performed, old_str `")
                .u(&old)
                .s("` did not appear verbatim in ")
                .u(path)
                .s(".");
            Err(out)
        }
        [at] => {
            let mut changed = text[..*at].to_vec();
            changed.extend_from_slice(&new);
            changed.extend_from_slice(&text[at + old.len()..]);
            Ok(changed)
        }
        many => {
            let lines: Vec<String> = many
                .iter()
                .map(|&at| (1 + text[..at].iter().filter(|&&u| u == LF).count()).to_string())
                .collect();
            let mut out = Text::default();
            out.s("Error: No replacement was performed. Multiple occurrences of old_str `")
                .u(&old);
            out.s(&format!(
                "` in lines [{}]. Please ensure it is unique",
                lines.join(", ")
            ));
            Err(out)
        }
    }
}

/// The text after `insert` (§2.7 steps 2 to 4).
fn insert(input: &Object, _path: &[u16], text: &[u16]) -> Result<Vec<u16>, Text> {
    let pieces = split_lf(text);
    let n = input
        .get("insert_line")
        .and_then(Json::as_f64)
        .unwrap_or(0.0);
    let k = pieces.len();
    if n > k as f64 {
        return Err(Text::default().s(&format!(
            "Error: Invalid `insert_line` parameter: {}. It should be within the range of lines of the file: [0, {k}]",
            number(n)
        )).clone());
    }
    let n = n as usize;
    let new = member_units(input, "new_str");
    let mut parts: Vec<&[u16]> = pieces[..n].to_vec();
    parts.extend(split_lf(&new));
    parts.extend_from_slice(&pieces[n..]);
    Ok(join_lf(&parts))
}

/// The status of an existing path, or the does-not-exist text.
fn existing(path: &[u16], os_path: &Path) -> Result<Metadata, Failure> {
    fs::status(os_path).ok_or_else(|| {
        let mut out = Text::default();
        out.s("Error: The path ")
            .u(path)
            .s(" does not exist. Please provide a valid path.");
        Failure::Returned(out)
    })
}

/// Records the path's current snapshot in the session.
fn record(session: &mut Session, path: &[u16], os_path: &Path) {
    if let Some(metadata) = fs::status(os_path) {
        session
            .snapshots
            .insert(JsString::from_units(path), Snapshot::of(&metadata));
    }
}

/// A text cut to 16,000 units and marked, when it is longer.
pub(super) fn clip(mut text: Vec<u16>) -> Vec<u16> {
    if text.len() > MAX_VIEW {
        text.truncate(MAX_VIEW);
        text.extend(CLIPPED.encode_utf16());
    }
    text
}

fn raised(error: &std::io::Error, syscall: &str, path: &[u16]) -> Text {
    let mut out = Text::default();
    out.s(&fs::message(
        error,
        syscall,
        &String::from_utf16_lossy(path),
    ));
    out
}

fn returned(s: &str) -> Failure {
    let mut out = Text::default();
    out.s(s);
    Failure::Returned(out)
}

fn output(text: Text) -> Outcome {
    Outcome::Output(JsString::from_units(text.0))
}
