//! Typed abstract syntax of expressions.
//!
//! Every node carries the span of its text inside the expression string, so
//! any later stage (type checks, evaluation errors, traces) can point at it.

use rust_decimal::Decimal;
use std::sync::Arc;

use crate::span::Span;

/// One expression node.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// Where the node's text is, relative to its expression string.
    pub span: Span,
    /// What the node is.
    pub kind: ExprKind,
}

/// A name as written, with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name.
    pub name: Arc<str>,
    /// Where it is written.
    pub span: Span,
}

/// The kinds of expression nodes.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A decimal literal, exact as written (`0.040` keeps its three places).
    Number(Decimal),
    /// A string literal.
    Text(Arc<str>),
    /// `true` or `false`.
    Bool(bool),
    /// A bare name: an input, a step, a parameter, a table or a keyword argument.
    Name(Ident),
    /// `base.field`.
    Field(Box<Expr>, Ident),
    /// `-x`, `not x`.
    Unary(UnOp, Box<Expr>),
    /// `a + b`, `a and b`, `a <= b`, …
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `if c then a else b`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `f(a, b, …)`.
    Call(Ident, Vec<Expr>),
    /// `match x { 'a' => e1, 'b' | 'c' => e2, else => e3 }`: the arm one of
    /// whose literals equals x.
    Match {
        /// The value matched.
        scrutinee: Box<Expr>,
        /// Literals (numbers, texts or booleans) and value of each arm, in order.
        arms: Vec<(Vec<Expr>, Expr)>,
        /// The `else` arm.
        otherwise: Box<Expr>,
    },
    /// `x in ['a', 'b']`, `x not in […]`: whether x equals one of the
    /// literals (a `match` whose arms are `true` and `false`).
    In {
        /// The value tested, read once.
        value: Box<Expr>,
        /// The literals, in order.
        set: Vec<Expr>,
        /// `not in`.
        negated: bool,
    },
    /// `x in list`, `x not in list`: whether x equals an item of a list
    /// value (`any([x == i for i in list])` with x read once).
    InList {
        /// The value tested, read once.
        value: Box<Expr>,
        /// The list.
        list: Box<Expr>,
        /// `not in`.
        negated: bool,
    },
    /// `let var = value; body`: `value` computed once and named in `body`.
    Let {
        /// The name bound.
        var: Ident,
        /// Its value.
        value: Box<Expr>,
        /// Where the name may be read; the value of the whole.
        body: Box<Expr>,
    },
    /// `[body for var in list if filter]`: a list built from another.
    Comprehension {
        /// The value of each kept item.
        body: Box<Expr>,
        /// The name of the item's index (from 0), in `for i, x in …`.
        index: Option<Ident>,
        /// The name each item is bound to.
        var: Ident,
        /// The list gone through.
        list: Box<Expr>,
        /// Which items are kept.
        filter: Option<Box<Expr>>,
    },
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// Arithmetic negation.
    Neg,
    /// Logical negation.
    Not,
}

/// Infix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `and`, short-circuiting.
    And,
    /// `or`, short-circuiting.
    Or,
}

impl BinOp {
    /// For a comparison operator, whether it holds between two values that
    /// compare as `ord`; the interpreter, compiled code and constant folding
    /// all decide comparisons here. Arithmetic and logical operators give
    /// `false`.
    pub fn holds(self, ord: std::cmp::Ordering) -> bool {
        match self {
            BinOp::Eq => ord.is_eq(),
            BinOp::Ne => ord.is_ne(),
            BinOp::Lt => ord.is_lt(),
            BinOp::Le => ord.is_le(),
            BinOp::Gt => ord.is_gt(),
            BinOp::Ge => ord.is_ge(),
            _ => false,
        }
    }

    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "and",
            BinOp::Or => "or",
        }
    }

    /// Binding strength, higher binds tighter; used by the printer.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 4,
            BinOp::Add | BinOp::Sub => 5,
            BinOp::Mul | BinOp::Div => 6,
        }
    }
}

/// The direct subexpressions of a node, shared or mutable: one list of
/// the variants for [`Expr::children`] and [`Expr::children_mut`].
macro_rules! direct_children {
    ($kind:expr, $node:ty, $iter:ident, $as_deref:ident) => {
        match $kind {
            ExprKind::Number(_) | ExprKind::Text(_) | ExprKind::Bool(_) | ExprKind::Name(_) => {
                Vec::new()
            }
            ExprKind::Field(base, _)
            | ExprKind::Unary(_, base)
            | ExprKind::In { value: base, .. } => vec![base],
            ExprKind::Binary(_, a, b)
            | ExprKind::InList {
                value: a, list: b, ..
            } => vec![a, b],
            ExprKind::If(c, a, b) => vec![c, a, b],
            ExprKind::Let { value, body, .. } => vec![value, body],
            ExprKind::Call(_, args) => args.$iter().collect(),
            ExprKind::Match {
                scrutinee,
                arms,
                otherwise,
            } => {
                let mut out: Vec<$node> = vec![scrutinee, otherwise];
                out.extend(arms.$iter().map(|(_, v)| v));
                out
            }
            ExprKind::Comprehension {
                body, list, filter, ..
            } => {
                let mut out: Vec<$node> = vec![body, list];
                out.extend(filter.$as_deref());
                out
            }
        }
    };
}

impl Expr {
    /// The direct subexpressions (the literals of `match` arms and of `in` excluded).
    pub fn children(&self) -> Vec<&Expr> {
        direct_children!(&self.kind, &Expr, iter, as_deref)
    }

    /// [`Expr::children`], to rewrite them in place.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        direct_children!(&mut self.kind, &mut Expr, iter_mut, as_deref_mut)
    }

    /// How many nodes the tree holds, counted without recursion.
    pub fn size(&self) -> usize {
        let (mut n, mut stack) = (0, vec![self]);
        while let Some(e) = stack.pop() {
            n += 1;
            stack.extend(e.children());
        }
        n
    }

    /// Depth of the tree; a leaf has depth 1.
    pub fn depth(&self) -> usize {
        1 + self
            .children()
            .into_iter()
            .map(Expr::depth)
            .max()
            .unwrap_or(0)
    }
}
