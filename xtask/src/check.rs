//! `cargo xtask check`: every check the project has, one line each (`PASS`, `FAIL` or `SKIP`),
//! then a count; with `--changed BASE` only the checks the changed paths can affect.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context as _, Result};

use crate::mutants::interrupt;

/// One check: its name, what it proves, the paths that can change its verdict, and how it runs.
#[derive(Debug)]
pub struct Check {
    /// The name printed after `PASS`/`FAIL`/`SKIP`, and accepted by `--skip`.
    pub name: &'static str,
    /// Path prefixes whose change can change the verdict (`""` means every path).
    pub affected_by: &'static [&'static str],
    run: fn(&Context) -> Result<Verdict>,
}

/// What a check came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It passed; the detail says what was checked.
    Pass(String),
    /// It failed; the detail says why, and the log's tail follows.
    Fail(String, String),
    /// It did not run; the detail says why.
    Skip(String),
}

/// How a run of the checks ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every check that ran passed.
    Passed,
    /// A check failed.
    Failed,
    /// SIGINT or SIGTERM stopped it: the check under way was asked to stop, and no other ran.
    Interrupted,
}

/// What the checks run against.
#[derive(Debug)]
pub struct Context<'a> {
    /// The workspace root.
    pub root: &'a Path,
    /// `--changed BASE`: the revision the change is measured from.
    pub changed: Option<&'a str>,
}

const RUST: &[&str] = &[
    "implementation/",
    "harness/",
    "xtask/",
    "Cargo.toml",
    "Cargo.lock",
];
const SUITE: &[&str] = &[
    "implementation/",
    "harness/",
    "xtask/",
    "vectors/",
    "mutants/",
    "Cargo.toml",
    "Cargo.lock",
];

/// Every check, in the order they run (cheap and fundamental first).
pub const CHECKS: &[Check] = &[
    Check {
        name: "workflows",
        affected_by: &[".github/", "docs/conformance-workflow.yml", ".ci/"],
        run: workflows,
    },
    Check {
        name: "format",
        affected_by: RUST,
        run: format,
    },
    Check {
        name: "clippy",
        affected_by: RUST,
        run: clippy,
    },
    Check {
        name: "tests",
        affected_by: SUITE,
        run: tests,
    },
    Check {
        name: "generated",
        affected_by: &[
            "implementation/",
            "harness/",
            "xtask/",
            "vectors/",
            "mutants/",
            "docs/",
        ],
        run: generated,
    },
    Check {
        name: "file-lint",
        affected_by: &["vectors/", "mutants/", "harness/", "implementation/"],
        run: file_lint,
    },
    Check {
        name: "coverage",
        affected_by: &["implementation/", "vectors/", "mutants/"],
        run: coverage,
    },
    Check {
        name: "mutation",
        affected_by: SUITE,
        run: mutation,
    },
    Check {
        name: "peer-suite",
        affected_by: &["implementation/", "harness/", "vectors/", "Cargo.lock"],
        run: peer_suite,
    },
];

/// Runs the checks not in `skip` (and, with `changed`, only those its paths affect), printing one
/// line each and the count, and how that ended. An interrupt stops the check under way (its
/// commands get SIGTERM, as [`interrupt`] says) and runs no other.
pub fn run(root: &Path, changed: Option<&str>, skip: &[String]) -> Result<Ending> {
    let paths = match changed {
        Some(base) => Some(changed_paths(root, base)?),
        None => None,
    };
    let context = Context { root, changed };
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for check in CHECKS {
        if interrupt::stopping() {
            return Ok(interrupted(None, (passed, failed, skipped)));
        }
        let verdict = if skip.iter().any(|s| s == check.name) {
            Verdict::Skip("skipped by --skip".to_owned())
        } else if let Some(paths) = paths.as_ref().filter(|p| !affects(check, p)) {
            Verdict::Skip(format!(
                "no changed path can affect it ({} paths changed since {})",
                paths.len(),
                changed.unwrap_or_default()
            ))
        } else {
            eprintln!("running {} ...", check.name);
            let started = Instant::now();
            let verdict = (check.run)(&context);
            if interrupt::stopping() {
                return Ok(interrupted(
                    Some((check, verdict)),
                    (passed, failed, skipped),
                ));
            }
            match verdict {
                Ok(Verdict::Pass(detail)) => Verdict::Pass(format!(
                    "{detail} ({:.0} s)",
                    started.elapsed().as_secs_f64()
                )),
                Ok(other) => other,
                Err(error) => Verdict::Fail(format!("{error:#}"), String::new()),
            }
        };
        match &verdict {
            Verdict::Pass(detail) => {
                passed += 1;
                println!("PASS {} {detail}", check.name);
            }
            Verdict::Fail(detail, log) => {
                failed += 1;
                println!("FAIL {} {detail}", check.name);
                if !log.is_empty() {
                    println!("{}", indent(log));
                }
            }
            Verdict::Skip(detail) => {
                skipped += 1;
                println!("SKIP {} {detail}", check.name);
            }
        }
    }
    println!("{}", summary(passed, failed, skipped));
    Ok(if failed == 0 {
        Ending::Passed
    } else {
        Ending::Failed
    })
}

/// The closing line: `== N passed, N failed, N skipped ==`.
pub fn summary(passed: usize, failed: usize, skipped: usize) -> String {
    format!("== {passed} passed, {failed} failed, {skipped} skipped ==")
}

/// Whether a change of `paths` can affect `check`.
pub fn affects(check: &Check, paths: &[String]) -> bool {
    paths
        .iter()
        .any(|p| check.affected_by.iter().any(|prefix| p.starts_with(prefix)))
}

/// The paths changed since `base`: committed since, staged, unstaged and untracked.
fn changed_paths(root: &Path, base: &str) -> Result<Vec<String>> {
    let mut paths = Vec::new();
    for args in [
        vec!["diff", "--name-only", base],
        vec!["ls-files", "--others", "--exclude-standard"],
    ] {
        let output = Command::new("git")
            .current_dir(root)
            .args(&args)
            .output()
            .context("cannot run git")?;
        anyhow::ensure!(
            output.status.success(),
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        );
        paths.extend(
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .map(str::to_owned),
        );
    }
    paths.sort();
    paths.dedup();
    Ok(paths)
}

fn workflows(context: &Context) -> Result<Verdict> {
    let local = context.root.join("target/ci-tools/venv/bin/actionlint");
    let program = if local.exists() {
        local.to_string_lossy().into_owned()
    } else if Command::new("actionlint").arg("-version").output().is_ok() {
        "actionlint".to_owned()
    } else {
        return Ok(Verdict::Skip(
            "actionlint is not installed (.ci/run installs it into target/ci-tools)".to_owned(),
        ));
    };
    let mut files: Vec<String> = std::fs::read_dir(context.root.join(".github/workflows"))
        .context("cannot list .github/workflows")?
        .flatten()
        .map(|e| format!(".github/workflows/{}", e.file_name().to_string_lossy()))
        .filter(|f| f.ends_with(".yml") || f.ends_with(".yaml"))
        .collect();
    files.sort();
    files.push("docs/conformance-workflow.yml".to_owned());
    let count = files.len();
    command(context, &program, &files, |_| {
        format!("{count} workflows lint clean")
    })
}

fn format(context: &Context) -> Result<Verdict> {
    command(context, "cargo", &["fmt", "--all", "--", "--check"], |_| {
        "every file formatted".to_owned()
    })
}

fn clippy(context: &Context) -> Result<Verdict> {
    let args = [
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ];
    command(context, "cargo", &args, |_| "no warnings".to_owned())
}

fn tests(context: &Context) -> Result<Verdict> {
    command(
        context,
        "cargo",
        &["test", "--workspace", "--locked"],
        |log| {
            let passed: usize = log
                .lines()
                .filter(|l| l.starts_with("test result: ok."))
                .filter_map(|l| l.split_whitespace().nth(3)?.parse::<usize>().ok())
                .sum();
            format!("{passed} tests passed")
        },
    )
}

fn generated(context: &Context) -> Result<Verdict> {
    let summary = crate::docs::generate(context.root, true)?;
    let text = summary.to_string();
    if summary.stale().next().is_some() {
        return Ok(Verdict::Fail(
            "generated files differ from their sources; run `cargo xtask docs`".to_owned(),
            text,
        ));
    }
    Ok(Verdict::Pass(
        text.lines().next().unwrap_or_default().to_owned(),
    ))
}

fn file_lint(context: &Context) -> Result<Verdict> {
    let conform = match built_conform(context)? {
        Ok(conform) => conform,
        Err(failed) => return Ok(failed),
    };
    command(context, &conform, &["lint"], |log| last_line(log, "ok:"))
}

fn coverage(context: &Context) -> Result<Verdict> {
    command(
        context,
        "cargo",
        &["xtask", "mutants", "--coverage"],
        |log| last_line(log, "rules have"),
    )
}

fn mutation(context: &Context) -> Result<Verdict> {
    let mut args = vec!["xtask", "mutants"];
    if let Some(base) = context.changed {
        args.extend(["--changed", base]);
    }
    command(context, "cargo", &args, |log| {
        last_line(log, "mutation-rows")
    })
}

fn peer_suite(context: &Context) -> Result<Verdict> {
    let conform = match built_conform(context)? {
        Ok(conform) => conform,
        Err(failed) => return Ok(failed),
    };
    let peer = format!("{conform} peer");
    let args = [
        "run",
        "--peer",
        peer.as_str(),
        "--jobs",
        "2",
        "--validate-protocol",
    ];
    command(context, &conform, &args, |log| {
        let vectors = log
            .lines()
            .rfind(|l| l.starts_with("passing by level"))
            .unwrap_or_default()
            .trim()
            .to_owned();
        let scenarios = last_line(log, "scenarios passing by level");
        format!("through conform peer: {vectors}; {scenarios}")
    })
}

/// The debug `conform` of the workspace, built (or found fresh) by cargo, where cargo says it
/// put it; a failed build is the check's verdict.
fn built_conform(context: &Context) -> Result<Result<String, Verdict>> {
    let build = [
        "build",
        "--quiet",
        "--locked",
        "--message-format=json-render-diagnostics",
        "-p",
        "vvoc-harness",
        "--bin",
        "conform",
    ];
    match command(context, "cargo", &build, |log| {
        crate::child::executable(log, "conform").unwrap_or_default()
    })? {
        Verdict::Pass(path) if !path.is_empty() => Ok(Ok(path)),
        Verdict::Pass(_) => Ok(Err(Verdict::Fail(
            "`cargo build` of conform said no executable".to_owned(),
            String::new(),
        ))),
        Verdict::Fail(detail, log) => Ok(Err(Verdict::Fail(detail, log))),
        Verdict::Skip(detail) => Ok(Err(Verdict::Skip(detail))),
    }
}

/// Runs a command in the workspace root; its verdict by exit status, `detail` read from its output.
fn command<S: AsRef<std::ffi::OsStr>>(
    context: &Context,
    program: &str,
    args: &[S],
    detail: impl Fn(&str) -> String,
) -> Result<Verdict> {
    // In a group of its own, watched: an interrupt asks it (and what it started) to stop.
    let mut command = crate::child::command(program);
    command
        .current_dir(context.root)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let child = command
        .spawn()
        .with_context(|| format!("cannot run {program}"))?;
    let leader = child.id();
    interrupt::watch(leader);
    let output = child.wait_with_output();
    interrupt::forget(leader);
    let output = output.with_context(|| format!("cannot run {program}"))?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let shown: Vec<&str> = args
        .iter()
        .map(|a| a.as_ref().to_str().unwrap_or("?"))
        .collect();
    Ok(if output.status.success() {
        Verdict::Pass(detail(&log))
    } else {
        Verdict::Fail(
            format!(
                "`{program} {}` exited with {}",
                shown.join(" "),
                output.status
            ),
            tail(&log, 40),
        )
    })
}

/// Says what an interrupt stopped: the check under way, if one was, with the tail of what it
/// printed, and the count so far.
fn interrupted(
    under_way: Option<(&Check, Result<Verdict>)>,
    (passed, failed, skipped): (usize, usize, usize),
) -> Ending {
    if let Some((check, verdict)) = &under_way {
        println!("STOPPED {} interrupted (SIGINT or SIGTERM)", check.name);
        if let Ok(Verdict::Fail(_, log) | Verdict::Pass(log)) = verdict
            && !log.is_empty()
        {
            println!("{}", indent(&tail(log, 10)));
        }
    }
    let left = CHECKS.len() - passed - failed - skipped - usize::from(under_way.is_some());
    println!("interrupted: {passed} passed, {failed} failed, {skipped} skipped; {left} not run");
    interrupt::end();
    Ending::Interrupted
}

/// The last line of `log` that contains `marker`, trimmed.
fn last_line(log: &str, marker: &str) -> String {
    log.lines()
        .rfind(|l| l.contains(marker))
        .unwrap_or_default()
        .trim()
        .to_owned()
}

fn tail(log: &str, lines: usize) -> String {
    let all: Vec<&str> = log.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn indent(log: &str) -> String {
    log.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn affected(paths: &[&str]) -> Vec<&'static str> {
        let paths: Vec<String> = paths.iter().map(|p| (*p).to_owned()).collect();
        CHECKS
            .iter()
            .filter(|c| affects(c, &paths))
            .map(|c| c.name)
            .collect()
    }

    #[test]
    fn a_changed_vector_file_affects_the_suite_checks_but_not_format_or_lints() {
        assert_eq!(
            affected(&["vectors/web_search/structural.json"]),
            [
                "tests",
                "generated",
                "file-lint",
                "coverage",
                "mutation",
                "peer-suite"
            ]
        );
    }

    #[test]
    fn a_changed_workflow_affects_only_the_workflow_lint() {
        assert_eq!(affected(&[".github/workflows/ci.yml"]), ["workflows"]);
        assert_eq!(
            affected(&["docs/conformance-workflow.yml"]),
            ["workflows", "generated"]
        );
    }

    #[test]
    fn a_changed_source_file_affects_every_check_but_the_workflow_lint() {
        let all: Vec<&str> = CHECKS
            .iter()
            .map(|c| c.name)
            .filter(|n| *n != "workflows")
            .collect();
        assert_eq!(affected(&["implementation/src/lib.rs"]), all);
        assert!(
            affected(&["README.md"]).is_empty(),
            "prose affects no check"
        );
    }

    #[test]
    fn check_names_are_unique_and_the_summary_counts_them() {
        let mut names: Vec<&str> = CHECKS.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CHECKS.len());
        assert_eq!(summary(7, 1, 2), "== 7 passed, 1 failed, 2 skipped ==");
    }
}
