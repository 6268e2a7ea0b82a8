//! The miniature workspace of the mutation runner's tests (tests/fixtures/mini): fresh copies, the
//! template whose baseline is built once, `cargo xtask mutants` run on a copy, and its report read.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash as _, Hasher as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;
use walkdir::WalkDir;

pub const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

/// The time limit of every mutant's suite run: the fixture's suite takes milliseconds, and the
/// mutant that never returns is stopped after this long.
pub const SUITE_TIMEOUT: &str = "0.3";

/// The fixture's sources.
pub fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini")
}

/// A fresh copy of the fixture workspace, its baseline already built.
pub fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    copy_tree(template(), dir.path());
    dir
}

/// A fresh copy of the fixture's sources alone, for runs that build nothing.
pub fn unbuilt_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_files(dir.path(), &files(&sources()));
    dir
}

/// Writes each file (relative to `root`) with its bytes.
pub fn write_files(root: &Path, files: &BTreeMap<PathBuf, Vec<u8>>) {
    for (relative, bytes) in files {
        let to = root.join(relative);
        std::fs::create_dir_all(to.parent().expect("a folder")).expect("a folder");
        std::fs::write(to, bytes).expect("copied");
    }
}

/// The fixture with its baseline built, made once per version of the fixture's files and
/// never changed afterwards (it is built aside and renamed into place, so test processes running
/// at the same time share it safely).
pub fn template() -> &'static Path {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let files = files(&sources());
        let mut hasher = DefaultHasher::new();
        files.hash(&mut hasher);
        let cache = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let template = cache.join(format!("mutants-mini-{:016x}", hasher.finish()));
        if template.is_dir() {
            return template;
        }
        let building = tempfile::tempdir_in(cache).expect("a temporary folder");
        write_files(building.path(), &files);
        let output = mutants(building.path(), &["--row", "retired row"]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
        std::fs::remove_dir_all(building.path().join("reports")).expect("removed");
        let built = building.keep();
        // Another process may have put the same template in place meanwhile; either will do.
        if std::fs::rename(&built, &template).is_err() {
            std::fs::remove_dir_all(&built).expect("removed");
        }
        template
    })
}

/// Copies the files under `from` to `to`, keeping their modification times (so the copy's
/// builds stay warm).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in WalkDir::new(from) {
        let entry = entry.expect("readable");
        let target = to.join(entry.path().strip_prefix(from).expect("inside"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("a folder");
        } else {
            std::fs::copy(entry.path(), &target).expect("copied");
            let modified = entry
                .metadata()
                .expect("metadata")
                .modified()
                .expect("a time");
            std::fs::File::options()
                .write(true)
                .open(&target)
                .expect("opened")
                .set_modified(modified)
                .expect("the time kept");
        }
    }
}

/// Every file of the workspace but build outputs and reports, with its bytes.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files(root)
}

/// Every file under `root` (relative to it) with its bytes, outside the top-level `target` and
/// `reports` folders.
pub fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| {
            e.depth() != 1 || (e.file_name() != "target" && e.file_name() != "reports")
        })
        .map(|e| e.expect("readable"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let relative = e.path().strip_prefix(root).expect("inside").to_owned();
            (relative, std::fs::read(e.path()).expect("readable"))
        })
        .collect()
}

pub fn mutants(root: &Path, args: &[&str]) -> Output {
    let started = Instant::now();
    let output = Command::new(XTASK)
        .args([
            "mutants",
            "--workspace",
            root.to_str().expect("UTF-8"),
            "--jobs",
            "1",
            "--suite-timeout",
            SUITE_TIMEOUT,
        ])
        .args(args)
        // The fixture builds in its own target directory whatever the tests' cargo was given,
        // so that no two tests' copies share one.
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_BUILD_DIR")
        .output()
        .expect("xtask runs");
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "the run took {:?}",
        started.elapsed()
    );
    output
}

pub fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

pub fn report(root: &Path) -> Value {
    let text =
        std::fs::read_to_string(root.join("reports/mutants/mutants.json")).expect("a report");
    serde_json::from_str(&text).expect("JSON")
}

/// Each row id with its outcome.
pub fn outcomes(report: &Value) -> BTreeMap<String, String> {
    by_id(report, "outcome")
}

/// Each row id with one of its members (a string).
pub fn by_id(report: &Value, member: &str) -> BTreeMap<String, String> {
    report["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or_default().to_owned(),
                r[member].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}
