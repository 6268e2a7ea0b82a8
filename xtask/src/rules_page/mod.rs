//! `docs/rules.md`: every rule of the refusal inventory with what it refuses, its messages, the
//! vectors or scenarios that pin it and the mutation rows that break it, generated from the
//! inventory, the vectors and the rows.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Result;
use vvoc_harness::load::vector::Vector;
use vvoc_reference::catalog::{Count, Field, Limit, Node, Range, StringKind, Tool};
use vvoc_reference::document::GENERATOR_COMMAND;
use vvoc_reference::exec::exec_rules;
use vvoc_reference::inventory::tool_inventory;
use vvoc_reference::rule::Pattern;
use vvoc_reference::{Check, RuleId, validate_traced};

use crate::docs::Output;
use crate::mutants::rows::{Row, load};

mod messages;

use messages::{code_span, message_lines};

/// Where the page goes, relative to the workspace root.
pub const PATH: &str = "docs/rules.md";

/// How many pinning vectors or scenarios an entry names before it only counts the rest.
const SHOWN: usize = 5;

/// The page of the workspace at `root`, from its vectors (already loaded) and its row files.
pub fn output(root: &Path, vectors: &[Vector]) -> Result<Output> {
    let rows = load(root)?;
    Ok(Output {
        path: PathBuf::from(PATH),
        content: render(vectors, &rows),
    })
}

/// What pins and breaks one rule, and the issues it emitted.
#[derive(Debug, Default)]
struct Covered {
    /// Reject vectors with an issue from the rule (for a rule of execution, the scenarios its
    /// rows must be caught by), in suite order.
    pins: Vec<String>,
    /// The ids of the rows that break the rule, in row order.
    rows: Vec<String>,
    /// The issues the rule emitted on the vectors.
    seen: Vec<Seen>,
}

/// The page's text.
pub fn render(vectors: &[Vector], rows: &[Row]) -> String {
    let (covered, strays) = cover(vectors, rows);
    let sources: BTreeMap<&str, &str> = rows
        .iter()
        .map(|r| (r.id.as_str(), r.source.as_str()))
        .collect();
    let retired: BTreeMap<&str, &str> = rows
        .iter()
        .filter_map(|r| r.retired.as_deref().map(|why| (r.id.as_str(), why)))
        .collect();
    let mut out = header(rows);
    for tool in Tool::ALL {
        tool_section(tool, &mut out);
        let nodes = nodes_of(tool);
        for rule in tool_inventory(tool) {
            let id = rule.to_string();
            let _ = writeln!(out, "### `{id}`\n");
            match &rule {
                RuleId::Structural { pattern, check, .. } => {
                    let node = nodes.get(pattern.as_str()).copied();
                    let _ = writeln!(out, "Refuses {}.\n", refuses(pattern, *check, node));
                }
                RuleId::Branch { name, .. } => {
                    let _ = writeln!(out, "{}\n", branch_sentence(tool, name));
                }
                RuleId::Exec { name, .. } => {
                    let says = exec_rules()
                        .into_iter()
                        .find(|r| r.tool == tool && r.name == name)
                        .map_or("", |r| r.says);
                    let _ = match says.split_once(": ") {
                        Some((section, sentence)) if section.starts_with('§') => {
                            // The web and workflow tools' execution have documents of their own.
                            let doc = match tool {
                                Tool::WebFetch | Tool::WebSearch => "execution-web.md",
                                Tool::HashlineEdit | Tool::StrReplaceEditor => "execution.md",
                                Tool::WorkItemOpen
                                | Tool::WorkItemList
                                | Tool::WorkItemClose
                                | Tool::WorkItemDecide
                                | Tool::WorkCheckpoint => "execution-workflow.md",
                            };
                            writeln!(
                                out,
                                "Rule of execution ([`{doc}`]({doc}) {section}): {sentence}.\n"
                            )
                        }
                        _ => writeln!(out, "Rule of execution: {says}.\n"),
                    };
                }
            }
            let entry = covered.get(&id);
            for line in message_lines(&rule, entry.map(|e| e.seen.as_slice()).unwrap_or_default()) {
                let _ = writeln!(out, "- {line}");
            }
            let pins = entry.map(|e| e.pins.as_slice()).unwrap_or_default();
            let noun = if rule.is_exec() {
                "Scenarios"
            } else {
                "Vectors"
            };
            let _ = writeln!(out, "- {noun} ({}): {}", pins.len(), names(tool, pins));
            let breaking = entry.map(|e| e.rows.as_slice()).unwrap_or_default();
            let _ = writeln!(
                out,
                "- Rows ({}): {}\n",
                breaking.len(),
                row_list(breaking, &sources, &retired)
            );
        }
    }
    if !strays.is_empty() {
        let _ = writeln!(out, "## Rows naming no rule\n");
        for stray in &strays {
            let _ = writeln!(out, "- `{stray}`");
        }
        out.push('\n');
    }
    format!("{}\n", out.trim_end())
}

fn header(rows: &[Row]) -> String {
    let mut out = format!(
        "# Rules\n\nGenerated by `{GENERATOR_COMMAND}` from the refusal inventory \
         (`implementation/src/inventory.rs`), the vectors and the mutation rows; do not edit. \
         `cargo test` fails when it differs from its sources.\n\n"
    );
    out.push_str(
        "Every issue the reference implementation emits, and every rule of what the editors do, \
         belongs to one rule of the refusal inventory, named by a stable id:\n\n\
         - `<tool>:<pattern>:<check>`: a check of the structural phase ([`behaviour.md`](behaviour.md) \
         §2.1) on the field at `<pattern>` (`[]` is every element of an array, `#k` the k-th branch \
         of a union, `(root)` the input itself). The catalog (`implementation/src/catalog/<tool>.rs`) \
         declares the field; `implementation/src/structural.rs` runs the check.\n\
         - `<tool>:branch:<name>`: a rule of the branch-rule phase (§2.2, §4, §5), in \
         `implementation/src/rules/<tool>.rs`; the item rules of `work_item_open` and \
         `work_checkpoint` are in `rules/items.rs`, the field matrix (`matrix-<value>`) in \
         `rules/matrix.rs`, the recovery requirements in `rules/recovery.rs`, the declarations \
         (`rules!`, requirements) in `rules/declare.rs`, the path rules in `path_kind.rs`.\n\
         - `<tool>:exec:<name>`: a rule of execution ([`execution.md`](execution.md), for the web \
         tools [`execution-web.md`](execution-web.md), for the workflow tools \
         [`execution-workflow.md`](execution-workflow.md)), listed with \
         its sentence in `implementation/src/exec/rules.rs` and implemented in `implementation/src/exec/`.\n\n\
         Each entry says what the rule refuses, the issues it emits on the vectors (code, path, \
         message and expected, where `<…>` marks the part that differs between vectors), the \
         vectors (for a rule of execution: the scenarios) that pin it, by id (the name is \
         `<tool>:<id>`; the first five are shown), and the mutation rows that break it, by the part \
         of their id after the rule id (`mutants/*.json`; run one with `cargo xtask mutants --row \"<rule id>\"`). A \
         rule's vectors are the reject vectors with an issue from it (`validate_traced`); a rule of \
         execution's scenarios are the `caught_by` of its rows.\n\n",
    );
    out.push_str("| tool | structural | branch | execution | rules | rows |\n");
    out.push_str("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    let mut totals = [0usize; 5];
    for tool in Tool::ALL {
        let rules = tool_inventory(tool);
        let count = |pick: fn(&RuleId) -> bool| rules.iter().filter(|r| pick(r)).count();
        let structural = count(|r| matches!(r, RuleId::Structural { .. }));
        let branch = count(|r| matches!(r, RuleId::Branch { .. }));
        let exec = count(RuleId::is_exec);
        let tool_rows = rows
            .iter()
            .filter(|r| r.rule().split(':').next() == Some(tool.id()))
            .count();
        let figures = [structural, branch, exec, rules.len(), tool_rows];
        for (total, figure) in totals.iter_mut().zip(figures) {
            *total += figure;
        }
        let _ = writeln!(
            out,
            "| [`{tool}`](#{tool}) | {structural} | {branch} | {exec} | {} | {tool_rows} |",
            rules.len()
        );
    }
    let [s, b, e, r, w] = totals;
    let _ = writeln!(out, "| **total** | {s} | {b} | {e} | {r} | {w} |\n");
    out
}

/// What a branch rule refuses: derived from the catalog for a row of the field matrix.
fn branch_sentence(tool: Tool, name: &str) -> String {
    let index = Tool::ALL.iter().position(|t| *t == tool).unwrap_or(0) + 1;
    let matrix = tool.spec().matrix.as_ref();
    let row = name
        .strip_prefix("matrix-")
        .and_then(|value| matrix.and_then(|m| m.row(value).map(|row| (m.selector, row))));
    match row {
        Some((selector, row)) => {
            let consumed: Vec<String> = row.consumes.iter().map(|f| format!("`{f}`")).collect();
            format!(
                "Refuses, when `{selector}` is `{}`, every present field it does not consume: it \
                 consumes {} (the field matrix, [`behaviour.md`](behaviour.md) §4.{index}).",
                row.value,
                consumed.join(", ")
            )
        }
        None => format!(
            "Refuses what its issues say (a branch rule, [`behaviour.md`](behaviour.md) §4.{index})."
        ),
    }
}

fn tool_section(tool: Tool, out: &mut String) {
    let index = Tool::ALL.iter().position(|t| *t == tool).unwrap_or(0) + 1;
    let _ = writeln!(
        out,
        "## {tool}\n\nSpecification: [`behaviour.md`](behaviour.md) §4.{index}. Fields: \
         `implementation/src/catalog/{tool}.rs`.\n"
    );
}

/// Every node of a tool's catalog by its field pattern, as the inventory names them.
fn nodes_of(tool: Tool) -> BTreeMap<String, &'static Node> {
    let mut nodes = BTreeMap::new();
    walk_fields(&tool.spec().fields, &Pattern::root(), &mut nodes);
    nodes
}

fn walk_fields(
    fields: &'static [Field],
    base: &Pattern,
    nodes: &mut BTreeMap<String, &'static Node>,
) {
    for field in fields {
        walk_node(&field.node, base.field(field.name), nodes);
    }
}

fn walk_node(node: &'static Node, pattern: Pattern, nodes: &mut BTreeMap<String, &'static Node>) {
    match node {
        Node::Object(members) => walk_fields(members, &pattern, nodes),
        Node::Array(element, _) => walk_node(element, pattern.element(), nodes),
        Node::Union(branches) => {
            for (i, branch) in branches.iter().enumerate() {
                walk_node(branch, pattern.branch(i), nodes);
            }
        }
        Node::String(_)
        | Node::Integer(_)
        | Node::Number(_)
        | Node::Boolean
        | Node::Enum(_)
        | Node::Literal(_)
        | Node::Null => {}
    }
    nodes.insert(pattern.into_string(), node);
}

/// What a structural check refuses, as the end of the sentence "Refuses ...".
fn refuses(pattern: &str, check: Check, node: Option<&Node>) -> String {
    let at = if pattern == Pattern::ROOT {
        "the input".to_owned()
    } else {
        format!("`{pattern}`")
    };
    let (min, max) = node.map(length_bounds).unwrap_or_default();
    let unit = match node {
        Some(Node::Array(..)) => "element",
        _ => "unit",
    };
    let bound = |n: Option<u32>| n.map_or("its bound".to_owned(), |n| n.to_string());
    let count = |n: Option<u32>, noun: &str| match n {
        Some(1) => format!("1 {noun}"),
        Some(n) => format!("{n} {noun}s"),
        None => format!("its bound of {noun}s"),
    };
    match check {
        Check::Required => format!("{at} when it is absent (it is required)"),
        Check::Type => format!("{at} when it is not {}", type_name(node)),
        Check::UnknownKey => format!("a member of {at} that it does not declare"),
        Check::Finite => format!("{at} when it is a number too large for a double (`1e400`)"),
        Check::Integer => format!("{at} when it is a number with a fraction"),
        Check::SafeMax => format!("{at} when it is an integer above 2^53 − 1"),
        Check::SafeMin => format!("{at} when it is an integer below −(2^53 − 1)"),
        Check::Minimum => format!("{at} under its minimum ({})", limit(node, true)),
        Check::Maximum => format!("{at} over its maximum ({})", limit(node, false)),
        Check::MinLength => {
            let trimmed = match node {
                Some(Node::String(kind)) if StringKind::trimmed(*kind) => ", after trimming",
                _ => "",
            };
            format!("{at} shorter than {}{trimmed}", count(min, unit))
        }
        Check::MaxLength => {
            let trimmed = match node {
                Some(Node::String(kind)) if StringKind::trimmed(*kind) => ", after trimming",
                _ => "",
            };
            format!("{at} longer than {}{trimmed}", count(max, unit))
        }
        Check::MinItems => format!("{at} with fewer than {}", count(min, "element")),
        Check::MaxItems => format!("{at} with more than {}", count(max, "element")),
        Check::WrongTypeMinLength => format!(
            "{at} of the wrong type whose `length` is under {} (the length rule, behaviour.md §2.1.8)",
            bound(min)
        ),
        Check::WrongTypeMaxLength => format!(
            "{at} of the wrong type whose `length` is over {} (the length rule, behaviour.md §2.1.8)",
            bound(max)
        ),
        Check::Enum => match node {
            Some(Node::Enum(values)) => format!("{at} other than {}", quoted(values)),
            _ => format!("{at} outside its values"),
        },
        Check::Literal => match node {
            Some(Node::Literal(value)) => format!("{at} other than \"{value}\""),
            _ => format!("{at} other than its literal"),
        },
    }
}

fn type_name(node: Option<&Node>) -> &'static str {
    match node {
        None | Some(Node::Object(_)) => "an object",
        Some(Node::Array(..)) => "an array",
        Some(Node::String(_)) => "a string",
        Some(Node::Integer(_) | Node::Number(_)) => "a number",
        Some(Node::Boolean) => "a boolean",
        Some(Node::Null) => "null",
        Some(Node::Enum(_)) => "one of its values",
        Some(Node::Literal(_)) => "its literal",
        Some(Node::Union(_)) => "one of its branches",
    }
}

fn length_bounds(node: &Node) -> (Option<u32>, Option<u32>) {
    match node {
        Node::String(kind) => StringKind::length(*kind),
        Node::Array(_, count) => (Count::min(*count), Count::max(*count)),
        _ => (None, None),
    }
}

fn limit(node: Option<&Node>, lower: bool) -> String {
    let range = match node {
        Some(Node::Integer(range) | Node::Number(range)) => Some(range),
        _ => None,
    };
    let limit = range.and_then(|Range { min, max }| if lower { *min } else { *max });
    match (limit, lower) {
        (Some(Limit::Inclusive(n)), true) => format!(">= {n}"),
        (Some(Limit::Exclusive(n)), true) => format!("> {n}"),
        (Some(Limit::Inclusive(n)), false) => format!("<= {n}"),
        (Some(Limit::Exclusive(n)), false) => format!("< {n}"),
        (None, _) => "its bound".to_owned(),
    }
}

fn quoted(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
    quoted.join(", ")
}

/// One issue as a rule emitted it on some vector: code, path pattern, message, expected.
type Seen = (String, String, String, Option<String>);

/// Every inventory rule (by id) with its vectors, rows and issues, and the rows naming no rule.
/// (The join of `cargo xtask mutants --coverage`, on vectors already loaded.)
fn cover(vectors: &[Vector], rows: &[Row]) -> (BTreeMap<String, Covered>, Vec<String>) {
    let mut covered: BTreeMap<String, Covered> = Tool::ALL
        .into_iter()
        .flat_map(tool_inventory)
        .map(|r| (r.to_string(), Covered::default()))
        .collect();
    for vector in vectors.iter().filter(|v| !v.expected.is_accept()) {
        for traced in validate_traced(vector.tool, &vector.input).1 {
            let Some(entry) = covered.get_mut(&traced.rule.to_string()) else {
                continue;
            };
            let name = vector.name();
            if !entry.pins.contains(&name) {
                entry.pins.push(name);
            }
            let issue = traced.issue;
            let seen = (
                issue.code.to_string(),
                Pattern::of_issue_path(&issue.path.to_string_lossy(), |name| name).into_string(),
                issue.message.to_string_lossy(),
                issue.expected.map(|e| e.to_string_lossy()),
            );
            if !entry.seen.contains(&seen) {
                entry.seen.push(seen);
            }
        }
    }
    let mut strays = Vec::new();
    for row in rows {
        let exec = row.rule().contains(":exec:");
        match covered.get_mut(row.rule()) {
            Some(entry) => {
                entry.rows.push(row.id.clone());
                for scenario in row.caught_by.iter().filter(|_| exec) {
                    if !entry.pins.contains(scenario) {
                        entry.pins.push(scenario.clone());
                    }
                }
            }
            None => strays.push(row.id.clone()),
        }
    }
    (covered, strays)
}

/// The first few names of a list, each without the tool's prefix (ids are unique per tool).
fn names(tool: Tool, list: &[String]) -> String {
    if list.is_empty() {
        return "none".to_owned();
    }
    let prefix = format!("{tool}:");
    let shown: Vec<String> = list
        .iter()
        .take(SHOWN)
        .map(|n| format!("`{}`", n.strip_prefix(&prefix).unwrap_or(n)))
        .collect();
    match list.len().saturating_sub(SHOWN) {
        0 => shown.join(", "),
        more => format!("{}, and {more} more", shown.join(", ")),
    }
}

fn row_list(
    ids: &[String],
    sources: &BTreeMap<&str, &str>,
    retired: &BTreeMap<&str, &str>,
) -> String {
    if ids.is_empty() {
        return "none".to_owned();
    }
    let mut by_file: Vec<(&str, Vec<String>)> = Vec::new();
    for id in ids {
        let how = id.rsplit_once(": ").map_or(id.as_str(), |(_, how)| how);
        let mut entry = code_span(how);
        if let Some(why) = retired.get(id.as_str()) {
            let _ = write!(entry, " (retired: {why})");
        }
        let source = sources.get(id.as_str()).copied().unwrap_or_default();
        match by_file.iter_mut().find(|(s, _)| *s == source) {
            Some((_, list)) => list.push(entry),
            None => by_file.push((source, vec![entry])),
        }
    }
    let parts: Vec<String> = by_file
        .into_iter()
        .map(|(source, list)| format!("{} in `{source}`", list.join(", ")))
        .collect();
    parts.join("; ")
}
