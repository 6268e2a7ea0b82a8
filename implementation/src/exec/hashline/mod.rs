//! `hashline_edit`: edits addressed by anchored line references (`execution.md` §1).

pub mod anchors;
mod apply;
mod batch;
mod canonical;
mod diff;
mod edits;
mod reference;

use std::path::{Component, Path, PathBuf};

use self::canonical::{Canonical, canonicalize, line_list, restore};
use crate::exec::fs;
use crate::exec::text::{Text, decode, encode, join_lf, member_units, text};
use crate::js_string::JsString;
use crate::json::{Json, Object};

/// Runs one accepted call and returns its text (`hashline_edit` never raises, §1.5).
pub(super) fn run(input: &Object) -> JsString {
    let mut out = Text::default();
    match call(input) {
        Ok(success) => out.u(&success),
        Err(error) => out.s("Error: ").u(&error),
    };
    JsString::from_units(out.0)
}

/// The steps of §1.5 in order; `Err` is an error text without its `Error: ` prefix.
fn call(input: &Object) -> Result<Vec<u16>, Vec<u16>> {
    let file_path = member_units(input, "filePath");
    let rename = input
        .get("rename")
        .and_then(Json::as_string)
        .map(|s| s.units().to_vec());
    let delete = matches!(input.get("delete"), Some(Json::Bool(true)));
    let edits = if delete {
        Vec::new()
    } else {
        edits::normalize(input.get("edits").and_then(Json::as_array).unwrap_or(&[]))?
    };
    let path = fs::os_path(&JsString::from_units(file_path.clone()));
    let exists = fs::is_non_directory(&path);
    if delete {
        return delete_file(&path, &file_path, exists);
    }
    if !exists && edits.iter().any(|e| e.pos.is_some()) {
        return Err(prefixed("File not found: ", &file_path));
    }
    let read = if exists {
        let bytes = std::fs::read(&path).map_err(|e| runtime(&e, "open", &file_path))?;
        canonicalize(&decode(&bytes))
    } else {
        Canonical {
            text: Vec::new(),
            bom: false,
            crlf: false,
        }
    };
    let (edits, duplicates) = batch::dedupe(edits);
    let edits = batch::order(edits);
    batch::check_overlaps(&edits)?;
    let before = line_list(&read.text);
    batch::check_anchors(&edits, &before)?;
    let applied = apply::apply(before.clone(), &edits)?;
    let result = join_lf(&applied.lines);
    if result == read.text && rename.is_none() {
        let mut error = prefixed("No changes made to ", &file_path);
        error.extend(". The edits produced identical content.".encode_utf16());
        if applied.no_ops >= 1 {
            let sentence = format!(
                " No-op edits: {}. Re-read the file and provide content that differs from the current lines.",
                applied.no_ops
            );
            error.extend(sentence.encode_utf16());
        }
        return Err(error);
    }
    let bytes = encode(&restore(&result, &read));
    let moved_to = rename
        .as_deref()
        .and_then(|target| move_target(&file_path, target));
    write(
        &path,
        &file_path,
        &bytes,
        moved_to.as_ref(),
        rename.as_deref(),
    )?;
    Ok(success(
        &file_path,
        rename.as_deref().filter(|_| moved_to.is_some()),
        &read.text,
        &result,
        &applied,
        duplicates,
    ))
}

/// `delete: true` (§1.7).
fn delete_file(path: &Path, file_path: &[u16], exists: bool) -> Result<Vec<u16>, Vec<u16>> {
    if !exists {
        return Err(prefixed("File not found: ", file_path));
    }
    std::fs::remove_file(path).map_err(|e| runtime(&e, "unlink", file_path))?;
    Ok(prefixed("Successfully deleted ", file_path))
}

/// The target check and the writes of §1.10.
fn write(
    path: &Path,
    file_path: &[u16],
    bytes: &[u8],
    moved_to: Option<&PathBuf>,
    rename: Option<&[u16]>,
) -> Result<(), Vec<u16>> {
    if let (Some(target), Some(rename)) = (moved_to, rename)
        && fs::is_non_directory(target)
    {
        let mut error = prefixed("rename target already exists: ", rename);
        error.extend(". Refusing to overwrite an existing file.".encode_utf16());
        return Err(error);
    }
    fs::write_creating(path, bytes).map_err(|e| runtime(&e, "open", file_path))?;
    if let Some(target) = moved_to {
        let shown: Vec<u16> = target.to_string_lossy().encode_utf16().collect();
        fs::write_creating(target, bytes).map_err(|e| runtime(&e, "open", &shown))?;
        std::fs::remove_file(path).map_err(|e| runtime(&e, "unlink", file_path))?;
    }
    Ok(())
}

/// The success text: headline, warnings, duplicate note, diff rows (§1.11).
fn success(
    file_path: &[u16],
    moved_to: Option<&[u16]>,
    before: &[u16],
    after: &[u16],
    applied: &apply::Applied,
    duplicates: usize,
) -> Vec<u16> {
    let summary = diff::summary(&line_list(before), &applied.lines);
    let mut out = Text::default();
    match moved_to {
        Some(target) => out.s("Moved ").u(file_path).s(" to ").u(target),
        None => out.s("Updated ").u(file_path),
    };
    out.s(&format!(" (+{}/-{}", summary.added, summary.removed));
    if let Some(f) = diff::first_change_line(before, after) {
        out.s(&format!(", first change line {f}"));
    }
    out.s(")");
    for warning in &applied.warnings {
        out.s("\nWarning: ").u(warning);
    }
    if duplicates >= 1 {
        out.s(&format!(
            "\nNote: {duplicates} duplicate edit(s) were applied only once."
        ));
    }
    for row in &summary.rows {
        out.s("\n").u(row);
    }
    out.0
}

/// The absolute, normalized target of a rename, when it differs from the file's own (§1.10).
fn move_target(file_path: &[u16], rename: &[u16]) -> Option<PathBuf> {
    let from = resolve(&String::from_utf16_lossy(file_path));
    let to = resolve(&String::from_utf16_lossy(rename));
    (from != to).then_some(to)
}

/// A path made absolute against the working directory and normalized lexically, links untouched.
fn resolve(path: &str) -> PathBuf {
    let joined = std::env::current_dir()
        .unwrap_or_else(|_| PathBuf::from("/"))
        .join(path);
    let mut out = PathBuf::from("/");
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// The runtime's text for a failed file operation on `path`.
fn runtime(error: &std::io::Error, syscall: &str, path: &[u16]) -> Vec<u16> {
    fs::message(error, syscall, &String::from_utf16_lossy(path))
        .encode_utf16()
        .collect()
}

/// `prefix` followed by `tail` (a path as given, which may hold lone surrogates).
fn prefixed(prefix: &str, tail: &[u16]) -> Vec<u16> {
    let mut out = text(prefix);
    out.u(tail);
    out.0
}
