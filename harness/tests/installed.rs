//! The built `conform` as an installed copy uses it: run from an empty directory, with the vector
//! and scenario files it embeds; `vectors export`, `--vectors`, `--no-builtin` and `--version`.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

use vvoc_harness::default_vectors_dir;
use vvoc_harness::load::builtin;
use vvoc_harness::load::digest::set_digest;
use vvoc_harness::load::sources::{Source, sources};
use vvoc_harness::load::suite::{Suite, load_suite};

mod common;

use common::{CONFORM, text};

/// Runs `conform` in `dir`.
fn conform(dir: &Path, args: &[&str]) -> Output {
    start(dir, args).wait_with_output().expect("conform runs")
}

/// Starts `conform` in `dir`, its output captured, so that a test can run several at once.
fn start(dir: &Path, args: &[&str]) -> Child {
    Command::new(CONFORM)
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("conform starts")
}

/// The repository's vectors and scenarios, loaded once for the tests of this file.
fn repository_suite() -> &'static Suite {
    static SUITE: OnceLock<Suite> = OnceLock::new();
    SUITE.get_or_init(|| {
        load_suite(&[default_vectors_dir()]).expect("the repository's vectors load")
    })
}

/// Every file of the repository's `vectors/` (hidden ones aside), by relative path, with its bytes.
fn repository_files() -> Vec<(String, Vec<u8>)> {
    files_of(&default_vectors_dir())
}

fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .map(|entry| entry.expect("a readable folder"))
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| {
            let relative = entry
                .path()
                .strip_prefix(dir)
                .expect("below the folder")
                .to_str()
                .expect("UTF-8")
                .replace('\\', "/");
            (relative, std::fs::read(entry.path()).expect("readable"))
        })
        .collect()
}

/// The number in the `total` row under `column` of the table whose header starts `tool counted`.
fn total(stdout: &str, counted: &str, column: &str) -> usize {
    let words = |line: &str| {
        line.split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let mut lines = stdout
        .lines()
        .skip_while(|l| words(l).get(..2) != Some(&["tool".to_owned(), counted.to_owned()][..]));
    let header = words(lines.next().unwrap_or_default());
    let row = lines
        .take_while(|l| !l.starts_with("tool "))
        .map(words)
        .find(|r| r.first().is_some_and(|w| w == "total"))
        .unwrap_or_default();
    let cell = header
        .iter()
        .position(|h| h == column)
        .and_then(|i| row.get(i))
        .and_then(|n| n.parse().ok());
    assert!(
        cell.is_some(),
        "no total under {column:?} in the {counted} table:\n{stdout}"
    );
    cell.unwrap_or_default()
}

/// A folder holding one vector file of `web_search` with the given id.
fn one_vector(id: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a folder");
    std::fs::write(
        dir.path().join("mine.json"),
        format!(
            r#"{{"tool": "web_search", "vectors": [{{"id": "{id}", "input": {{"query": "q"}}, "accept": {{"query": "q", "count": 8}}}}]}}"#
        ),
    )
    .expect("written");
    dir
}

#[test]
fn from_an_empty_directory_the_built_in_suite_passes_whole() {
    let empty = tempfile::tempdir().expect("an empty folder");
    // The run and the lint are independent: both run at once.
    let run = start(empty.path(), &["run"]);
    let lint = start(empty.path(), &["lint"]);
    let suite = repository_suite();
    let output = run.wait_with_output().expect("conform runs");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(total(&stdout, "vectors", "vectors"), suite.vectors.len());
    assert_eq!(total(&stdout, "vectors", "pass"), suite.vectors.len());
    let scenarios = suite.scenarios.len() + suite.web.len() + suite.workflow.len();
    assert_eq!(total(&stdout, "scenarios", "scenarios"), scenarios);
    assert_eq!(total(&stdout, "scenarios", "pass"), scenarios);
    assert!(suite.vectors.len() > 2000 && suite.scenarios.len() > 500);
    let lint = lint.wait_with_output().expect("conform runs");
    assert_eq!(lint.status.code(), Some(0), "{}", text(&lint));
    assert!(
        text(&lint).contains(&format!(
            "ok: {} vectors in {} files, {} scenarios in {} files",
            suite.vectors.len(),
            suite.files.0,
            scenarios,
            suite.files.1
        )),
        "{}",
        text(&lint)
    );
    assert_eq!(
        std::fs::read_dir(empty.path()).expect("readable").count(),
        0,
        "nothing is written where conform runs"
    );
}

#[test]
fn vectors_export_writes_the_repository_files_byte_for_byte() {
    let out = tempfile::tempdir().expect("a folder");
    let dir = out.path().join("exported");
    let output = conform(out.path(), &["vectors", "export", "exported"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let repository = repository_files();
    assert_eq!(files_of(&dir), repository);
    assert!(
        text(&output).contains(&format!("{} written, 0 already there", repository.len())),
        "{}",
        text(&output)
    );
    // Again: everything is there already. A changed file stops the export, unless --force.
    let again = conform(out.path(), &["vectors", "export", "exported"]);
    assert!(text(&again).contains(&format!("0 written, {} already there", repository.len())));
    let (first, bytes) = repository.first().expect("a file");
    std::fs::write(dir.join(first), b"changed").expect("written");
    let refused = conform(out.path(), &["vectors", "export", "exported"]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(text(&refused).contains("already exists with other content"));
    assert_eq!(std::fs::read(dir.join(first)).expect("read"), b"changed");
    let forced = conform(out.path(), &["vectors", "export", "--force", "exported"]);
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced));
    assert_eq!(&std::fs::read(dir.join(first)).expect("read"), bytes);
    // An export given with --vectors stands for the built-in set, not a second copy of it (the
    // CLI path is cli.rs's `--vectors <the repository's vectors/>`); a changed export does not.
    assert_eq!(
        sources(std::slice::from_ref(&dir), true),
        [Source::Folder(dir.clone())]
    );
    let (json, _) = repository
        .iter()
        .find(|(path, _)| path.ends_with(".json"))
        .expect("a vector file");
    std::fs::write(dir.join(json), b"{}").expect("written");
    assert_eq!(
        sources(std::slice::from_ref(&dir), true),
        [Source::Builtin, Source::Folder(dir)]
    );
}

#[test]
fn no_builtin_runs_only_the_given_folders_and_vectors_adds_to_the_set() {
    let mine = one_vector("mine-only");
    let mine_dir = mine.path().to_str().expect("UTF-8");
    let empty = tempfile::tempdir().expect("an empty folder");
    let output = conform(
        empty.path(),
        &["run", "--no-builtin", "--vectors", mine_dir],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(total(&stdout, "vectors", "vectors"), 1, "{stdout}");
    assert!(!stdout.contains("scenarios"), "{stdout}");
    let listed = conform(
        empty.path(),
        &["list", "--no-builtin", "--vectors", mine_dir],
    );
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout),
        "web_search:mine-only\n"
    );
    // Without --no-builtin the folder adds to the built-in set.
    let listed = conform(empty.path(), &["list", "--vectors", mine_dir]);
    let names: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    let mut expected = repository_suite().names.clone();
    expected.push("web_search:mine-only".to_owned());
    assert_eq!(names, expected);
    // Ids stay unique across the set and the folders, and the error says how to run alone.
    let clash = one_vector("default-count");
    let output = conform(
        empty.path(),
        &["list", "--vectors", clash.path().to_str().expect("UTF-8")],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    for part in [
        "of <built-in>/web_search/",
        "ids are unique within a tool",
        "--no-builtin runs only the --vectors folders",
    ] {
        assert!(text(&output).contains(part), "{part:?}: {}", text(&output));
    }
    let output = conform(empty.path(), &["run", "--no-builtin"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(text(&output).contains("--no-builtin leaves no vectors"));
}

#[test]
fn known_failure_files_name_built_in_vectors() {
    let dir = tempfile::tempdir().expect("a folder");
    let list = dir.path().join("known.json");
    std::fs::write(
        &list,
        r#"{"known_failures": [{"vector": "web_search:default-count", "reason": "listed but passing"}]}"#,
    )
    .expect("written");
    let output = conform(
        dir.path(),
        &[
            "run",
            "--tool",
            "web_search",
            "--known-failures",
            "known.json",
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert_eq!(
        total(&String::from_utf8_lossy(&output.stdout), "vectors", "fixed"),
        1
    );
}

#[test]
fn version_names_the_contract_and_the_digest_of_the_vector_set() {
    let repository = repository_files();
    let pairs: Vec<(&str, &[u8])> = repository
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    let digest = set_digest(&pairs);
    assert_eq!(
        builtin::digest(),
        digest,
        "the built-in set is the repository's vectors/"
    );
    let empty = tempfile::tempdir().expect("an empty folder");
    for flag in ["--version", "-V"] {
        let output = conform(empty.path(), &[flag]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            format!(
                "conform {} (contract 1.6.0, vectors sha256:{}, {} files)\n",
                env!("CARGO_PKG_VERSION"),
                &digest[..builtin::SHORT_DIGEST],
                repository.len()
            )
        );
    }
}

#[test]
fn the_digest_covers_paths_and_bytes() {
    let base = set_digest(&[("a.json", b"{}"), ("b/c.json", b"[]")]);
    assert_eq!(
        base,
        set_digest(&[("b/c.json", b"[]"), ("a.json", b"{}")]),
        "order-free"
    );
    assert_ne!(base, set_digest(&[("a.json", b"{}"), ("b/d.json", b"[]")]));
    assert_ne!(base, set_digest(&[("a.json", b"{} "), ("b/c.json", b"[]")]));
    assert_ne!(base, set_digest(&[("a.json", b"{}")]));
    // Path and content stay apart: moving a byte between them changes the digest.
    assert_ne!(set_digest(&[("ab", b"c")]), set_digest(&[("a", b"bc")]));
    // SHA-256 itself: the empty set is the digest of no bytes.
    assert_eq!(
        set_digest(&[]),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}
