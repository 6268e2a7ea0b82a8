//! Commands that `cargo xtask` starts, started as from the shell that started it, and where
//! cargo says it put what it built.

use std::ffi::OsStr;
use std::process::Command;

/// `program` as a command without the variables cargo set for xtask itself when it ran it
/// (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, `OUT_DIR`…).
///
/// Build scripts may ask to run again when one of those changes (ring's asks for
/// `CARGO_MANIFEST_DIR`), and cargo compares them with its own environment. A cargo started with
/// xtask's would find such a script stale, run it and compile what depends on it again (ring,
/// rustls, the harness…), and the next cargo started from the shell would do it all once more.
pub fn command(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    for (name, _) in std::env::vars_os() {
        if set_by_cargo_for_a_crate(&name.to_string_lossy()) {
            command.env_remove(&name);
        }
    }
    command
}

/// The executable of the binary target `name` in a `cargo build --message-format=json` log.
pub fn executable(log: &str, name: &str) -> Option<String> {
    log.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(str::to_owned))
}

/// Whether cargo sets the variable `name` for a crate it builds or runs (the Cargo book's
/// "Environment variables Cargo sets for crates"); `CARGO` itself, the path of cargo, stays.
fn set_by_cargo_for_a_crate(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_MANIFEST_")
        || matches!(
            name,
            "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_TARGET_TMPDIR"
                | "CARGO_RUSTC_CURRENT_DIR"
                | "OUT_DIR"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_executable_is_read_from_cargos_messages_for_the_named_target() {
        let log = concat!(
            "warning: rendered text is not JSON\n",
            r#"{"reason":"compiler-artifact","target":{"name":"vvoc_harness"},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"conform"},"executable":"/t/debug/conform"}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#,
        );
        assert_eq!(
            executable(log, "conform").as_deref(),
            Some("/t/debug/conform")
        );
        assert_eq!(executable(log, "fake-peer"), None);
        assert_eq!(executable("", "conform"), None);
    }

    #[test]
    fn what_cargo_sets_for_a_crate_is_left_out_and_the_rest_kept() {
        for name in [
            "CARGO_MANIFEST_DIR",
            "CARGO_MANIFEST_PATH",
            "CARGO_MANIFEST_LINKS",
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_MAJOR",
            "CARGO_CRATE_NAME",
            "CARGO_BIN_NAME",
            "OUT_DIR",
        ] {
            assert!(set_by_cargo_for_a_crate(name), "{name}");
        }
        for name in [
            "CARGO",
            "CARGO_HOME",
            "CARGO_TARGET_DIR",
            "PATH",
            "RUSTFLAGS",
        ] {
            assert!(!set_by_cargo_for_a_crate(name), "{name}");
        }
    }

    #[test]
    fn a_command_started_from_xtask_does_not_see_its_manifest_dir() {
        // Tests run under cargo, which sets CARGO_MANIFEST_DIR for them as for xtask.
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        let command = command("env");
        let removed: Vec<_> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect();
        assert!(
            removed.iter().any(|n| n == "CARGO_MANIFEST_DIR"),
            "{removed:?}"
        );
        assert!(!removed.iter().any(|n| n == "PATH"), "{removed:?}");
    }
}
