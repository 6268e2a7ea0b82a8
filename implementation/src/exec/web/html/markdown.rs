//! `markdown`: turndown 7.2.4 as upstream sets it up (atx headings, fenced code, `-` bullets, script and style removed).

use super::dom::{Dom, Id, Kind};
use super::js;

/// turndown threw: the document's root element was not in the parsed document (a `<frameset>`
/// replaced the body). The text is the `TypeError` message Bun 1.3.8 gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thrown(pub &'static str);

/// The message of the error turndown throws when its root element is missing.
const NO_ROOT: &str = "null is not an object (evaluating 'element.firstChild')";

/// Elements turndown treats as blocks (`blockElements`).
const BLOCK: &[&str] = &[
    "ADDRESS",
    "ARTICLE",
    "ASIDE",
    "AUDIO",
    "BLOCKQUOTE",
    "BODY",
    "CANVAS",
    "CENTER",
    "DD",
    "DIR",
    "DIV",
    "DL",
    "DT",
    "FIELDSET",
    "FIGCAPTION",
    "FIGURE",
    "FOOTER",
    "FORM",
    "FRAMESET",
    "H1",
    "H2",
    "H3",
    "H4",
    "H5",
    "H6",
    "HEADER",
    "HGROUP",
    "HR",
    "HTML",
    "ISINDEX",
    "LI",
    "MAIN",
    "MENU",
    "NAV",
    "NOFRAMES",
    "NOSCRIPT",
    "OL",
    "OUTPUT",
    "P",
    "PRE",
    "SECTION",
    "TABLE",
    "TBODY",
    "TD",
    "TFOOT",
    "TH",
    "THEAD",
    "TR",
    "UL",
];

/// Void elements (`voidElements`).
const VOID: &[&str] = &[
    "AREA", "BASE", "BR", "COL", "COMMAND", "EMBED", "HR", "IMG", "INPUT", "KEYGEN", "LINK",
    "META", "PARAM", "SOURCE", "TRACK", "WBR",
];

/// Elements that are kept when blank (`meaningfulWhenBlankElements`).
const MEANINGFUL_WHEN_BLANK: &[&str] = &[
    "A", "TABLE", "THEAD", "TBODY", "TFOOT", "TH", "TD", "IFRAME", "SCRIPT", "AUDIO", "VIDEO",
];

/// `convertHtmlToMarkdown`: empty for a blank document, else turndown's output, trimmed.
///
/// # Errors
///
/// [`Thrown`] where turndown throws (its root element was dropped from the document).
pub fn to_markdown(html: &str) -> Result<String, Thrown> {
    if js::trim(html).is_empty() {
        return Ok(String::new());
    }
    let wrapped = format!("<x-turndown id=\"turndown-root\">{html}</x-turndown>");
    let (mut dom, root) = Dom::parse(&wrapped, "turndown-root");
    let root = root.ok_or(Thrown(NO_ROOT))?;
    collapse_whitespace(&mut dom, root);
    let output = process(&dom, root);
    // postProcess: the reference-link rule's (empty) appendix joined, then the ends trimmed.
    let output = join(&output, "");
    let output = output.trim_start_matches(['\t', '\r', '\n']);
    let output = output.trim_end_matches(|c| matches!(c, '\t' | '\r' | '\n') || js::is_space(c));
    Ok(js::trim(output).to_owned())
}

fn is_in(dom: &Dom, node: Id, names: &[&str]) -> bool {
    names.contains(&dom.name(node))
}

fn is_block(dom: &Dom, node: Id) -> bool {
    is_in(dom, node, BLOCK)
}

fn is_pre(dom: &Dom, node: Id) -> bool {
    dom.name(node) == "PRE"
}

/// `collapseWhitespace`: whitespace runs outside `<pre>` collapsed, as turndown's walk does it
/// (including its revisits of a parent after removing its last child).
fn collapse_whitespace(dom: &mut Dom, element: Id) {
    if dom.nodes[element].first_child.is_none() || is_pre(dom, element) {
        return;
    }
    let mut prev_text: Option<Id> = None;
    let mut keep_leading_ws = false;
    let mut prev: Option<Id> = None;
    let mut node = next(dom, prev, element);
    while node != element {
        match &dom.nodes[node].kind {
            Kind::Text(data) => {
                let mut text = collapse_runs(data);
                let prev_ends_in_space =
                    prev_text.is_none_or(|p| dom.text(p).is_some_and(|d| d.ends_with(' ')));
                if prev_ends_in_space && !keep_leading_ws && text.starts_with(' ') {
                    text.remove(0);
                }
                if text.is_empty() {
                    node = remove(dom, node);
                    continue;
                }
                dom.set_text(node, text);
                prev_text = Some(node);
            }
            Kind::Element { name, .. } => {
                if is_block(dom, node) || name == "BR" {
                    if let Some(p) = prev_text {
                        strip_trailing_space(dom, p);
                    }
                    prev_text = None;
                    keep_leading_ws = false;
                } else if is_in(dom, node, VOID) || is_pre(dom, node) {
                    prev_text = None;
                    keep_leading_ws = true;
                } else if prev_text.is_some() {
                    keep_leading_ws = false;
                }
            }
            Kind::Other => {
                node = remove(dom, node);
                continue;
            }
        }
        let next_node = next(dom, prev, node);
        prev = Some(node);
        node = next_node;
    }
    if let Some(p) = prev_text {
        strip_trailing_space(dom, p);
        if dom.text(p).is_some_and(str::is_empty) {
            remove(dom, p);
        }
    }
}

/// `data.replace(/[ \r\n\t]+/g, ' ')`.
fn collapse_runs(data: &str) -> String {
    let mut out = String::with_capacity(data.len());
    let mut in_run = false;
    for c in data.chars() {
        if matches!(c, ' ' | '\r' | '\n' | '\t') {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

fn strip_trailing_space(dom: &mut Dom, node: Id) {
    if let Some(data) = dom.text(node)
        && let Some(stripped) = data.strip_suffix(' ')
    {
        let stripped = stripped.to_owned();
        dom.set_text(node, stripped);
    }
}

/// collapse-whitespace's `remove`: the node unlinked; its next sibling, else its parent.
fn remove(dom: &mut Dom, node: Id) -> Id {
    let n = &dom.nodes[node];
    let next = n.next.or(n.parent).unwrap_or(node);
    dom.remove(node);
    next
}

/// collapse-whitespace's `next`: children of a `<pre>` are skipped, as are those of a node the
/// walk came back up to.
fn next(dom: &Dom, prev: Option<Id>, current: Id) -> Id {
    let n = &dom.nodes[current];
    let up = n.next.or(n.parent).unwrap_or(current);
    if prev.is_some_and(|p| dom.nodes[p].parent == Some(current)) || is_pre(dom, current) {
        return up;
    }
    n.first_child.unwrap_or(up)
}

/// One element being converted: its content so far and the next child to convert.
struct Frame {
    node: Id,
    is_code: bool,
    output: String,
    cursor: Option<Id>,
}

/// turndown's `process` of the root: every child's replacement joined, depth first, without
/// recursion (a document may nest deeper than a call stack).
fn process(dom: &Dom, root: Id) -> String {
    let mut frames = vec![Frame {
        node: root,
        is_code: false,
        output: String::new(),
        cursor: dom.nodes[root].first_child,
    }];
    loop {
        let Some(frame) = frames.last_mut() else {
            return String::new();
        };
        if let Some(child) = frame.cursor {
            frame.cursor = dom.nodes[child].next;
            match &dom.nodes[child].kind {
                Kind::Text(data) => {
                    let replacement = if frame.is_code {
                        data.clone()
                    } else {
                        escape(data)
                    };
                    frame.output = join(&frame.output, &replacement);
                }
                Kind::Element { name, .. } => {
                    let is_code = frame.is_code || name == "CODE";
                    let cursor = dom.nodes[child].first_child;
                    frames.push(Frame {
                        node: child,
                        is_code,
                        output: String::new(),
                        cursor,
                    });
                }
                Kind::Other => frame.output = join(&frame.output, ""),
            }
            continue;
        }
        let Some(done) = frames.pop() else {
            return String::new();
        };
        let Some(parent) = frames.last_mut() else {
            return done.output;
        };
        let replacement = replacement_for_node(dom, done.node, done.output);
        parent.output = join(&parent.output, &replacement);
    }
}

/// `replacementForNode`: the rule's replacement, flanked by the whitespace the node's edges keep.
fn replacement_for_node(dom: &Dom, node: Id, content: String) -> String {
    let block = is_block(dom, node);
    let (leading, trailing) = flanking_whitespace(dom, node, block);
    let content = if leading.is_empty() && trailing.is_empty() {
        content
    } else {
        js::trim(&content).to_owned()
    };
    let replacement = if is_blank(dom, node) {
        if block {
            "\n\n".to_owned()
        } else {
            String::new()
        }
    } else {
        rule_replacement(dom, node, content, block)
    };
    format!("{leading}{replacement}{trailing}")
}

fn is_blank(dom: &Dom, node: Id) -> bool {
    !is_in(dom, node, VOID)
        && !is_in(dom, node, MEANINGFUL_WHEN_BLANK)
        && dom.text_content(node).chars().all(js::is_space)
        && !dom.has_descendant(node, VOID)
        && !dom.has_descendant(node, MEANINGFUL_WHEN_BLANK)
}

/// `flankingWhitespace`: the node's leading and trailing whitespace, ASCII whitespace dropped
/// where the neighbour already ends (or starts) with a space.
fn flanking_whitespace(dom: &Dom, node: Id, block: bool) -> (String, String) {
    if block {
        return (String::new(), String::new());
    }
    let text = dom.text_content(node);
    let is_ascii_ws = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
    let body = text.trim_start_matches(js::is_space);
    let leading = &text[..text.len() - body.len()];
    let leading_non_ascii = leading.trim_start_matches(is_ascii_ws);
    let leading_ascii = &leading[..leading.len() - leading_non_ascii.len()];
    let (mut lead, mut trail) = (leading, "");
    let (mut trailing_ascii, mut trailing_non_ascii) = ("", "");
    if !body.is_empty() {
        let rest = body.trim_end_matches(js::is_space);
        trail = &body[rest.len()..];
        let non_ascii = trail.trim_end_matches(is_ascii_ws);
        trailing_ascii = &trail[non_ascii.len()..];
        trailing_non_ascii = non_ascii;
    }
    if !leading_ascii.is_empty() && is_flanked(dom, node, true) {
        lead = leading_non_ascii;
    }
    if !trailing_ascii.is_empty() && is_flanked(dom, node, false) {
        trail = trailing_non_ascii;
    }
    (lead.to_owned(), trail.to_owned())
}

/// `isFlankedByWhitespace`: the sibling on that side ends (left) or starts (right) with a space.
fn is_flanked(dom: &Dom, node: Id, left: bool) -> bool {
    let n = &dom.nodes[node];
    let Some(sibling) = (if left { n.prev } else { n.next }) else {
        return false;
    };
    let test = |s: &str| {
        if left {
            s.ends_with(' ')
        } else {
            s.starts_with(' ')
        }
    };
    match &dom.nodes[sibling].kind {
        Kind::Text(data) => test(data),
        Kind::Element { .. } if !is_block(dom, sibling) => test(&dom.text_content(sibling)),
        _ => false,
    }
}

/// The first rule whose filter takes the node (commonmark rules in order, then the removals,
/// then the default rule), applied.
fn rule_replacement(dom: &Dom, node: Id, content: String, block: bool) -> String {
    let name = dom.name(node);
    let parent = dom.nodes[node].parent;
    let parent_name = parent.map_or("", |p| dom.name(p));
    let lower = name.to_lowercase();
    match lower.as_str() {
        "p" => return format!("\n\n{content}\n\n"),
        "br" => return "  \n".to_owned(),
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
            let level = name[1..]
                .chars()
                .next()
                .and_then(|c| c.to_digit(10))
                .unwrap_or(0);
            let hashes = "#".repeat(level as usize);
            return format!("\n\n{hashes} {content}\n\n");
        }
        "blockquote" => {
            let quoted = prefix_lines(trim_newlines(&content), "> ");
            return format!("\n\n{quoted}\n\n");
        }
        "ul" | "ol" => {
            let last_of_li = parent.is_some_and(|p| {
                parent_name == "LI" && dom.element_children(p).last() == Some(node)
            });
            return if last_of_li {
                format!("\n{content}")
            } else {
                format!("\n\n{content}\n\n")
            };
        }
        "li" => return list_item(dom, node, parent, &content),
        _ => {}
    }
    let first = dom.nodes[node].first_child;
    if name == "PRE"
        && let Some(code) = first
        && dom.name(code) == "CODE"
    {
        return fenced_code_block(dom, code);
    }
    if lower == "hr" {
        return "\n\n* * *\n\n".to_owned();
    }
    if name == "A"
        && let Some(href) = dom.attr(node, "href").filter(|h| !h.is_empty())
    {
        let href = escape_link_destination(href);
        let title = escape_link_title(&clean_attribute(dom.attr(node, "title")));
        let title_part = if title.is_empty() {
            String::new()
        } else {
            format!(" \"{title}\"")
        };
        return format!("[{content}]({href}{title_part})");
    }
    match lower.as_str() {
        "em" | "i" => {
            return if js::trim(&content).is_empty() {
                String::new()
            } else {
                format!("_{content}_")
            };
        }
        "strong" | "b" => {
            return if js::trim(&content).is_empty() {
                String::new()
            } else {
                format!("**{content}**")
            };
        }
        _ => {}
    }
    if name == "CODE" {
        let n = &dom.nodes[node];
        let has_siblings = n.prev.is_some() || n.next.is_some();
        if parent_name != "PRE" || has_siblings {
            return inline_code(&content);
        }
    }
    match lower.as_str() {
        "img" => return image(dom, node),
        "script" | "style" => return String::new(),
        _ => {}
    }
    if block {
        format!("\n\n{content}\n\n")
    } else {
        content
    }
}

/// The list-item rule: `-   ` or `N.  `, continuation lines indented by the prefix's width.
fn list_item(dom: &Dom, node: Id, parent: Option<Id>, content: &str) -> String {
    let mut prefix = "-   ".to_owned();
    if let Some(p) = parent
        && dom.name(p) == "OL"
    {
        let index = dom
            .element_children(p)
            .position(|c| c == node)
            .map_or(-1.0, |i| i as f64);
        let number = match dom.attr(p, "start").filter(|s| !s.is_empty()) {
            Some(start) => js::number(start) + index,
            None => index + 1.0,
        };
        prefix = format!("{}.  ", js::number_text(number));
    }
    let is_paragraph = content.ends_with('\n');
    let mut body = trim_newlines(content).to_owned();
    if is_paragraph {
        body.push('\n');
    }
    let indent = format!("\n{}", " ".repeat(prefix.encode_utf16().count()));
    let body = body.replace('\n', &indent);
    let newline = if dom.nodes[node].next.is_some() {
        "\n"
    } else {
        ""
    };
    format!("{prefix}{body}{newline}")
}

/// The fenced code block rule: the code element's text in a fence longer than any inside.
fn fenced_code_block(dom: &Dom, code_node: Id) -> String {
    let class = dom.attr(code_node, "class").unwrap_or("");
    let language = language_of(class);
    let code = dom.text_content(code_node);
    let mut fence_size = 3;
    for line in line_starts(&code) {
        let run = code[line..].chars().take_while(|&c| c == '`').count();
        if run >= 3 && run >= fence_size {
            fence_size = run + 1;
        }
    }
    let fence = "`".repeat(fence_size);
    let code = code.strip_suffix('\n').unwrap_or(&code);
    format!("\n\n{fence}{language}\n{code}\n{fence}\n\n")
}

/// `(className.match(/language-(\S+)/) || [null, ''])[1]`.
fn language_of(class: &str) -> &str {
    for (at, marker) in class.match_indices("language-") {
        let rest = &class[at + marker.len()..];
        let word = rest.split(js::is_space).next().unwrap_or("");
        if !word.is_empty() {
            return word;
        }
    }
    ""
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// The byte offsets where a multiline `^` matches: the start, and after every line terminator.
fn line_starts(s: &str) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(
        s.char_indices()
            .filter(|&(_, c)| is_line_terminator(c))
            .map(|(i, c)| i + c.len_utf8()),
    )
}

/// `s.replace(/^/gm, prefix)`.
fn prefix_lines(s: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(s.len() + prefix.len());
    out.push_str(prefix);
    for c in s.chars() {
        out.push(c);
        if is_line_terminator(c) {
            out.push_str(prefix);
        }
    }
    out
}

/// The inline code rule: newlines as spaces, in a backtick fence no run inside equals.
fn inline_code(content: &str) -> String {
    if content.is_empty() {
        return String::new();
    }
    let content = content.replace("\r\n", " ").replace(['\n', '\r'], " ");
    let extra = if needs_extra_space(&content) { " " } else { "" };
    let runs: Vec<usize> = content
        .split(|c| c != '`')
        .map(str::len)
        .filter(|&n| n > 0)
        .collect();
    let mut delimiter = 1;
    while runs.contains(&delimiter) {
        delimiter += 1;
    }
    let delimiter = "`".repeat(delimiter);
    format!("{delimiter}{extra}{content}{extra}{delimiter}")
}

/// `/^`|^ .*?[^ ].* $|`$/.test(content)` (`.` is any character but a line terminator).
fn needs_extra_space(content: &str) -> bool {
    if content.starts_with('`') || content.ends_with('`') {
        return true;
    }
    let chars: Vec<char> = content.chars().collect();
    if chars.len() < 3 || chars[0] != ' ' || chars[chars.len() - 1] != ' ' {
        return false;
    }
    let middle = &chars[1..chars.len() - 1];
    let terminators = middle.iter().filter(|&&c| is_line_terminator(c)).count();
    match terminators {
        0 => middle.iter().any(|&c| c != ' '),
        // The one line terminator is the `[^ ]`; `.` matches everything else.
        1 => true,
        _ => false,
    }
}

/// The image rule: `![alt](src "title")`, nothing without a `src`.
fn image(dom: &Dom, node: Id) -> String {
    let alt = escape(&clean_attribute(dom.attr(node, "alt")));
    let src = escape_link_destination(dom.attr(node, "src").unwrap_or(""));
    let title = clean_attribute(dom.attr(node, "title"));
    let title_part = if title.is_empty() {
        String::new()
    } else {
        format!(" \"{}\"", escape_link_title(&title))
    };
    if src.is_empty() {
        String::new()
    } else {
        format!("![{alt}]({src}{title_part})")
    }
}

/// `cleanAttribute`: `attribute.replace(/(\n+\s*)+/g, '\n')`, empty when absent.
fn clean_attribute(attribute: Option<&str>) -> String {
    let Some(attribute) = attribute else {
        return String::new();
    };
    let mut out = String::with_capacity(attribute.len());
    let mut chars = attribute.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            // `\n+\s*` repeated: a newline, then any whitespace (newlines included) after it.
            while chars.peek().is_some_and(|&c| js::is_space(c)) {
                chars.next();
            }
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

/// `escapeLinkDestination`: `<`, `>`, `(` and `)` escaped; in angle brackets if it has a space.
fn escape_link_destination(destination: &str) -> String {
    let mut escaped = String::with_capacity(destination.len());
    for c in destination.chars() {
        if matches!(c, '<' | '>' | '(' | ')') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    if escaped.contains(' ') {
        format!("<{escaped}>")
    } else {
        escaped
    }
}

fn escape_link_title(title: &str) -> String {
    title.replace('"', "\\\"")
}

/// `trimNewlines`: leading and trailing `\n` removed.
fn trim_newlines(s: &str) -> &str {
    s.trim_matches('\n')
}

/// turndown's `join`: the two sides' newlines at the seam replaced by the larger count, at most two.
fn join(output: &str, replacement: &str) -> String {
    let s1 = output.trim_end_matches('\n');
    let s2 = replacement.trim_start_matches('\n');
    let nls = (output.len() - s1.len())
        .max(replacement.len() - s2.len())
        .min(2);
    let mut out = String::with_capacity(s1.len() + nls + s2.len());
    out.push_str(s1);
    out.push_str(&"\n\n"[..nls]);
    out.push_str(s2);
    out
}

/// turndown's `escape` (`markdownEscapes` in order): `\`, `*`, `` ` ``, `[`, `]` and `_`
/// everywhere; `-`, `+ `, `=`, `#`…` `, `~~~`, `>` and `N. ` only at the very start of the text.
pub fn escape(text: &str) -> String {
    let mut s = text.replace('\\', "\\\\").replace('*', "\\*");
    if s.starts_with('-') || s.starts_with("+ ") || s.starts_with('=') {
        s.insert(0, '\\');
    }
    let hashes = s.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&hashes) && s[hashes..].starts_with(' ') {
        s.insert(0, '\\');
    }
    s = s.replace('`', "\\`");
    if s.starts_with("~~~") {
        s.insert(0, '\\');
    }
    s = s.replace('[', "\\[").replace(']', "\\]");
    if s.starts_with('>') {
        s.insert(0, '\\');
    }
    s = s.replace('_', "\\_");
    let digits = s.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && s[digits..].starts_with(". ") {
        s.insert(digits, '\\');
    }
    s
}
