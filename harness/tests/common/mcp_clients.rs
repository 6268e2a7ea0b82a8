//! The real MCP software the MCP checks run (`mcp_sdk.rs`, `mcp_inspector.rs`,
//! `mcp_conformance.rs`): npm packages pinned to exact versions, installed by `.ci/run` into one
//! folder (`npm install --no-save --no-package-lock` of all of them at once, so that none prunes
//! another), and `node` to run them. The folder is `VVOC_MCP_CLIENTS`, else `target/mcp-clients`
//! of the workspace. Without them a check prints that it skipped, and passes; with `CI` set it
//! fails.

#![allow(dead_code)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable naming the folder whose `node_modules` holds the packages.
pub const CLIENTS_VARIABLE: &str = "VVOC_MCP_CLIENTS";

/// The official TypeScript SDK.
pub const SDK: (&str, &str) = ("@modelcontextprotocol/sdk", "1.32.2");
/// The MCP Inspector's command line.
pub const INSPECTOR_CLI: (&str, &str) = ("@modelcontextprotocol/inspector-cli", "1.0.3");
/// The official conformance suite.
pub const CONFORMANCE: (&str, &str) = ("@modelcontextprotocol/conformance", "0.1.16");

/// The folder the packages are looked for in.
pub fn clients_dir() -> PathBuf {
    match std::env::var_os(CLIENTS_VARIABLE) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-clients"),
    }
}

/// The installed folder of the package `(name, version)`, at exactly that version, when `node`
/// runs too; or why not.
pub fn find_package((name, version): (&str, &str)) -> Result<PathBuf, String> {
    let clients = clients_dir();
    let folder = clients.join("node_modules").join(name);
    let text = std::fs::read_to_string(folder.join("package.json"))
        .map_err(|_| format!("{name} is not installed at {}", clients.display()))?;
    let found = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|p| p["version"].as_str().map(str::to_owned))
        .unwrap_or_default();
    if found != version {
        return Err(format!(
            "{name} at {} is {found:?}, not {version}",
            clients.display()
        ));
    }
    match Command::new("node").arg("--version").output() {
        Ok(output) if output.status.success() => Ok(folder),
        _ => Err("node is not found".to_owned()),
    }
}

/// The package's folder, or `None` after saying on standard error that `check` skipped (how to
/// install it named); with `CI` set, a missing package fails the check instead.
pub fn package_or_skip(check: &str, package: (&str, &str)) -> Option<PathBuf> {
    match find_package(package) {
        Ok(folder) => Some(folder),
        Err(why) => {
            let (name, version) = package;
            let how = format!(
                "set {CLIENTS_VARIABLE}, or run `npm install --no-save --no-package-lock \
                 {}@{} {}@{} {}@{}` in target/mcp-clients, as .ci/run does (for {name}@{version})",
                SDK.0, SDK.1, INSPECTOR_CLI.0, INSPECTOR_CLI.1, CONFORMANCE.0, CONFORMANCE.1
            );
            assert!(
                std::env::var_os("CI").is_none(),
                "{check}: CI is set and {why}: {how}"
            );
            // Written past the test harness's capture, so that a skip is seen in every run.
            let _ = writeln!(std::io::stderr(), "{check}: skipped: {why} ({how})");
            None
        }
    }
}

/// The Bun the conformance suite runs on (`VVOC_BUN`, else the one `.ci/run` installs in the
/// workspace's `target/`): it must say 1.3.8 to `--version`; or why not.
pub fn find_bun() -> Result<PathBuf, String> {
    let bun = match std::env::var_os("VVOC_BUN") {
        Some(bun) => PathBuf::from(bun),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../target/bun-1.3.8/node_modules/@oven/bun-linux-x64/bin/bun"),
    };
    match Command::new(&bun).arg("--version").output() {
        Ok(output) if String::from_utf8_lossy(&output.stdout).trim() == "1.3.8" => Ok(bun),
        Ok(output) => Err(format!(
            "the Bun at {} is {:?}, not 1.3.8",
            bun.display(),
            String::from_utf8_lossy(&output.stdout).trim()
        )),
        Err(_) => Err(format!("Bun 1.3.8 is not found at {}", bun.display())),
    }
}

/// `conform mcp --listen 127.0.0.1:0` with more arguments, and the URL it printed; killed when
/// dropped.
pub struct Listening {
    child: std::process::Child,
    pub url: String,
}

impl Listening {
    pub fn start(args: &[&std::ffi::OsStr]) -> Listening {
        Listening::start_at("127.0.0.1:0", args)
    }

    /// As [`Listening::start`], listening on `address`.
    pub fn start_at(address: &str, args: &[&std::ffi::OsStr]) -> Listening {
        use std::io::BufRead as _;
        let mut child = Command::new(super_conform())
            .args(["mcp", "--listen", address])
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("conform mcp --listen starts");
        let stdout = child.stdout.take().expect("its stdout");
        let mut url = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut url)
            .expect("the URL line");
        let url = url.trim().to_owned();
        let host = address.rsplit_once(':').map_or(address, |(host, _)| host);
        assert!(
            url.starts_with(&format!("http://{host}:")) && url.ends_with("/mcp"),
            "{url:?}"
        );
        Listening { child, url }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `conform` binary (as `common::CONFORM`; this module is also included on its own).
fn super_conform() -> &'static str {
    env!("CARGO_BIN_EXE_conform")
}
