//! The places of a Rust file where a switch may stand: its expressions, statements and blocks,
//! found with `syn` (and, inside macro calls, in their tokens: `tokens.rs`), each with its byte
//! range and whether wrapping it in a block keeps the program's meaning.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use proc_macro2::{TokenStream, TokenTree};
use syn::spanned::Spanned as _;
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, Stmt};

use super::tokens::{self, Piece};

/// What a node is; a switch keeps it that kind of node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// An expression: the switch is an expression in its place.
    Expr,
    /// A statement (or, with a mutated text that is empty, its removal).
    Stmt,
    /// A block with its braces: the switch is a block in its place.
    Block,
    /// A bracketed group of a macro's tokens (never switched; the mutated text is read again
    /// within it, like within a block).
    Group,
}

/// One node of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Its bytes in the file.
    pub range: Range<usize>,
    /// What it is.
    pub kind: Kind,
    /// Whether a block may stand in its place with the same meaning (not in a constant context,
    /// a pattern or a type, not a place that is assigned, borrowed or moved from).
    pub switchable: bool,
}

/// The nodes of a file, or `None` when it is not Rust that `syn` reads.
pub fn nodes(text: &str) -> Option<Vec<Node>> {
    if text.starts_with('\u{feff}') || text.starts_with("#!") {
        // `syn` drops these before counting; such a file is simply not switched.
        return None;
    }
    let file = syn::parse_file(text).ok()?;
    let mut visitor = Nodes::default();
    visitor.visit_file(&file);
    Some(visitor.finish())
}

/// The nodes of a macro's bracketed group (`( ... )`, `[ ... ]`, `{ ... }`), or `None` when
/// the text is no such group.
pub fn group_nodes(text: &str) -> Option<Vec<Node>> {
    let tokens: TokenStream = text.parse().ok()?;
    let mut tokens = tokens.into_iter();
    let (Some(TokenTree::Group(group)), None) = (tokens.next(), tokens.next()) else {
        return None;
    };
    let mut visitor = Nodes::default();
    visitor.push(group.span().byte_range(), Kind::Group, false);
    visitor.tokens(group.stream(), usize::MAX);
    Some(visitor.finish())
}

/// The nodes of a block's text (`{ ... }`), or `None` when it is no block.
pub fn block_nodes(text: &str) -> Option<Vec<Node>> {
    let block: syn::Block = syn::parse_str(text).ok()?;
    let mut visitor = Nodes::default();
    visitor.visit_block(&block);
    Some(visitor.finish())
}

impl Nodes {
    fn finish(self) -> Vec<Node> {
        let Nodes {
            mut nodes, leading, ..
        } = self;
        // A block at the start of a statement (or a match arm) ends it there: `{ .. }.f();`
        // would not mean `x.f();`, so the head of a longer statement is not switched alone.
        for node in nodes.iter_mut().filter(|n| n.kind == Kind::Expr) {
            if leading
                .get(&node.range.start)
                .is_some_and(|&end| node.range.end < end)
            {
                node.switchable = false;
            }
        }
        nodes
    }
}

#[derive(Default)]
struct Nodes {
    nodes: Vec<Node>,
    /// Expressions that must not be switched (by range), marked by their parent.
    blocked: HashSet<(usize, usize)>,
    /// Where a statement or an arm body starts, with its end.
    leading: HashMap<usize, usize>,
}

impl Nodes {
    fn push(&mut self, range: Range<usize>, kind: Kind, switchable: bool) {
        self.nodes.push(Node {
            range,
            kind,
            switchable,
        });
    }

    /// Marks an operand that is used as a place: switched, it would be a temporary instead.
    fn place(&mut self, expr: &Expr) {
        if is_place(expr) {
            self.blocked.insert(key(&expr.span().byte_range()));
        }
    }

    fn block(&mut self, expr: &Expr) {
        self.blocked.insert(key(&expr.span().byte_range()));
    }

    /// The nodes in a macro's tokens (in its first `runs` runs): the expressions that read as
    /// such, and the groups around the others, looked into in turn.
    fn tokens(&mut self, stream: TokenStream, runs: usize) {
        for piece in tokens::pieces(stream).into_iter().take(runs) {
            match piece {
                Piece::Expr { expr, alone } => {
                    if alone {
                        self.block(&expr);
                    }
                    Visit::visit_expr(self, &expr);
                }
                Piece::Group(group) => {
                    self.push(group.span().byte_range(), Kind::Group, false);
                    self.tokens(group.stream(), usize::MAX);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Nodes {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        let range = expr.span().byte_range();
        let switchable = !self.blocked.contains(&key(&range))
            // No two closures have the same type: one alone is never switched.
            && !matches!(
                expr,
                Expr::Let(_) | Expr::Verbatim(_) | Expr::Infer(_) | Expr::Closure(_)
            )
            && !binds(expr);
        self.push(range, Kind::Expr, switchable);
        visit::visit_expr(self, expr);
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        match stmt {
            Stmt::Expr(expr, _) => {
                let range = expr.span().byte_range();
                self.leading.insert(range.start, range.end);
                self.push(stmt.span().byte_range(), Kind::Stmt, true);
            }
            Stmt::Macro(_) => self.push(stmt.span().byte_range(), Kind::Stmt, true),
            // A `let` switched alone would end its binding's scope; an item is no statement
            // that runs. Both still bound a run of statements.
            Stmt::Local(_) | Stmt::Item(_) => {
                self.push(stmt.span().byte_range(), Kind::Stmt, false)
            }
        }
        visit::visit_stmt(self, stmt);
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.push(block.span().byte_range(), Kind::Block, true);
        visit::visit_block(self, block);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        if name
            .as_deref()
            .is_some_and(|name| tokens::UNREAD.contains(&name))
        {
            return;
        }
        self.push(mac.delimiter.span().join().byte_range(), Kind::Group, false);
        // After its first argument, `matches!` takes a pattern.
        let runs = if name.as_deref() == Some("matches") {
            1
        } else {
            usize::MAX
        };
        self.tokens(mac.tokens.clone(), runs);
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        let range = arm.body.span().byte_range();
        self.leading.insert(range.start, range.end);
        visit::visit_arm(self, arm);
    }

    fn visit_expr_assign(&mut self, expr: &'ast syn::ExprAssign) {
        self.place(&expr.left);
        visit::visit_expr_assign(self, expr);
    }

    fn visit_expr_binary(&mut self, expr: &'ast syn::ExprBinary) {
        if is_assignment(&expr.op) {
            self.place(&expr.left);
        }
        visit::visit_expr_binary(self, expr);
    }

    fn visit_expr_reference(&mut self, expr: &'ast syn::ExprReference) {
        self.place(&expr.expr);
        // A borrowed constant is switched with its `&`: the borrow stays a promoted `'static`
        // one, and arms of different lengths (`&[a, b]`, `&[a]`) both coerce to a slice.
        if expr.mutability.is_none() && is_constant(&expr.expr) {
            self.block(&expr.expr);
        }
        visit::visit_expr_reference(self, expr);
    }

    fn visit_expr_raw_addr(&mut self, expr: &'ast syn::ExprRawAddr) {
        self.place(&expr.expr);
        visit::visit_expr_raw_addr(self, expr);
    }

    fn visit_expr_method_call(&mut self, expr: &'ast syn::ExprMethodCall) {
        self.place(&expr.receiver);
        visit::visit_expr_method_call(self, expr);
    }

    fn visit_expr_field(&mut self, expr: &'ast syn::ExprField) {
        self.place(&expr.base);
        visit::visit_expr_field(self, expr);
    }

    fn visit_expr_index(&mut self, expr: &'ast syn::ExprIndex) {
        self.place(&expr.expr);
        visit::visit_expr_index(self, expr);
    }

    fn visit_expr_match(&mut self, expr: &'ast syn::ExprMatch) {
        self.place(&expr.expr);
        visit::visit_expr_match(self, expr);
    }

    fn visit_expr_let(&mut self, expr: &'ast syn::ExprLet) {
        self.place(&expr.expr);
        visit::visit_expr_let(self, expr);
    }

    fn visit_field_value(&mut self, field: &'ast syn::FieldValue) {
        // `S { x }` has no room for a block in place of `x`.
        if field.colon_token.is_none() {
            self.block(&field.expr);
        }
        visit::visit_field_value(self, field);
    }

    fn visit_expr_repeat(&mut self, expr: &'ast syn::ExprRepeat) {
        // The length is a constant.
        self.visit_expr(&expr.expr);
    }

    // Constant contexts (a switch is a run-time call), types, patterns and attributes hold no
    // place for a switch.
    fn visit_item_const(&mut self, _: &'ast syn::ItemConst) {}
    fn visit_item_static(&mut self, _: &'ast syn::ItemStatic) {}
    fn visit_impl_item_const(&mut self, _: &'ast syn::ImplItemConst) {}
    fn visit_trait_item_const(&mut self, _: &'ast syn::TraitItemConst) {}
    fn visit_expr_const(&mut self, _: &'ast syn::ExprConst) {}
    fn visit_variant(&mut self, _: &'ast syn::Variant) {}
    fn visit_type(&mut self, _: &'ast syn::Type) {}
    fn visit_pat(&mut self, _: &'ast syn::Pat) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_generic_argument(&mut self, _: &'ast syn::GenericArgument) {}

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if item.sig.constness.is_none() {
            visit::visit_item_fn(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if item.sig.constness.is_none() {
            visit::visit_impl_item_fn(self, item);
        }
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if item.sig.constness.is_none() {
            visit::visit_trait_item_fn(self, item);
        }
    }
}

fn key(range: &Range<usize>) -> (usize, usize) {
    (range.start, range.end)
}

/// Whether an expression names a place (a variable, a field, an element, a dereference).
fn is_place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => true,
        Expr::Unary(unary) => matches!(unary.op, syn::UnOp::Deref(_)),
        Expr::Paren(paren) => is_place(&paren.expr),
        _ => false,
    }
}

/// Whether an expression is a constant that a borrow promotes: literals, paths, constructors,
/// and arrays and tuples of them.
fn is_constant(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Array(array) => array.elems.iter().all(is_constant),
        Expr::Tuple(tuple) => tuple.elems.iter().all(is_constant),
        Expr::Reference(reference) => is_constant(&reference.expr),
        Expr::Unary(unary) => matches!(unary.op, syn::UnOp::Neg(_)) && is_constant(&unary.expr),
        // A tuple struct or variant (by the name's case), built of constants.
        Expr::Call(call) => {
            let constructor = match &*call.func {
                Expr::Path(path) => path.path.segments.last().is_some_and(|s| {
                    s.ident
                        .to_string()
                        .starts_with(|c: char| c.is_ascii_uppercase())
                }),
                _ => false,
            };
            constructor && call.args.iter().all(is_constant)
        }
        _ => false,
    }
}

/// Whether a condition binds names (`let` in a chain of `&&`): in a block they would not reach
/// the body.
fn binds(expr: &Expr) -> bool {
    match expr {
        Expr::Binary(binary) if matches!(binary.op, BinOp::And(_)) => {
            binds(&binary.left) || binds(&binary.right)
        }
        Expr::Let(_) => true,
        Expr::Paren(paren) => binds(&paren.expr),
        _ => false,
    }
}

fn is_assignment(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}
