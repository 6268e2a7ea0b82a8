//! The rules of execution: every error text and every rule of how edits apply, as inventory entries.
//!
//! A rule of execution has no reject vector: scenarios pin it, and at least one mutation row that
//! breaks it must be caught by a scenario (`cargo xtask mutants --coverage` checks both).

use crate::catalog::Tool;

/// One rule of execution: its name within its tool, and what it says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecRule {
    /// The tool whose execution the rule belongs to.
    pub tool: Tool,
    /// The rule's name, as in `hashline_edit:exec:<name>`.
    pub name: &'static str,
    /// What the rule says, in one sentence (`execution.md` section first).
    pub says: &'static str,
}

/// Every rule of execution, `hashline_edit` first, each tool's in `execution.md` order.
pub fn exec_rules() -> Vec<ExecRule> {
    let hashline = HASHLINE.iter().map(|&(name, says)| ExecRule {
        tool: Tool::HashlineEdit,
        name,
        says,
    });
    let editor = EDITOR.iter().map(|&(name, says)| ExecRule {
        tool: Tool::StrReplaceEditor,
        name,
        says,
    });
    hashline.chain(editor).collect()
}

const HASHLINE: &[(&str, &str)] = &[
    (
        "invalid-input",
        "§0.1: a refused input returns `Error: ` and its one-line form, and changes nothing",
    ),
    (
        "line-hash",
        "§1.2: the line hash is XXH32 of the cleaned line, seeded 0 with a letter or digit, else by its number",
    ),
    (
        "anchor-hash",
        "§1.2: the anchor hash is XXH32 of the previous, own and next cleaned lines, seeded by the number",
    ),
    (
        "view",
        "§1.3: the anchored view canonicalizes the file and anchors each row until a U+2028 or U+2029 line",
    ),
    (
        "reference-normalization",
        "§1.4: a reference is read tolerantly: markers, spaces around `#`, `|` tails, an embedded reference",
    ),
    (
        "reference-not-a-line-number",
        "§1.4: `Invalid line reference: ... is not a line number`",
    ),
    (
        "reference-format",
        "§1.4: `Invalid line reference format: ...`",
    ),
    (
        "missing-anchor-hash",
        "§1.6: a two-part `pos` or `end` is refused with `Edit <i> <field>: anchor ... is missing the anchor hash`",
    ),
    (
        "blank-payload",
        "§1.6: a replace whose payload is one blank line is refused as ambiguous",
    ),
    (
        "embedded-newline",
        "§1.6: a list entry holding LF or CR is refused",
    ),
    (
        "replace-needs-end",
        "§1.6: a replace of several lines without `end` is refused",
    ),
    (
        "file-not-found",
        "§1.5, §1.7: an anchored edit or a delete of a missing file returns `File not found`",
    ),
    (
        "duplicates",
        "§1.9.2: an edit whose key equals an earlier one's is applied once and noted",
    ),
    (
        "order",
        "§1.9.3: edits apply bottom-up; at one line replace, then appends, then prepends, inserts in input order",
    ),
    (
        "overlapping-edits",
        "§1.9.4: replaces claiming a line twice are refused (the claim walk in double arithmetic)",
    ),
    (
        "conflicting-edits",
        "§1.9.4: an insert anchored in a replaced range or a deleted line is refused",
    ),
    (
        "out-of-bounds",
        "§1.9.5: a reference outside 1..N returns `Line number <n> out of bounds`",
    ),
    (
        "hash-mismatch",
        "§1.9.5: stale references return the mismatch text with windows of current anchors",
    ),
    (
        "payload-prefixes",
        "§1.9.6: view and diff prefixes copied into the payload are stripped by majority",
    ),
    (
        "replace",
        "§1.9.7: a replace swaps one line for at most one line, or deletes it",
    ),
    (
        "invalid-range",
        "§1.9.7: a range whose start is after its end returns `Invalid range`",
    ),
    (
        "range-echoes",
        "§1.9.7: a longer range payload loses exact echoes of the lines around the range, with a warning",
    ),
    (
        "insert-echoes",
        "§1.9.7: an anchored insert loses a payload line equal to its anchor line, with a warning",
    ),
    (
        "insert-needs-text",
        "§1.9.7: an anchored insert left without lines returns `<op> (anchored) requires non-empty text`",
    ),
    (
        "duplicate-block",
        "§1.9.7: an insert equal to the lines already beside its anchor is applied with a warning",
    ),
    (
        "unanchored-inserts",
        "§1.9.7: un-anchored appends go before the final empty line, prepends to the front",
    ),
    (
        "unanchored-needs-text",
        "§1.9.7: an un-anchored insert without lines returns `<op> requires non-empty text`",
    ),
    (
        "no-change",
        "§1.10: a batch that changes nothing returns `No changes made`, with the no-op count",
    ),
    (
        "line-endings",
        "§1.8: CRLF and lone CR become LF for editing, and the first LF's style is restored on write",
    ),
    (
        "bom",
        "§1.8: one leading BOM is set aside for editing and restored on write",
    ),
    (
        "create",
        "§1.7: un-anchored inserts create a missing file and its directories, without a final LF",
    ),
    (
        "delete",
        "§1.7: `delete` removes an existing file, never a directory",
    ),
    (
        "rename",
        "§1.10: a rename writes the target, creating directories, and removes the source; the same path is no move",
    ),
    (
        "rename-target-exists",
        "§1.10: a move onto an existing file is refused",
    ),
    (
        "runtime-error",
        "§1.10: a failed write returns the runtime's `<CODE>: <description>, open '<path>'`",
    ),
    (
        "headline",
        "§1.11: the success text starts `Updated` or `Moved`, with `+a/-d` and the first change line",
    ),
    (
        "diff-rows",
        "§1.11: the diff summary strips the common prefix and suffix and reads trailing context in the new lines",
    ),
    (
        "diff-cap",
        "§1.11: a summary of more than 40 rows keeps 39 and counts the rest",
    ),
];

const EDITOR: &[(&str, &str)] = &[
    (
        "invalid-input",
        "§0.1: a refused input returns `Error: ` and its one-line form, and changes nothing",
    ),
    (
        "relative-path",
        "§2.2: a path not starting with `/` returns the absolute-path hint",
    ),
    (
        "does-not-exist",
        "§2.3, §2.6, §2.7: a missing path returns `The path <path> does not exist`",
    ),
    (
        "view-file",
        "§2.3: a file view numbers every LF piece in six columns under a header",
    ),
    (
        "view-range",
        "§2.3: `view_range` shows lines a to b, or a to the end for -1, and says so in the header",
    ),
    (
        "view-range-start",
        "§2.3: a range starting after the last line is refused",
    ),
    (
        "view-range-end",
        "§2.3: a range ending after the last line is refused",
    ),
    (
        "view-clip",
        "§2.3, §2.4: a view longer than 16,000 units is cut and marked",
    ),
    (
        "listing",
        "§2.4: a directory lists two levels, skips hidden and cache names, sorts by UTF-16 units",
    ),
    (
        "listing-range",
        "§2.4: `view_range` on a directory is refused",
    ),
    ("is-directory", "§2.6, §2.7: editing a directory is refused"),
    (
        "create",
        "§2.5: `create` writes the text as it is and records the file",
    ),
    (
        "file-exists",
        "§2.5: `create` over an existing path is refused",
    ),
    (
        "raised",
        "§2.8: a failed write raises the runtime's message",
    ),
    (
        "freshness",
        "§2.1: a file changed since the session's last view, create or edit is refused until viewed again",
    ),
    (
        "str-replace",
        "§2.6: the one occurrence of `old_str` is replaced verbatim, no line-ending normalization",
    ),
    ("no-occurrence", "§2.6: `old_str` not found is refused"),
    (
        "multiple-occurrences",
        "§2.6: several non-overlapping occurrences are refused with their line numbers",
    ),
    (
        "insert",
        "§2.7: `insert` puts the LF pieces of `new_str` after piece n",
    ),
    (
        "insert-line-range",
        "§2.7: an `insert_line` past the last piece is refused",
    ),
];
