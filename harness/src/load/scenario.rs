//! Reading one scenario of a scenario file, refusing anything malformed or able to reach outside
//! the scenario's directory (interfaces.md §9.1).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use std::path::Path;

use vvoc_reference::text::is_blank;
use vvoc_reference::{JsString, Json, Object, Tool};

use crate::load::error::LoadError;
use crate::load::vector::valid_id;
use crate::scenario::json_content::JsonContent;
use crate::scenario::model::{Reply, Scenario, ScenarioProblem, Step};
use crate::scenario::paths::{KeyKind, Placement, ROOT, check_key, path_fields, placement};
use crate::scenario::tree::{Entry, Tree};

const MEMBERS: [&str; 5] = ["id", "note", "files", "steps", "after"];

/// Reads scenario `index` of `file`.
pub(crate) fn parse_scenario(
    tool: Tool,
    file: &Path,
    index: usize,
    item: &Json,
) -> Result<Scenario, LoadError> {
    let id = item
        .as_object()
        .and_then(|o| o.get("id"))
        .and_then(Json::as_string)
        .map(|s| s.to_string());
    let error = |problem| LoadError::Scenario {
        file: file.to_owned(),
        index,
        id: id.clone(),
        problem: Box::new(problem),
    };
    let object = item
        .as_object()
        .ok_or_else(|| error(ScenarioProblem::NotObject))?;
    if let Some((name, _)) = object
        .iter()
        .find(|(k, _)| !MEMBERS.iter().any(|m| k.eq_str(m)))
    {
        return Err(error(ScenarioProblem::UnknownMember(name.to_string())));
    }
    let id = id
        .clone()
        .ok_or_else(|| error(ScenarioProblem::MissingId))?;
    if !valid_id(&id) {
        return Err(error(ScenarioProblem::BadId));
    }
    let note = match object.get("note") {
        None => None,
        Some(Json::String(s)) => Some(s.to_string()),
        Some(_) => return Err(error(ScenarioProblem::NoteNotString)),
    };
    let files = match object.get("files") {
        Some(Json::Object(o)) => tree("files", o, Contents::Editor).map_err(error)?,
        Some(_) | None => return Err(error(ScenarioProblem::TreeNotObject("files"))),
    };
    let after = match object.get("after") {
        None => None,
        Some(Json::Object(o)) => Some(tree("after", o, Contents::Editor).map_err(error)?),
        Some(_) => return Err(error(ScenarioProblem::TreeNotObject("after"))),
    };
    let items = object
        .get("steps")
        .and_then(Json::as_array)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| error(ScenarioProblem::NoSteps))?;
    let steps = items
        .iter()
        .enumerate()
        .map(|(step, item)| parse_step(tool, step, item).map_err(&error))
        .collect::<Result<Vec<_>, _>>()?;
    let source = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Scenario {
        tool,
        id,
        note,
        files,
        steps,
        after,
        file: file.to_owned(),
        source,
        index,
    })
}

/// The contents a tree of a scenario file may give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Contents {
    /// An editor scenario's: a string or `{"base64": ...}`.
    Editor,
    /// A workflow scenario's: those, and `{"json": VALUE}`.
    Workflow,
}

/// A `files` or `after` object as a tree.
pub(crate) fn tree(at: &str, object: &Object, contents: Contents) -> Result<Tree, ScenarioProblem> {
    let mut tree = Tree::new();
    for (key, value) in object.iter() {
        let (name, entry) = entry(at, key, value, contents)?;
        let entry = entry.ok_or_else(|| ScenarioProblem::BadContent {
            at: at.to_owned(),
            key: name.clone(),
            reason: "null is only for an empty directory, whose key ends with /".to_owned(),
        })?;
        tree.insert(name, entry);
    }
    let keys: Vec<&String> = tree.keys().collect();
    for key in &keys {
        let (dir, what) = match tree.get(*key) {
            Some(Entry::EmptyDir) => (key.to_string(), "the empty directory"),
            _ => (format!("{key}/"), "the file"),
        };
        if let Some(inner) = keys.iter().find(|k| **k != *key && k.starts_with(&dir)) {
            let reason = match what {
                "the file" => format!("{key:?} is a file, so {inner:?} cannot be inside it"),
                _ => format!(
                    "{what} {key:?} holds {inner:?}; a directory with content needs no key of its own"
                ),
            };
            return Err(ScenarioProblem::Conflict {
                at: at.to_owned(),
                reason,
            });
        }
    }
    Ok(tree)
}

/// One key and value of `files`, `after` or `write`: the entry, or `None` for a file key's null.
fn entry(
    at: &str,
    key: &JsString,
    value: &Json,
    contents: Contents,
) -> Result<(String, Option<Entry>), ScenarioProblem> {
    let kind = check_key(key).map_err(|reason| ScenarioProblem::BadKey {
        at: at.to_owned(),
        key: key.to_string(),
        reason,
    })?;
    let name = key.to_string();
    let bad = |reason: &str| ScenarioProblem::BadContent {
        at: at.to_owned(),
        key: name.clone(),
        reason: reason.to_owned(),
    };
    let entry = match (kind, value) {
        (KeyKind::Dir, Json::Null) => Some(Entry::EmptyDir),
        (KeyKind::Dir, _) => {
            return Err(bad(
                "a key ending in / is an empty directory; its value must be null",
            ));
        }
        (KeyKind::File, Json::Null) => None,
        (KeyKind::File, Json::String(text)) => match text.to_str() {
            Some(text) => Some(Entry::File(text.into_bytes())),
            None => {
                return Err(bad(
                    "the text holds a lone surrogate, which has no UTF-8 form; give bytes that are not UTF-8 as {\"base64\": ...}",
                ));
            }
        },
        (KeyKind::File, Json::Object(o))
            if contents == Contents::Workflow && o.len() == 1 && o.contains("json") =>
        {
            o.get("json").cloned().map(|v| Entry::Json(JsonContent(v)))
        }
        (KeyKind::File, Json::Object(o)) => {
            match (o.len(), o.get("base64").and_then(Json::as_string)) {
                (1, Some(text)) => {
                    let bytes = BASE64
                        .decode(text.to_string())
                        .map_err(|e| bad(&format!("the base64 text is malformed: {e}")))?;
                    Some(Entry::File(bytes))
                }
                _ if contents == Contents::Workflow => {
                    return Err(bad(
                        "an object content is {\"base64\": \"...\"} or {\"json\": VALUE} and nothing else",
                    ));
                }
                _ => {
                    return Err(bad(
                        "an object content is {\"base64\": \"...\"} and nothing else",
                    ));
                }
            }
        }
        (KeyKind::File, _) if contents == Contents::Workflow => {
            return Err(bad(
                "a content is a string (UTF-8 text), {\"base64\": \"...\"} (bytes), {\"json\": VALUE} (JSON text), or null",
            ));
        }
        (KeyKind::File, _) => {
            return Err(bad(
                "a content is a string (UTF-8 text), {\"base64\": \"...\"} (bytes), or null",
            ));
        }
    };
    Ok((name, entry))
}

const STEP_MEMBERS: [&str; 5] = ["call", "anchors", "write", "output", "throws"];

/// Reads step `step` of a scenario: its kind, then what that kind holds.
fn parse_step(tool: Tool, step: usize, item: &Json) -> Result<Step, ScenarioProblem> {
    let bad = |reason: String| ScenarioProblem::BadStep { step, reason };
    let object = item
        .as_object()
        .ok_or_else(|| bad("a step must be an object".to_owned()))?;
    let kind = step_kind(object).map_err(bad)?;
    let text = |name: &str| match object.get(name) {
        None => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(format!("{name:?} must be a string"))),
    };
    let reply = Texts {
        output: text("output")?,
        throws: text("throws")?,
    };
    match kind {
        StepKind::Call => call_step(tool, object, reply).map_err(bad),
        StepKind::Anchors => anchors_step(tool, object, reply).map_err(bad),
        StepKind::Write => write_step(step, object, reply),
    }
}

/// The kinds of step, each named by the member that holds what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StepKind {
    /// `{"call", "output" or "throws"}`: a call of the tool and what it returns or raises.
    Call,
    /// `{"anchors", "output"}`: the anchored view of a file (`hashline_edit` only).
    Anchors,
    /// `{"write"}`: files written between calls.
    Write,
}

impl StepKind {
    /// Every kind, in the order messages list them.
    const ALL: [StepKind; 3] = [StepKind::Call, StepKind::Anchors, StepKind::Write];

    /// The member that makes a step of this kind.
    const fn member(self) -> &'static str {
        match self {
            StepKind::Call => "call",
            StepKind::Anchors => "anchors",
            StepKind::Write => "write",
        }
    }

    /// The members a step of this kind may have, in words.
    const fn members(self) -> &'static str {
        match self {
            StepKind::Call => "call and one of output and throws",
            StepKind::Anchors => "anchors and output",
            StepKind::Write => "write",
        }
    }
}

/// The `output` and `throws` texts of a step, either of them absent.
#[derive(Debug)]
struct Texts {
    output: Option<JsString>,
    throws: Option<JsString>,
}

/// The one kind of a step, refusing a step of no kind, of two, or with a member no step has.
fn step_kind(object: &Object) -> Result<StepKind, String> {
    let kinds: Vec<StepKind> = StepKind::ALL
        .into_iter()
        .filter(|k| object.contains(k.member()))
        .collect();
    let kind = match kinds[..] {
        [kind] => kind,
        [] => {
            let members: Vec<String> = object
                .iter()
                .map(|(k, _)| format!("{:?}", k.to_string()))
                .collect();
            return Err(format!(
                "unknown step kind (members: {}); a step is {{\"call\", \"output\" or \"throws\"}}, {{\"anchors\", \"output\"}} or {{\"write\"}}",
                members.join(", ")
            ));
        }
        _ => {
            let names: Vec<&str> = kinds.iter().map(|k| k.member()).collect();
            return Err(format!("a step has one kind, not {}", names.join(" and ")));
        }
    };
    if let Some((name, _)) = object
        .iter()
        .find(|(k, _)| !STEP_MEMBERS.iter().any(|m| k.eq_str(m)))
    {
        return Err(format!(
            "unknown member {:?}; a {} step has only {}",
            name.to_string(),
            kind.member(),
            kind.members()
        ));
    }
    Ok(kind)
}

/// A call step: the input, its paths kept inside `{root}`, and the one reply it expects.
fn call_step(tool: Tool, object: &Object, reply: Texts) -> Result<Step, String> {
    let input = object.get("call").cloned().unwrap_or(Json::Null);
    check_call_paths(tool, &input)?;
    let expect = match (reply.output, reply.throws) {
        (Some(o), None) => Reply::Output(o),
        (None, Some(t)) => Reply::Throws(t),
        (Some(_), Some(_)) => {
            return Err("a call step has one of \"output\" and \"throws\", not both".to_owned());
        }
        (None, None) => {
            return Err(
                "a call step needs \"output\" (the returned text) or \"throws\" (the raised error's message)".to_owned(),
            );
        }
    };
    Ok(Step::Call { input, expect })
}

/// An anchors step of a `hashline_edit` scenario: a `{root}`-path and the view it expects.
fn anchors_step(tool: Tool, object: &Object, reply: Texts) -> Result<Step, String> {
    if tool != Tool::HashlineEdit {
        return Err(format!(
            "an anchors step belongs to hashline_edit scenarios; {tool} has no anchored view"
        ));
    }
    let Some(Json::String(path)) = object.get("anchors") else {
        return Err("\"anchors\" must be the path of a file, a string".to_owned());
    };
    match placement(path) {
        Placement::Inside if path.to_str().is_some() => {}
        Placement::Inside => return Err("the anchors path holds a lone surrogate".to_owned()),
        Placement::Relative => {
            return Err(format!("the anchors path {path} must start with {ROOT}/"));
        }
        Placement::Outside(why) => return Err(format!("the anchors path {path} {why}")),
    }
    match (reply.output, reply.throws) {
        (Some(expect), None) => Ok(Step::Anchors {
            path: path.clone(),
            expect,
        }),
        (_, Some(_)) => Err("an anchors step gives an \"output\"; it never throws".to_owned()),
        (None, None) => Err("an anchors step needs \"output\", the anchored view".to_owned()),
    }
}

/// A write step: its entries, read like those of `files`, under `steps[<step>].write`.
fn write_step(step: usize, object: &Object, reply: Texts) -> Result<Step, ScenarioProblem> {
    let bad = |reason: &str| ScenarioProblem::BadStep {
        step,
        reason: reason.to_owned(),
    };
    if reply.output.is_some() || reply.throws.is_some() {
        return Err(bad("a write step has no \"output\" or \"throws\""));
    }
    let Some(Json::Object(files)) = object.get("write") else {
        return Err(bad(
            "\"write\" must be an object of relative paths to contents or null",
        ));
    };
    let at = format!("steps[{step}].write");
    let mut writes = Vec::with_capacity(files.len());
    for (key, value) in files.iter() {
        writes.push(entry(&at, key, value, Contents::Editor)?);
    }
    Ok(Step::Write(writes))
}

/// Refuses a call whose path fields point outside `{root}`, and a `hashline_edit` call with a
/// relative path that is not blank: the contract accepts it, and it resolves against the
/// runner's working directory. The rule reads the text alone, never an implementation's verdict,
/// so a file loads the same whatever implementation runs it (a mutant's included).
fn check_call_paths(tool: Tool, input: &Json) -> Result<(), String> {
    let Some(object) = input.as_object() else {
        return Ok(());
    };
    for field in path_fields(tool) {
        let Some(Json::String(path)) = object.get(field) else {
            continue;
        };
        match placement(path) {
            Placement::Inside => {}
            Placement::Outside(why) => return Err(format!("call.{field} {path} {why}")),
            Placement::Relative if tool == Tool::HashlineEdit && !is_blank(path.units()) => {
                return Err(format!(
                    "call.{field} {path:?} is relative: hashline_edit would resolve it against the runner's working directory, outside the scenario's directory; start it with {ROOT}/"
                ));
            }
            Placement::Relative => {}
        }
    }
    Ok(())
}

/// `Tool::ALL` members whose scenarios can run.
pub fn executed(tool: Tool) -> bool {
    vvoc_reference::exec::executes(tool)
}
