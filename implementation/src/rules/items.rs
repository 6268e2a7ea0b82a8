//! The item rules (§4.1.1), shared by `work_item_open` items and `work_checkpoint` tasks, and the
//! `writeScope` list rules (§5.3).

use super::declare::{Malformed, PerField};
use super::input::Input;
use crate::collector::Collector;
use crate::issue::Code;
use crate::js_string::JsString;
use crate::js_text::js;
use crate::json::Json;
use crate::path::Path;
use crate::path_kind::exact_file;
use crate::text::{json_quote, truncate};

rules! {
    /// The rules every checked item can break, generic or standalone: the generic mode's, the
    /// uniqueness of reviewers and the `writeScope` list rules (§5.3), in inventory order.
    pub(super) fn generic_names {
        GENERIC_ITEM_REQUIRES_DELEGATED = "generic-item-requires-delegated";
        GENERIC_ITEM_FORBIDS_PLAN_BINDINGS = "generic-item-forbids-plan-bindings";
        GENERIC_ITEM_REQUIRES_WRITE_SCOPE = "generic-item-requires-write-scope";
        ITEM_REVIEWERS_UNIQUE = "item-reviewers-unique";
        WRITE_SCOPE_UNIQUE = "write-scope-unique";
        /// A malformed `writeScope` entry; an entry is non-blank, so never an empty path.
        WRITE_SCOPE_MALFORMED: Malformed = Malformed {
            prefix: "write-scope",
            can_be_empty: false,
        };
    }
}

rules! {
    /// The rules only standalone `work_item_open` items can break, in inventory order.
    pub(super) fn standalone_names {
        DELEGATED_ITEM_REQUIRES_NO_REVIEWERS = "delegated-item-requires-no-reviewers";
        DELEGATED_ITEM_REQUIRES_WRITE_SCOPE = "delegated-item-requires-write-scope";
        DELEGATED_ITEM_PAIRS_PLAN_BINDINGS = "delegated-item-pairs-plan-bindings";
        STANDALONE_ITEM_REQUIRES_REVIEWERS = "standalone-item-requires-reviewers";
        STANDALONE_ITEM_FORBIDS_WRITE_SCOPE = "standalone-item-forbids-write-scope";
        STANDALONE_ITEM_FORBIDS_PLAN_BINDINGS = "standalone-item-forbids-plan-bindings";
        /// The generic task fields a standalone item may not carry, in the order reported.
        STANDALONE_ITEM_FORBIDS: PerField = PerField {
            prefix: "standalone-item-forbids",
            fields: &[
                "taskId",
                "goal",
                "acceptanceCriteria",
                "verification",
                "dependsOn",
                "blockedBy",
            ],
        };
    }
}

/// How an item is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemMode {
    /// An execution registration, a `runId` append, or a `work_checkpoint` task.
    Generic,
    /// A `work_item_open` item without `execution` and without `runId`.
    Standalone,
}

selector! {
    /// The item workflow modes.
    Mode {
        Implementation = "implementation",
        ReviewOnly = "review_only",
        Delegated = "delegated",
    }
}

/// Runs the item rules on one item at `base` (`items[i]` or `tasks[i]`).
pub(crate) fn check_item(item: Input<'_>, base: &Path<'_>, mode: ItemMode, out: &mut Collector) {
    let Some(item_mode) = item.string("mode").and_then(Mode::parse) else {
        return;
    };
    match mode {
        ItemMode::Generic => generic(item, item_mode, base, out),
        ItemMode::Standalone => standalone(item, item_mode, base, out),
    }
}

fn generic(item: Input<'_>, mode: Mode, base: &Path<'_>, out: &mut Collector) {
    if mode != Mode::Delegated {
        out.branch(
            GENERIC_ITEM_REQUIRES_DELEGATED,
            Code::InvalidValue,
            &base.field("mode"),
            "generic open/append items require mode delegated",
            "\"delegated\"",
        );
    }
    if item.has("planRunId") || item.has("planTaskId") {
        out.branch(
            GENERIC_ITEM_FORBIDS_PLAN_BINDINGS,
            Code::InvalidValue,
            &base.field("planRunId"),
            "native plan bindings conflict with generic open/append items",
            "no planRunId/planTaskId on generic tasks",
        );
    }
    if item.absent_or_empty("writeScope") {
        out.branch(
            GENERIC_ITEM_REQUIRES_WRITE_SCOPE,
            Code::MissingValue,
            &base.field("writeScope"),
            "generic tasks require a non-empty writeScope of workspace-relative files",
            "at least one workspace-relative file path",
        );
    } else {
        write_scope(item, base, out);
    }
    if has_duplicate_reviewer(item) {
        unique_reviewers(base, out);
    }
}

fn standalone(item: Input<'_>, mode: Mode, base: &Path<'_>, out: &mut Collector) {
    for (field, rule) in STANDALONE_ITEM_FORBIDS.each() {
        if item.has(field) {
            out.branch(
                rule,
                Code::InvalidValue,
                &base.field(field),
                js![
                    field,
                    " is a generic task field and conflicts with standalone work_item_open items"
                ],
                "generic task fields only on execution/runId open or work_checkpoint amendments",
            );
        }
    }
    let reviewers = item.list("requiredReviewers").unwrap_or_default();
    match mode {
        Mode::Delegated => {
            if !reviewers.is_empty() {
                out.branch(
                    DELEGATED_ITEM_REQUIRES_NO_REVIEWERS,
                    Code::InvalidValue,
                    &base.field("requiredReviewers"),
                    "delegated mode requires an explicitly empty requiredReviewers array",
                    "[]",
                );
            }
            if item.absent_or_empty("writeScope") {
                out.branch(
                    DELEGATED_ITEM_REQUIRES_WRITE_SCOPE,
                    Code::MissingValue,
                    &base.field("writeScope"),
                    "delegated mode requires a non-empty writeScope of workspace-relative files",
                    "at least one workspace-relative file path",
                );
            } else {
                write_scope(item, base, out);
            }
            let absent = match (item.has("planRunId"), item.has("planTaskId")) {
                (true, false) => Some("planTaskId"),
                (false, true) => Some("planRunId"),
                (true, true) | (false, false) => None,
            };
            if let Some(absent) = absent {
                out.branch(
                    DELEGATED_ITEM_PAIRS_PLAN_BINDINGS,
                    Code::InvalidValue,
                    &base.field(absent),
                    "planRunId and planTaskId must be provided together",
                    "both native plan bindings or neither",
                );
            }
        }
        Mode::Implementation | Mode::ReviewOnly => {
            let m = mode.as_str();
            if reviewers.is_empty() {
                out.branch(
                    STANDALONE_ITEM_REQUIRES_REVIEWERS,
                    Code::MissingValue,
                    &base.field("requiredReviewers"),
                    "standalone implementation/review_only require a non-empty unique reviewer set",
                    "at least one canonical spec/code reviewer",
                );
            } else if has_duplicate_reviewer(item) {
                unique_reviewers(base, out);
            }
            if item.has("writeScope") {
                out.branch(
                    STANDALONE_ITEM_FORBIDS_WRITE_SCOPE,
                    Code::InvalidValue,
                    &base.field("writeScope"),
                    js!["writeScope is only valid for delegated mode, not ", m],
                    "no writeScope on standalone implementation/review_only items",
                );
            }
            let binding = ["planRunId", "planTaskId"]
                .into_iter()
                .find(|f| item.has(f));
            if let Some(binding) = binding {
                out.branch(
                    STANDALONE_ITEM_FORBIDS_PLAN_BINDINGS,
                    Code::InvalidValue,
                    &base.field(binding),
                    js!["plan bindings are only valid for delegated mode, not ", m],
                    "no plan bindings on standalone implementation/review_only items",
                );
            }
        }
    }
}

fn has_duplicate_reviewer(item: Input<'_>) -> bool {
    let reviewers = item.list("requiredReviewers").unwrap_or_default();
    reviewers
        .iter()
        .enumerate()
        .any(|(i, r)| reviewers[..i].contains(r))
}

fn unique_reviewers(base: &Path<'_>, out: &mut Collector) {
    out.branch(
        ITEM_REVIEWERS_UNIQUE,
        Code::InvalidValue,
        &base.field("requiredReviewers"),
        "requiredReviewers must be a unique spec/code array",
        "unique canonical reviewer roles",
    );
}

/// §5.3: every entry checked with the exact-file rule, then against the earlier valid entries.
fn write_scope(item: Input<'_>, base: &Path<'_>, out: &mut Collector) {
    let entries = item.list("writeScope").unwrap_or_default();
    let list = base.field("writeScope");
    let mut seen: Vec<&[u16]> = Vec::new();
    for (j, entry) in entries.iter().enumerate() {
        let Json::String(entry) = entry else { continue };
        match exact_file(entry.units()) {
            Err(reason) => out.branch(
                WRITE_SCOPE_MALFORMED.rule(reason),
                Code::InvalidValue,
                &list.index(j),
                preview_message(&["path "], entry.units(), 48, &[" is malformed (", reason.as_str(), ")"]),
                "a workspace-relative exact file path without traversal, wildcards, or trailing separators",
            ),
            Ok(normalized) if seen.contains(&normalized) => out.branch(
                WRITE_SCOPE_UNIQUE,
                Code::InvalidValue,
                &list.index(j),
                preview_message(&["path "], normalized, 48, &[" is declared more than once"]),
                "unique file paths",
            ),
            Ok(normalized) => seen.push(normalized),
        }
    }
}

/// `<before><truncate(JSON-quote(path), limit)><after>`: the path is quoted first and cut after.
pub(crate) fn preview_message(
    before: &[&str],
    path: &[u16],
    limit: usize,
    after: &[&str],
) -> JsString {
    let mut message = js![];
    for piece in before {
        message.push_str(piece);
    }
    message.push_units(truncate(json_quote(path).units(), limit).units());
    for piece in after {
        message.push_str(piece);
    }
    message
}
