//! The DOM turndown walks: html5ever's parse of a document, copied into an arena of linked nodes.

use std::rc::Rc;

use html5ever::tendril::TendrilSink;
use html5ever::{ParseOpts, ns, parse_document};
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
        // domino parses `<noscript>` in a body as an ordinary element, whatever its scripting
        // flag (only the head treats it as raw text), and turndown's input is all body: the
        // spec's scripting-disabled parse gives the same tree there.
        let mut opts = ParseOpts::default();
        opts.tree_builder.scripting_enabled = false;
        let rc = parse_document(RcDom::default(), opts).one(html);
        let mut dom = Dom::default();
        let document = dom.push(Kind::Other, None);
        // Each entry: a node of the parse and the arena node to append its children to.
        let mut stack: Vec<(Handle, Id)> = vec![(Rc::clone(&rc.document), document)];
        while let Some((handle, parent)) = stack.pop() {
            let mut added = Vec::new();
            for child in handle.children.borrow().iter() {
                let kind = kind_of(child);
                let is_element = matches!(kind, Kind::Element { .. });
                let node = dom.push(kind, Some(parent));
                if is_element {
                    added.push((Rc::clone(child), node));
                }
            }
            stack.extend(added);
        }
        let found = dom.first_with_id(document, id);
        (dom, found)
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
