//! The branch rules of `work_item_open` (§4.1) and its execution boundary (§5.3).

use super::items::{ItemMode, check_item, preview_message};
use super::{Input, require};
use crate::collector::Collector;
use crate::issue::Code;
use crate::json::Json;
use crate::path::Path;
use crate::path_kind::{PathReason, directory_subtree, exact_file};

pub(crate) fn run(input: &Input<'_>, out: &mut Collector) {
    let input = *input;
    let execution = input.has("execution");
    let run_id = input.has("runId");
    if execution && run_id {
        out.branch(
            "execution-and-runid",
            Code::InvalidValue,
            &Path::ROOT.field("execution"),
            "execution and runId are mutually exclusive",
            "exactly one of execution (register) or runId (append)",
        );
    }
    if execution {
        for field in ["amendmentId", "rationale"] {
            if input.has(field) {
                out.branch(
                    "execution-forbids-amendment-context",
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
            "amendment-context-requires-runid",
            Code::InvalidValue,
            &Path::ROOT.field("amendmentId"),
            "amendmentId and rationale are only valid with runId appends",
            "runId with amendment context",
        );
    }
    let mode = if execution || run_id { ItemMode::Generic } else { ItemMode::Standalone };
    let items = Path::ROOT.field("items");
    for (i, item) in input.objects("items") {
        check_item(item, &items.index(i), mode, out);
    }
    if let Some(boundary) = input.object("execution").and_then(|e| e.object("boundary")) {
        check_boundary(boundary, out);
    }
    if run_id {
        require("append-requires-amendment-id", input, "amendmentId", out);
        require("append-requires-rationale", input, "rationale", out);
    }
}

/// §5.3: each boundary list stops at its first problem; an empty boundary is refused.
fn check_boundary(boundary: Input<'_>, out: &mut Collector) {
    let base = Path::ROOT.field("execution");
    let base = base.field("boundary");
    let files_ok = check_list(boundary, "files", exact_file, &base, out);
    let directories_ok = check_list(boundary, "directories", directory_subtree, &base, out);
    if files_ok && directories_ok && boundary.absent_or_empty("files") && boundary.absent_or_empty("directories") {
        out.branch(
            "boundary-not-empty",
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
    rule: fn(&[u16]) -> Result<&[u16], PathReason>,
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
                let message = preview_message(&before, entry.units(), 64, &format!(" is malformed ({reason})"));
                out.branch(format!("boundary-{name}-kind"), Code::InvalidValue, &list.index(j), message, EXPECTED);
                return false;
            }
            Ok(normalized) if seen.contains(&normalized) => {
                let message = preview_message(&before, normalized, 64, " is declared more than once");
                out.branch(format!("boundary-{name}-unique"), Code::InvalidValue, &list.index(j), message, EXPECTED);
                return false;
            }
            Ok(normalized) => seen.push(normalized),
        }
    }
    true
}
