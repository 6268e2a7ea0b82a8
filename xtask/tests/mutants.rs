//! The mutation runner on a miniature workspace (tests/fixtures/mini): every row outcome, every
//! exit code, selection, sharding, merging, and a working tree left untouched, interrupted or not.
//!
//! The fixture is built once: a template (the fixture after a run whose only row is retired, so
//! the runner has built its baseline in worker 0's copy) is kept in the target directory, and
//! each test works on a copy of it whose build is warm. A mutant that never returns is stopped
//! by a short `--suite-timeout` rather than by waiting.

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod mini;

use mini::{XTASK, by_id, fixture, mutants, outcomes, report, snapshot, text, unbuilt_fixture};

const EXPECTED: [(&str, &str); 8] = [
    ("large: bound shifted, named vector passes", "imprecise"),
    ("large: never returns", "timeout"),
    ("loads: the suite refuses its files", "unviable"),
    ("sign negative: bound shifted", "caught"),
    ("sign: does not compile", "unviable"),
    ("sign: retired row", "retired"),
    ("sign: text that is not there", "stale"),
    ("unused: doubled differently", "missed"),
];

/// A row file of named mutants: one stale and named by two rows, one that runs.
const NAMED: &str = r#"{"mutants": {
    "lib:gone": {"file": "implementation/src/lib.rs", "find": "no such text", "replace": ""},
    "lib:sign": {"file": "implementation/src/lib.rs", "find": "if n < 0 {", "replace": "if n < -5 {"}},
  "rows": [{"id": "named: gone once", "mutant": "lib:gone"}, {"id": "named: gone twice", "mutant": "lib:gone"},
    {"id": "named: sign shifted", "mutant": "lib:sign", "caught_by": ["mini:minus-one"]}]}"#;

/// [`EXPECTED`] as a map.
fn expected() -> BTreeMap<String, String> {
    EXPECTED
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn every_outcome_is_classified_and_the_tree_is_untouched() {
    let dir = fixture();
    let before = snapshot(dir.path());
    let output = mutants(dir.path(), &[]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "missed and imprecise rows win: {}",
        text(&output)
    );
    assert_eq!(outcomes(&report(dir.path())), expected());
    let modes = by_id(&report(dir.path()), "mode");
    assert_eq!(
        modes["sign negative: bound shifted"], "switched",
        "{modes:?}"
    );
    assert_eq!(modes["large: never returns"], "switched", "{modes:?}");
    assert_eq!(
        modes["sign: does not compile"], "rebuilt",
        "refused in every region, then rebuilt alone: {modes:?}"
    );
    assert_eq!(modes["sign: retired row"], "not run", "{modes:?}");
    assert_eq!(
        snapshot(dir.path()),
        before,
        "the working tree is byte for byte unchanged"
    );
    let markdown =
        std::fs::read_to_string(dir.path().join("reports/mutants/mutants.md")).expect("a report");
    assert!(
        markdown
            .contains("| sign negative | bound shifted | `mini:minus-one` | expected negative, received positive |"),
        "{markdown}"
    );
    assert!(
        text(&output).contains("FAIL mutation-rows 7 rows checked, 6 problems; 1 retired"),
        "{}",
        text(&output)
    );
    let rows = dir.path().join("reports/mutants/rows");
    assert_eq!(
        std::fs::read_dir(&rows).expect("row logs").count(),
        16,
        "a log and a diff per row"
    );
    assert_suite_refusal_logged(&rows);
    assert!(
        dir.path()
            .join("target/mutants/worker-0/target/baseline-runner")
            .is_file(),
        "the baseline's suite ran on a frozen copy of its runner, beside the switched build"
    );
    // A copy's binary is its own; what cargo compiles for it lies in the workspace's build
    // directory, beside the workspace's own builds, whose dependencies it reuses.
    let copy = dir.path().join("target/mutants/worker-0/target/debug");
    assert!(copy.join("conform").is_file(), "the copy's runner");
    assert!(
        !copy.join("deps").exists(),
        "no compiled crates in the copy's target"
    );
    let shared = std::fs::read_dir(dir.path().join("target/debug/deps")).expect("the build dir");
    assert!(
        shared
            .map(|e| e.expect("an entry").file_name())
            .any(|n| n.to_string_lossy().starts_with("libmini_reference-")),
        "the copy's crates are compiled in the workspace's build directory"
    );
}

#[test]
fn a_copy_compiles_its_crates_apart_and_the_workspace_build_stays_fresh() {
    let dir = fixture();
    // The workspace's own build, as `cargo test` leaves it before the check runs. (The fixture's
    // dev profile has no debug info, as the copies' crates have none: only their version can
    // keep their files apart from these.)
    let first = workspace_build(dir.path());
    assert!(
        first.iter().any(|unit| unit.id.contains("mini-reference")),
        "{first:?}"
    );
    let before = contents(&first);
    // A switched build of a mutant of mini-reference, in the same build directory.
    let output = mutants(dir.path(), &["--row", "sign negative"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let copy = std::fs::read_to_string(
        dir.path()
            .join("target/mutants/worker-0/tree/implementation/Cargo.toml"),
    )
    .expect("the copy's manifest");
    assert!(
        copy.contains("version = \"0.1.0+mutants.worker-0."),
        "the copy's crates carry its own version: {copy}"
    );
    // Nothing of the workspace's was replaced (its compiled crates and its runner, byte for
    // byte and by time), and its next build compiles nothing.
    assert!(
        contents(&first) == before,
        "the workspace's compiled files are untouched by the copy's build"
    );
    let again = workspace_build(dir.path());
    assert!(
        again.iter().all(|unit| unit.fresh),
        "every crate of the workspace's build is still fresh: {again:?}"
    );
}

/// A unit of a `cargo build`: its package, whether cargo found it fresh, and its files.
#[derive(Debug)]
struct Unit {
    id: String,
    fresh: bool,
    files: Vec<PathBuf>,
}

/// `cargo build` of the fixture's runner in the workspace itself, as from a shell.
fn workspace_build(root: &Path) -> Vec<Unit> {
    let output = Command::new(env!("CARGO"))
        .current_dir(root)
        .args([
            "build",
            "--offline",
            "--message-format=json",
            "-p",
            "vvoc-harness",
        ])
        .args(["--bin", "conform"])
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_BUILD_DIR")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(output.status.success(), "{}", text(&output));
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .map(|m| Unit {
            id: m["package_id"].as_str().unwrap_or_default().to_owned(),
            fresh: m["fresh"] == true,
            files: m["filenames"]
                .as_array()
                .into_iter()
                .flatten()
                .chain(std::iter::once(&m["executable"]))
                .filter_map(Value::as_str)
                .map(PathBuf::from)
                .collect(),
        })
        .collect()
}

/// Each file of the units with its bytes and modification time.
fn contents(units: &[Unit]) -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
    units
        .iter()
        .flat_map(|unit| &unit.files)
        .map(|file| {
            let bytes = std::fs::read(file).expect("a compiled file");
            let modified = std::fs::metadata(file)
                .and_then(|m| m.modified())
                .expect("a time");
            (file.clone(), (bytes, modified))
        })
        .collect()
}

#[test]
fn a_stale_named_mutant_is_reported_once_with_every_row_naming_it() {
    let dir = fixture();
    std::fs::write(dir.path().join("mutants/named.json"), NAMED).expect("written");
    let output = mutants(dir.path(), &["--row", "named: "]);
    assert_eq!(output.status.code(), Some(5), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("stale     mutant lib:gone (`find` occurs 0 times in implementation/src/lib.rs; it must occur exactly once; fix the `find` of the mutant lib:gone in mutants/named.json, and the 2 rows naming it follow); 2 rows:\n          named: gone once\n          named: gone twice\n"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("lib:gone (").count(), 1, "{stderr}");
    let report = report(dir.path());
    let pairs = |p: [(&str, &str); 3]| p.map(|(a, b)| (a.to_owned(), b.to_owned())).into();
    let ids = [
        "named: gone once",
        "named: gone twice",
        "named: sign shifted",
    ];
    assert_eq!(
        outcomes(&report),
        pairs([(ids[0], "stale"), (ids[1], "stale"), (ids[2], "caught")])
    );
    assert_eq!(
        by_id(&report, "mutant"),
        pairs([
            (ids[0], "lib:gone"),
            (ids[1], "lib:gone"),
            (ids[2], "lib:sign")
        ])
    );
    let markdown =
        std::fs::read_to_string(dir.path().join("reports/mutants/mutants.md")).expect("a report");
    assert!(
        markdown.contains("| `lib:gone` | `implementation/src/lib.rs` | 2: `named: gone once`, `named: gone twice` |\n"),
        "{markdown}"
    );
}

#[test]
fn rebuilding_every_row_gives_the_same_outcomes() {
    let dir = fixture();
    let output = mutants(dir.path(), &["--no-switch"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert_eq!(outcomes(&report(dir.path())), expected());
    let report = report(dir.path());
    let modes: Vec<&str> = report["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["mode"].as_str())
        .collect();
    assert!(!modes.contains(&"switched"), "{modes:?}");
    assert_suite_refusal_logged(&dir.path().join("reports/mutants/rows"));
}

/// A mutant under which the suite refuses its own files is unviable with the runner's words,
/// not a build failure, and does not stop the run.
fn assert_suite_refusal_logged(rows: &Path) {
    let logs: Vec<String> = std::fs::read_dir(rows)
        .expect("row logs")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .map(|e| std::fs::read_to_string(e.path()).expect("readable"))
        .collect();
    let refused: Vec<&String> = logs
        .iter()
        .filter(|l| l.contains("the mutant builds, but the suite cannot run under it"))
        .collect();
    assert_eq!(refused.len(), 1, "{logs:#?}");
    assert!(
        refused[0].contains("cannot load the vectors: cases.txt is refused"),
        "{}",
        refused[0]
    );
}

#[test]
fn each_outcome_has_its_exit_code() {
    // Each row alone and rebuilt (the test above covers the switched rounds), each in a copy of
    // its own, all at once.
    std::thread::scope(|scope| {
        for (row, code) in [
            ("sign negative", 0),
            ("named vector passes", 2),
            ("doubled differently", 2),
            ("does not compile", 2),
            ("refuses its files", 2),
            ("never returns", 3),
            ("not there", 5),
            ("retired row", 0),
        ] {
            scope.spawn(move || {
                let dir = fixture();
                let output = mutants(dir.path(), &["--row", row, "--no-switch"]);
                assert_eq!(output.status.code(), Some(code), "{row}: {}", text(&output));
            });
        }
    });
}

#[test]
fn a_failing_baseline_stops_the_run_with_exit_4() {
    let dir = fixture();
    let cases = dir.path().join("vectors/cases.txt");
    let broken = std::fs::read_to_string(&cases)
        .expect("readable")
        .replace("mini:zero sign 0 zero", "mini:zero sign 0 positive");
    std::fs::write(&cases, broken).expect("written");
    let output = mutants(dir.path(), &[]);
    assert_eq!(output.status.code(), Some(4), "{}", text(&output));
    assert!(
        text(&output).contains("the baseline fails 1 vectors"),
        "{}",
        text(&output)
    );
    assert!(
        text(&output).contains("mini:zero: expected positive, received zero"),
        "{}",
        text(&output)
    );
}

#[test]
fn nothing_selected_is_a_clear_success_and_list_shows_rows() {
    let dir = unbuilt_fixture();
    let output = mutants(dir.path(), &["--row", "no such row"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        text(&output).contains("no mutation row selected (--row no such row); nothing to do"),
        "{}",
        text(&output)
    );
    let output = mutants(dir.path(), &["--list"]);
    assert_eq!(output.status.code(), Some(0));
    let listed = String::from_utf8_lossy(&output.stdout);
    assert_eq!(listed.lines().count(), 8);
    assert!(
        listed.contains("sign: retired row\timplementation/src/lib.rs\tretired: kept to show"),
        "{listed}"
    );
}

#[test]
fn a_malformed_row_file_is_a_usage_error_naming_the_file() {
    let dir = unbuilt_fixture();
    std::fs::write(
        dir.path().join("mutants/bad.json"),
        r#"{"rows": [{"id": "x", "file": "a.rs"}]}"#,
    )
    .expect("written");
    let output = mutants(dir.path(), &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output).contains("mutants/bad.json: row 0: \"find\" must be a string"),
        "{}",
        text(&output)
    );
}

#[test]
fn shards_split_the_rows_stably_and_merge_back() {
    let dir = unbuilt_fixture();
    let mut seen = Vec::new();
    for k in 1..=3 {
        let output = mutants(dir.path(), &["--list", "--shard", &format!("{k}/3")]);
        seen.extend(
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .map(|l| l.split('\t').next().unwrap_or_default().to_owned()),
        );
    }
    seen.sort();
    let mut all: Vec<String> = EXPECTED.iter().map(|(id, _)| (*id).to_owned()).collect();
    all.sort();
    assert_eq!(seen, all, "every row in exactly one shard");
    let shard_dirs: Vec<PathBuf> = (1..=2)
        .map(|k| dir.path().join(format!("shard-{k}")))
        .collect();
    // Each shard in a copy of its own, both at once.
    std::thread::scope(|scope| {
        for (k, shard_dir) in shard_dirs.iter().enumerate() {
            scope.spawn(move || {
                let shard = format!("{}/2", k + 1);
                let copy = fixture();
                mutants(
                    copy.path(),
                    &[
                        "--shard",
                        &shard,
                        "--report",
                        shard_dir.to_str().expect("UTF-8"),
                    ],
                );
            });
        }
    });
    let into = dir.path().join("merged");
    let output = Command::new(XTASK)
        .args(["mutants", "merge"])
        .args(shard_dirs.iter().map(|d| d.to_str().expect("UTF-8")))
        .args(["--into", into.to_str().expect("UTF-8")])
        .output()
        .expect("merge runs");
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(into.join("mutants.json")).expect("merged"))
            .expect("JSON");
    assert_eq!(outcomes(&merged), expected());
}

#[test]
fn changed_selects_added_rows_and_rows_whose_vectors_changed() {
    let dir = unbuilt_fixture();
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .current_dir(dir.path())
            .args(args)
            .stdout(Stdio::null())
            .status()
            .expect("git");
        assert!(status.success(), "git {args:?}");
    };
    // A vector in the project's JSON format, named by a row (the fixture's suite ignores it).
    std::fs::write(
        dir.path().join("vectors/probe.json"),
        r#"{"tool": "web_search", "vectors": [{"id": "probe", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}}]}"#,
    )
    .expect("written");
    let rows = dir.path().join("mutants/rows.json");
    let probe_row = "{\"id\": \"probe row\", \"file\": \"implementation/src/lib.rs\", \"find\": \"n * 2\", \"replace\": \"n * 4\", \"caught_by\": [\"web_search:probe\"]},";
    let with_probe = std::fs::read_to_string(&rows).expect("readable").replacen(
        "\"rows\": [",
        &format!("\"rows\": [{probe_row}"),
        1,
    );
    std::fs::write(&rows, with_probe).expect("written");
    let named = dir.path().join("mutants/named.json");
    std::fs::write(&named, NAMED).expect("written");
    git(&["init", "-q"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "add", "."]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "-m",
        "fixture",
    ]);
    let output = mutants(dir.path(), &["--changed", "HEAD"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(
        text(&output).contains("no mutation row selected"),
        "{}",
        text(&output)
    );
    let list = |dir: &Path| -> Vec<String> {
        let output = mutants(dir, &["--changed", "HEAD", "--list"]);
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap_or_default().to_owned())
            .collect()
    };
    // A changed vector selects the rows that name it.
    let probe = dir.path().join("vectors/probe.json");
    let changed = std::fs::read_to_string(&probe)
        .expect("readable")
        .replace("\"count\": 8", "\"count\": 9");
    std::fs::write(&probe, changed).expect("written");
    assert_eq!(list(dir.path()), ["probe row"]);
    git(&["checkout", "-q", "--", "vectors/probe.json"]);
    // An added row is selected on its own.
    let added = std::fs::read_to_string(&rows).expect("readable").replacen(
        "\"rows\": [",
        "\"rows\": [{\"id\": \"added row\", \"file\": \"implementation/src/lib.rs\", \"find\": \"n * 2\", \"replace\": \"n * 3\"},",
        1,
    );
    std::fs::write(&rows, added).expect("written");
    assert_eq!(list(dir.path()), ["added row"]);
    // An edited row is selected too.
    git(&["checkout", "-q", "--", "mutants/rows.json"]);
    let edited = std::fs::read_to_string(&rows).expect("readable").replace(
        "\"replace\": \"if n < -1 {\"",
        "\"replace\": \"if n < -2 {\"",
    );
    std::fs::write(&rows, edited).expect("written");
    assert_eq!(list(dir.path()), ["sign negative: bound shifted"]);
    // An edited named mutant selects every row naming it, in whatever file.
    git(&["checkout", "-q", "--", "mutants/rows.json"]);
    let edited = NAMED.replace(
        "\"find\": \"no such text\", \"replace\": \"\"",
        "\"find\": \"no such text\", \"replace\": \"x\"",
    );
    std::fs::write(&named, edited).expect("written");
    assert_eq!(list(dir.path()), ["named: gone once", "named: gone twice"]);
    // A changed implementation file selects every row of that file.
    git(&["checkout", "-q", "--", "mutants/named.json"]);
    let lib = dir.path().join("implementation/src/lib.rs");
    std::fs::write(
        &lib,
        std::fs::read_to_string(&lib).expect("readable") + "\n// touched\n",
    )
    .expect("written");
    assert_eq!(list(dir.path()).len(), 12);
}

#[test]
fn an_interrupted_run_leaves_the_tree_unchanged_and_no_process_behind() {
    let dir = fixture();
    let before = snapshot(dir.path());
    let root = dir.path().to_str().expect("UTF-8").to_owned();
    // Each suite keeps a folder here while it runs, and removes it on SIGTERM.
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let mut child = Command::new(XTASK)
        .args([
            "mutants",
            "--workspace",
            &root,
            "--jobs",
            "1",
            "--suite-timeout",
            "60",
            "--row",
            "never returns",
        ])
        .env("VVOC_MINI_SCRATCH", scratch.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xtask starts");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    // Interrupt once the mutant's suite is running (it never returns), well before its limit.
    assert!(
        lines.any(|l| l.is_ok_and(|l| l.starts_with("baseline:"))),
        "the baseline ran"
    );
    let waiting = Instant::now();
    while !mutant_running(&root) {
        assert!(
            waiting.elapsed() < Duration::from_secs(60),
            "the mutant's suite never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    while std::fs::read_dir(scratch.path()).map_or(0, Iterator::count) == 0 {
        assert!(
            waiting.elapsed() < Duration::from_secs(60),
            "the mutant's suite made no scratch folder"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let interrupted = Instant::now();
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let exit = child.wait().expect("xtask ends");
    assert!(
        interrupted.elapsed() < Duration::from_secs(10),
        "the interrupt ended the run at once"
    );
    assert_eq!(exit.code(), Some(130), "an interrupted run exits 130");
    let mut said = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().expect("stdout"), &mut said)
        .expect("stdout read");
    assert!(
        said.contains("interrupted: 0 rows done (0 caught, 0 missed, 0 other), 1 not run"),
        "the run says what ran: {said}"
    );
    let partial = report(dir.path());
    assert_eq!(partial["partial"], true, "the report says it is partial");
    assert_eq!(partial["not_run"], 1);
    assert!(said.contains("PARTIAL mutation-rows interrupted"), "{said}");
    assert!(
        dir.path()
            .join("target/mutants/worker-0/mutating")
            .is_file(),
        "the switched copy is marked for the next run"
    );
    let ended = Instant::now();
    while process_running(&root) {
        assert!(
            ended.elapsed() < Duration::from_millis(300),
            "a process started for the run outlived it"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        snapshot(dir.path()),
        before,
        "the working tree is byte for byte unchanged"
    );
    let left: Vec<_> = std::fs::read_dir(scratch.path())
        .expect("the scratch folder")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.is_empty(),
        "the interrupted suite was stopped before it could remove its scratch: {left:?}"
    );
    let next = mutants(dir.path(), &["--row", "sign negative"]);
    assert_eq!(
        next.status.code(),
        Some(0),
        "the next run recovers: {}",
        text(&next)
    );
    assert!(
        text(&next).contains(
            "worker-0/tree: removed with its target directory, since an earlier run was interrupted"
        ),
        "{}",
        text(&next)
    );
}

#[test]
fn a_run_after_one_interrupted_in_a_mutated_build_starts_from_a_fresh_copy() {
    let dir = fixture();
    // What an interrupt during the switched build leaves: the mark, a mutant's binary and the
    // copy's sources as they were then.
    let worker = dir.path().join("target/mutants/worker-0");
    std::fs::write(worker.join("mutating"), "").expect("marked");
    let leftover = worker.join("target/debug/leftover-of-a-mutant");
    std::fs::write(&leftover, "").expect("written");
    let manifest = worker.join("tree/harness/Cargo.toml");
    let long_ago = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(&manifest)
        .expect("the copy's manifest")
        .set_modified(long_ago)
        .expect("set");
    let output = mutants(dir.path(), &["--row", "sign negative"]);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.contains(
            "worker-0/tree: removed with its target directory, since an earlier run was interrupted"
        ),
        "the run says it writes and builds the copy again: {said}"
    );
    assert!(!leftover.exists(), "the old target directory is gone");
    let modified = std::fs::metadata(&manifest)
        .and_then(|m| m.modified())
        .expect("a time");
    assert!(
        modified > long_ago,
        "every source of the copy is written again, even one that did not change"
    );
    assert!(!worker.join("mutating").exists(), "the run clears the mark");
    let again = mutants(dir.path(), &["--row", "sign negative"]);
    assert!(
        !text(&again).contains("removed, since"),
        "a run after a whole run keeps its target warm: {}",
        text(&again)
    );
}

/// Whether some process's command line or working directory mentions `marker`.
fn process_running(marker: &str) -> bool {
    processes().any(|process| process.cmdline.contains(marker) || process.cwd.contains(marker))
}

/// Whether a mutant's suite (a process with a mutant switched on) runs for the run at `marker`.
fn mutant_running(marker: &str) -> bool {
    processes().any(|process| {
        process.cmdline.contains(marker) && process.environ.contains("\0VVOC_MUTANT=")
    })
}

/// A running process, as /proc shows it.
struct Process {
    /// Its arguments, separated by spaces.
    cmdline: String,
    /// Its working directory.
    cwd: String,
    /// Its environment, each variable preceded by a NUL.
    environ: String,
}

/// Every running process.
fn processes() -> impl Iterator<Item = Process> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| Process {
            cmdline: std::fs::read(entry.path().join("cmdline"))
                .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
                .unwrap_or_default(),
            cwd: std::fs::read_link(entry.path().join("cwd"))
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            environ: std::fs::read(entry.path().join("environ"))
                .map(|e| format!("\0{}", String::from_utf8_lossy(&e)))
                .unwrap_or_default(),
        })
}
