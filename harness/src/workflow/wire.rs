//! The host and a step's context as JSON: the `host.sessions` answers of a scenario file, and the
//! `workflow` member of the protocol's workflow messages (`{"host", "context", "now"}`), written
//! by the runner and read by `conform peer`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use vvoc_reference::exec::workflow::{SessionLookup, StepContext, WorkflowHost};
use vvoc_reference::{Json, Object};

/// A session's lookup as a scenario file and the protocol write it: `null` a root session, a
/// string the parent's id, `{"fails": TEXT}`, `{"missing": true}`.
pub fn lookup_json(lookup: &SessionLookup) -> Json {
    match lookup {
        SessionLookup::Root => Json::Null,
        SessionLookup::Child(parent) => Json::str(parent),
        SessionLookup::Fails(text) => {
            let mut object = Object::new();
            object.insert("fails", Json::str(text));
            Json::Object(object)
        }
        SessionLookup::Missing => {
            let mut object = Object::new();
            object.insert("missing", Json::Bool(true));
            Json::Object(object)
        }
    }
}

/// Reads a session's lookup written as [`lookup_json`] writes it.
pub fn read_lookup(value: &Json) -> Option<SessionLookup> {
    match value {
        Json::Null => Some(SessionLookup::Root),
        Json::String(parent) => parent.to_str().map(SessionLookup::Child),
        Json::Object(object) if object.len() == 1 => {
            match (object.get("fails"), object.get("missing")) {
                (Some(Json::String(text)), None) => text.to_str().map(SessionLookup::Fails),
                (None, Some(Json::Bool(true))) => Some(SessionLookup::Missing),
                _ => None,
            }
        }
        Json::Bool(_) | Json::Number(_) | Json::Array(_) | Json::Object(_) => None,
    }
}

/// The `workflow` member of a message: the host (its data directory included), the step's
/// context, and the clock.
pub fn workflow_json(host: &WorkflowHost, cx: &StepContext) -> Json {
    let mut sessions = Object::new();
    for (id, lookup) in &host.sessions {
        sessions.insert(id, lookup_json(lookup));
    }
    let mut h = Object::new();
    h.insert("dataDir", Json::str(&host.data_dir.to_string_lossy()));
    h.insert("directory", Json::str(&host.directory));
    if let Some(worktree) = &host.worktree {
        h.insert("worktree", Json::str(worktree));
    }
    h.insert("sessions", Json::Object(sessions));
    h.insert("packageRoot", Json::str(&host.package_root));
    let mut c = Object::new();
    c.insert("session", Json::str(&cx.session));
    for (name, value) in [
        ("agent", &cx.agent),
        ("directory", &cx.directory),
        ("worktree", &cx.worktree),
    ] {
        if let Some(value) = value {
            c.insert(name, Json::str(value));
        }
    }
    let mut w = Object::new();
    w.insert("host", Json::Object(h));
    w.insert("context", Json::Object(c));
    w.insert("now", Json::Number(cx.now_ms as f64));
    Json::Object(w)
}

/// Reads the `workflow` member of a message; why it cannot be read, in words.
pub fn read_workflow(value: &Json) -> Result<(WorkflowHost, StepContext), String> {
    let w = value
        .as_object()
        .ok_or("\"workflow\" must be an object {host, context, now}")?;
    let h = w
        .get("host")
        .and_then(Json::as_object)
        .ok_or("workflow.host must be an object")?;
    let c = w
        .get("context")
        .and_then(Json::as_object)
        .ok_or("workflow.context must be an object")?;
    let text = |object: &Object, at: &str, name: &str| match object.get(name) {
        None => Ok(None),
        Some(Json::String(s)) => s
            .to_str()
            .map(Some)
            .ok_or_else(|| format!("workflow.{at}.{name} holds a lone surrogate")),
        Some(_) => Err(format!("workflow.{at}.{name} must be a string")),
    };
    let required = |object: &Object, at: &str, name: &str| {
        text(object, at, name)?.ok_or_else(|| format!("workflow.{at}.{name} is missing"))
    };
    let mut sessions = BTreeMap::new();
    match h.get("sessions") {
        None => {}
        Some(Json::Object(listed)) => {
            for (id, lookup) in listed.iter() {
                let lookup = read_lookup(lookup).ok_or_else(|| {
                    format!(
                        "workflow.host.sessions[{:?}] must be null, a string, {{\"fails\": TEXT}} \
                         or {{\"missing\": true}}",
                        id.to_string_lossy()
                    )
                })?;
                sessions.insert(id.to_string_lossy(), lookup);
            }
        }
        Some(_) => return Err("workflow.host.sessions must be an object".to_owned()),
    }
    let defaults = WorkflowHost::new(PathBuf::from(required(h, "host", "dataDir")?));
    let host = WorkflowHost {
        directory: required(h, "host", "directory")?,
        worktree: text(h, "host", "worktree")?,
        sessions,
        package_root: text(h, "host", "packageRoot")?.unwrap_or(defaults.package_root.clone()),
        ..defaults
    };
    let now_ms = match w.get("now") {
        Some(Json::Number(n)) if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 => {
            *n as i64
        }
        _ => return Err("workflow.now must be an integer (milliseconds since 1970)".to_owned()),
    };
    let cx = StepContext {
        session: required(c, "context", "session")?,
        agent: text(c, "context", "agent")?,
        directory: text(c, "context", "directory")?,
        worktree: text(c, "context", "worktree")?,
        now_ms,
    };
    Ok((host, cx))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use vvoc_reference::exec::workflow::{SessionLookup, StepContext, WorkflowHost};

    use super::{read_workflow, workflow_json};

    #[test]
    fn the_workflow_member_reads_back() {
        let sessions: BTreeMap<String, SessionLookup> = [
            ("a", SessionLookup::Root),
            ("b", SessionLookup::Child("a".to_owned())),
            ("c", SessionLookup::Fails("boom".to_owned())),
            ("d", SessionLookup::Missing),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let host = WorkflowHost {
            directory: "/w".to_owned(),
            worktree: None,
            sessions,
            package_root: "/p".to_owned(),
            ..WorkflowHost::new(PathBuf::from("/tmp/x"))
        };
        let cx = StepContext {
            session: "s".to_owned(),
            agent: None,
            directory: Some("/w".to_owned()),
            worktree: Some("/t".to_owned()),
            now_ms: 1_767_225_600_000,
        };
        let (h, c) = read_workflow(&workflow_json(&host, &cx)).expect("readable");
        assert_eq!(
            (
                h.data_dir,
                h.directory,
                h.worktree,
                h.sessions,
                h.package_root
            ),
            (
                host.data_dir,
                host.directory,
                host.worktree,
                host.sessions,
                host.package_root
            )
        );
        assert_eq!(
            (c.session, c.agent, c.directory, c.worktree, c.now_ms),
            (cx.session, cx.agent, cx.directory, cx.worktree, cx.now_ms)
        );
    }
}
