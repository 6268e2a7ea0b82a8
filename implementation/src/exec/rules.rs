//! The rules of execution: every error text and every rule of how edits apply or how the web tools
//! run, as inventory entries.
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

/// Every rule of execution: `hashline_edit`, `str_replace_editor` (in `execution.md` order), then
/// `web_search` and `web_fetch` (in the order of `execution-web.md` §6), then the five workflow
/// tools (in the order of `execution-workflow.md` §10).
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
    let search = WEB_SEARCH.iter().map(|&(name, says)| ExecRule {
        tool: Tool::WebSearch,
        name,
        says,
    });
    let fetch = WEB_FETCH.iter().map(|&(name, says)| ExecRule {
        tool: Tool::WebFetch,
        name,
        says,
    });
    let workflow = [
        (Tool::WorkItemOpen, WORK_ITEM_OPEN),
        (Tool::WorkItemList, WORK_ITEM_LIST),
        (Tool::WorkItemClose, WORK_ITEM_CLOSE),
        (Tool::WorkItemDecide, WORK_ITEM_DECIDE),
        (Tool::WorkCheckpoint, WORK_CHECKPOINT),
    ]
    .into_iter()
    .flat_map(|(tool, rules)| {
        rules
            .iter()
            .map(move |&(name, says)| ExecRule { tool, name, says })
    });
    hashline
        .chain(editor)
        .chain(search)
        .chain(fetch)
        .chain(workflow)
        .collect()
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

/// `execution-web.md` §6.1.
const WEB_SEARCH: &[(&str, &str)] = &[
    (
        "invalid-input",
        "§0.2: a refused input raises `INVALID_INPUT: <parts>`, with no ask and no request",
    ),
    (
        "config-defaults",
        "§1.1: the provider defaults to `exa`, and the region and keys are read only for the provider that uses them",
    ),
    (
        "credential-source",
        "§1.2: a non-empty environment variable wins over the config key, the source is `env` or `config`, and empty counts as unset",
    ),
    (
        "region-required",
        "§1.3: `web.search.region is required when provider is zai`",
    ),
    (
        "endpoint",
        "§1.4: upstream's URLs are used by default, a configured endpoint is used as given, and the Z.AI engine follows the region",
    ),
    (
        "missing-credential",
        "§1.5: `missing credential for <p>: set <VAR> or web.search.apiKey`, after the ask",
    ),
    (
        "request-defaults",
        "§2.1: the runtime's default headers (`User-Agent: Bun/1.3.8`, `Accept`, `Accept-Encoding`) are sent and the content is decoded",
    ),
    (
        "redirect",
        "§2.2: redirects are followed (at most 20) and the texts name the requested URL",
    ),
    (
        "timeout",
        "§2.3, §2.5: a fixed 30000 ms covers the headers and the body and raises `request timed out after 30000ms`",
    ),
    (
        "abort",
        "§2.3, §2.5: the caller's abort is chained and raises `request aborted by caller`; the timer wins over an abort",
    ),
    ("oversized", "§2.4: `response body exceeded 5242880 bytes`"),
    (
        "network-error",
        "§2.5: `network error: <runtime text>`, Bun's `Unable to connect. Is the computer able to access the url?`",
    ),
    (
        "auth-failed",
        "§2.6: a 401 or 403 raises `<p> authentication failed`",
    ),
    (
        "rate-limited",
        "§2.6: a 429 raises `<p> rate limit exceeded`",
    ),
    (
        "provider-error",
        "§2.6: any other non-2xx status raises `<p> server error HTTP <status>`",
    ),
    (
        "ask",
        "§3.1: `context.ask` with the `web_search` permission, the query and the provider comes before anything else, and a host refusal propagates",
    ),
    (
        "dispatch",
        "§3.1: one request goes to the configured provider, with no retry",
    ),
    (
        "count-unenforced",
        "§3.1: `count` is sent but every normalized result is rendered",
    ),
    (
        "exa-request",
        "§3.2: Exa gets a `POST` with `x-api-key`, `content-type` and `accept`, and the body's members in order",
    ),
    (
        "exa-freshness",
        "§3.2: `startPublishedDate` is `now − days × 86400000` as `YYYY-MM-DDTHH:mm:ss.sssZ`, for 1, 7, 31 or 365 days",
    ),
    (
        "exa-malformed-json",
        "§3.2: `malformed JSON response from exa`",
    ),
    (
        "exa-bad-envelope",
        "§3.2: `unexpected exa response envelope`",
    ),
    (
        "exa-result",
        "§3.2: an Exa result without a non-empty `url` is dropped, the title falls back, the first string highlight and `publishedDate` are kept",
    ),
    (
        "brave-request",
        "§3.3: Brave gets a `GET` with `q`, `count` and `safesearch=moderate` form-encoded and the headers `X-Subscription-Token` and `accept`",
    ),
    (
        "brave-freshness",
        "§3.3: `freshness` is `pd`, `pw`, `pm` or `py`",
    ),
    (
        "brave-malformed-json",
        "§3.3: `malformed JSON response from brave`",
    ),
    (
        "brave-bad-envelope",
        "§3.3: `unexpected brave response envelope`, also when `web` is missing",
    ),
    (
        "brave-result",
        "§3.3: a Brave result without a non-empty `url` is dropped, and `description` and `page_age` are kept",
    ),
    (
        "zai-search-request",
        "§3.4: Z.AI search gets a `POST` with `Authorization: Bearer` and the body `search_engine`, `search_query`, `count`",
    ),
    (
        "zai-search-freshness",
        "§3.4: `search_recency_filter` is `oneDay`, `oneWeek`, `oneMonth` or `oneYear`",
    ),
    (
        "zai-search-malformed-json",
        "§3.4: `malformed JSON response from zai search`",
    ),
    (
        "zai-search-bad-envelope",
        "§3.4: `unexpected zai search response envelope`",
    ),
    (
        "zai-search-result",
        "§3.4: a Z.AI result without a non-empty `link` is dropped, and `content` and `publish_date` are kept",
    ),
    (
        "render-empty",
        "§3.5: no results render as `No results found.`",
    ),
    (
        "render-entry",
        "§3.5: each result renders as `<i>. [<title>](<url>)`, `   <snippet>`, `   _<publishedAt>_`, joined by single LFs, unescaped",
    ),
    ("result-title", "§3.6: the title is `web_search: <query>`"),
    (
        "result-metadata",
        "§3.6: the metadata holds `provider`, `region` (zai only), `resultCount` and `credentialSource`, in that order",
    ),
];

/// `execution-web.md` §6.2.
const WEB_FETCH: &[(&str, &str)] = &[
    (
        "invalid-input",
        "§0.2: a refused input raises `INVALID_INPUT: <parts>`, with no ask and no request",
    ),
    (
        "config-defaults",
        "§1.1: the provider defaults to `native`, and the region and key are read only for the provider that uses them",
    ),
    (
        "credential-source",
        "§1.2: a non-empty environment variable wins over the config key, and the source is `env` or `config`",
    ),
    (
        "region-required",
        "§1.3: `web.fetch.region is required when provider is zai`",
    ),
    (
        "endpoint",
        "§1.4: upstream's Spider and Z.AI reader URLs are used by default, configurable, and the region picks the reader",
    ),
    (
        "missing-credential-spider",
        "§1.5: `missing credential for spider: set SPIDER_API_KEY or web.fetch.apiKey`, after the ask",
    ),
    (
        "missing-credential-zai",
        "§1.5: `missing credential for zai: set ZAI_API_KEY or web.fetch.apiKey`, after the ask",
    ),
    (
        "request-defaults",
        "§2.1: the runtime's default headers are sent, the content is decoded, and the `url` string goes to the parser as it is",
    ),
    (
        "redirect",
        "§2.2: redirects are followed, the title and texts keep the requested URL, and the file name uses the final URL",
    ),
    (
        "timeout",
        "§2.3, §4.1: each request has `timeoutMs = timeout × 1000` and raises `request timed out after <ms>ms`",
    ),
    (
        "abort",
        "§2.3, §2.5: the caller's abort covers every request of the call and raises `request aborted by caller`",
    ),
    (
        "oversized",
        "§2.4: `response body exceeded <max> bytes`, 20971520 for the target and 5242880 for a provider API",
    ),
    (
        "http-error",
        "§2.5: `HTTP <status> for <url>` from the native request or a media probe, unmapped",
    ),
    ("network-error", "§2.5: `network error: <runtime text>`"),
    (
        "auth-failed",
        "§2.6: a Spider or Z.AI 401 or 403 raises `<p> authentication failed`",
    ),
    (
        "rate-limited",
        "§2.6: a Spider or Z.AI 429 raises `<p> rate limit exceeded`",
    ),
    (
        "provider-error",
        "§2.6: any other Spider or Z.AI non-2xx status raises `<p> server error HTTP <status>`",
    ),
    (
        "ask",
        "§4.1: `context.ask` with the `web_fetch` permission, the URL, the provider and the format comes first",
    ),
    (
        "dispatch",
        "§4.1: native runs without a credential, spider and zai after the credential check",
    ),
    (
        "media-sniff",
        "§4.2: the magic bytes of JPEG, PNG, GIF, WEBP and PDF are tried in that order",
    ),
    (
        "declared-type",
        "§4.2: the `content-type` is cut at `;`, trimmed and lowercased, and an empty one is none",
    ),
    (
        "media-precedence",
        "§4.2: the sniffed type wins over the declared one, which counts only among the five media types",
    ),
    (
        "attachment",
        "§4.3: the attachment is `{type:\"file\", mime, url:\"data:<mime>;base64,<b64>\", filename}`",
    ),
    (
        "filename-basename",
        "§4.3: a last path segment with a `.` is the file name as it is",
    ),
    (
        "filename-extension",
        "§4.3: a last path segment without a `.` gets the type's extension",
    ),
    (
        "filename-resource",
        "§4.3: an empty last path segment gives `resource<ext>`",
    ),
    (
        "media-summary",
        "§4.3: the summary is ``Fetched `<filename>` as a <mime> attachment.``",
    ),
    (
        "native-request",
        "§4.4: native sends `GET <url>` with no own headers and a 20 MiB cap, its errors unmapped",
    ),
    (
        "native-media",
        "§4.4: sniffed or declared media becomes an attachment",
    ),
    (
        "text-like",
        "§4.4: no type, `text/*`, the five structured types, `+json` and `+xml` are text",
    ),
    (
        "text-oversized",
        "§4.4: `text response exceeded 5242880 bytes`",
    ),
    (
        "decode",
        "§4.4, §0.3: text is decoded as UTF-8 with replacement, the BOM removed and the charset ignored",
    ),
    (
        "unsupported-type",
        "§4.4: `unsupported content type: <type>`",
    ),
    (
        "html-declared",
        "§4.4: `text/html` and `application/xhtml+xml` are HTML",
    ),
    (
        "html-sniff",
        "§4.4: without a declared type, the tag pattern on the first 2,000 units tells HTML",
    ),
    (
        "html-raw",
        "§4.4: HTML with `format` `html` is returned unchanged",
    ),
    (
        "non-html-raw",
        "§4.4: non-HTML text is returned unchanged whatever the format",
    ),
    (
        "html-empty",
        "§4.5, §4.6: empty or whitespace-only HTML converts to the empty string",
    ),
    (
        "html-markdown",
        "§4.5: Markdown is turndown 7.2.4's with atx headings, fenced code and `-` bullets, script and style removed, trimmed",
    ),
    (
        "html-text",
        "§4.6: text is htmlparser2's text outside script and style, entities decoded, whitespace collapsed, trimmed",
    ),
    (
        "spider-probe-media",
        "§4.7: a probe that finds media gives the attachment, and Spider is not called",
    ),
    (
        "spider-probe-continue",
        "§4.7: a probe that finds no media goes on to call Spider",
    ),
    (
        "spider-probe-error",
        "§4.7: a probe failure (HTTP, size, timeout, network) propagates, and Spider is not called",
    ),
    (
        "spider-request",
        "§4.7: Spider gets a `POST` with `Authorization: Bearer` and the body `url`, `return_format` (`markdown`, `text` or `raw`)",
    ),
    (
        "spider-malformed-json",
        "§4.7: `malformed JSON response from spider`",
    ),
    (
        "spider-bad-envelope",
        "§4.7: `unexpected spider response envelope`",
    ),
    (
        "spider-metadata",
        "§4.7: Spider's `status` and `durationMs` (from `duration`) are kept when numbers",
    ),
    ("spider-error", "§4.7: `spider error: <error>`"),
    (
        "spider-error-default",
        "§4.7: a truthy non-string error raises `spider error: scrape failed`",
    ),
    (
        "spider-missing-content",
        "§4.7: `spider response missing content`",
    ),
    (
        "zai-probe-media",
        "§4.8: a probe that finds media gives the attachment, and the reader is not called",
    ),
    (
        "zai-probe-continue",
        "§4.8: a probe that finds no media goes on to call the reader",
    ),
    (
        "zai-probe-error",
        "§4.8: a probe failure propagates, and the reader is not called",
    ),
    (
        "zai-reader-request",
        "§4.8: the reader gets a `POST` with `Authorization: Bearer` and the body `url`, `timeout` (seconds), `return_format`",
    ),
    (
        "zai-reader-malformed-json",
        "§4.8: `malformed JSON response from zai reader`",
    ),
    (
        "zai-reader-bad-envelope",
        "§4.8: `unexpected zai reader response envelope`",
    ),
    (
        "zai-reader-metadata",
        "§4.8: the reader's `status`, `requestId`, `model`, `created` and `title` are kept",
    ),
    (
        "result-title",
        "§4.9: the title is `web_fetch: <url>` with the requested URL",
    ),
    (
        "result-text",
        "§4.9: a text result is `{title, output, metadata}`",
    ),
    (
        "result-media",
        "§4.9: a media result is `{title, output: summary, attachments: [one], metadata}`",
    ),
    (
        "metadata-native",
        "§4.9: native metadata holds `provider`, `format` and `status`",
    ),
    (
        "metadata-spider",
        "§4.9: Spider metadata holds `provider`, `format`, `credentialSource`, then Spider's members (text only)",
    ),
    (
        "metadata-zai",
        "§4.9: Z.AI metadata holds `provider`, `region`, `format`, `credentialSource`, then the reader's members (text only)",
    ),
];

// The workflow tools' rules, `execution-workflow.md` §10 (its tables name these, in order).

const WORK_ITEM_OPEN: &[(&str, &str)] = &[
    (
        "agent-gate",
        "§1.2: `WORKFLOW_TOOL_DENIED: work_item_open is only available to vv-controller sessions. Current agent: <agent>.`; nothing hydrated",
    ),
    (
        "open-id",
        "§3.1: `wi-<n>` from 1 per session, persisted, never reused; reuse and refusal consume none",
    ),
    ("open-header", "§3.1: `VVOC_WORK_ITEM_ID: wi-<n>`"),
    (
        "open-reviewer-order",
        "§3.5: reviewers stored and shown `spec` before `code`",
    ),
    (
        "open-initial-state",
        "§3.5: `open`; `review_only` `awaiting_reviews` with round 1; delegated state with empty ledgers",
    ),
    (
        "open-reuse",
        "§3.5: same trimmed key and intent → `reused: true` with the current record, whatever its state",
    ),
    (
        "open-key-conflict",
        "§3.5: `WORK_ITEM_KEY_CONFLICT: key <key> is already associated with different workflow intent`, `existingWorkItemId`; writeScope order counts",
    ),
    (
        "open-result",
        "§3.5: `{tool, sessionId, items}`, no `ok`; success items `ok, reused, view`; failure items normalized",
    ),
    (
        "excerpt",
        "§3.3: CRLF→LF, trim, none when empty, 500-unit cut, `{source, text, truncated, originalLength, maxLength}`",
    ),
    (
        "round-create",
        "§3.4: round `completedReviewRoundCount + 1`, reviewers pending, `active`",
    ),
    ("result-serialize", "§4.1: `JSON.stringify(value, null, 2)`"),
    (
        "result-finalize",
        "§4.2: failures and batch-item failures rebuilt; successes untouched",
    ),
    (
        "store-session",
        "§2.1: one store per session; ids, keys, call ids are per session",
    ),
    (
        "store-path",
        "§2.1: `<data>/workflow/<S>/workflow-state.json`",
    ),
    (
        "store-file",
        "§2.3: version 4; `version, updatedAt, sessionId, nextId, records, keyIndex, planRuns, executions, messageClaims`",
    ),
    ("store-when", "§2.5: which events write the file"),
    (
        "store-write",
        "§2.6: temporary file then rename; failures ignored by open, close, hooks",
    ),
    (
        "task-tracked",
        "§6.1: only `task` with a tracked trimmed `subagent_type`",
    ),
    (
        "task-header",
        "§6.2: `MISSING_WORK_ITEM_HEADER: …`, ``MALFORMED_WORK_ITEM_HEADER: … `<line>` ``",
    ),
    (
        "launch-header",
        "§6.3: `LAUNCH_REJECTED_MISSING_HEADER: <header message>`",
    ),
    (
        "launch-unknown",
        "§6.3: `__VVOC_SECRET_BEARER_TOKEN_a6f582092f05__ LAUNCH_REJECTED_UNKNOWN_WORK_ITEM: …` for missing or closed items",
    ),
    (
        "launch-round-limit",
        "§6.3, §6.6: `LAUNCH_REJECTED_ROUND_LIMIT: …` when `completedReviewRoundCount + 1 > 2`, before the state check",
    ),
    (
        "launch-transition",
        "§6.3: `__VVOC_SECRET_BEARER_TOKEN_513fa2de603d__ LAUNCH_REJECTED_INVALID_TRANSITION: <id> in state <state> only allows <agents>. <message>`",
    ),
    (
        "launch-allowed",
        "§6.3: allowed agents per mode, state and pending reviewers",
    ),
    (
        "launch-begin",
        "§6.3: reviewer launch checks in order; pending → in flight",
    ),
    (
        "launch-delegated",
        "§6.3, §6.7: `LAUNCH_REJECTED_DELEGATED_<code>: <message>`",
    ),
    (
        "launch-write",
        "§6.3: an accepted tracked launch writes the file",
    ),
    (
        "result-header",
        "§6.4: `RESULT_PROTOCOL_ERROR: <header message>`, no write",
    ),
    (
        "result-not-string",
        "§6.4: `RESULT_PROTOCOL_ERROR: tracked task output must be a string` after revert",
    ),
    (
        "result-protocol-error",
        "§6.4, §6.8: `RESULT_PROTOCOL_ERROR: <message>` + settlement lines + excerpt lines",
    ),
    (
        "result-unknown",
        "§6.4: `RESULT_PROTOCOL_ERROR: no open work item <id> exists in this session` + excerpt lines",
    ),
    (
        "result-state",
        "§6.4, §6.6: `RESULT_PROTOCOL_ERROR: <state refusal>` + excerpt lines, after revert",
    ),
    (
        "result-write",
        "§6.4: an applied result writes before any hard stop",
    ),
    (
        "result-revert",
        "§6.4: in-flight reviewer back to pending (sorted), then write",
    ),
    (
        "result-excerpt-lines",
        "§6.4: `Result excerpt: <empty>` / `Result excerpt (<source>[, truncated to 500 of <n> characters]):` + LF + text",
    ),
    (
        "task-unwrap",
        "§6.4: `<task …>` element, then `task_id:` header envelope, else unchanged",
    ),
    (
        "task-hard-stop-line",
        "§6.4: `^\\s*VVOC_STATUS\\s*:\\s*(BLOCKED|NEEDS_CONTEXT)\\b` on any line",
    ),
    (
        "task-result-block",
        "§6.5: split, top-block line checks, field checks, their messages in order",
    ),
    (
        "result-implementer",
        "§6.6: DONE/DONE_WITH_CONCERNS → new round; NEEDS_CONTEXT/BLOCKED → state and excerpt; `INVALID_RESULT_AGENT`",
    ),
    (
        "result-reviewer",
        "§6.6: reviewer result checks; result recorded; counts",
    ),
    (
        "round-settle",
        "§6.6: settlement and the mode-specific state",
    ),
    (
        "result-hard-stop",
        "§6.6: `RESULT_HARD_STOP: …` four lines, recovery context choice",
    ),
    (
        "attempt-allocate",
        "§6.7: attempt `{attempt, callId, launchedAt, status}`, state `awaiting_implementer`",
    ),
    (
        "attempt-call-id",
        "§6.7: `CALL_ID_REUSED: callID <callId> is already bound to a delegated attempt in session <sid>`",
    ),
    (
        "attempt-result",
        "§6.7: completed attempt, record excerpt, `awaiting_acceptance`/`needs_context`/`blocked`",
    ),
    (
        "attempt-stale",
        "§6.7: `STALE_CALLBACK: <callId> does not match the in-flight attempt <callId or (none)> for <id>`",
    ),
    (
        "report-rejected",
        "§6.8: delegated in-flight attempt settled `report_rejected`; hard-stop line decides the state",
    ),
    (
        "attempt-failed",
        "§6.9: `message.part.updated` host failure → `failed` attempt, eligibility and taints",
    ),
    (
        "attempt-budget",
        "§6.10, §6.7: 2 + reworks + grants; `ATTEMPTS_EXHAUSTED: <id> consumed <a> of <b> allowed attempts; …`",
    ),
];

const WORK_ITEM_LIST: &[(&str, &str)] = &[
    (
        "agent-gate",
        "§1.2: `WORKFLOW_TOOL_DENIED: work_item_list is only available to vv-controller sessions. Current agent: <agent>.`",
    ),
    (
        "list-items",
        "§3.7: open items (closed with `includeClosed`) by numeric id",
    ),
    (
        "list-contract",
        "§3.7: `packageName`, `packageVersion` `1.6.0`, `toolContractRevision` `1`, `referencePath` in that order",
    ),
    (
        "list-reference-path",
        "§3.7: `<packageRoot>/templates/skills/vv-execute/references/tool-contracts.md`",
    ),
    (
        "view-order",
        "§4.6: the 17 view members in order; round results `spec`, `code`",
    ),
    (
        "view-delegated",
        "§4.7: the delegated view members in order",
    ),
    (
        "view-next-action",
        "§4.7: `summarizeDelegatedProgress` order",
    ),
    (
        "view-guidance",
        "§4.7: blockers, `launch_blocked`, prerequisite texts, `launchEligible`, `requiresConcernsDisposition`",
    ),
    (
        "store-lazy",
        "§2.2: hydrate at first use; missing file → fresh store; never written by hydration",
    ),
    ("store-validate", "§2.7: what makes a file invalid"),
    (
        "store-migrate",
        "§2.7: versions 1-3 read and written back as 4",
    ),
    (
        "store-invalid",
        "§2.8: invalid file: empty store, never overwritten, list empty without error",
    ),
    (
        "store-raises",
        "§2.7, §2.8: a file whose wrongly typed member upstream's loader reads without a check raises the engine's message (Bun 1.3.8) at every use of the session, which keeps no store; the file is left as it is",
    ),
    (
        "store-revert-inflight",
        "§2.9: in-flight delegated attempts removed on hydration, state `open`/`awaiting_implementer`",
    ),
];

const WORK_ITEM_CLOSE: &[(&str, &str)] = &[
    (
        "agent-gate",
        "§1.2: `WORKFLOW_TOOL_DENIED: work_item_close is only available to vv-controller sessions. Current agent: <agent>.`",
    ),
    (
        "close-not-found",
        "§3.6: `WORK_ITEM_NOT_FOUND: no work item <id> for session <sid>`",
    ),
    (
        "close-already-closed",
        "§3.6: `WORK_ITEM_ALREADY_CLOSED: <id> is already closed`",
    ),
    (
        "close-not-ready",
        "§3.6: `READY_TO_CLOSE_REQUIRED: <id> is <state> and cannot be closed`",
    ),
    (
        "close-ready",
        "§3.6: `closed`, `closedAt` = `updatedAt` = now",
    ),
    (
        "close-result",
        "§3.6: `{tool, sessionId, ok, workItemId, header, state, closedAt}`",
    ),
    (
        "close-failure",
        "§3.6: failure with owned context; the file is written anyway",
    ),
    (
        "failure-order",
        "§4.2: the 22 failure members in order; unknown members dropped",
    ),
    ("failure-bounds", "§4.2: 200 / 1,800 unit bounds with `…`"),
    ("failure-guidance", "§4.3: the guidance table"),
    (
        "failure-category",
        "§4.4: the category sets; `state` by default",
    ),
    (
        "failure-context",
        "§4.5: `state`, `pendingReviewers`, delegated budget/attempt, `ownedPrerequisite`",
    ),
];

const WORK_ITEM_DECIDE: &[(&str, &str)] = &[
    (
        "control-agent",
        "§1.3: `CONTROL_DENIED: work_item_decide is only available to vv-controller sessions. Current agent: <agent>.`",
    ),
    (
        "control-workspace",
        "§1.3: worktree / directory mismatch texts",
    ),
    (
        "control-invalid-state",
        "§1.3: `PERSISTENCE_FAILED: persisted workflow state for session <sid> is invalid; resolve or remove it before new control mutations.`",
    ),
    (
        "control-host-context",
        "§1.3: `HOST_CONTEXT_UNAVAILABLE: … could not be verified: <reason>`",
    ),
    (
        "control-root-session",
        "§1.3: `CONTROL_DENIED: … may only run in the root session; session <sid> is a child of <parent>.`",
    ),
    (
        "decide-not-found",
        "§5.2: `WORK_ITEM_NOT_FOUND: no work item <id> for session <sid>`",
    ),
    (
        "decide-closed",
        "§5.2: `WORK_ITEM_ALREADY_CLOSED: <id> is already closed`",
    ),
    (
        "decide-wrong-mode",
        "§5.2: `WRONG_MODE: <id> is <mode>; only delegated items receive controller decisions`",
    ),
    (
        "decide-invalid-state",
        "§5.2: `INVALID_STATE: <id> is <state>, not awaiting_acceptance`",
    ),
    (
        "decide-attempt",
        "§5.2: `INVALID_ATTEMPT: decision targets attempt <a> but the current completed attempt is <n>`",
    ),
    (
        "decide-concerns-required",
        "§5.2: `CONCERNS_DISPOSITION_REQUIRED: …`",
    ),
    (
        "decide-concerns-unexpected",
        "§5.2: `UNEXPECTED_CONCERNS_DISPOSITION: …`",
    ),
    (
        "decide-accept",
        "§5.3: decision and acceptance recorded, `ready_to_close`",
    ),
    (
        "decide-request-changes",
        "§5.3: decision recorded, `awaiting_implementer`",
    ),
    (
        "decide-result",
        "§5.3: `{tool, sessionId, ok, action, workItemId, attempt, decisionId, state}`; `dec-<id>-a<n>`",
    ),
    (
        "decide-persist",
        "§5.4: write on success; `PERSISTENCE_FAILED: decision applied in memory but could not be persisted: <error>`",
    ),
    (
        "decide-recover",
        "§7.1: `recover`: checks in order (input, item, mode, acceptance, live attempt, stopped or exhausted, target, attempt, recovery id), `resume` with budget left, a user grant's message not found, the autonomous grant once, `AUTONOMOUS_GRANT_EXHAUSTED`; an authority the session does not have; written, rolled back on a failed write",
    ),
    (
        "decide-rework",
        "§7.1: `rework` naming a plan run the session does not have: `RUN_NOT_FOUND: <runId>` with the item's live context",
    ),
];

const WORK_CHECKPOINT: &[(&str, &str)] = &[
    (
        "control-agent",
        "§1.3: `CONTROL_DENIED: work_checkpoint is only available to vv-controller sessions. Current agent: <agent>.`",
    ),
    (
        "control-workspace",
        "§1.3: worktree / directory mismatch texts",
    ),
    (
        "control-invalid-state",
        "§1.3: invalid file refuses every action",
    ),
    (
        "control-host-context",
        "§1.3: `HOST_CONTEXT_UNAVAILABLE: work_checkpoint requires root-session identity for <sid>, …`",
    ),
    ("control-root-session", "§1.3: child sessions refused"),
    (
        "checkpoint-unknown-run",
        "§7.2: a run the session does not have: `EXECUTION_NOT_FOUND` (`no execution <runId>`, with `runId`) for generic and authority actions, `RUN_NOT_FOUND: <runId>` for `start` and `verify`",
    ),
];
