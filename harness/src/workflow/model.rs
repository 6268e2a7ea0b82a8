//! A workflow scenario (formats.md, "Workflow scenario file"): the host, the data directory
//! before, the steps (calls, `task` launches and results, events, restarts) each with what it
//! must give, the data directory after; and what can be wrong with one.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use vvoc_reference::exec::workflow::{SessionLookup, StepContext, WorkflowHost};
use vvoc_reference::{JsString, Json, Tool};

use crate::scenario::model::ScenarioProblem;
use crate::scenario::tree::Tree;

/// The session of every step that names none, unless the host says otherwise.
pub const DEFAULT_SESSION: &str = "ses-root";
/// The calling agent, unless the host says otherwise.
pub const DEFAULT_AGENT: &str = "vv-controller";
/// The plugin's directory and worktree, and every step's, unless the host says otherwise.
pub const DEFAULT_DIRECTORY: &str = "/workspace/project";
/// Where the plugin's package is installed, unless the host says otherwise.
pub const DEFAULT_PACKAGE_ROOT: &str = "/opt/vv-opencode";
/// The clock, unless the host says otherwise: 2026-01-01T00:00:00.000Z.
pub const DEFAULT_NOW: i64 = 1_767_225_600_000;

/// One workflow scenario.
#[derive(Clone, Debug)]
pub struct WorkflowScenario {
    /// The tool that names it (its steps may call any workflow tool).
    pub tool: Tool,
    /// The id, unique within the tool across vectors and scenarios.
    pub id: String,
    /// Why the scenario exists.
    pub note: Option<String>,
    /// The host, defaults applied.
    pub host: HostSpec,
    /// The data directory before the first step.
    pub files: Tree,
    /// The steps, in order.
    pub steps: Vec<WorkflowStep>,
    /// The data directory after the last step (`None`: unchanged).
    pub after: Option<Tree>,
    /// The file it came from.
    pub file: PathBuf,
    /// The file's path relative to its vectors folder.
    pub source: String,
    /// Its 0-based position in the file.
    pub index: usize,
}

impl WorkflowScenario {
    /// The full name, `<tool>:<id>`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.tool, self.id)
    }

    /// The data directory expected after the last step.
    pub fn expected_after(&self) -> &Tree {
        self.after.as_ref().unwrap_or(&self.files)
    }
}

/// The host of a scenario (`execution-workflow.md` §1.1), defaults applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostSpec {
    /// The session of every step that names none.
    pub session: String,
    /// The calling agent, if any.
    pub agent: Option<String>,
    /// The plugin's trusted directory, and every step's.
    pub directory: String,
    /// The plugin's trusted worktree, and every step's, if any.
    pub worktree: Option<String>,
    /// The answer to the root-session lookup per session id.
    pub sessions: BTreeMap<String, SessionLookup>,
    /// Where the plugin's package is installed (`work_item_list`'s `contract.referencePath`).
    pub package_root: String,
    /// The clock at the first step.
    pub now: i64,
}

impl Default for HostSpec {
    fn default() -> HostSpec {
        HostSpec {
            session: DEFAULT_SESSION.to_owned(),
            agent: Some(DEFAULT_AGENT.to_owned()),
            directory: DEFAULT_DIRECTORY.to_owned(),
            worktree: Some(DEFAULT_DIRECTORY.to_owned()),
            sessions: BTreeMap::new(),
            package_root: DEFAULT_PACKAGE_ROOT.to_owned(),
            now: DEFAULT_NOW,
        }
    }
}

impl HostSpec {
    /// The reference's host with the data directory `data_dir` (what the scenario does not
    /// say, the process id, the reference's default).
    pub fn workflow_host(&self, data_dir: PathBuf) -> WorkflowHost {
        WorkflowHost {
            directory: self.directory.clone(),
            worktree: self.worktree.clone(),
            sessions: self.sessions.clone(),
            package_root: self.package_root.clone(),
            ..WorkflowHost::new(data_dir)
        }
    }

    /// The context of `step` at the clock `now`: the host's, with the step's overrides.
    pub fn context(&self, step: &WorkflowStep, now: i64) -> StepContext {
        let over = &step.context;
        StepContext {
            session: over.session.clone().unwrap_or_else(|| self.session.clone()),
            agent: over.agent.apply(&self.agent),
            directory: over.directory.apply(&Some(self.directory.clone())),
            worktree: over.worktree.apply(&self.worktree),
            now_ms: now,
        }
    }
}

/// One step: what it does, when, as whom, and what it must give.
#[derive(Clone, Debug)]
pub struct WorkflowStep {
    /// The clock from this step on, when the step sets it.
    pub now: Option<i64>,
    /// The members of the context this step overrides.
    pub context: ContextOverride,
    /// What the step does.
    pub action: Action,
    /// What it must give.
    pub expect: Expect,
}

/// The members of a step's `context`; each absent one is the host's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContextOverride {
    /// The session.
    pub session: Option<String>,
    /// The agent.
    pub agent: Override,
    /// The directory.
    pub directory: Override,
    /// The worktree.
    pub worktree: Override,
}

/// One member of a step's `context`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Override {
    /// Not given: the host's.
    #[default]
    Inherit,
    /// `null`: absent for this step.
    Absent,
    /// This value for this step.
    Given(String),
}

impl Override {
    /// The member for the step, given the host's.
    pub fn apply(&self, host: &Option<String>) -> Option<String> {
        match self {
            Override::Inherit => host.clone(),
            Override::Absent => None,
            Override::Given(value) => Some(value.clone()),
        }
    }
}

/// What a step does.
#[derive(Clone, Debug)]
pub enum Action {
    /// A call of a workflow tool.
    Call {
        /// The tool.
        tool: Tool,
        /// Its input (one the contract accepts).
        input: Json,
    },
    /// The host is about to run its `task` tool (`tool.execute.before`).
    Launch {
        /// The host's call id.
        call_id: String,
        /// The `task` tool's arguments.
        args: Json,
    },
    /// The host's `task` tool returned (`tool.execute.after`).
    Result {
        /// The host's call id.
        call_id: String,
        /// The `task` tool's arguments (the launch's, when the step gives none).
        args: Json,
        /// `output.output`.
        output: Json,
        /// `output.metadata`, if given.
        metadata: Option<Json>,
    },
    /// A host event, as the `event` hook receives it.
    Event(Json),
    /// The host process restarts.
    Restart,
}

impl Action {
    /// `call`, `task launch`, `task result`, `event` or `restart`.
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Call { .. } => "call",
            Action::Launch { .. } => "task launch",
            Action::Result { .. } => "task result",
            Action::Event(_) => "event",
            Action::Restart => "restart",
        }
    }
}

/// What a step must give.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// A call returns `JSON.stringify(VALUE, null, 2)`.
    Result(Json),
    /// The call or hook raises this message.
    Throws(JsString),
    /// A hook, event or restart goes through.
    Done,
}

/// What is wrong with one workflow scenario.
#[derive(Debug)]
pub enum WorkflowProblem {
    /// Not an object.
    NotObject,
    /// A member the format does not have.
    UnknownMember(String),
    /// A member of `host` the format does not have.
    UnknownHostMember(String),
    /// No string `id`.
    MissingId,
    /// An id that is not kebab-case.
    BadId,
    /// A member of the wrong type: where, and what it must be.
    Type {
        /// The member's place (`host.sessions["s"]`).
        at: String,
        /// What it must be.
        must: &'static str,
    },
    /// `files` or `after` is wrong, as an editor scenario's would be.
    Tree(ScenarioProblem),
    /// `steps` is absent, not an array, or empty.
    NoSteps,
    /// One step is wrong.
    Step {
        /// Its 0-based index.
        step: usize,
        /// What is wrong.
        problem: StepProblem,
    },
}

/// What is wrong with one step.
#[derive(Debug, PartialEq, Eq)]
pub enum StepProblem {
    /// Not an object.
    NotObject,
    /// None of `call`, `task`, `event`, `restart`.
    NoKind(Vec<String>),
    /// More than one of them.
    Kinds(Vec<&'static str>),
    /// A member a step of this kind does not have.
    UnknownMember {
        /// The step's kind.
        kind: &'static str,
        /// The member.
        name: String,
        /// The members it may have, in words.
        members: &'static str,
    },
    /// A member of the wrong type.
    Type {
        /// The member.
        at: String,
        /// What it must be.
        must: &'static str,
    },
    /// `call` names no workflow tool.
    NotWorkflowTool(String),
    /// The call's input is one the contract refuses.
    Refused {
        /// The tool.
        tool: Tool,
        /// The refusal's one-line form.
        line: String,
    },
    /// A call with both `result` and `throws`.
    ResultAndThrows,
    /// A call with neither `result` nor `throws`.
    NoReply,
    /// `task` is neither `"launch"` nor `"result"`.
    Phase(String),
    /// A task result without `args` whose `callId` no earlier launch has.
    NoLaunch(String),
    /// `restart` is not `true`.
    Restart,
}

impl fmt::Display for WorkflowProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkflowProblem::NotObject => f.write_str("a workflow scenario must be an object"),
            WorkflowProblem::UnknownMember(name) => write!(
                f,
                "unknown member {name:?}; a workflow scenario has only id, note, host, files, \
                 steps and after"
            ),
            WorkflowProblem::UnknownHostMember(name) => write!(
                f,
                "unknown member {name:?} of host; the host has only session, agent, directory, \
                 worktree, sessions, packageRoot and now"
            ),
            WorkflowProblem::MissingId => f.write_str(r#""id" must be a string"#),
            WorkflowProblem::BadId => f.write_str(
                r#""id" must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and dashes)"#,
            ),
            WorkflowProblem::Type { at, must } => write!(f, "{at} must be {must}"),
            WorkflowProblem::Tree(problem) => problem.fmt(f),
            WorkflowProblem::NoSteps => {
                f.write_str(r#""steps" must be a non-empty array of steps"#)
            }
            WorkflowProblem::Step { step, problem } => write!(f, "steps[{step}]: {problem}"),
        }
    }
}

/// What a step is, in words, for the messages that list the kinds.
const KINDS: &str = "a step is {\"call\": TOOL, \"input\", \"result\" or \"throws\"}, {\"task\": \
                     \"launch\" or \"result\", \"callId\", ...}, {\"event\": EVENT} or \
                     {\"restart\": true}";

impl fmt::Display for StepProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepProblem::NotObject => write!(f, "a step must be an object; {KINDS}"),
            StepProblem::NoKind(members) => {
                write!(
                    f,
                    "unknown step kind (members: {}); {KINDS}",
                    members.join(", ")
                )
            }
            StepProblem::Kinds(kinds) => write!(
                f,
                "a step has one kind, not {}; split it into one step each",
                kinds.join(" and ")
            ),
            StepProblem::UnknownMember {
                kind,
                name,
                members,
            } => {
                let article = match kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    true => "an",
                    false => "a",
                };
                write!(
                    f,
                    "unknown member {name:?}; {article} {kind} step has only {members}"
                )
            }
            StepProblem::Type { at, must } => write!(f, "{at} must be {must}"),
            StepProblem::NotWorkflowTool(name) => write!(
                f,
                "\"call\" is {name:?}, not a workflow tool: call one of work_item_open, \
                 work_item_list, work_item_close, work_item_decide, work_checkpoint"
            ),
            StepProblem::Refused { tool, line } => write!(
                f,
                "the input is one {tool} refuses ({line}); a step's input must be valid \
                 (invalid inputs are the vectors' business): fix the input"
            ),
            StepProblem::ResultAndThrows => f.write_str(
                "a call step has one of \"result\" and \"throws\", not both: keep the one the \
                 call gives",
            ),
            StepProblem::NoReply => f.write_str(
                "a call step needs \"result\" (the returned value) or \"throws\" (the raised \
                 message)",
            ),
            StepProblem::Phase(phase) => write!(
                f,
                "\"task\" is {phase}; it must be \"launch\" or \"result\""
            ),
            StepProblem::NoLaunch(call_id) => write!(
                f,
                "a task result without \"args\" takes the args of the launch with its callId, \
                 and no earlier step launches {call_id:?}: give \"args\", or launch it first"
            ),
            StepProblem::Restart => f.write_str("\"restart\" must be true"),
        }
    }
}
