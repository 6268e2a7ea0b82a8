//! The branch rules of `work_item_open` (§4.1) and its execution boundary (§5.3).

use super::declare::Needs::Present;
use super::declare::{Declared, Malformed, PerField, Requirements, Rules};
use super::input::Input;
use super::items::{ItemMode, check_item, preview_message};
use crate::collector::Collector;
use crate::issue::Code;
use crate::js_text::js;
use crate::json::Json;
use crate::path::Path;
use crate::path_kind::{PathRule, directory_subtree, exact_file};
use crate::rule::BranchRule;

rules! {
    /// The rules of `work_item_open`, in inventory order.
    fn names {
        EXECUTION_AND_RUNID = "execution-and-runid";
        AMENDMENT_CONTEXT_REQUIRES_RUNID = "amendment-context-requires-runid";
        BOUNDARY_NOT_EMPTY = "boundary-not-empty";
        /// What a `runId` append requires.
        APPEND: Requirements = Requirements(&[
            ("append-requires-amendment-id", Present("amendmentId")),
            ("append-requires-rationale", Present("rationale")),
        ]);
        /// The amendment context an execution registration may not carry, in the order reported.
        EXECUTION_FORBIDS: PerField = PerField {
            prefix: "execution-forbids",
            fields: &["amendmentId", "rationale"],
        };
        include super::items::generic_names;
        include super::items::standalone_names;
        /// The boundary's exact files; a non-blank file is never an empty path.
        BOUNDARY_FILES: BoundaryList = BoundaryList {
            name: "files",
            kind: exact_file,
            malformed: Malformed {
                prefix: "boundary-files",
                can_be_empty: false,
            },
        };
        /// The boundary's directory subtrees; only a directory (`/`) can be an empty path.
        BOUNDARY_DIRECTORIES: BoundaryList = BoundaryList {
            name: "directories",
            kind: directory_subtree,
            malformed: Malformed {
                prefix: "boundary-directories",
                can_be_empty: true,
            },
        };
    }
}

/// The branch rules of `work_item_open`.
pub(super) const RULES: Rules = Rules { run, names };

/// A list of the execution boundary, with its path-kind rule and its rules.
#[derive(Debug)]
struct BoundaryList {
    /// The member name (`files`).
    name: &'static str,
    /// The path-kind rule of its entries.
    kind: PathRule,
    /// Its malformed-path rules; their prefix also names its uniqueness rule.
    malformed: Malformed,
}

impl BoundaryList {
    /// The rule of a path declared twice (`boundary-files-unique`).
    fn unique(&self) -> BranchRule {
        BranchRule::member(self.malformed.prefix, "unique")
    }
}

impl Declared for BoundaryList {
    fn list(&self, names: &mut Vec<String>) {
        names.push(self.unique().into_name());
        self.malformed.list(names);
    }
}

fn run(input: Input<'_>, out: &mut Collector) {
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
        for (field, rule) in EXECUTION_FORBIDS.each() {
            if input.has(field) {
                out.branch(
                    rule,
                    Code::InvalidValue,
                    &Path::ROOT.field(field),
                    js![field, " is append-only amendment context and conflicts with execution registration"],
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
        APPEND.check(input, out);
    }
}

/// §5.3: each boundary list stops at its first problem; an empty boundary is refused.
fn check_boundary(boundary: Input<'_>, out: &mut Collector) {
    let base = Path::ROOT.field("execution");
    let base = base.field("boundary");
    let mut clean = true;
    for list in [&*BOUNDARY_FILES, &*BOUNDARY_DIRECTORIES] {
        clean &= check_list(boundary, list, &base, out);
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
    list: &BoundaryList,
    base: &Path<'_>,
    out: &mut Collector,
) -> bool {
    let name = list.name;
    let path = base.field(name);
    let mut seen: Vec<&[u16]> = Vec::new();
    for (j, entry) in boundary.list(name).unwrap_or_default().iter().enumerate() {
        let Json::String(entry) = entry else { continue };
        let before = ["boundary.", name, " path "];
        match (list.kind)(entry.units()) {
            Err(reason) => {
                let after = [" is malformed (", reason.as_str(), ")"];
                let message = preview_message(&before, entry.units(), 64, &after);
                out.branch(
                    list.malformed.rule(reason),
                    Code::InvalidValue,
                    &path.index(j),
                    message,
                    EXPECTED,
                );
                return false;
            }
            Ok(normalized) if seen.contains(&normalized) => {
                let message =
                    preview_message(&before, normalized, 64, &[" is declared more than once"]);
                out.branch(
                    list.unique(),
                    Code::InvalidValue,
                    &path.index(j),
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
