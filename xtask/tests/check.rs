//! `cargo xtask check` interrupted: the check under way is asked to stop (SIGTERM to its process
//! group, so a mutation run writes its partial report), no other starts, and it says what ran.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

/// A linter that says it started, and on SIGTERM says so and stops. It says it started only once
/// its `sleep` was started, so the group's SIGTERM reaches that too (a `sleep` started after it
/// would hold the output open until the grace ran out). Its trap also kills the `sleep`: a SIGTERM
/// that reaches the forked shell before it has reset its traps and run `sleep` is lost there
/// (about one run in a hundred under load), and that `sleep` would hold the output open for the
/// whole grace.
const SLOW_LINTER: &str = r#"#!/bin/sh
dir=$(dirname "$0")
trap 'kill -KILL "$child" 2>/dev/null; echo termed > "$dir/termed"; exit 143' TERM
sleep 600 &
child=$!
echo "linting slowly"
echo started > "$dir/started"
wait
"#;

#[test]
fn an_interrupted_check_asks_the_command_under_way_to_stop_and_says_what_ran() {
    for signal in [
        nix::sys::signal::Signal::SIGTERM,
        nix::sys::signal::Signal::SIGINT,
    ] {
        let root = tempfile::tempdir().expect("a workspace");
        let bin = root.path().join("target/ci-tools/venv/bin");
        std::fs::create_dir_all(&bin).expect("made");
        std::fs::create_dir_all(root.path().join(".github/workflows")).expect("made");
        std::fs::write(root.path().join(".github/workflows/ci.yml"), "on: push\n")
            .expect("written");
        let linter = bin.join("actionlint");
        std::fs::write(&linter, SLOW_LINTER).expect("written");
        let mut permissions = std::fs::metadata(&linter).expect("metadata").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&linter, permissions).expect("executable");
        let mut command = Command::new(XTASK);
        command.arg("check").arg("--workspace").arg(root.path());
        for other in [
            "format",
            "clippy",
            "tests",
            "generated",
            "file-lint",
            "coverage",
            "mutation",
            "peer-suite",
        ] {
            command.args(["--skip", other]);
        }
        let child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("xtask starts");
        wait_for(&bin.join("started"), "the linter started");
        let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("a pid"));
        let interrupted = Instant::now();
        nix::sys::signal::kill(pid, signal).expect("signalled");
        let output = child.wait_with_output().expect("xtask ends");
        let out = String::from_utf8_lossy(&output.stdout);
        assert!(
            interrupted.elapsed() < Duration::from_secs(20),
            "{signal}: the check stopped at once"
        );
        assert_eq!(output.status.code(), Some(130), "{signal}: {out}");
        assert!(
            bin.join("termed").is_file(),
            "{signal}: the linter was asked to stop (SIGTERM), not killed"
        );
        assert!(
            out.contains("STOPPED workflows interrupted (SIGINT or SIGTERM)\n    linting slowly"),
            "{signal}: {out}"
        );
        assert!(
            out.contains("interrupted: 0 passed, 0 failed, 0 skipped; 8 not run"),
            "{signal}: {out}"
        );
        assert!(
            !out.contains("=="),
            "{signal}: no count of a finished run: {out}"
        );
    }
}

fn wait_for(path: &Path, what: &str) {
    let started = Instant::now();
    while !path.exists() {
        assert!(started.elapsed() < Duration::from_secs(30), "{what}: never");
        std::thread::sleep(Duration::from_millis(10));
    }
}
