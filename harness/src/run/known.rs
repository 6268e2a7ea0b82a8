//! Known-failure files: vectors and scenarios an implementation is known to fail, which must keep
//! failing.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::compare::{describe, describe_mcp};
use crate::load::error::{NotRegular, TextProblem};
use crate::load::files::{not_regular, text};
use crate::outcome::{Answer, Failure, Outcome};
use crate::run::records::ScenarioRecord;
use crate::run::result::RunResult;
use crate::scenario::compare::ScenarioLevel;

/// The entries of a known-failure file.
#[derive(Clone, Debug, Default)]
pub struct KnownFailures {
    /// Each listed vector name with the reason given.
    pub entries: Vec<(String, String)>,
}

/// Why a known-failure file cannot be used.
#[derive(Debug)]
pub enum KnownFailuresError {
    /// The file cannot be read or is not JSON.
    Read { file: PathBuf, reason: String },
    /// The file (symbolic links followed) is a folder, a FIFO, a socket or a device: reading a
    /// FIFO would wait for a writer forever, writing one for a reader.
    NotRegular { file: PathBuf, what: NotRegular },
    /// The file's bytes are not UTF-8 text without a byte order mark.
    Text { file: PathBuf, problem: TextProblem },
    /// The path to write a known-failure file to cannot be looked at.
    Target { file: PathBuf, reason: String },
    /// The file does not have the shape `{"known_failures": [{"vector": S, "reason": S}]}`.
    Shape { file: PathBuf, reason: String },
    /// An entry names no vector of the run's vector set.
    UnknownVector { file: PathBuf, vector: String },
    /// Two entries name the same vector.
    Duplicate { file: PathBuf, vector: String },
}

impl fmt::Display for KnownFailuresError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KnownFailuresError::Read { file, reason } => {
                write!(
                    f,
                    "{}: cannot read the known-failure file: {reason}",
                    file.display()
                )
            }
            KnownFailuresError::NotRegular { file, what } => write!(
                f,
                "{}: {what}, not a regular file; a known-failure file is a regular file (or a symbolic link to one): give the path of one",
                file.display()
            ),
            KnownFailuresError::Text { file, problem } => {
                write!(f, "{}: the known-failure file {problem}", file.display())
            }
            KnownFailuresError::Target { file, reason } => write!(
                f,
                "{}: cannot write a known-failure file there: {reason}; give a path in a folder that exists",
                file.display()
            ),
            KnownFailuresError::Shape { file, reason } => write!(
                f,
                "{}: {reason}; a known-failure file is {{\"known_failures\": [{{\"vector\": \"<tool>:<id>\", \"reason\": \"...\"}}]}}",
                file.display()
            ),
            KnownFailuresError::Duplicate { file, vector } => {
                write!(
                    f,
                    "{}: lists {vector:?} twice; keep one entry",
                    file.display()
                )
            }
            KnownFailuresError::UnknownVector { file, vector } => write!(
                f,
                "{}: lists {vector:?}, which is no vector of this run (nor a scenario); remove the entry (or fix its name)",
                file.display()
            ),
        }
    }
}

impl std::error::Error for KnownFailuresError {}

impl KnownFailures {
    /// Reads a known-failure file, refusing entries that name no vector or scenario of `names`.
    pub fn read(file: &Path, names: &[String]) -> Result<KnownFailures, KnownFailuresError> {
        let read_error = |reason: String| KnownFailuresError::Read {
            file: file.to_owned(),
            reason,
        };
        let shape = |reason: &str| KnownFailuresError::Shape {
            file: file.to_owned(),
            reason: reason.to_owned(),
        };
        let metadata = std::fs::metadata(file).map_err(|e| read_error(e.to_string()))?;
        if let Some(what) = not_regular(&metadata) {
            return Err(KnownFailuresError::NotRegular {
                file: file.to_owned(),
                what,
            });
        }
        let bytes = std::fs::read(file).map_err(|e| read_error(e.to_string()))?;
        let text = text(bytes).map_err(|problem| KnownFailuresError::Text {
            file: file.to_owned(),
            problem,
        })?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| read_error(format!("not valid JSON: {e}")))?;
        let list = value
            .get("known_failures")
            .and_then(Value::as_array)
            .ok_or_else(|| shape("no \"known_failures\" array"))?;
        let names: HashSet<&str> = names.iter().map(String::as_str).collect();
        let mut entries = Vec::new();
        for (i, entry) in list.iter().enumerate() {
            let field = |name: &str| entry.get(name).and_then(Value::as_str).map(str::to_owned);
            let (Some(vector), Some(reason)) = (field("vector"), field("reason")) else {
                return Err(shape(&format!(
                    "entry {i} needs string \"vector\" and \"reason\" members"
                )));
            };
            if !names.contains(vector.as_str()) {
                return Err(KnownFailuresError::UnknownVector {
                    file: file.to_owned(),
                    vector,
                });
            }
            if entries.iter().any(|(v, _)| *v == vector) {
                return Err(KnownFailuresError::Duplicate {
                    file: file.to_owned(),
                    vector,
                });
            }
            entries.push((vector, reason));
        }
        Ok(KnownFailures { entries })
    }

    /// Whether `file` can be written as a known-failure file: it does not exist yet (a dangling
    /// link is written through), or it is a regular file (symbolic links followed). Checked
    /// before a run, so that a FIFO or a folder does not wait for the run's end to be refused.
    pub fn check_target(file: &Path) -> Result<(), KnownFailuresError> {
        match std::fs::metadata(file) {
            Ok(metadata) => match not_regular(&metadata) {
                None => Ok(()),
                Some(what) => Err(KnownFailuresError::NotRegular {
                    file: file.to_owned(),
                    what,
                }),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(KnownFailuresError::Target {
                file: file.to_owned(),
                reason: e.to_string(),
            }),
        }
    }

    /// The listed vector names.
    pub fn names(&self) -> HashSet<String> {
        self.entries.iter().map(|(name, _)| name.clone()).collect()
    }

    /// The current failures of a run as a known-failure list, each with what went wrong.
    pub fn from_run(run: &RunResult) -> KnownFailures {
        let entries = run
            .records
            .iter()
            .filter(|r| r.outcome.fails_run() || r.outcome == Outcome::KnownFail)
            .filter(|r| r.outcome != Outcome::Fixed)
            .map(|r| {
                let reason = match &r.answer {
                    Answer::Verdict(received) => describe(&r.vector.expected, received),
                    Answer::Failed(Failure::Error(text)) => {
                        format!("the implementation answered error: {text}")
                    }
                    Answer::Failed(Failure::Timeout) => "no answer within the timeout".to_owned(),
                    Answer::Failed(Failure::Crash(text) | Failure::ProtocolError(text)) => {
                        text.clone()
                    }
                    Answer::Unsupported => "the tool is not implemented".to_owned(),
                    Answer::Mcp(received) => describe_mcp(&r.vector.expected, received),
                    Answer::NotObservable(why) => why.clone(),
                };
                (r.vector.name(), reason)
            });
        let scenarios = run
            .scenarios
            .iter()
            .filter(|r| r.outcome.fails_run() || r.outcome == Outcome::KnownFail)
            .filter(|r| r.outcome != Outcome::Fixed)
            .map(|r| (r.name(), r.describe(ScenarioLevel::of(run.level))));
        KnownFailures {
            entries: entries.chain(scenarios).collect(),
        }
    }

    /// This list with the entries of `older` kept for the vectors the run did not check, so that
    /// writing after a run of a selection (`--tool`, `--filter`) does not lose the rest.
    pub fn keeping(mut self, older: KnownFailures, run: &RunResult) -> KnownFailures {
        let ran: HashSet<String> = run
            .records
            .iter()
            .map(|r| r.vector.name())
            .chain(run.scenarios.iter().map(ScenarioRecord::name))
            .collect();
        let kept: Vec<(String, String)> = older
            .entries
            .into_iter()
            .filter(|(v, _)| !ran.contains(v))
            .collect();
        self.entries.extend(kept);
        self.entries.sort();
        self
    }

    /// The file's text: entries in vector order, two-space indentation, a final newline.
    pub fn to_text(&self) -> String {
        let entries: Vec<Value> = self
            .entries
            .iter()
            .map(|(v, r)| json!({"vector": v, "reason": r}))
            .collect();
        format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({"known_failures": entries})).unwrap_or_default()
        )
    }
}
