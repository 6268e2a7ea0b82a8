//! Reading one workflow scenario (formats.md, "Workflow scenario file"): the host with its
//! defaults, the data directory's trees, and each step, refusing a call the contract refuses
//! and filling a task result's `args` in from its launch.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use vvoc_reference::{Json, Object, Tool, Verdict, one_line, validate_json};

use crate::load::error::LoadError;
use crate::load::scenario::{Contents, tree};
use crate::load::vector::valid_id;
use crate::workflow::is_workflow;
use crate::workflow::model::{
    Action, ContextOverride, Expect, HostSpec, Override, StepProblem, WorkflowProblem,
    WorkflowScenario, WorkflowStep,
};
use crate::workflow::wire::read_lookup;

const MEMBERS: [&str; 6] = ["id", "note", "host", "files", "steps", "after"];

/// Reads workflow scenario `index` of `file`.
pub(crate) fn parse_workflow_scenario(
    tool: Tool,
    file: &Path,
    index: usize,
    item: &Json,
) -> Result<WorkflowScenario, LoadError> {
    let id = item
        .as_object()
        .and_then(|o| o.get("id"))
        .and_then(Json::as_string)
        .map(|s| s.to_string());
    let error = |problem| LoadError::WorkflowScenario {
        file: file.to_owned(),
        index,
        id: id.clone(),
        problem: Box::new(problem),
    };
    let object = item
        .as_object()
        .ok_or_else(|| error(WorkflowProblem::NotObject))?;
    let parts = scenario(object, id.as_deref()).map_err(error)?;
    Ok(WorkflowScenario {
        tool,
        id: parts.id,
        note: parts.note,
        host: parts.host,
        files: parts.files,
        steps: parts.steps,
        after: parts.after,
        file: file.to_owned(),
        source: file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        index,
    })
}

/// A scenario's parts, before it knows its file.
struct Parts {
    id: String,
    note: Option<String>,
    host: HostSpec,
    files: crate::scenario::tree::Tree,
    steps: Vec<WorkflowStep>,
    after: Option<crate::scenario::tree::Tree>,
}

fn scenario(object: &Object, id: Option<&str>) -> Result<Parts, WorkflowProblem> {
    if let Some((name, _)) = object
        .iter()
        .find(|(k, _)| !MEMBERS.iter().any(|m| k.eq_str(m)))
    {
        return Err(WorkflowProblem::UnknownMember(name.to_string()));
    }
    let id = id.ok_or(WorkflowProblem::MissingId)?.to_owned();
    if !valid_id(&id) {
        return Err(WorkflowProblem::BadId);
    }
    let note = match object.get("note") {
        None => None,
        Some(Json::String(s)) => Some(s.to_string()),
        Some(_) => return Err(type_error("note", "a string")),
    };
    let host = host(object.get("host"))?;
    let trees = |member: &'static str| match object.get(member) {
        None => Ok(None),
        Some(Json::Object(o)) => tree(member, o, Contents::Workflow)
            .map(Some)
            .map_err(WorkflowProblem::Tree),
        Some(_) => Err(WorkflowProblem::Tree(
            crate::scenario::model::ScenarioProblem::TreeNotObject(member),
        )),
    };
    let files = trees("files")?.unwrap_or_default();
    let after = trees("after")?;
    let items = object
        .get("steps")
        .and_then(Json::as_array)
        .filter(|s| !s.is_empty())
        .ok_or(WorkflowProblem::NoSteps)?;
    let mut launches: HashMap<String, Json> = HashMap::new();
    let mut steps = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let step = parse_step(item, &launches).map_err(|problem| WorkflowProblem::Step {
            step: index,
            problem,
        })?;
        if let Action::Launch { call_id, args } = &step.action {
            launches.insert(call_id.clone(), args.clone());
        }
        steps.push(step);
    }
    Ok(Parts {
        id,
        note,
        host,
        files,
        steps,
        after,
    })
}

/// The host, defaults applied to every member it does not give.
fn host(value: Option<&Json>) -> Result<HostSpec, WorkflowProblem> {
    const HOST: [&str; 7] = [
        "session",
        "agent",
        "directory",
        "worktree",
        "sessions",
        "packageRoot",
        "now",
    ];
    let mut spec = HostSpec::default();
    let Some(value) = value else {
        return Ok(spec);
    };
    let object = value
        .as_object()
        .ok_or_else(|| type_error("host", "an object"))?;
    if let Some((name, _)) = object
        .iter()
        .find(|(k, _)| !HOST.iter().any(|m| k.eq_str(m)))
    {
        return Err(WorkflowProblem::UnknownHostMember(name.to_string()));
    }
    let nullable = |name: &str| match object.get(name) {
        None => Ok(Override::Inherit),
        Some(Json::Null) => Ok(Override::Absent),
        Some(value) => text(value)
            .map(Override::Given)
            .ok_or_else(|| type_error(&format!("host.{name}"), "a string or null")),
    };
    if let Some(value) = object.get("session") {
        spec.session = text(value).ok_or_else(|| type_error("host.session", "a string"))?;
    }
    if let Some(value) = object.get("packageRoot") {
        spec.package_root =
            text(value).ok_or_else(|| type_error("host.packageRoot", "a string"))?;
    }
    if let Some(value) = object.get("directory") {
        spec.directory = text(value).ok_or_else(|| type_error("host.directory", "a string"))?;
    }
    spec.agent = nullable("agent")?.apply(&spec.agent);
    spec.worktree = nullable("worktree")?.apply(&spec.worktree);
    if let Some(value) = object.get("now") {
        spec.now = clock(value).ok_or_else(|| type_error("host.now", CLOCK))?;
    }
    match object.get("sessions") {
        None => {}
        Some(Json::Object(listed)) => {
            let mut sessions = BTreeMap::new();
            for (id, lookup) in listed.iter() {
                let at = format!("host.sessions[{:?}]", id.to_string_lossy());
                let lookup = read_lookup(lookup).ok_or_else(|| type_error(&at, LOOKUP))?;
                sessions.insert(id.to_string_lossy(), lookup);
            }
            spec.sessions = sessions;
        }
        Some(_) => {
            return Err(type_error(
                "host.sessions",
                "an object of session ids to lookups",
            ));
        }
    }
    Ok(spec)
}

const CLOCK: &str = "an integer: milliseconds since 1970-01-01T00:00:00Z";
const LOOKUP: &str = "null (a root session), a string (the parent's id), {\"fails\": TEXT} or \
                      {\"missing\": true}";

/// The step kinds, each named by the member that makes it, with the members it may have.
const KINDS: [(&str, &[&str], &str); 4] = [
    (
        "call",
        &["call", "input", "result", "throws", "now", "context"],
        "call, input, one of result and throws, now and context",
    ),
    (
        "task",
        &[
            "task", "callId", "args", "output", "metadata", "throws", "now", "context",
        ],
        "task, callId, args, output and metadata (results), throws, now and context",
    ),
    (
        "event",
        &["event", "now", "context"],
        "event, now and context",
    ),
    (
        "restart",
        &["restart", "now", "context"],
        "restart, now and context",
    ),
];

/// Reads one step; `launches` holds the `args` of every earlier launch by call id.
fn parse_step(item: &Json, launches: &HashMap<String, Json>) -> Result<WorkflowStep, StepProblem> {
    let object = item.as_object().ok_or(StepProblem::NotObject)?;
    let kinds: Vec<&(&str, &[&str], &str)> = KINDS
        .iter()
        .filter(|(k, _, _)| object.contains(k))
        .collect();
    let (kind, allowed, members) = match kinds[..] {
        [only] => *only,
        [] => {
            let names = object
                .iter()
                .map(|(k, _)| format!("{:?}", k.to_string()))
                .collect();
            return Err(StepProblem::NoKind(names));
        }
        _ => {
            return Err(StepProblem::Kinds(
                kinds.iter().map(|(k, _, _)| *k).collect(),
            ));
        }
    };
    if let Some((name, _)) = object
        .iter()
        .find(|(k, _)| !allowed.iter().any(|m| k.eq_str(m)))
    {
        return Err(StepProblem::UnknownMember {
            kind,
            name: name.to_string(),
            members,
        });
    }
    let now = match object.get("now") {
        None => None,
        Some(value) => Some(clock(value).ok_or_else(|| step_type("now", CLOCK))?),
    };
    let context = match object.get("context") {
        None => ContextOverride::default(),
        Some(value) => context(value)?,
    };
    let throws = match object.get("throws") {
        None => None,
        Some(Json::String(text)) => Some(text.clone()),
        Some(_) => return Err(step_type("throws", "a string")),
    };
    let hook = || throws.clone().map_or(Expect::Done, Expect::Throws);
    let (action, expect) = match kind {
        "call" => call(object, throws.clone())?,
        "task" => (task(object, launches)?, hook()),
        "event" => match object.get("event") {
            Some(event @ Json::Object(_)) => (Action::Event(event.clone()), Expect::Done),
            _ => {
                return Err(step_type(
                    "event",
                    "an object, the event as the hook receives it",
                ));
            }
        },
        _ => match object.get("restart") {
            Some(Json::Bool(true)) => (Action::Restart, Expect::Done),
            _ => return Err(StepProblem::Restart),
        },
    };
    Ok(WorkflowStep {
        now,
        context,
        action,
        expect,
    })
}

/// A call step: a workflow tool, an input the contract accepts, and its reply.
fn call(
    object: &Object,
    throws: Option<vvoc_reference::JsString>,
) -> Result<(Action, Expect), StepProblem> {
    let name = match object.get("call") {
        Some(Json::String(name)) => name.to_string_lossy(),
        _ => return Err(step_type("call", "the name of a workflow tool")),
    };
    let tool = name
        .parse::<Tool>()
        .ok()
        .filter(|t| is_workflow(*t))
        .ok_or_else(|| StepProblem::NotWorkflowTool(name.clone()))?;
    let input = object
        .get("input")
        .cloned()
        .ok_or_else(|| step_type("input", "the tool's input (it is required)"))?;
    if let Verdict::Reject(issues) = validate_json(tool, &input) {
        let line = one_line(&issues).to_string_lossy();
        return Err(StepProblem::Refused { tool, line });
    }
    let expect = match (object.get("result"), throws) {
        (Some(value), None) => Expect::Result(value.clone()),
        (None, Some(text)) => Expect::Throws(text),
        (Some(_), Some(_)) => return Err(StepProblem::ResultAndThrows),
        (None, None) => return Err(StepProblem::NoReply),
    };
    Ok((Action::Call { tool, input }, expect))
}

/// A task step: a launch with its `args`, or a result with its `output` (and `args`, the
/// launch's when not given).
fn task(object: &Object, launches: &HashMap<String, Json>) -> Result<Action, StepProblem> {
    let call_id = object
        .get("callId")
        .and_then(text)
        .ok_or_else(|| step_type("callId", "a string"))?;
    let args = match object.get("args") {
        None => None,
        Some(args @ Json::Object(_)) => Some(args.clone()),
        Some(_) => return Err(step_type("args", "an object (subagent_type, prompt, ...)")),
    };
    match object.get("task") {
        Some(Json::String(phase)) if phase.eq_str("launch") => {
            for member in ["output", "metadata"] {
                if object.contains(member) {
                    return Err(StepProblem::UnknownMember {
                        kind: "task launch",
                        name: member.to_owned(),
                        members: "task, callId, args, throws, now and context",
                    });
                }
            }
            let args = args.ok_or_else(|| step_type("args", "an object (a launch has args)"))?;
            Ok(Action::Launch { call_id, args })
        }
        Some(Json::String(phase)) if phase.eq_str("result") => {
            let args = match args {
                Some(args) => args,
                None => launches
                    .get(&call_id)
                    .cloned()
                    .ok_or_else(|| StepProblem::NoLaunch(call_id.clone()))?,
            };
            let output = object
                .get("output")
                .cloned()
                .ok_or_else(|| step_type("output", "the task's output.output (it is required)"))?;
            Ok(Action::Result {
                call_id,
                args,
                output,
                metadata: object.get("metadata").cloned(),
            })
        }
        Some(other) => Err(StepProblem::Phase(other.to_compact())),
        None => Err(StepProblem::Phase("missing".to_owned())),
    }
}

/// A step's `context`: each member it gives overrides the host's.
fn context(value: &Json) -> Result<ContextOverride, StepProblem> {
    const CONTEXT: [&str; 4] = ["session", "agent", "directory", "worktree"];
    let object = value.as_object().ok_or_else(|| {
        step_type(
            "context",
            "an object of session, agent, directory, worktree",
        )
    })?;
    if let Some((name, _)) = object
        .iter()
        .find(|(k, _)| !CONTEXT.iter().any(|m| k.eq_str(m)))
    {
        return Err(StepProblem::UnknownMember {
            kind: "context of a",
            name: name.to_string(),
            members: "session, agent, directory and worktree",
        });
    }
    let member = |name: &str| match object.get(name) {
        None => Ok(Override::Inherit),
        Some(Json::Null) => Ok(Override::Absent),
        Some(value) => text(value)
            .map(Override::Given)
            .ok_or_else(|| step_type(&format!("context.{name}"), "a string or null")),
    };
    let session =
        match object.get("session") {
            None => None,
            Some(value) => Some(text(value).ok_or_else(|| {
                step_type("context.session", "a string (every step has a session)")
            })?),
        };
    Ok(ContextOverride {
        session,
        agent: member("agent")?,
        directory: member("directory")?,
        worktree: member("worktree")?,
    })
}

/// A string without lone surrogates.
fn text(value: &Json) -> Option<String> {
    value.as_string().and_then(|s| s.to_str())
}

/// A clock: an integer number of milliseconds within a JavaScript date's range.
fn clock(value: &Json) -> Option<i64> {
    const LIMIT: f64 = 8.64e15;
    match value {
        Json::Number(n) if n.fract() == 0.0 && n.abs() <= LIMIT => Some(*n as i64),
        Json::Null
        | Json::Bool(_)
        | Json::Number(_)
        | Json::String(_)
        | Json::Array(_)
        | Json::Object(_) => None,
    }
}

fn type_error(at: &str, must: &'static str) -> WorkflowProblem {
    WorkflowProblem::Type {
        at: at.to_owned(),
        must,
    }
}

fn step_type(at: &str, must: &'static str) -> StepProblem {
    StepProblem::Type {
        at: at.to_owned(),
        must,
    }
}
