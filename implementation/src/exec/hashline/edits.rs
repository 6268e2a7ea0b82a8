//! Normalizing the edits of a call: references read, payloads checked, ops settled (§1.6).

use super::reference::{self, Reference};
use crate::exec::text::{CR, LF, Text, join_lf, text};
use crate::js_string::JsString;
use crate::json::{Json, Object};
use crate::text::trim;

/// An edit's operation after normalization.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Op {
    /// Lines `pos` to `end`, inclusive, replaced.
    ReplaceRange,
    /// Line `pos` replaced.
    Replace,
    /// Lines inserted after the anchor, or at the end.
    Append,
    /// Lines inserted before the anchor, or at the start.
    Prepend,
}

impl Op {
    /// The op as texts write it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Op::ReplaceRange => "replace_range",
            Op::Replace => "replace",
            Op::Append => "append",
            Op::Prepend => "prepend",
        }
    }
}

/// What an edit inserts: a list of lines, or a string split on LF later.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Payload {
    /// A list of lines (`null` is the empty list).
    List(Vec<Vec<u16>>),
    /// A string.
    Text(Vec<u16>),
}

impl Payload {
    /// The payload's text for duplicate keys: list entries joined with LF, or the string.
    pub(crate) fn key_text(&self) -> Vec<u16> {
        match self {
            Payload::List(lines) => join_lf(lines),
            Payload::Text(text) => text.clone(),
        }
    }

    /// Whether the payload is an empty list (§1.9.4).
    pub(crate) fn is_empty_list(&self) -> bool {
        matches!(self, Payload::List(lines) if lines.is_empty())
    }
}

/// One normalized edit.
#[derive(Clone, Debug)]
pub(crate) struct Edit {
    /// The op after normalization.
    pub(crate) op: Op,
    /// The primary reference: `pos` for replaces, the anchor for inserts (`None`: un-anchored).
    pub(crate) pos: Option<Reference>,
    /// The range end (`replace_range` only).
    pub(crate) end: Option<Reference>,
    /// The anchor string as kept: the trimmed `pos`, or the trimmed `end` when that is the anchor.
    pub(crate) anchor_text: Vec<u16>,
    /// The payload.
    pub(crate) payload: Payload,
}

impl Edit {
    /// The line of the primary reference, or minus infinity for an un-anchored insert.
    pub(crate) fn start(&self) -> f64 {
        self.pos.as_ref().map_or(f64::NEG_INFINITY, |r| r.line)
    }

    /// The last line the edit covers.
    pub(crate) fn end_line(&self) -> f64 {
        self.end.as_ref().map_or(self.start(), |r| r.line)
    }
}

/// Normalizes the accepted `edits`, in input order; the first failure is the call's text.
pub(crate) fn normalize(edits: &[Json]) -> Result<Vec<Edit>, Vec<u16>> {
    edits
        .iter()
        .enumerate()
        .map(|(i, edit)| match edit {
            Json::Object(edit) => normalize_one(i, edit),
            other => Err(text(&format!("Edit {i}: not an object: {}", other.type_name())).0),
        })
        .collect()
}

fn normalize_one(i: usize, edit: &Object) -> Result<Edit, Vec<u16>> {
    let op_text = string(edit, "op");
    let pos_text = edit
        .get("pos")
        .and_then(Json::as_string)
        .map(|s| trim(s.units()).to_vec());
    let end_text = edit
        .get("end")
        .and_then(Json::as_string)
        .map(|s| trim(s.units()).to_vec());
    let pos = pos_text
        .as_deref()
        .map(|r| read_three_part(i, "pos", r))
        .transpose()?;
    let end = end_text
        .as_deref()
        .map(|r| read_three_part(i, "end", r))
        .transpose()?;
    let payload = match edit.get("lines") {
        Some(Json::String(s)) => Payload::Text(s.units().to_vec()),
        Some(Json::Array(items)) => Payload::List(
            items
                .iter()
                .map(|item| {
                    item.as_string()
                        .map_or_else(Vec::new, |s| s.units().to_vec())
                })
                .collect(),
        ),
        Some(_) | None => Payload::List(Vec::new()),
    };
    let op = match op_text.as_str() {
        "replace" => Op::Replace,
        "replace_range" => Op::ReplaceRange,
        "append" => Op::Append,
        "prepend" => Op::Prepend,
        other => return Err(text(&format!("Edit {i}: unsupported op \"{other}\"")).0),
    };
    let blank = match &payload {
        Payload::Text(text) => text.is_empty(),
        Payload::List(lines) => lines.len() == 1 && lines[0].is_empty(),
    };
    if matches!(op, Op::Replace | Op::ReplaceRange) && blank {
        return Err(text(&format!(
            "Edit {i}: {op_text} with a single blank line (lines: [\"\"]) is ambiguous and was rejected. To delete lines use lines: [] or lines: null. To insert a blank line use append or prepend."
        ))
        .0);
    }
    if let Payload::List(lines) = &payload
        && let Some(j) = lines
            .iter()
            .position(|l| l.iter().any(|&u| u == LF || u == CR))
    {
        return Err(text(&format!(
            "Edit {i}: lines[{j}] for {op_text} contains an embedded newline. Each array entry must be exactly one physical line; split the content into separate entries."
        ))
        .0);
    }
    match op {
        Op::Replace | Op::ReplaceRange => {
            let op = if end.is_some() { Op::ReplaceRange } else { op };
            let count = match &payload {
                Payload::List(lines) => lines.len(),
                Payload::Text(text) => text.iter().filter(|&&u| u == LF).count() + 1,
            };
            if op == Op::Replace && count > 1 {
                return Err(text(&format!(
                    "Edit {i}: replace received {count} replacement lines but no end anchor. Add the end anchor of the last line to replace (pos..end is inclusive), or pass a single replacement line."
                ))
                .0);
            }
            Ok(Edit {
                op,
                anchor_text: pos_text.unwrap_or_default(),
                pos,
                end,
                payload,
            })
        }
        Op::Append | Op::Prepend => {
            let (anchor, anchor_text) = match (pos, pos_text) {
                (Some(pos), Some(text)) => (Some(pos), text),
                (_, _) => (end, end_text.unwrap_or_default()),
            };
            Ok(Edit {
                op,
                pos: anchor,
                end: None,
                anchor_text,
                payload,
            })
        }
    }
}

/// Reads one reference and requires its third part (§1.6 rule 1).
fn read_three_part(i: usize, field: &str, r: &[u16]) -> Result<Reference, Vec<u16>> {
    let reference = reference::read(r)?;
    if reference.anchor.is_none() {
        let mut out = Text::default();
        out.s(&format!("Edit {i} {field}: anchor \"")).u(r);
        out.s("\" is missing the anchor hash. Use the full three-part \"{line_number}#{hash_id}#{anchor_hash}\" reference copied exactly from the latest read output. Two-part references are no longer accepted for edits.");
        return Err(out.0);
    }
    Ok(reference)
}

fn string(object: &Object, name: &str) -> String {
    object
        .get(name)
        .and_then(Json::as_string)
        .map(JsString::to_string_lossy)
        .unwrap_or_default()
}
