//! The branch rules of `work_item_open` (§4.1) and its execution boundary (§5.3).

use super::items::{
    ItemMode, check_item, generic_names, malformed_rule, preview_message, standalone_names,
};
use super::{Input, per_field, require};
use crate::collector::Collector;
use crate::issue::Code;
use crate::json::Json;
use crate::path::Path;
use crate::path_kind::{PathReason, PathRule, directory_subtree, exact_file};

rule_names! {
    EXECUTION_AND_RUNID = "execution-and-runid";
    AMENDMENT_CONTEXT_REQUIRES_RUNID = "amendment-context-requires-runid";
    BOUNDARY_NOT_EMPTY = "boundary-not-empty";
    APPEND_REQUIRES_AMENDMENT_ID = "append-requires-amendment-id";
    APPEND_REQUIRES_RATIONALE = "append-requires-rationale";
}

/// The amendment context an execution registration may not carry, in the order reported.
const AMENDMENT_CONTEXT: [&str; 2] = ["amendmentId", "rationale"];

const EXECUTION_FORBIDS: &str = "execution-forbids";

pub(crate) fn names() -> Vec<String> {
    let mut names: Vec<String> = NAMES.iter().map(|n| (*n).to_owned()).collect();
    names.extend(
        AMENDMENT_CONTEXT
            .iter()
            .map(|f| per_field(EXECUTION_FORBIDS, f)),
    );
    names.extend(generic_names());
    names.extend(standalone_names());
    for (list, _) in BOUNDARY_LISTS {
        names.push(unique_rule(list));
        // A boundary file is non-blank, so only a directory (`/`) can be an empty path.
        let reasons = PathReason::ALL
            .into_iter()
            .filter(|r| list == "directories" || *r != PathReason::EmptyPath);
        names.extend(reasons.map(|r| malformed_rule(&format!("boundary-{list}"), r)));
    }
    names
}

/// The boundary lists with their path-kind rules, in the order they are checked.
const BOUNDARY_LISTS: [(&str, PathRule); 2] =
    [("files", exact_file), ("directories", directory_subtree)];

fn unique_rule(list: &str) -> String {
    format!("boundary-{list}-unique")
}

pub(crate) fn run(input: &Input<'_>, out: &mut Collector) {
    let input = *input;
    let execution = input.has("execution");
    let run_id = input.has("runId");
    if execution && run_id {
        out.branch(
            EXECUTION_AND_RUNID,
            Code::InvalidValue,
            &Path::ROOT.field("execution"),
            "execution and runId are mutually exclusive",
            "exactly one of execution (register) or runId (append)",
        );
    }
    if execution {
        for field in AMENDMENT_CONTEXT {
            if input.has(field) {
                out.branch(
                    per_field(EXECUTION_FORBIDS, field),
                    Code::InvalidValue,
                    &Path::ROOT.field(field),
                    format!("{field} is append-only amendment context and conflicts with execution registration"),
                    "runId with amendment context instead of execution",
                );
            }
        }
    }
    if !execution && !run_id && (input.has("amendmentId") || input.has("rationale")) {
        out.branch(
            AMENDMENT_CONTEXT_REQUIRES_RUNID,
            Code::InvalidValue,
            &Path::ROOT.field("amendmentId"),
            "amendmentId and rationale are only valid with runId appends",
            "runId with amendment context",
        );
    }
    let mode = if execution || run_id {
        ItemMode::Generic
    } else {
        ItemMode::Standalone
    };
    let items = Path::ROOT.field("items");
    for (i, item) in input.objects("items") {
        check_item(item, &items.index(i), mode, out);
    }
    if let Some(boundary) = input.object("execution").and_then(|e| e.object("boundary")) {
        check_boundary(boundary, out);
    }
    if run_id {
        require(APPEND_REQUIRES_AMENDMENT_ID, input, "amendmentId", out);
        require(APPEND_REQUIRES_RATIONALE, input, "rationale", out);
    }
}

/// §5.3: each boundary list stops at its first problem; an empty boundary is refused.
fn check_boundary(boundary: Input<'_>, out: &mut Collector) {
    let base = Path::ROOT.field("execution");
    let base = base.field("boundary");
    let mut clean = true;
    for (list, rule) in BOUNDARY_LISTS {
        clean &= check_list(boundary, list, rule, &base, out);
    }
    if clean && boundary.absent_or_empty("files") && boundary.absent_or_empty("directories") {
        out.branch(
            BOUNDARY_NOT_EMPTY,
            Code::MissingValue,
            &base,
            "execution boundary declares no files or directories",
            EXPECTED,
        );
    }
}

const EXPECTED: &str = "normalized non-empty exact files or directory subtrees";

/// Checks one boundary list; whether it had no problem.
fn check_list(
    boundary: Input<'_>,
    name: &'static str,
    rule: PathRule,
    base: &Path<'_>,
    out: &mut Collector,
) -> bool {
    let list = base.field(name);
    let mut seen: Vec<&[u16]> = Vec::new();
    for (j, entry) in boundary.list(name).unwrap_or_default().iter().enumerate() {
        let Json::String(entry) = entry else { continue };
        let before = format!("boundary.{name} path ");
        match rule(entry.units()) {
            Err(reason) => {
                let message = preview_message(
                    &before,
                    entry.units(),
                    64,
                    &format!(" is malformed ({reason})"),
                );
                out.branch(
                    malformed_rule(&format!("boundary-{name}"), reason),
                    Code::InvalidValue,
                    &list.index(j),
                    message,
                    EXPECTED,
                );
                return false;
            }
            Ok(normalized) if seen.contains(&normalized) => {
                let message =
                    preview_message(&before, normalized, 64, " is declared more than once");
                out.branch(
                    unique_rule(name),
                    Code::InvalidValue,
                    &list.index(j),
                    message,
                    EXPECTED,
                );
                return false;
            }
            Ok(normalized) => seen.push(normalized),
        }
    }
    true
}
