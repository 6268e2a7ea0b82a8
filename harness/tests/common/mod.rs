//! Helpers several test binaries of the harness share (each binary uses what it needs).

#![allow(dead_code)]

use std::process::Output;
use std::time::{Duration, Instant};

/// The `conform` binary under test.
pub const CONFORM: &str = env!("CARGO_BIN_EXE_conform");

/// A command's standard output followed by its standard error.
pub fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A temporary folder holding `files` (relative path, text), subfolders created.
pub fn files_folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a subfolder");
        std::fs::write(path, text).expect("a written file");
    }
    dir
}

/// A vectors folder: one `web_search` vector, and the scenarios of `tool` given as (id, the JSON
/// members after the id).
pub fn scenario_folder<S: AsRef<str>>(tool: &str, scenarios: &[(&str, S)]) -> tempfile::TempDir {
    let items: Vec<String> = scenarios
        .iter()
        .map(|(id, body)| format!(r#"{{"id": "{id}", {}}}"#, body.as_ref()))
        .collect();
    let scenarios = format!(
        r#"{{"tool": "{tool}", "scenarios": [{}]}}"#,
        items.join(",\n")
    );
    files_folder(&[
        (
            "v.json",
            r#"{"tool": "web_search", "vectors": [{"id": "plain", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}}]}"#,
        ),
        ("exec.json", &scenarios),
    ])
}

/// Whether some process's command line still contains `marker` after `grace` (checked every
/// 10 ms, so a process that is gone sooner ends the wait).
pub fn still_running_after(marker: &str, grace: Duration) -> bool {
    let started = Instant::now();
    while process_running(marker) {
        if started.elapsed() >= grace {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Whether some process's command line contains `marker`.
pub fn process_running(marker: &str) -> bool {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .any(|entry| {
            std::fs::read(entry.path().join("cmdline")).is_ok_and(|cmdline| {
                String::from_utf8_lossy(&cmdline)
                    .replace('\0', " ")
                    .contains(marker)
            })
        })
}
