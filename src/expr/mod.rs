//! The expression language: grammar binding, typed AST and canonical printing.
//!
//! Expressions are the formulas of steps, checks, parameters and answers. This
//! module only turns text into an [`ast::Expr`]; resolving names and types is
//! the rulebook checker's job, evaluating them the evaluator's.
//!
//! Invariant: no pest type is visible outside `parse`.

pub mod ast;
mod parse;
pub mod print;

#[cfg(test)]
mod tests;

pub use ast::{BinOp, Expr, ExprKind, Ident, UnOp};
pub use parse::{parse_expr, ParseError, MAX_EXPR_BYTES, MAX_NESTING, MAX_PARSE_CALLS};
