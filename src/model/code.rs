//! The lowered form: every formula of a checked rulebook as [`Code`], built
//! once at load (`rulebook::lower`), run by the evaluator (`eval`) with or
//! without a trace, and written out as Rust by the code generator
//! (`codegen`).
//!
//! Code is the resolved tree ([`Node`]) made ready to run: each node keeps
//! its span (faults and traces name it), operators are split by what they
//! compute (arithmetic, comparison, short-circuiting logic), rounding
//! points with literal places are settled, and what is the same for every
//! case is known in advance: a parameter with one value carries it
//! ([`CodeKind::Fixed`]), arithmetic on constants carries its result
//! ([`CodeKind::Folded`]), and a sum over a group's column or rows is one
//! node that reads the group in place ([`CodeKind::SumColumn`],
//! [`CodeKind::SumRows`]).
//!
//! INVARIANT: a shortcut never changes what a formula computes. Each one
//! keeps the code it stands for (`whole`); the evaluator takes the shortcut
//! only when no trace is kept (a trace shows every read the formula makes),
//! and the shortcut computes, faults and spends as `whole` would, except that
//! folded constants and specialised rows spend less (a `cite` condition
//! folded to a constant is not evaluated at all: it cannot fault).

use std::sync::{Arc, OnceLock};

use crate::expr::BinOp;
use crate::model::{Func, InputId, Node, StepId, TableId};
use crate::num::RoundingMode;
use crate::span::Span;
use crate::value::Value;

/// One node of a lowered formula.
#[derive(Clone, Debug)]
pub(crate) struct Code {
    /// Where the node's text is, relative to its formula.
    pub(crate) span: Span,
    /// What it computes.
    pub(crate) kind: CodeKind,
}

/// What a node of code computes; names are slots.
#[derive(Clone, Debug)]
pub(crate) enum CodeKind {
    /// A literal.
    Const(Value),
    /// A top-level input.
    Input(InputId),
    /// A step, computed on first use.
    Step(StepId),
    /// A parameter with one value, which it carries.
    Fixed(usize, Value),
    /// A parameter with dated values, chosen on first use.
    Param(usize),
    /// The current item of the group being evaluated.
    Item,
    /// A step of the current item's group.
    ItemStep(usize),
    /// A group's per-item results, as a list of records.
    Group(usize),
    /// A name bound inside the formula: its index on the stack of locals.
    Local(usize),
    /// An item of the list after `in` (`NodeKind::InItem`).
    InItem(usize),
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
    /// `base.field`; the dotted path when `base` is a name chain, for the trace.
    Field(Box<Code>, usize, Option<Arc<str>>),
    /// `x.field` of the group item a [`CodeKind::SumRows`] is at, read in place.
    RowField(usize, Option<Arc<str>>),
    /// `-x`.
    Neg(Box<Code>),
    /// `not x`.
    Not(Box<Code>),
    /// `a + b`, `a - b`, `a * b`, `a / b`.
    Arith(BinOp, Box<Code>, Box<Code>),
    /// `a == b`, `a < b`, …
    Compare(BinOp, Box<Code>, Box<Code>),
    /// `a and b`.
    And(Box<Code>, Box<Code>),
    /// `a or b`.
    Or(Box<Code>, Box<Code>),
    /// `if c then a else b`.
    If(Box<(Code, Code, Code)>),
    /// `match x { lit | lit => value, …, else => value }`, and `x in […]`.
    Match(Box<Code>, Vec<(Vec<Value>, Code)>, Box<Code>),
    /// `let x = value; body`: the value is the next local while the body runs.
    Let(Box<Code>, Box<Code>),
    /// `round`, `floor` or `ceil` with literal places: a rounding point.
    Round(Box<Code>, u32, RoundingMode),
    /// `min`/`max` of two or more arguments.
    Extremum(Func, Vec<Code>),
    /// `coalesce(…)`.
    Coalesce(Vec<Code>),
    /// `is_missing(x)`.
    IsMissing(Box<Code>),
    /// Any other call of a built-in function.
    Call(Func, Vec<Code>),
    /// `[body for x in list if filter]`; `x` is the next local (after the
    /// index, when `indexed`).
    Comprehension {
        indexed: bool,
        body: Box<Code>,
        list: Box<Code>,
        filter: Option<Box<Code>>,
        /// Nodes of the body and filter as written (compiled code counts
        /// its budget by them).
        nodes: u64,
    },
    /// A part of a specialised row's formula the same for every case,
    /// replayed by a traced evaluation ([`Recorded`]); only in
    /// `SpecializedRow::traced`.
    Recorded(Box<Recorded>),
    /// Arithmetic on constants, computed at load.
    Folded {
        value: Value,
        /// Nodes of `whole`, which the shortcut spends at once.
        nodes: u64,
        whole: Box<Code>,
    },
    /// `sum(group.field)`: a column of a group, summed without a list.
    SumColumn {
        group: usize,
        index: usize,
        whole: Box<Code>,
    },
    /// `sum([body for x in group if filter])`, the item's fields read in
    /// place ([`CodeKind::RowField`]), without a list or a record per item.
    SumRows {
        group: usize,
        filter: Option<Box<Code>>,
        body: Box<Code>,
        /// Nodes of the body and filter as written, which each item spends
        /// (compiled code counts its budget by them).
        nodes: u64,
        whole: Box<Code>,
    },
}

impl Code {
    /// Whether the code is always true or false (or a fault): a comparison,
    /// `and`, `or`, `not` or `is_missing`.
    pub(crate) fn is_boolean(&self) -> bool {
        matches!(
            self.kind,
            CodeKind::Compare(..)
                | CodeKind::And(..)
                | CodeKind::Or(..)
                | CodeKind::Not(_)
                | CodeKind::IsMissing(_)
        )
    }

    /// The number this code always has, when it is a constant number.
    pub(crate) fn constant_number(&self) -> Option<rust_decimal::Decimal> {
        match &self.kind {
            CodeKind::Const(Value::Number(d))
            | CodeKind::Fixed(_, Value::Number(d))
            | CodeKind::Folded {
                value: Value::Number(d),
                ..
            } => Some(*d),
            _ => None,
        }
    }
}

/// The nodes of a formula as written.
pub(crate) fn node_count(node: &Node) -> u64 {
    1 + node.children().into_iter().map(node_count).sum::<u64>()
}

// Parts of a specialised row's formula that are the same for every case,
// as a traced evaluation runs them (`rulebook::recorded` marks them,
// `eval::recorded` runs them).
//
// A part that reads only constants, the row and the row's known steps
// computes, reads and spends the same for every case; so does the
// condition of an `if` or the scrutinee of a `match` of that kind, which
// settles the arm taken. The first traced evaluation that runs such a part
// keeps what it recorded ([`Capture`]); later ones replay it instead of
// running it.
//
// Invariant: plain data, the capture filled once (a `OnceLock`), the same
// whichever case fills it.

/// A part of a formula that is the same for every case.
#[derive(Clone, Debug)]
pub(crate) struct Recorded {
    /// The code as written: what a traced evaluation runs until the part
    /// is captured, or when a replay cannot stand for it.
    pub(crate) whole: Code,
    /// For a choice settled the same for every case (`whole` an `if` or a
    /// `match`), its arms marked in turn (`if`: then, else; `match`: each
    /// arm, then `else`); empty for a part whose value is the same.
    pub(crate) arms: Vec<Code>,
    /// What the part recorded the first time it ran; `None` inside when it
    /// records what a replay cannot give (a lookup, a rounding).
    pub(crate) capture: OnceLock<Option<Capture>>,
}

/// What a part the same for every case recorded: for a value, the whole
/// part; for a settled choice, the choice up to its arm.
#[derive(Clone, Debug)]
pub(crate) struct Capture {
    /// The budget it spent.
    pub(crate) spent: u64,
    /// Every name it read, with its value, in the order first read.
    pub(crate) reads: Vec<(Arc<str>, Value)>,
    /// The row's steps among those reads: a replay is taken only once all
    /// are computed (the part as written would compute them first).
    pub(crate) deps: Vec<usize>,
    /// Its value, or the arm it settles on.
    pub(crate) then: Then,
}

/// What follows a captured part.
#[derive(Clone, Debug)]
pub(crate) enum Then {
    /// The part's value.
    Value(Value),
    /// The index in [`Recorded::arms`] of the arm taken.
    Arm(usize),
}
