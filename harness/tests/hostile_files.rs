//! Hostile files and arguments of `conform` (issue 18): what a `--vectors` folder holds besides
//! regular files (links, FIFOs, a folder named `x.json`), files that are not plain UTF-8 JSON, a
//! `--scratch` that cannot hold scratch directories, `--jobs` out of range, and known-failure
//! files that are not regular files. Each is refused before anything runs, naming the path and
//! what it is (exit 1), and nothing hangs: every `conform` here is a child killed after a while.

#![cfg(unix)]

use std::io::Read as _;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{CONFORM, files_folder};

/// A vector that passes.
const PASSING: &str = r#"{"tool": "web_search", "vectors": [{"id": "plain", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}}]}"#;

/// A vector that fails (the reference's default count is 8).
const FAILING: &str = r#"{"tool": "web_search", "vectors": [{"id": "wrong-default", "input": {"query": "q"}, "accept": {"query": "q", "count": 9}}]}"#;

/// A scenario file of one passing scenario.
const SCENARIO: &str = r#"{"tool": "str_replace_editor", "scenarios": [{"id": "create", "files": {}, "steps": [{"call": {"command": "create", "path": "{root}/n.txt", "file_text": "n"}, "output": "New file created successfully at: {root}/n.txt"}], "after": {"n.txt": "n"}}]}"#;

/// How a `conform` child ended: its exit code (`None` when it was killed for taking longer
/// than its time) and everything it wrote, stdout then stderr.
struct Ended {
    code: Option<i32>,
    text: String,
}

/// Runs `conform` with `args`, killed after `limit`.
fn conform_within(args: &[&str], limit: Duration) -> Ended {
    let mut child = Command::new(CONFORM)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("conform starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            break Some(status);
        }
        if started.elapsed() > limit {
            child.kill().expect("the child can be killed");
            child.wait().expect("the killed child is reaped");
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut text = String::new();
    for pipe in [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn std::io::Read>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn std::io::Read>),
    ]
    .into_iter()
    .flatten()
    {
        let mut bytes = Vec::new();
        let mut pipe = pipe;
        pipe.read_to_end(&mut bytes).expect("the pipe is readable");
        text.push_str(&String::from_utf8_lossy(&bytes));
    }
    Ended {
        code: status.and_then(|s| s.code()),
        text,
    }
}

/// Runs `conform` with `args`, killed after 60 s (a run of a few vectors takes well under one).
fn conform(args: &[&str]) -> Ended {
    conform_within(args, Duration::from_secs(60))
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// `conform run --no-builtin --vectors <dir>` and `extra`.
fn run_folder(dir: &Path, extra: &[&str]) -> Ended {
    conform(&[&["run", "--no-builtin", "--vectors", utf8(dir)], extra].concat())
}

/// Asserts that the run was refused with exit 1 and a message holding every part.
fn assert_refused(ended: &Ended, parts: &[&str]) {
    assert_eq!(ended.code, Some(1), "{}", ended.text);
    for part in parts {
        assert!(ended.text.contains(part), "{part:?} in:\n{}", ended.text);
    }
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A folder holding `vectors/a.json` (passing) and `outside/` with a failing vector file.
struct Place {
    base: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let base = files_folder(&[("vectors/a.json", PASSING), ("outside/bad.json", FAILING)]);
        Place { base }
    }

    fn vectors(&self) -> PathBuf {
        self.base.path().join("vectors")
    }

    fn outside(&self) -> PathBuf {
        self.base.path().join("outside")
    }

    fn report(&self) -> PathBuf {
        self.base.path().join("report")
    }
}

#[test]
fn a_symlinked_vector_file_is_followed_its_failure_counts_and_the_report_names_the_link() {
    let place = Place::new();
    symlink(
        place.outside().join("bad.json"),
        place.vectors().join("b.json"),
    )
    .expect("a link");
    let ended = run_folder(&place.vectors(), &["--report", utf8(&place.report())]);
    assert_eq!(ended.code, Some(2), "{}", ended.text);
    assert!(
        ended.text.contains("web_search:wrong-default"),
        "{}",
        ended.text
    );
    let report =
        std::fs::read_to_string(place.report().join("conformance.json")).expect("a report");
    assert!(report.contains(r#""file": "b.json""#), "{report}");
}

#[test]
fn the_report_names_a_file_of_a_nested_folder_by_its_path_relative_to_the_vectors_folder() {
    let place = Place::new();
    let nested = place.vectors().join("sub").join("deeper");
    std::fs::create_dir_all(&nested).expect("nested folders");
    std::fs::write(nested.join("c.json"), FAILING).expect("a nested file");
    let ended = run_folder(&place.vectors(), &["--report", utf8(&place.report())]);
    assert_eq!(ended.code, Some(2), "{}", ended.text);
    let report =
        std::fs::read_to_string(place.report().join("conformance.json")).expect("a report");
    assert!(
        report.contains(r#""file": "sub/deeper/c.json""#),
        "{report}"
    );
    assert!(report.contains(r#""file": "a.json""#), "{report}");
}

#[test]
fn a_symlink_to_a_folder_is_refused_naming_the_link() {
    let place = Place::new();
    let link = place.vectors().join("more");
    symlink(place.outside(), &link).expect("a link");
    let ended = run_folder(&place.vectors(), &[]);
    assert_refused(&ended, &[utf8(&link), "a symbolic link to a folder"]);
}

#[test]
fn a_dangling_link_is_refused_naming_the_link_not_as_an_empty_folder() {
    let dir = tempfile::tempdir().expect("a folder");
    let link = dir.path().join("b.json");
    symlink(dir.path().join("nowhere.json"), &link).expect("a link");
    let ended = run_folder(dir.path(), &[]);
    assert_refused(&ended, &[utf8(&link), "a dangling symbolic link"]);
    assert!(
        !ended.text.contains("holds no *.json file"),
        "{}",
        ended.text
    );
}

#[test]
fn a_link_loop_is_refused_naming_the_link() {
    let place = Place::new();
    let first = place.vectors().join("loop1.json");
    let second = place.vectors().join("loop2.json");
    symlink(&second, &first).expect("a link");
    symlink(&first, &second).expect("a link");
    let ended = run_folder(&place.vectors(), &[]);
    assert_refused(&ended, &[utf8(&first), "a symbolic link loop"]);
}

#[test]
fn a_fifo_in_the_vectors_folder_is_refused_naming_it() {
    let place = Place::new();
    let fifo = place.vectors().join("f.json");
    mkfifo(&fifo);
    let ended = conform_within(
        &["run", "--no-builtin", "--vectors", utf8(&place.vectors())],
        Duration::from_secs(10),
    );
    assert_refused(&ended, &[utf8(&fifo), "a FIFO (named pipe)"]);
}

#[test]
fn a_symlink_to_a_fifo_is_refused_naming_the_link_and_what_it_points_to() {
    let place = Place::new();
    let fifo = place.outside().join("pipe");
    mkfifo(&fifo);
    let link = place.vectors().join("p.json");
    symlink(&fifo, &link).expect("a link");
    let ended = conform_within(
        &["run", "--no-builtin", "--vectors", utf8(&place.vectors())],
        Duration::from_secs(10),
    );
    assert_refused(
        &ended,
        &[utf8(&link), "a symbolic link to a FIFO (named pipe)"],
    );
}

#[test]
fn a_folder_named_like_a_vector_file_is_refused_naming_it() {
    let place = Place::new();
    let folder = place.vectors().join("x.json");
    std::fs::create_dir(&folder).expect("a folder");
    let ended = run_folder(&place.vectors(), &[]);
    assert_refused(
        &ended,
        &[utf8(&folder), "a folder named like a vector file"],
    );
}

#[test]
fn a_byte_order_mark_is_named_as_such() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("a.json");
    std::fs::write(&file, format!("\u{feff}{PASSING}")).expect("written");
    for command in ["run", "lint"] {
        let ended = conform(&[command, "--no-builtin", "--vectors", utf8(dir.path())]);
        assert_refused(&ended, &[utf8(&file), "starts with a byte order mark"]);
        assert!(!ended.text.contains("not valid JSON"), "{}", ended.text);
    }
}

#[test]
fn a_file_that_is_not_utf8_is_refused_naming_the_byte_offset_and_line() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("a.json");
    let mut bytes = b"{\"tool\": \"web_search\",\n \"vectors\": [\"".to_vec();
    let offset = bytes.len();
    bytes.extend_from_slice(b"\xff\"]}");
    std::fs::write(&file, bytes).expect("written");
    for command in ["run", "lint"] {
        let ended = conform(&[command, "--no-builtin", "--vectors", utf8(dir.path())]);
        assert_refused(
            &ended,
            &[
                utf8(&file),
                &format!("not valid UTF-8: an invalid byte at offset {offset} (line 2)"),
            ],
        );
    }
}

#[test]
fn lint_counts_a_file_that_is_not_json_apart_from_schema_violations() {
    let dir = files_folder(&[
        ("a.json", "{\"tool\": "),
        ("b.json", r#"{"tool": "web_search"}"#),
    ]);
    let ended = conform(&["lint", "--no-builtin", "--vectors", utf8(dir.path())]);
    assert_refused(
        &ended,
        &[
            "a.json: at the top level: not valid JSON",
            "error: 1 file not valid JSON, 1 schema violation",
        ],
    );
    let dir = files_folder(&[("a.json", "{\"tool\": ")]);
    let ended = conform(&["lint", "--no-builtin", "--vectors", utf8(dir.path())]);
    assert_refused(&ended, &["error: 1 file not valid JSON\n"]);
    assert!(!ended.text.contains("schema violation"), "{}", ended.text);
}

/// A vectors folder of one passing vector and one passing scenario.
fn with_scenario() -> tempfile::TempDir {
    files_folder(&[("a.json", PASSING), ("exec.json", SCENARIO)])
}

#[test]
fn a_scratch_that_is_a_file_is_a_usage_error_and_writes_no_known_failures() {
    let dir = with_scenario();
    let file = dir.path().join("a.json");
    let known = dir.path().join("known.txt");
    let ended = run_folder(
        dir.path(),
        &[
            "--scratch",
            utf8(&file),
            "--write-known-failures",
            utf8(&known),
        ],
    );
    assert_refused(
        &ended,
        &[&format!("--scratch {}", file.display()), "not a folder"],
    );
    assert!(!known.exists(), "no known-failure file is written");
}

#[test]
fn a_missing_scratch_is_a_usage_error() {
    let dir = with_scenario();
    let missing = dir.path().join("missing");
    let ended = run_folder(dir.path(), &["--scratch", utf8(&missing)]);
    assert_refused(
        &ended,
        &[
            &format!("--scratch {}", missing.display()),
            "No such file or directory",
        ],
    );
}

#[test]
fn a_scratch_too_long_for_40_character_directories_is_a_usage_error() {
    let dir = with_scenario();
    let long = dir
        .path()
        .join("a-folder-whose-path-is-too-long-for-scratch");
    std::fs::create_dir(&long).expect("a folder");
    let ended = run_folder(dir.path(), &["--scratch", utf8(&long)]);
    assert_refused(
        &ended,
        &[&format!("--scratch {}", long.display()), "is too long"],
    );
    assert_eq!(std::fs::read_dir(&long).expect("readable").count(), 0);
}

#[test]
fn a_usable_scratch_is_left_empty_by_the_check() {
    let dir = with_scenario();
    let scratch = tempfile::tempdir().expect("a scratch parent");
    let ended = run_folder(dir.path(), &["--scratch", utf8(scratch.path())]);
    assert_eq!(ended.code, Some(0), "{}", ended.text);
    assert_eq!(
        std::fs::read_dir(scratch.path()).expect("readable").count(),
        0
    );
}

/// The most `--jobs` takes here: 4 × the cores.
fn max_jobs() -> usize {
    4 * std::thread::available_parallelism().map_or(1, usize::from)
}

#[test]
fn jobs_of_zero_is_a_usage_error_for_run_and_bench() {
    let dir = with_scenario();
    for command in ["run", "bench"] {
        let ended = conform(&[
            command,
            "--no-builtin",
            "--vectors",
            utf8(dir.path()),
            "--jobs",
            "0",
        ]);
        assert_refused(&ended, &["--jobs", "at least 1"]);
    }
}

#[test]
fn jobs_past_four_per_core_is_a_usage_error_for_run_and_bench_naming_the_cap() {
    let dir = with_scenario();
    let cap = max_jobs();
    let over = (cap + 1).to_string();
    for jobs in [over.as_str(), "100000"] {
        for command in ["run", "bench"] {
            let ended = conform(&[
                command,
                "--no-builtin",
                "--vectors",
                utf8(dir.path()),
                "--jobs",
                jobs,
            ]);
            assert_refused(&ended, &["--jobs", &format!("at most {cap} (4 × ")]);
        }
    }
    let at_cap = cap.to_string();
    let ended = run_folder(dir.path(), &["--jobs", &at_cap]);
    assert_eq!(ended.code, Some(0), "{}", ended.text);
}

#[test]
fn a_fifo_as_known_failures_is_refused_and_does_not_hang() {
    let dir = with_scenario();
    let fifo = dir.path().join("known.fifo");
    mkfifo(&fifo);
    let args = [
        "run",
        "--no-builtin",
        "--vectors",
        utf8(dir.path()),
        "--known-failures",
        utf8(&fifo),
    ];
    let ended = conform_within(&args, Duration::from_secs(10));
    assert!(
        ended.code.is_some(),
        "conform hung on the FIFO and was killed"
    );
    assert_refused(
        &ended,
        &[utf8(&fifo), "a FIFO (named pipe)", "not a regular file"],
    );
}

#[test]
fn a_link_to_a_fifo_as_known_failures_is_refused_and_does_not_hang() {
    let dir = with_scenario();
    let fifo = dir.path().join("known.fifo");
    mkfifo(&fifo);
    let link = dir.path().join("known-link.json");
    symlink(&fifo, &link).expect("a link");
    let args = [
        "run",
        "--no-builtin",
        "--vectors",
        utf8(dir.path()),
        "--known-failures",
        utf8(&link),
    ];
    let ended = conform_within(&args, Duration::from_secs(10));
    assert!(
        ended.code.is_some(),
        "conform hung on the FIFO and was killed"
    );
    assert_refused(&ended, &[utf8(&link), "a FIFO (named pipe)"]);
}

#[test]
fn a_fifo_or_folder_as_write_known_failures_is_refused_before_the_run() {
    let dir = with_scenario();
    let fifo = dir.path().join("known.fifo");
    mkfifo(&fifo);
    let folder = dir.path().join("known-folder");
    std::fs::create_dir(&folder).expect("a folder");
    for (target, what) in [(&fifo, "a FIFO (named pipe)"), (&folder, "a folder")] {
        let args = [
            "run",
            "--no-builtin",
            "--vectors",
            utf8(dir.path()),
            "--write-known-failures",
            utf8(target),
        ];
        let ended = conform_within(&args, Duration::from_secs(10));
        assert!(
            ended.code.is_some(),
            "conform hung on {} and was killed",
            target.display()
        );
        assert_refused(&ended, &[utf8(target), what, "not a regular file"]);
        assert!(
            !ended.text.contains("passing by level"),
            "refused before the run:\n{}",
            ended.text
        );
    }
}

#[test]
fn only_scenarios_with_an_unusable_peer_says_nothing_of_vectors_not_run() {
    let dir = with_scenario();
    let peer = format!("{} --hello bad", env!("CARGO_BIN_EXE_fake-peer"));
    let ended = run_folder(dir.path(), &["--only", "scenarios", "--peer", &peer]);
    assert_eq!(ended.code, Some(3), "{}", ended.text);
    assert!(
        ended
            .text
            .contains("of the 1 selected scenarios were not run"),
        "{}",
        ended.text
    );
    assert!(
        !ended.text.contains("selected vectors were not run"),
        "{}",
        ended.text
    );
}
