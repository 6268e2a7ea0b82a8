//! The editor's listing of a directory: two levels, hidden and cache entries skipped, UTF-16 order (§2.4).

use std::path::Path;

use super::editor::clip;
use super::text::Text;

/// Names a listing skips besides those starting with `.`.
const SKIPPED: [&str; 2] = ["node_modules", "__pycache__"];

/// The text of a `view` of the directory `path`.
pub(super) fn listing(path: &[u16], os_path: &Path) -> std::io::Result<Text> {
    let mut rows: Vec<(bool, Vec<u16>)> = vec![(true, path.to_vec())];
    for (is_dir, name, entry_path) in entries(os_path)? {
        let shown = join(path, &name);
        if is_dir {
            for (is_dir, name, _) in entries(&entry_path)? {
                rows.push((is_dir, join(&shown, &name)));
            }
        }
        rows.push((is_dir, shown));
    }
    rows.sort_by(|a, b| a.1.cmp(&b.1));
    let mut body = Text::default();
    for (is_dir, shown) in &rows {
        body.s(if *is_dir { "d\t" } else { "f\t" }).u(shown).s("\n");
    }
    let mut out = Text::default();
    out.s("Here're the files and directories up to 2 levels deep in ")
        .u(path);
    out.s(", excluding hidden items, node_modules, and Python cache directories:\n");
    out.u(&clip(body.0)).s("\n");
    Ok(out)
}

/// The listed entries of a directory: whether each is a directory (links are not), its name, its path.
fn entries(dir: &Path) -> std::io::Result<Vec<(bool, Vec<u16>, std::path::PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || SKIPPED.contains(&name.as_str()) {
            continue;
        }
        let is_dir = entry.file_type()?.is_dir();
        out.push((is_dir, name.encode_utf16().collect(), entry.path()));
    }
    Ok(out)
}

/// `<dir>/<name>`.
fn join(dir: &[u16], name: &[u16]) -> Vec<u16> {
    let mut out = dir.to_vec();
    out.push(u16::from(b'/'));
    out.extend_from_slice(name);
    out
}
