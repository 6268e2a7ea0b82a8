//! The tracked subagents' protocol: the launch prompt's header, the result's strict top block, and the host's task envelopes (`execution-workflow.md` §4).

use super::js::{crlf_to_lf, is, is_dot, is_space, is_word, lines, starts_with};
use crate::js_string::JsString;
use crate::js_text::js;
use crate::text::trim;

/// A tracked subagent (`TRACKED_SUBAGENT_NAMES`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Agent {
    Implementer,
    SpecReviewer,
    CodeReviewer,
}

impl Agent {
    /// The tracked agent `name` names, if any.
    pub(crate) fn from_name(name: &[u16]) -> Option<Agent> {
        [Agent::Implementer, Agent::SpecReviewer, Agent::CodeReviewer]
            .into_iter()
            .find(|a| is(name, a.name()))
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Agent::Implementer => "vv-implementer",
            Agent::SpecReviewer => "vv-spec-reviewer",
            Agent::CodeReviewer => "vv-code-reviewer",
        }
    }

    /// The reviewer role of a reviewer agent (`getReviewerRoleForAgent`).
    pub(crate) fn role(self) -> Option<&'static str> {
        match self {
            Agent::Implementer => None,
            Agent::SpecReviewer => Some("spec"),
            Agent::CodeReviewer => Some("code"),
        }
    }

    /// `ALLOWED_STATUSES[agent]`.
    fn allowed(self) -> &'static [&'static str] {
        match self {
            Agent::Implementer => &["DONE", "DONE_WITH_CONCERNS", "NEEDS_CONTEXT", "BLOCKED"],
            Agent::SpecReviewer | Agent::CodeReviewer => &["PASS", "FAIL", "NEEDS_CONTEXT"],
        }
    }
}

/// The reviewer agent of a role (`getReviewerAgentForRole`).
pub(crate) fn reviewer_agent(role: &[u16]) -> &'static str {
    if is(role, "spec") {
        "vv-spec-reviewer"
    } else {
        "vv-code-reviewer"
    }
}

/// A protocol failure: its code and its whole message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProtocolError {
    pub(crate) code: &'static str,
    pub(crate) message: JsString,
}

/// A parsed result block (`ParsedResultBlock`).
#[derive(Clone, Debug)]
pub(crate) struct ResultBlock {
    pub(crate) agent: Agent,
    pub(crate) work_item_id: JsString,
    pub(crate) status: &'static str,
    pub(crate) body: JsString,
}

/// `parseWorkItemHeader`: the `wi-N` of the prompt's first meaningful line.
pub(crate) fn parse_work_item_header(prompt: &[u16]) -> Result<JsString, ProtocolError> {
    let all = lines(prompt);
    let Some(first) = all.iter().map(|l| trim(l)).find(|l| !l.is_empty()) else {
        return Err(ProtocolError {
            code: "MISSING_WORK_ITEM_HEADER",
            message: JsString::from(
                "MISSING_WORK_ITEM_HEADER: prompt must begin with VVOC_WORK_ITEM_ID header",
            ),
        });
    };
    match header_id(first) {
        Some(id) => Ok(JsString::from_units(id)),
        None => Err(ProtocolError {
            code: "MALFORMED_WORK_ITEM_HEADER",
            message: js![
                "MALFORMED_WORK_ITEM_HEADER: first meaningful line must match `VVOC_WORK_ITEM_ID: wi-<n>` but received `",
                first,
                "`"
            ],
        }),
    }
}

/// `parseResultBlock` with the expected work item.
pub(crate) fn parse_result_block(
    agent: Agent,
    output: &[u16],
    expected: &[u16],
) -> Result<ResultBlock, ProtocolError> {
    let (top, body) = split_sections(output);
    validate_top_block(&top)?;
    let Some(id) = field(&top, "VVOC_WORK_ITEM_ID") else {
        return Err(error(
            "MISSING_WORK_ITEM_ID",
            js!["MISSING_WORK_ITEM_ID: strict top block must include VVOC_WORK_ITEM_ID"],
        ));
    };
    if !is_work_item_id(&id) {
        return Err(error(
            "MISSING_WORK_ITEM_ID",
            js![
                "MISSING_WORK_ITEM_ID: invalid work item id format ",
                &id[..]
            ],
        ));
    }
    if !expected.is_empty() && expected != &id[..] {
        return Err(error(
            "WORK_ITEM_MISMATCH",
            js![
                "WORK_ITEM_MISMATCH: expected ",
                expected,
                " but parsed ",
                &id[..]
            ],
        ));
    }
    let Some(raw_status) = field(&top, "VVOC_STATUS") else {
        return Err(error(
            "MISSING_STATUS",
            js!["MISSING_STATUS: strict top block must include VVOC_STATUS"],
        ));
    };
    let status = trim(&raw_status);
    const KNOWN: [&str; 6] = [
        "DONE",
        "DONE_WITH_CONCERNS",
        "NEEDS_CONTEXT",
        "BLOCKED",
        "PASS",
        "FAIL",
    ];
    if !KNOWN.iter().any(|k| is(status, k)) {
        let shown: &[u16] = if status.is_empty() {
            &[0x3C, 0x65, 0x6D, 0x70, 0x74, 0x79, 0x3E]
        } else {
            status
        };
        return Err(error(
            "UNKNOWN_STATUS",
            js![
                "UNKNOWN_STATUS: ",
                shown,
                " is not a recognized VVOC_STATUS"
            ],
        ));
    }
    let Some(status) = agent.allowed().iter().find(|k| is(status, k)).copied() else {
        return Err(error(
            "STATUS_NOT_ALLOWED",
            js![
                "STATUS_NOT_ALLOWED: ",
                status,
                " is not allowed for ",
                agent.name()
            ],
        ));
    };
    if agent == Agent::Implementer && field(&top, "VVOC_ROUTE").is_none() {
        return Err(error(
            "MISSING_ROUTE",
            js!["MISSING_ROUTE: vv-implementer output must include VVOC_ROUTE"],
        ));
    }
    Ok(ResultBlock {
        agent,
        work_item_id: JsString::from_units(id),
        status,
        body: JsString::from_units(body),
    })
}

/// `unwrapResumableTaskResult`: the tracked result inside a host task envelope (the `<task>`
/// element first, then the older `task_id:` header), or the output itself; and whether an
/// envelope was found.
pub(crate) fn unwrap_task_result(output: &[u16]) -> (Vec<u16>, bool) {
    if let Some(inner) = task_element(output).or_else(|| resumable_header(output)) {
        return (inner, true);
    }
    (output.to_vec(), false)
}

/// `detectExplicitHardStopStatus`: the `BLOCKED` or `NEEDS_CONTEXT` of the first line that
/// states one as its `VVOC_STATUS`.
pub(crate) fn explicit_hard_stop(output: &[u16]) -> Option<&'static str> {
    for line in lines(output) {
        let mut i = line.iter().take_while(|&&u| is_space(u)).count();
        if !starts_with(&line[i..], "VVOC_STATUS") {
            continue;
        }
        i += "VVOC_STATUS".len();
        i += line[i..].iter().take_while(|&&u| is_space(u)).count();
        if line.get(i) != Some(&u16::from(b':')) {
            continue;
        }
        i += 1;
        i += line[i..].iter().take_while(|&&u| is_space(u)).count();
        for status in ["BLOCKED", "NEEDS_CONTEXT"] {
            let rest = &line[i..];
            if starts_with(rest, status) && rest.get(status.len()).is_none_or(|&u| !is_word(u)) {
                return Some(status);
            }
        }
    }
    None
}

/// `isTrackedResultRepairEligible`: the codes a bounded continuation may repair.
pub(crate) fn repair_eligible(code: &str) -> bool {
    matches!(
        code,
        "MISSING_STATUS" | "MISSING_ROUTE" | "UNEXPECTED_TOP_BLOCK_LINE" | "MISSING_BODY_SEPARATOR"
    )
}

fn error(code: &'static str, message: JsString) -> ProtocolError {
    ProtocolError { code, message }
}

/// `/^VVOC_WORK_ITEM_ID:\s*(wi-\d+)\s*$/` on a trimmed line: the id.
fn header_id(line: &[u16]) -> Option<&[u16]> {
    let rest = line.strip_prefix(&units("VVOC_WORK_ITEM_ID:")[..])?;
    let start = rest.iter().take_while(|&&u| is_space(u)).count();
    let rest = &rest[start..];
    let digits = rest
        .strip_prefix(&units("wi-")[..])?
        .iter()
        .take_while(|&&u| is_ascii_digit(u))
        .count();
    if digits == 0 {
        return None;
    }
    let id = &rest[..3 + digits];
    rest[3 + digits..]
        .iter()
        .all(|&u| is_space(u))
        .then_some(id)
}

/// `/^wi-\d+$/`.
fn is_work_item_id(id: &[u16]) -> bool {
    id.strip_prefix(&units("wi-")[..])
        .is_some_and(|d| !d.is_empty() && d.iter().all(|&u| is_ascii_digit(u)))
}

fn is_ascii_digit(u: u16) -> bool {
    (0x30..=0x39).contains(&u)
}

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// `splitResultSections`: the trimmed lines of the top block, and the trimmed body after the
/// first blank line.
fn split_sections(text: &[u16]) -> (Vec<Vec<u16>>, Vec<u16>) {
    let all = lines(text);
    let Some(first) = all.iter().position(|l| !trim(l).is_empty()) else {
        return (Vec::new(), Vec::new());
    };
    let mut top = Vec::new();
    let mut body_start = None;
    for (index, line) in all.iter().enumerate().skip(first) {
        if trim(line).is_empty() {
            body_start = Some(index + 1);
            break;
        }
        top.push(trim(line).to_vec());
    }
    let body = match body_start {
        Some(start) => trim(&join_lines(&all[start.min(all.len())..])).to_vec(),
        None => Vec::new(),
    };
    (top, body)
}

/// `lines.join("\n")`.
pub(crate) fn join_lines(lines: &[Vec<u16>]) -> Vec<u16> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push(0x0A);
        }
        out.extend_from_slice(line);
    }
    out
}

/// The part of a trimmed top-block line after `^NAME\s*:\s*` that `(.+)$` captures, trimmed: a
/// non-empty rest without a line terminator.
fn field_value(rest: &[u16]) -> Option<Vec<u16>> {
    let spaces = rest.iter().take_while(|&&u| is_space(u)).count();
    let rest = &rest[spaces..];
    if rest.first() != Some(&u16::from(b':')) {
        return None;
    }
    let value = trim(&rest[1..]);
    (!value.is_empty() && value.iter().all(|&u| is_dot(u))).then(|| value.to_vec())
}

/// `readTopBlockField`: the value of the first line naming `name`.
fn field(top: &[Vec<u16>], name: &str) -> Option<Vec<u16>> {
    top.iter()
        .find_map(|line| line.strip_prefix(&units(name)[..]).and_then(field_value))
}

/// `validateTopBlockLines`.
fn validate_top_block(top: &[Vec<u16>]) -> Result<(), ProtocolError> {
    let mut seen: Vec<&'static str> = Vec::new();
    let has_id_and_status =
        |seen: &[&str]| seen.contains(&"VVOC_WORK_ITEM_ID") && seen.contains(&"VVOC_STATUS");
    for line in top {
        let name_len = line
            .iter()
            .take_while(|&&u| (0x41..=0x5A).contains(&u) || u == 0x5F)
            .count();
        let name = &line[..name_len];
        let matched = name_len > 0 && field_value(&line[name_len..]).is_some();
        if !matched {
            if has_id_and_status(&seen) {
                return Err(missing_separator(line, top));
            }
            return Err(error(
                "UNEXPECTED_TOP_BLOCK_LINE",
                js![
                    "UNEXPECTED_TOP_BLOCK_LINE: strict top block contains a non-protocol line `",
                    &line[..],
                    "`"
                ],
            ));
        }
        let Some(known) = ["VVOC_WORK_ITEM_ID", "VVOC_STATUS", "VVOC_ROUTE"]
            .into_iter()
            .find(|k| is(name, k))
        else {
            if has_id_and_status(&seen) && !starts_with(name, "VVOC_") {
                return Err(missing_separator(line, top));
            }
            return Err(error(
                "UNEXPECTED_TOP_BLOCK_LINE",
                js![
                    "UNEXPECTED_TOP_BLOCK_LINE: strict top block field `",
                    name,
                    "` is not recognized"
                ],
            ));
        };
        if seen.contains(&known) {
            return Err(error(
                "DUPLICATE_TOP_BLOCK_FIELD",
                js![
                    "DUPLICATE_TOP_BLOCK_FIELD: strict top block repeats field `",
                    known,
                    "`"
                ],
            ));
        }
        seen.push(known);
    }
    Ok(())
}

/// `createMissingBodySeparatorMessage`.
fn missing_separator(offending: &[u16], top: &[Vec<u16>]) -> ProtocolError {
    let id = field(top, "VVOC_WORK_ITEM_ID").unwrap_or_else(|| units("wi-<n>"));
    let status = field(top, "VVOC_STATUS").unwrap_or_else(|| units("<allowed status>"));
    let route = match field(top, "VVOC_ROUTE") {
        Some(route) => js!["VVOC_ROUTE: ", &route[..]],
        None => js!["VVOC_ROUTE: <route for vv-implementer only>"],
    };
    error(
        "MISSING_BODY_SEPARATOR",
        js![
            "MISSING_BODY_SEPARATOR: strict top block contains body text before the required blank line.\nOffending line: `",
            offending,
            "`\nInsert a blank line between the protocol header and result body.\nCorrect shape:\nVVOC_WORK_ITEM_ID: ",
            &id[..],
            "\nVVOC_STATUS: ",
            &status[..],
            "\n",
            &route,
            "\n\n",
            offending
        ],
    )
}

/// `parseTaskElementEnvelope`: `<task id="…" state="…">` … `</task>`, with an inner
/// `<task_result>` wrapper stripped.
fn task_element(output: &[u16]) -> Option<Vec<u16>> {
    let all = lines(output);
    let first = all.iter().position(|l| !trim(l).is_empty())?;
    if !is_task_open_tag(trim(&all[first])) {
        return None;
    }
    let close = (first + 1..all.len()).find(|&i| is(trim(&all[i]), "</task>"))?;
    let mut inner = &all[first + 1..close];
    if let Some(inner_first) = inner.iter().position(|l| !trim(l).is_empty())
        && is(trim(&inner[inner_first]), "<task_result>")
        && let Some(inner_close) =
            (inner_first + 1..inner.len()).find(|&i| is(trim(&inner[i]), "</task_result>"))
    {
        inner = &inner[inner_first + 1..inner_close];
    }
    Some(trim(&join_lines(inner)).to_vec())
}

/// `/^<task\s+id="([^"]+)"\s+state="([^"]+)"\s*>$/`.
fn is_task_open_tag(line: &[u16]) -> bool {
    let Some(rest) = line.strip_prefix(&units("<task")[..]) else {
        return false;
    };
    let spaces = |r: &[u16]| r.iter().take_while(|&&u| is_space(u)).count();
    let quoted = |r: &[u16], name: &str| -> Option<usize> {
        // `name="` then one or more units other than `"` (newlines included), then `"`.
        let r2 = r.strip_prefix(&units(name)[..])?;
        let len = r2.iter().take_while(|&&u| u != 0x22).count();
        (len > 0 && r2.get(len) == Some(&0x22)).then_some(name.len() + len + 1)
    };
    let s = spaces(rest);
    if s == 0 {
        return false;
    }
    let rest = &rest[s..];
    let Some(n) = quoted(rest, "id=\"") else {
        return false;
    };
    let rest = &rest[n..];
    let s = spaces(rest);
    if s == 0 {
        return false;
    }
    let rest = &rest[s..];
    let Some(n) = quoted(rest, "state=\"") else {
        return false;
    };
    let rest = &rest[n..];
    let s = spaces(rest);
    is(&rest[s..], ">")
}

/// `parseResumableTaskEnvelope`: a `task_id: … (for resuming …)` line, then `<task_result>` …
/// `</task_result>` with nothing after it.
fn resumable_header(output: &[u16]) -> Option<Vec<u16>> {
    let normalized = crlf_to_lf(output);
    let all = lines(&normalized);
    let first = all.iter().position(|l| !trim(l).is_empty())?;
    if !is_resumable_line(trim(&all[first])) {
        return None;
    }
    let mut start = first + 1;
    while start < all.len() && trim(&all[start]).is_empty() {
        start += 1;
    }
    if start >= all.len() || !is(trim(&all[start]), "<task_result>") {
        return None;
    }
    let end = (start + 1..all.len()).find(|&i| is(trim(&all[i]), "</task_result>"))?;
    if all[end + 1..].iter().any(|l| !trim(l).is_empty()) {
        return None;
    }
    Some(trim(&join_lines(&all[start + 1..end])).to_vec())
}

/// `/^task_id:\s+(\S+)\s+\(for resuming to continue this task if needed\)$/`.
fn is_resumable_line(line: &[u16]) -> bool {
    let Some(rest) = line.strip_prefix(&units("task_id:")[..]) else {
        return false;
    };
    let s = rest.iter().take_while(|&&u| is_space(u)).count();
    if s == 0 {
        return false;
    }
    let rest = &rest[s..];
    let id = rest.iter().take_while(|&&u| !is_space(u)).count();
    if id == 0 {
        return false;
    }
    let rest = &rest[id..];
    let s = rest.iter().take_while(|&&u| is_space(u)).count();
    s > 0 && is(&rest[s..], "(for resuming to continue this task if needed)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn a_header_is_the_first_meaningful_line() {
        assert_eq!(
            parse_work_item_header(&u("\n  \r\nVVOC_WORK_ITEM_ID:   wi-12  \nrest"))
                .expect("the test input holds"),
            "wi-12"
        );
        let e = parse_work_item_header(&u("  \n ")).expect_err("the test input fails");
        assert_eq!(e.code, "MISSING_WORK_ITEM_HEADER");
        let e = parse_work_item_header(&u("VVOC_WORK_ITEM_ID: wi-x"))
            .expect_err("the test input fails");
        assert_eq!(
            e.message,
            "MALFORMED_WORK_ITEM_HEADER: first meaningful line must match `VVOC_WORK_ITEM_ID: wi-<n>` but received `VVOC_WORK_ITEM_ID: wi-x`"
        );
    }

    #[test]
    fn a_result_block_needs_its_fields_in_order_of_checks() {
        let ok = parse_result_block(
            Agent::Implementer,
            &u("VVOC_WORK_ITEM_ID: wi-1\nVVOC_STATUS: DONE\nVVOC_ROUTE: reviewers\n\n body \n"),
            &u("wi-1"),
        )
        .expect("the test input holds");
        assert_eq!((ok.status, ok.body.to_string().as_str()), ("DONE", "body"));
        let e = parse_result_block(
            Agent::SpecReviewer,
            &u("VVOC_WORK_ITEM_ID: wi-1\nVVOC_STATUS: DONE"),
            &u("wi-1"),
        )
        .expect_err("the test input fails");
        assert_eq!(
            e.message,
            "STATUS_NOT_ALLOWED: DONE is not allowed for vv-spec-reviewer"
        );
        let e = parse_result_block(
            Agent::SpecReviewer,
            &u("VVOC_WORK_ITEM_ID: wi-1\nVVOC_STATUS: PASS\nFindings here"),
            &u("wi-1"),
        )
        .expect_err("the test input fails");
        assert_eq!(e.code, "MISSING_BODY_SEPARATOR");
        assert!(e.message.to_string().ends_with(
            "Correct shape:\nVVOC_WORK_ITEM_ID: wi-1\nVVOC_STATUS: PASS\nVVOC_ROUTE: <route for vv-implementer only>\n\nFindings here"
        ));
        let e = parse_result_block(Agent::SpecReviewer, &u("Hello\n\nx"), &u("wi-1"))
            .expect_err("the test input fails");
        assert_eq!(
            e.message,
            "UNEXPECTED_TOP_BLOCK_LINE: strict top block contains a non-protocol line `Hello`"
        );
    }

    #[test]
    fn envelopes_unwrap_and_hard_stops_are_seen() {
        let (inner, found) = unwrap_task_result(&u(
            "<task id=\"ses_1\" state=\"completed\">\n<task_result>\nVVOC_STATUS: PASS\n</task_result>\n</task>",
        ));
        assert!(found);
        assert_eq!(String::from_utf16_lossy(&inner), "VVOC_STATUS: PASS");
        let (inner, found) = unwrap_task_result(&u(
            "task_id: ses_2 (for resuming to continue this task if needed)\n\n<task_result>\nX\n</task_result>\n",
        ));
        assert!(found);
        assert_eq!(String::from_utf16_lossy(&inner), "X");
        assert_eq!(
            explicit_hard_stop(&u("a\n VVOC_STATUS :BLOCKED.")),
            Some("BLOCKED")
        );
        assert_eq!(explicit_hard_stop(&u("VVOC_STATUS: BLOCKEDX")), None);
    }
}
