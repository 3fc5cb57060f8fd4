//! Formulas as the checker leaves them: the resolved tree (`Node`, names
//! already slots) with its text, and the static types of the language.
//!
//! The tree is what lowering, printing, the depth check and folding read;
//! evaluation and code generation read the formula's lowered [`Code`].

use std::sync::Arc;

use super::code::Code;
use super::{Func, InputId, ShapeId, StepId, TableId};
use crate::expr::BinOp;
use crate::num::RoundingMode;
use crate::span::Span;
use crate::value::Value;

/// A compiled expression with its text and where that text is in the file.
#[derive(Clone, Debug)]
pub struct Formula {
    /// The expression as written.
    pub text: Arc<str>,
    /// The compiled tree.
    pub node: Node,
    /// Byte offset of the expression's first character in the file, when known.
    pub offset: Option<usize>,
    /// The formula lowered (`rulebook::lower`): what evaluation runs and
    /// code generation writes out.
    pub(crate) code: Code,
}

/// A compiled expression node.
#[derive(Clone, Debug)]
pub struct Node {
    /// Where the node's text is, relative to its formula.
    pub span: Span,
    /// What it computes.
    pub kind: NodeKind,
}

impl Node {
    /// The steps this formula reads, for the step graph: top-level steps
    /// and groups (group `g` as `n_steps + g`) into `top`, steps of the
    /// current item's group into `local`.
    pub fn step_reads(&self, n_steps: usize, top: &mut Vec<usize>, local: &mut Vec<usize>) {
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            match &node.kind {
                NodeKind::Step(i) => top.push(i.index()),
                NodeKind::Group(g) => top.push(n_steps + g),
                NodeKind::ItemStep(j) => local.push(*j),
                _ => {}
            }
            stack.extend(node.children());
        }
    }

    /// The direct subnodes.
    pub fn children(&self) -> Vec<&Node> {
        match &self.kind {
            NodeKind::Field { base, .. } | NodeKind::Neg(base) | NodeKind::Not(base) => vec![base],
            NodeKind::Binary(_, a, b) | NodeKind::Let { value: a, body: b } => vec![a, b],
            NodeKind::If(parts) => vec![&parts.0, &parts.1, &parts.2],
            NodeKind::Call(_, args) => args.iter().collect(),
            NodeKind::Match {
                scrutinee,
                arms,
                otherwise,
            } => {
                let mut out: Vec<&Node> = vec![scrutinee, otherwise];
                out.extend(arms.iter().map(|(_, v)| v));
                out
            }
            NodeKind::Comprehension {
                body, list, filter, ..
            } => {
                let mut out: Vec<&Node> = vec![body, list];
                out.extend(filter.as_deref());
                out
            }
            _ => Vec::new(),
        }
    }
}

/// What a node computes; names are already resolved to slots.
#[derive(Clone, Debug)]
pub enum NodeKind {
    /// A literal.
    Const(Value),
    /// A top-level input.
    Input(InputId),
    /// A step (evaluated on first use).
    Step(StepId),
    /// The current item of the group being evaluated.
    Item,
    /// A step of the current item's group.
    ItemStep(usize),
    /// A group's per-item results, as a list of records.
    Group(usize),
    /// A parameter.
    Param(usize),
    /// A table, as a function argument.
    Table(TableId),
    /// A rounding mode, as a function argument.
    Mode(RoundingMode),
    /// The decision's name (answers only).
    Decision,
    /// The check's reason code (answers only).
    Reason,
    /// The cited clauses (answers only).
    Clauses,
    /// `base.field`; `path` is the dotted text when `base` is a name chain.
    Field {
        /// The record.
        base: Box<Node>,
        /// Field index in the record's shape.
        index: usize,
        /// `row.rate`, for the trace.
        path: Option<Arc<str>>,
    },
    /// `-x`.
    Neg(Box<Node>),
    /// `not x`.
    Not(Box<Node>),
    /// `a op b`.
    Binary(BinOp, Box<Node>, Box<Node>),
    /// `if c then a else b`.
    If(Box<(Node, Node, Node)>),
    /// A built-in function call.
    Call(Func, Vec<Node>),
    /// A name bound inside the formula (a comprehension's item, a field rule's `value`):
    /// the index on the evaluator's stack of locals.
    Local(usize),
    /// The item an `x in list` compares `x` with (local `i`, bound by its
    /// lowering), spanned at the list: a fault names it "an item of" it.
    InItem(usize),
    /// `match x { lit | lit => value, …, else => value }`, and `x in […]`.
    Match {
        /// The value matched.
        scrutinee: Box<Node>,
        /// Each arm's literals and value, in order.
        arms: Vec<(Vec<Value>, Node)>,
        /// The `else` arm.
        otherwise: Box<Node>,
    },
    /// `let x = value; body`; `x` is the next local.
    Let {
        /// Computed once, before the body.
        value: Box<Node>,
        /// The value of the whole.
        body: Box<Node>,
    },
    /// `[body for x in list if filter]`; `x` is the next local, or, in
    /// `for i, x in`, the index `i` is and `x` the one after.
    Comprehension {
        /// Whether the item's index is bound before the item.
        indexed: bool,
        /// The value of each kept item.
        body: Box<Node>,
        /// The list gone through.
        list: Box<Node>,
        /// Which items are kept.
        filter: Option<Box<Node>>,
    },
}

/// Static types of the expression language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// Exact decimal (money, rates, counts).
    Number,
    /// Boolean.
    Bool,
    /// Text and enum values.
    Text,
    /// Calendar date.
    Date,
    /// Calendar month.
    Month,
    /// A record of a known shape.
    Record(ShapeId),
    /// A list.
    List(Box<Type>),
    /// A map from text keys.
    Map(Box<Type>),
    /// A table (function argument only).
    Table(TableId),
    /// A list of clause ids (answers only).
    Clauses,
    /// Unknown after an earlier error; fits anywhere, so one mistake is reported once.
    Any,
}

impl Type {
    /// Whether a value of type `other` may stand where `self` is expected.
    pub fn accepts(&self, other: &Type) -> bool {
        self == other || *self == Type::Any || *other == Type::Any
    }
}
