//! The lowered program: every step, check condition and answer field of a
//! checked rulebook as [`Code`], built once at load (`rulebook::lower`) and
//! run by the evaluator (`eval::plan`) or written out as Rust (`codegen`).

use crate::expr::BinOp;
use crate::model::{Func, Node};
use crate::num::RoundingMode;
use crate::value::Value;

/// Every step of a rulebook as code, built at load.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// One per top-level step.
    pub(crate) steps: Vec<StepCode>,
    /// One per group.
    pub(crate) groups: Vec<GroupCode>,
    /// The condition of each check (`None` for one that always holds).
    pub(crate) checks: Vec<Option<Code>>,
    /// Each decision's answer fields; `None` for a field listing a group's items.
    pub(crate) answers: Vec<Vec<Option<Code>>>,
    /// The items of each group over the rows of a table no case replaces
    /// (a specialised group): the same list for every case.
    pub(crate) items: Vec<Option<Value>>,
}

/// A group's steps as code.
#[derive(Clone, Debug)]
pub(crate) enum GroupCode {
    /// The same code for every item.
    Any(Vec<StepCode>),
    /// Code specialised for each constant row (see `fold`).
    Rows(Vec<Vec<StepCode>>),
}

/// A step as code: its condition, formula and rounding point.
#[derive(Clone, Debug)]
pub(crate) struct StepCode {
    pub(crate) when: Option<Code>,
    pub(crate) expr: Code,
    pub(crate) otherwise: Option<Code>,
    pub(crate) round: Option<(u32, RoundingMode)>,
}

/// One node of a lowered formula.
#[derive(Clone, Debug)]
pub(crate) enum Code {
    Const(Value),
    Input(usize),
    Step(usize),
    Param(usize),
    Item,
    ItemStep(usize),
    /// A field of a record (a record input, the current item).
    Field(Box<Code>, usize),
    Arith(BinOp, Box<Code>, Box<Code>),
    Compare(BinOp, Box<Code>, Box<Code>),
    And(Box<Code>, Box<Code>),
    Or(Box<Code>, Box<Code>),
    Not(Box<Code>),
    Neg(Box<Code>),
    If(Box<(Code, Code, Code)>),
    Match(Box<Code>, Vec<(Value, Code)>, Box<Code>),
    Round(Box<Code>, u32, RoundingMode),
    /// `min`/`max` of two or more arguments.
    Extremum(Func, Vec<Code>),
    Coalesce(Vec<Code>),
    IsMissing(Box<Code>),
    /// `sum(group.field)`: a column of a group, summed without a list.
    SumColumn(usize, usize),
    /// `sum([body for x in group if filter])`, the item's fields read in
    /// place (`RowField`), without a list or a record per item.
    SumRows {
        group: usize,
        filter: Option<Box<Code>>,
        body: Box<Code>,
        /// Nodes of the body and filter as written, which the walker
        /// evaluates for each item (compiled code counts its budget by them).
        nodes: u64,
    },
    /// `x.field` of the item `SumRows` is at.
    RowField(usize),
    /// Any other node, evaluated by the tree walker.
    Tree(Node),
}

impl Plan {
    /// The code of item `index` of group `g`, a step to an entry.
    pub(crate) fn item_codes(&self, g: usize, index: usize) -> Option<&[StepCode]> {
        match self.groups.get(g)? {
            GroupCode::Any(steps) => Some(steps),
            GroupCode::Rows(rows) => rows.get(index).map(Vec::as_slice),
        }
    }

    /// The items of group `g` when they are the same for every case.
    pub(crate) fn constant_items(&self, g: usize) -> Option<&Value> {
        self.items.get(g)?.as_ref()
    }
}

/// The nodes of a formula as written.
pub(crate) fn node_count(node: &Node) -> u64 {
    1 + node.children().into_iter().map(node_count).sum::<u64>()
}
