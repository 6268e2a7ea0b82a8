//! Expressions inside a macro's tokens, which `syn` leaves unread: the runs between top-level
//! commas and semicolons that read as an expression (after the last top-level `=` or `:`, when
//! there is one: `NAME: Type = value`, `field: value`), and, inside the runs that do not, their
//! bracketed groups, read the same way.

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};
use syn::Expr;

/// What a macro's tokens hold, run by run.
pub(crate) enum Piece {
    /// A run that reads as an expression; `alone` when the run is nothing but a literal (a
    /// format string, say, which a switch would not be).
    Expr {
        /// The expression.
        expr: Box<Expr>,
        /// Whether it is a literal standing alone.
        alone: bool,
    },
    /// A group inside a run that does not.
    Group(Group),
}

/// Macros whose tokens hold no expression run at run time (or none worth a switch).
pub const UNREAD: [&str; 14] = [
    "macro_rules",
    "stringify",
    "concat",
    "include",
    "include_str",
    "include_bytes",
    "env",
    "option_env",
    "compile_error",
    "cfg",
    "line",
    "column",
    "file",
    "module_path",
];

/// The pieces of a stream of tokens (a macro's, or a group's inside one).
pub(crate) fn pieces(stream: TokenStream) -> Vec<Piece> {
    let mut pieces = Vec::new();
    for run in runs(stream) {
        let tail = match last_separator(&run) {
            Some(at) => &run[at + 1..],
            None => &run[..],
        };
        let alone = matches!(tail, [TokenTree::Literal(_)]);
        match syn::parse2::<Expr>(tail.iter().cloned().collect()) {
            Ok(expr) if !tail.is_empty() => pieces.push(Piece::Expr {
                expr: Box::new(expr),
                alone,
            }),
            Ok(_) | Err(_) => pieces.extend(run.into_iter().filter_map(|token| match token {
                TokenTree::Group(group) if group.delimiter() != Delimiter::None => {
                    Some(Piece::Group(group))
                }
                TokenTree::Group(_)
                | TokenTree::Ident(_)
                | TokenTree::Punct(_)
                | TokenTree::Literal(_) => None,
            })),
        }
    }
    pieces
}

/// The runs of a stream between its top-level `,` and `;`.
fn runs(stream: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut runs = vec![Vec::new()];
    for token in stream {
        match &token {
            TokenTree::Punct(p) if matches!(p.as_char(), ',' | ';') => runs.push(Vec::new()),
            TokenTree::Punct(_)
            | TokenTree::Group(_)
            | TokenTree::Ident(_)
            | TokenTree::Literal(_) => {
                if let Some(run) = runs.last_mut() {
                    run.push(token);
                }
            }
        }
    }
    runs.retain(|run| !run.is_empty());
    runs
}

/// The last `=` or `:` of a run that stands alone (not in `==`, `<=`, `=>`, `::`).
fn last_separator(run: &[TokenTree]) -> Option<usize> {
    let joint =
        |i: usize| matches!(run.get(i), Some(TokenTree::Punct(p)) if p.spacing() == Spacing::Joint);
    (0..run.len()).rev().find(|&i| match &run[i] {
        TokenTree::Punct(p) => {
            matches!(p.as_char(), '=' | ':')
                && p.spacing() == Spacing::Alone
                && (i == 0 || !joint(i - 1))
        }
        TokenTree::Group(_) | TokenTree::Ident(_) | TokenTree::Literal(_) => false,
    })
}
