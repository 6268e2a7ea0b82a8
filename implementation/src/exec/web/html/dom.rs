//! The DOM turndown walks: html5ever's parse of a document, copied into an arena of linked nodes.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use html5ever::buffer_queue::BufferQueue;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::{RawKind, State};
use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use html5ever::tree_builder::{Tracer, TreeBuilder, TreeBuilderOpts};
use html5ever::{TokenizerResult, ns};
use markup5ever_rcdom::{Handle, NodeData, RcDom};

/// A node's index in its [`Dom`].
pub type Id = usize;

/// What a node is.
#[derive(Debug)]
pub enum Kind {
    /// An element: its `nodeName` (upper case for HTML elements, as the DOM has it) and its
    /// attributes in source order (the parser keeps the first of a name).
    Element {
        name: String,
        attrs: Vec<(String, String)>,
    },
    /// A text node and its data.
    Text(String),
    /// A comment, doctype or processing instruction (`nodeType` other than 1 and 3).
    Other,
}

/// One node, linked to its neighbours.
#[derive(Debug)]
pub struct Node {
    pub kind: Kind,
    pub parent: Option<Id>,
    pub first_child: Option<Id>,
    pub last_child: Option<Id>,
    pub prev: Option<Id>,
    pub next: Option<Id>,
}

/// A tree of nodes; detached nodes stay in the arena, unlinked.
#[derive(Debug, Default)]
pub struct Dom {
    pub nodes: Vec<Node>,
}

impl Dom {
    /// The document's parse, and the first element in tree order whose `id` is `id`
    /// (`document.getElementById`), if any.
    pub fn parse(html: &str, id: &str) -> (Dom, Option<Id>) {
        // The parse is kept until the copy is made: dropping the tree builder empties the nodes
        // it still holds.
        let parse = parse_as_domino(html);
        let document = Rc::clone(&parse.builder.sink.document);
        let mut dom = Dom::default();
        let root = dom.push(Kind::Other, None);
        // Each entry: a node of the parse and the arena node to append its children to.
        let mut stack: Vec<(Handle, Id)> = vec![(document, root)];
        while let Some((handle, parent)) = stack.pop() {
            let mut added = Vec::new();
            for child in handle.children.borrow().iter() {
                let kind = kind_of(child);
                if let Kind::Text(data) = &kind
                    && parse.markers.get() > 0
                    && data.contains([BR_MARKER, P_MARKER])
                {
                    dom.push_with_markers(data, parent);
                    continue;
                }
                let is_element = matches!(kind, Kind::Element { .. });
                let node = dom.push(kind, Some(parent));
                if is_element {
                    added.push((Rc::clone(child), node));
                }
            }
            stack.extend(added);
        }
        let found = dom.first_with_id(root, id);
        (dom, found)
    }

    /// A text with markers: its pieces, and an empty `<br>` or `<p>` for each marker.
    fn push_with_markers(&mut self, data: &str, parent: Id) {
        let mut piece = String::new();
        for c in data.chars() {
            let name = match c {
                BR_MARKER => "BR",
                P_MARKER => "P",
                _ => {
                    piece.push(c);
                    continue;
                }
            };
            if !piece.is_empty() {
                self.push(Kind::Text(std::mem::take(&mut piece)), Some(parent));
            }
            self.push(
                Kind::Element {
                    name: name.to_owned(),
                    attrs: Vec::new(),
                },
                Some(parent),
            );
        }
        if !piece.is_empty() {
            self.push(Kind::Text(piece), Some(parent));
        }
    }

    fn push(&mut self, kind: Kind, parent: Option<Id>) -> Id {
        let id = self.nodes.len();
        self.nodes.push(Node {
            kind,
            parent,
            first_child: None,
            last_child: None,
            prev: None,
            next: None,
        });
        if let Some(parent) = parent {
            let last = self.nodes[parent].last_child;
            self.nodes[id].prev = last;
            match last {
                Some(last) => self.nodes[last].next = Some(id),
                None => self.nodes[parent].first_child = Some(id),
            }
            self.nodes[parent].last_child = Some(id);
        }
        id
    }

    /// The first element in tree order under `root` whose `id` attribute is `id`.
    fn first_with_id(&self, root: Id, id: &str) -> Option<Id> {
        self.descendants(root)
            .find(|&n| self.attr(n, "id") == Some(id))
    }

    /// The nodes under `root` in tree order, `root` excluded.
    pub fn descendants(&self, root: Id) -> Descendants<'_> {
        Descendants {
            dom: self,
            root,
            next: self.nodes[root].first_child,
        }
    }

    /// The node's `nodeName` (`#text` for text, empty for other nodes).
    pub fn name(&self, node: Id) -> &str {
        match &self.nodes[node].kind {
            Kind::Element { name, .. } => name,
            Kind::Text(_) => "#text",
            Kind::Other => "",
        }
    }

    pub fn is_element(&self, node: Id) -> bool {
        matches!(self.nodes[node].kind, Kind::Element { .. })
    }

    pub fn text(&self, node: Id) -> Option<&str> {
        match &self.nodes[node].kind {
            Kind::Text(data) => Some(data),
            _ => None,
        }
    }

    pub fn set_text(&mut self, node: Id, value: String) {
        if let Kind::Text(data) = &mut self.nodes[node].kind {
            *data = value;
        }
    }

    /// `getAttribute(name)` for a lower-case `name`.
    pub fn attr(&self, node: Id, name: &str) -> Option<&str> {
        match &self.nodes[node].kind {
            Kind::Element { attrs, .. } => attrs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str()),
            _ => None,
        }
    }

    /// `textContent`: the data of every text node under `node` (or its own data), in tree order.
    pub fn text_content(&self, node: Id) -> String {
        if let Some(data) = self.text(node) {
            return data.to_owned();
        }
        let mut out = String::new();
        for n in self.descendants(node) {
            if let Some(data) = self.text(n) {
                out.push_str(data);
            }
        }
        out
    }

    /// Whether an element under `node` has one of `names` (upper case) as its tag
    /// (`getElementsByTagName` of each: HTML elements by lower-cased name, others exactly).
    pub fn has_descendant(&self, node: Id, names: &[&str]) -> bool {
        if !self.is_element(node) {
            return false;
        }
        self.descendants(node).any(|n| match &self.nodes[n].kind {
            Kind::Element { name, .. } => names.contains(&name.as_str()),
            _ => false,
        })
    }

    /// `node.parentNode.removeChild(node)`: unlinks the node (its subtree goes with it).
    pub fn remove(&mut self, node: Id) {
        let Node {
            parent, prev, next, ..
        } = self.nodes[node];
        let Some(parent) = parent else { return };
        match prev {
            Some(prev) => self.nodes[prev].next = next,
            None => self.nodes[parent].first_child = next,
        }
        match next {
            Some(next) => self.nodes[next].prev = prev,
            None => self.nodes[parent].last_child = prev,
        }
        let n = &mut self.nodes[node];
        n.parent = None;
        n.prev = None;
        n.next = None;
    }

    /// The element children of `node`, in order (`children`).
    pub fn element_children(&self, node: Id) -> impl Iterator<Item = Id> + '_ {
        self.children(node).filter(|&c| self.is_element(c))
    }

    /// The children of `node`, in order (`childNodes`).
    pub fn children(&self, node: Id) -> impl Iterator<Item = Id> + '_ {
        std::iter::successors(self.nodes[node].first_child, |&c| self.nodes[c].next)
    }
}

/// The nodes of a subtree in tree order.
#[derive(Debug)]
pub struct Descendants<'a> {
    dom: &'a Dom,
    root: Id,
    next: Option<Id>,
}

impl Iterator for Descendants<'_> {
    type Item = Id;

    fn next(&mut self) -> Option<Id> {
        let current = self.next?;
        let nodes = &self.dom.nodes;
        self.next = nodes[current].first_child.or_else(|| {
            let mut n = current;
            loop {
                if n == self.root {
                    return None;
                }
                if let Some(next) = nodes[n].next {
                    return Some(next);
                }
                n = nodes[n].parent?;
            }
        });
        Some(current)
    }
}

fn kind_of(handle: &Handle) -> Kind {
    match &handle.data {
        NodeData::Text { contents } => Kind::Text(contents.borrow().to_string()),
        NodeData::Element { name, attrs, .. } => {
            let html = name.ns == ns!(html);
            let local: &str = &name.local;
            let node_name = match &name.prefix {
                Some(prefix) => format!("{}:{local}", &**prefix),
                None if html => local.to_uppercase(),
                None => local.to_owned(),
            };
            let attrs = attrs
                .borrow()
                .iter()
                .map(|a| {
                    let name = match &a.name.prefix {
                        Some(prefix) => format!("{}:{}", &**prefix, &*a.name.local),
                        None => a.name.local.to_string(),
                    };
                    (name, a.value.to_string())
                })
                .collect();
            Kind::Element {
                name: node_name,
                attrs,
            }
        }
        _ => Kind::Other,
    }
}

/// The tree builder shared by the tokenizers of one parse, and what domino's tokenizer would
/// have made of the tokens so far.
struct Shared {
    builder: TreeBuilder<Handle, RcDom>,
    /// The name of the last start tag that was not self-closing: domino's `lasttagname`, the
    /// end tag that closes raw text (its self-closing start tags leave it as it was).
    last_start_tag: RefCell<String>,
    /// Set when a self-closing start tag switched to raw text: its kind.
    raw_after_self_closing: Cell<Option<RawKind>>,
    /// Whether markers may stand for elements: the document cannot hold them itself.
    markers_allowed: bool,
    /// How many markers were inserted.
    markers: Cell<usize>,
}

/// Text inserted where domino puts a `<br>` or an empty `<p>` for `</br>` or `</p>` in foreign
/// content, made elements when the tree is copied (noncharacters no document here holds).
const BR_MARKER: char = '\u{FDD0}';
const P_MARKER: char = '\u{FDD1}';

/// The tree builder as each tokenizer's sink.
struct Sink(Rc<Shared>);

impl TokenSink for Sink {
    type Handle = Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Handle> {
        let shared = &self.0;
        let self_closing_start = match &token {
            Token::TagToken(tag) if tag.kind == TagKind::StartTag => {
                if !tag.self_closing {
                    *shared.last_start_tag.borrow_mut() = tag.name.to_string();
                }
                tag.self_closing
            }
            _ => false,
        };
        if let Some(marker) = foreign_end_marker(shared, &token) {
            shared.markers.set(shared.markers.get() + 1);
            let text = Token::CharacterTokens(StrTendril::from_char(marker));
            return shared.builder.process_token(text, line_number);
        }
        if is_hr_start(&token) && select_is_open(&shared.builder) {
            // domino ignores `<hr>` in a select (html5ever follows the later spec: it closes an
            // open `<option>` and inserts the rule).
            return TokenSinkResult::Continue;
        }
        let result = shared.builder.process_token(token, line_number);
        match result {
            TokenSinkResult::RawData(kind) if self_closing_start => {
                // Stop this tokenizer here: the raw text is read by one that knows domino's end tag.
                shared.raw_after_self_closing.set(Some(kind));
                TokenSinkResult::Script(Rc::clone(&shared.builder.sink.document))
            }
            other => other,
        }
    }

    fn end(&self) {
        self.0.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.0
            .builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// `</br>` or `</p>` in SVG or MathML: html5ever follows the later spec (foreign elements popped
/// first), domino the older one, whose rules for any other end tag reach the first HTML element
/// and run the body's rules at the foreign current node: `</br>` inserts a `<br>` there, `</p>`
/// with no `<p>` in button scope an empty `<p>`. Where a `<p>` is open at all, both close it
/// alike (but for an integration point between them), and html5ever is left to it.
fn foreign_end_marker(shared: &Shared, token: &Token) -> Option<char> {
    let Token::TagToken(tag) = token else {
        return None;
    };
    if tag.kind != TagKind::EndTag
        || !shared.markers_allowed
        || !shared
            .builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    {
        return None;
    }
    match &*tag.name {
        "br" => Some(BR_MARKER),
        "p" if !element_is_open(&shared.builder, "p") => Some(P_MARKER),
        _ => None,
    }
}

/// Whether no marker can come from the document: neither as a character nor as a numeric
/// reference (whose digits are read as html5ever reads them).
fn markers_allowed(html: &str) -> bool {
    if html.contains([BR_MARKER, P_MARKER]) {
        return false;
    }
    let bytes = html.as_bytes();
    let mut at = 0;
    while let Some(found) = html[at..].find("&#") {
        let start = at + found + 2;
        let hex = bytes.get(start).is_some_and(|&b| b | 0x20 == b'x');
        let digits = start + usize::from(hex);
        let radix = if hex { 16 } else { 10 };
        let end = bytes[digits..]
            .iter()
            .position(|&b| !char::from(b).is_digit(radix))
            .map_or(bytes.len(), |n| digits + n);
        let value = html[digits..end]
            .chars()
            .filter_map(|c| c.to_digit(radix))
            .fold(0u32, |v, d| v.saturating_mul(radix).saturating_add(d));
        if value == u32::from(BR_MARKER) || value == u32::from(P_MARKER) {
            return false;
        }
        at = start;
    }
    true
}

fn is_hr_start(token: &Token) -> bool {
    matches!(token, Token::TagToken(tag) if tag.kind == TagKind::StartTag && &*tag.name == "hr")
}

/// Whether a `<select>` is among the open elements: the tree builder's handles are its open
/// elements, its active formatting elements (never a select) and its head and form pointers.
/// A select is open in the in-select modes, and in a template inside one, whose contents are no
/// part of the tree turndown walks.
fn select_is_open(builder: &TreeBuilder<Handle, RcDom>) -> bool {
    element_is_open(builder, "select")
}

/// Whether an HTML element of that name is among the tree builder's handles (`select` and `p`
/// are never formatting elements, head or form pointers, so only an open one is).
fn element_is_open(builder: &TreeBuilder<Handle, RcDom>, local: &'static str) -> bool {
    let tracer = OpenTracer {
        local,
        found: Cell::new(false),
    };
    builder.trace_handles(&tracer);
    tracer.found.get()
}

/// Notes whether a traced handle is an HTML element named `local`.
struct OpenTracer {
    local: &'static str,
    found: Cell<bool>,
}

impl Tracer for OpenTracer {
    type Handle = Handle;

    fn trace_handle(&self, node: &Handle) {
        if let NodeData::Element { name, .. } = &node.data
            && name.ns == ns!(html)
            && &*name.local == self.local
        {
            self.found.set(true);
        }
    }
}

/// The document as domino parses it: html5ever's HTML5 tree construction, with the two places
/// where domino 2.2 departs from it reproduced.
///
/// - `<hr>` in a select is ignored, as the spec had it before 2023 (html5ever 0.36 is the last
///   with the classic in-select mode domino follows; later ones keep more in a select).
/// - The scripting flag is off: domino parses `<noscript>` in a body as an ordinary element
///   (only its head treats it as raw text), and turndown's input is all body.
/// - Raw text or RCDATA opened by a self-closing start tag (`<script/>`, `<style/>`,
///   `<title/>`, `<textarea/>`, `<iframe/>`, `<xmp/>`, ...) ends at the end tag of the last start
///   tag that was not self-closing, not at its own: domino's tokenizer does not note self-closing
///   start tags. The rest of the document goes to a tokenizer started in that raw-text state.
fn parse_as_domino(html: &str) -> Rc<Shared> {
    let builder = TreeBuilder::new(
        RcDom::default(),
        TreeBuilderOpts {
            scripting_enabled: false,
            ..TreeBuilderOpts::default()
        },
    );
    let shared = Rc::new(Shared {
        builder,
        last_start_tag: RefCell::new(String::new()),
        raw_after_self_closing: Cell::new(None),
        markers_allowed: markers_allowed(html),
        markers: Cell::new(0),
    });
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(html));
    let mut opts = TokenizerOpts::default();
    loop {
        let tokenizer = Tokenizer::new(Sink(Rc::clone(&shared)), opts.clone());
        loop {
            match tokenizer.feed(&input) {
                TokenizerResult::Done => {
                    tokenizer.end();
                    return shared;
                }
                TokenizerResult::Script(_) => {
                    if shared.raw_after_self_closing.get().is_some() {
                        break;
                    }
                }
            }
        }
        let kind = shared.raw_after_self_closing.take();
        opts = TokenizerOpts {
            initial_state: kind.map(State::RawData),
            last_start_tag_name: Some(shared.last_start_tag.borrow().clone()),
            discard_bom: false,
            ..TokenizerOpts::default()
        };
    }
}
