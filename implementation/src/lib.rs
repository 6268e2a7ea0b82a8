//! The reference implementation of the vvoc agent tool input contracts, version 1.6.0.
//!
//! [`catalog`] holds every fact of the contract; [`validate`] answers each (tool, input) with the
//! exact [`Verdict`] that `behaviour.md` specifies: the structural phase driven by the catalog,
//! then the tool's branch rules.

pub mod catalog;
mod collector;
pub mod document;
pub mod exec;
pub mod inventory;
pub mod issue;
pub mod js_string;
mod js_text;
pub mod json;
mod path;
pub mod path_kind;
pub mod rule;
mod rules;
pub mod schema;
mod structural;
pub mod text;
mod to_number;
pub mod whatwg_url;

pub use catalog::{Tool, UnknownTool};
pub use collector::Traced;
pub use issue::{Code, Issue, Verdict, one_line};
pub use js_string::JsString;
pub use json::{Json, Object};
pub use rule::{Check, RuleId};

use collector::Collector;
use path::Path;

/// Validates one input of `tool`, given as a `serde_json` value.
///
/// `serde_json` cannot hold every JSON input (lone surrogates, numbers beyond a double); use
/// [`validate_json`] with a [`Json`] parsed by [`Json::parse`] for those.
pub fn validate(tool: Tool, input: &serde_json::Value) -> Verdict {
    validate_json(tool, &Json::from(input))
}

/// Validates one input of `tool`.
pub fn validate_json(tool: Tool, input: &Json) -> Verdict {
    match run(tool, input, false) {
        Ok(output) => Verdict::Accept(output),
        Err(out) => Verdict::Reject(out.into_issues()),
    }
}

/// Validates one input of `tool`, and names the rule behind each issue of a refusal.
pub fn validate_traced(tool: Tool, input: &Json) -> (Verdict, Vec<Traced>) {
    match run(tool, input, true) {
        Ok(output) => (Verdict::Accept(output), Vec::new()),
        Err(out) => {
            let traced = out.into_traced();
            let issues = traced.iter().map(|t| t.issue.clone()).collect();
            (Verdict::Reject(issues), traced)
        }
    }
}

/// The structural phase, then the branch rules on a structurally valid input: the normalized
/// output, or the collector of the issues (with their rules when `trace`).
fn run(tool: Tool, input: &Json, trace: bool) -> Result<Json, Collector> {
    let mut out = Collector::new(tool, trace);
    let output = structural::check_object(&tool.spec().fields, Some(input), &Path::ROOT, &mut out);
    if !out.any()
        && let Some(Json::Object(object)) = &output
    {
        rules::run(tool, object, &mut out);
    }
    if out.any() {
        return Err(out);
    }
    Ok(output.unwrap_or(Json::Null))
}
