//! The example Python peer passes its subset, vectors and str_replace_editor scenarios, with its
//! known failures listed. Without `python3` the test fails, unless `VVOC_SKIP_PYTHON=1` asks to
//! skip it.

use std::process::Command;

use vvoc_harness::default_vectors_dir;

/// The variable that skips this test on purpose (`VVOC_SKIP_PYTHON=1`).
const SKIP: &str = "VVOC_SKIP_PYTHON";

#[test]
fn the_python_example_peer_passes_its_tools_with_its_known_failures() {
    if std::env::var_os(SKIP).is_some_and(|v| v == "1") {
        eprintln!("{SKIP}=1: the example Python peer is not run, as requested");
        return;
    }
    let python = Command::new("python3").arg("--version").output();
    assert!(
        python.as_ref().is_ok_and(|o| o.status.success()),
        "python3 cannot be run ({}), so the example Python peer cannot be tested; install \
         python3 (CI has it), or set {SKIP}=1 to skip this test on purpose",
        match &python {
            Ok(output) => format!("`python3 --version` exited with {}", output.status),
            Err(error) => error.to_string(),
        }
    );
    let peers = default_vectors_dir().join("../harness/peers/python");
    let peer = format!("python3 {}", peers.join("vvoc_peer.py").display());
    let known = peers.join("known-failures.json");
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args([
            "run",
            "--vectors",
            default_vectors_dir().to_str().expect("UTF-8"),
            "--peer",
            &peer,
        ])
        .args([
            "--known-failures",
            known.to_str().expect("UTF-8"),
            "--validate-protocol",
        ])
        .output()
        .expect("conform runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for tool in [
        "web_search",
        "web_fetch",
        "work_item_list",
        "str_replace_editor",
    ] {
        let ran = cell(&stdout, "vectors", tool, "vectors");
        assert!(!ran.is_empty() && ran != "0", "{tool} ran: {stdout}");
        let passing = cell(&stdout, "vectors", tool, "pass");
        assert!(
            !passing.is_empty() && passing != "0",
            "{tool} has passing vectors: {stdout}"
        );
    }
    assert!(
        stdout
            .lines()
            .next()
            .is_some_and(|h| h.contains("known-fail") && h.contains("unsupported")),
        "{stdout}"
    );
    // The scenario table: the peer executes str_replace_editor, and every scenario of it passes.
    let played = cell(&stdout, "scenarios", "str_replace_editor", "scenarios");
    let passing = cell(&stdout, "scenarios", "str_replace_editor", "pass");
    assert!(
        !played.is_empty() && played != "0" && played == passing,
        "every str_replace_editor scenario passes through the Python peer: {stdout}"
    );
}

/// The cell at row `tool` and column `column` of the summary's table of `counted` (`vectors` or
/// `scenarios`); empty when there is none.
fn cell<'a>(stdout: &'a str, counted: &str, tool: &str, column: &str) -> &'a str {
    let words = |line: &'a str| line.split_whitespace().collect::<Vec<&'a str>>();
    let mut lines = stdout
        .lines()
        .skip_while(|l| words(l).get(..2) != Some(&["tool", counted][..]));
    let header = words(lines.next().unwrap_or_default());
    let row = lines
        .take_while(|l| !l.starts_with("tool "))
        .map(words)
        .find(|row| row.first() == Some(&tool))
        .unwrap_or_default();
    header
        .iter()
        .position(|h| *h == column)
        .and_then(|i| row.get(i).copied())
        .unwrap_or_default()
}
