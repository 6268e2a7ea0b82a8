//! The example Python peer passes its subset, vectors and str_replace_editor scenarios, with its
//! known failures listed (when python3 exists).

use std::process::Command;

use vvoc_harness::default_vectors_dir;

#[test]
fn the_python_example_peer_passes_its_tools_with_its_known_failures() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 is not installed: the example peer is not run");
        return;
    }
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
        let row: Vec<&str> = stdout
            .lines()
            .find(|l| l.starts_with(tool))
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        assert!(row.len() >= 3 && row[1] != "0", "{tool} ran: {stdout}");
        assert_ne!(row[2], "0", "{tool} has passing vectors: {stdout}");
    }
    assert!(
        stdout
            .lines()
            .next()
            .is_some_and(|h| h.contains("known-fail") && h.contains("unsupported")),
        "{stdout}"
    );
    // The scenario table: the peer executes str_replace_editor, and every scenario of it passes.
    let scenarios: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.contains("scenarios"))
        .find(|l| l.starts_with("str_replace_editor"))
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert!(
        scenarios.len() >= 3 && scenarios[1] != "0" && scenarios[1] == scenarios[2],
        "every str_replace_editor scenario passes through the Python peer: {stdout}"
    );
}
