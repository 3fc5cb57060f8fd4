//! Formula nodes the plan leaves to the walker (`Code::Tree`), written out
//! as calls of the runtime: comprehensions, `decision` and `reason`, a group
//! read whole, and the functions of tables, calendars, lists and maps.
//!
//! The plan lowers only what it computes faster than the walker; the rest
//! stays a tree node. Compiled code still needs every node a rulebook
//! uses, so each one is generated here by the runtime function that does
//! what the walker does. A new node kind or function needs a case here; one
//! without gives up where it is needed and is listed as a fallback.
//!
//! Invariant: a function called with an arity it was not checked for is
//! not compiled, never guessed.

use super::ty::{Ex, Ty};
use super::{Gen, Gened, Scope, Unsupported};
use crate::model::plan::{node_count, Plan};
use crate::model::{CheckOutcome, Func, Node, NodeKind};
use crate::value::Value;

/// A generated call: its text and type, or `None` when the function (at
/// this arity) is not compiled.
type Called = Option<(String, Ty)>;

impl Gen<'_> {
    /// A node the plan leaves to the walker: comprehensions, the decision
    /// taken, a group read whole, and the functions of lists, tables and
    /// calendars, each by the runtime function that does what the walker does.
    pub(super) fn tree(&mut self, node: &Node, sc: Scope) -> Gened<Ex> {
        let rb = self.rb;
        match &node.kind {
            NodeKind::Call(func, args) => self.call(*func, args, sc),
            NodeKind::Local(i) if *i < sc.depth => Ok(Ex::place(format!("(*l{i})"))),
            NodeKind::Comprehension { body, list, filter } => {
                self.comprehension(body, list, filter.as_deref(), sc)
            }
            NodeKind::Decision => {
                let (_, d) = sc
                    .decided
                    .ok_or_else(|| Unsupported("`decision` is read before an answer".into()))?;
                self.constant(&Value::Text(rb.decisions[d].name.clone()))
            }
            NodeKind::Reason => {
                let (k, _) = sc
                    .decided
                    .ok_or_else(|| Unsupported("`reason` is read before an answer".into()))?;
                match &rb.checks[k].outcome {
                    CheckOutcome::Decide {
                        reason: Some(r), ..
                    } => self.constant(&Value::Text(r.clone())),
                    _ => Ok(Ex::new("Value::Absent".into(), Ty::Opt)),
                }
            }
            NodeKind::Clauses => Ok(Ex::new("Value::Absent".into(), Ty::Opt)),
            NodeKind::Group(g) => self.group_list(*g),
            other => Err(Unsupported(format!("{} is not compiled", kind_name(other)))),
        }
    }

    /// `[body for x in list if filter]` as a loop; `x` is the local `l{depth}`.
    fn comprehension(
        &mut self,
        body: &Node,
        list: &Node,
        filter: Option<&Node>,
        sc: Scope,
    ) -> Gened<Ex> {
        let list = self.node(list, sc)?.as_value();
        let d = sc.depth;
        let inner = Scope { depth: d + 1, ..sc };
        let keep = match filter {
            Some(f) => format!("if {} ", self.node(f, inner)?.to(Ty::Bool)),
            None => String::new(),
        };
        let body_text = self.node(body, inner)?.to(Ty::Val);
        let per_item = 2 * (node_count(body) + filter.map_or(0, node_count));
        Ok(Ex::new(
            format!(
                "{{ let mut out: Vec<Value> = Vec::new(); for l{d} in items({})?.iter() {{ \
                 spent += {per_item}; {keep}{{ out.push({body_text}); }} }} Value::List(out.into()) }}",
                list.borrow()
            ),
            Ty::Val,
        ))
    }

    /// A function call, by its family.
    fn call(&mut self, func: Func, args: &[Node], sc: Scope) -> Gened<Ex> {
        let called = match func {
            Func::Date | Func::Month if args.len() == 1 => return self.node(&args[0], sc),
            Func::Lookup | Func::PeriodRow | Func::RangeRow | Func::Scale | Func::Rows => {
                self.table_call(func, args, sc)?
            }
            Func::Day
            | Func::DaysInMonth
            | Func::Age
            | Func::DaysBetween
            | Func::AddYears
            | Func::AddMonths
            | Func::MonthOf
            | Func::Year => self.calendar_call(func, args, sc)?,
            Func::Count
            | Func::Sum
            | Func::Any
            | Func::All
            | Func::Min
            | Func::Max
            | Func::FindIndex
            | Func::Get
            | Func::Keys
            | Func::Values
            | Func::IsNull => self.list_call(func, args, sc)?,
            Func::Pow | Func::Abs | Func::Clamp => self.number_call(func, args, sc)?,
            _ => None,
        };
        match called {
            Some((text, ty)) => Ok(Ex::new(text, ty)),
            None => Err(Unsupported(format!("`{func:?}` is not compiled"))),
        }
    }

    /// `pow`, `abs`, `clamp`.
    fn number_call(&mut self, func: Func, args: &[Node], sc: Scope) -> Gened<Called> {
        Ok(Some(match (func, args.len()) {
            (Func::Pow, 2) => {
                let a = self.arg(args, 0, Ty::Num, sc)?;
                let b = self.arg(args, 1, Ty::Num, sc)?;
                (format!("pow({a}, {b})?"), Ty::Dec)
            }
            (Func::Abs, 1) => (format!("abs({})", self.arg(args, 0, Ty::Num, sc)?), Ty::Num),
            (Func::Clamp, 3) => {
                let x = self.arg(args, 0, Ty::Num, sc)?;
                let lo = self.arg(args, 1, Ty::Num, sc)?;
                let hi = self.arg(args, 2, Ty::Num, sc)?;
                (format!("clamp({x}, {lo}, {hi})?"), Ty::Num)
            }
            _ => return Ok(None),
        }))
    }

    /// The functions of a table (its first argument): rows found by key,
    /// period or range, a progressive scale, the rows in force.
    fn table_call(&mut self, func: Func, args: &[Node], sc: Scope) -> Gened<Called> {
        let n = args.len();
        Ok(Some(match (func, n) {
            (Func::Lookup, 2..) => {
                let t = table_of(func, args)?;
                let keys = (1..n)
                    .map(|i| self.node(&args[i], sc).map(|k| k.to(Ty::Val)))
                    .collect::<Gened<Vec<String>>>()?;
                (
                    format!("lookup(rb, facts, {t}, &[{}])?", keys.join(", ")),
                    Ty::Val,
                )
            }
            (Func::PeriodRow, 2) => {
                let t = table_of(func, args)?;
                let key = self.arg(args, 1, Ty::Val, sc)?;
                (format!("period_row(rb, facts, {t}, {key})?"), Ty::Val)
            }
            (Func::RangeRow, 2) => {
                let t = table_of(func, args)?;
                let x = self.arg(args, 1, Ty::Num, sc)?;
                (format!("range_row(rb, facts, {t}, {x})?"), Ty::Val)
            }
            (Func::Scale, 2 | 3) => {
                let t = table_of(func, args)?;
                let x = self.arg(args, 1, Ty::Num, sc)?;
                let round_each = match args.get(2).map(|a| &a.kind) {
                    Some(NodeKind::Const(Value::Number(p))) => {
                        let p = crate::model::ops::whole(*p, "places")
                            .map_err(|e| Unsupported(format!("`scale`: {e}")))?;
                        u32::try_from(p).ok()
                    }
                    _ => None,
                };
                (
                    format!("scale(rb, facts, {t}, {x}, {round_each:?})?"),
                    Ty::Num,
                )
            }
            (Func::Rows, 1) => (
                format!("table_rows(rb, facts, {})?", table_of(func, args)?),
                Ty::Val,
            ),
            _ => return Ok(None),
        }))
    }

    /// The functions of dates and months.
    fn calendar_call(&mut self, func: Func, args: &[Node], sc: Scope) -> Gened<Called> {
        Ok(Some(match (func, args.len()) {
            (Func::Day, 1) => (
                format!("day({})?", self.arg(args, 0, Ty::Val, sc)?),
                Ty::Dec,
            ),
            (Func::DaysInMonth, 1) => (
                format!("days_in_month({})?", self.arg(args, 0, Ty::Val, sc)?),
                Ty::Dec,
            ),
            (Func::Age, 2) => {
                let a = self.arg(args, 0, Ty::Val, sc)?;
                let b = self.arg(args, 1, Ty::Val, sc)?;
                (format!("age({a}, {b})?"), Ty::Dec)
            }
            (Func::DaysBetween, 2) => {
                let a = self.arg(args, 0, Ty::Val, sc)?;
                let b = self.arg(args, 1, Ty::Val, sc)?;
                (format!("days_between({a}, {b})?"), Ty::Dec)
            }
            (Func::AddYears, 2) => {
                let a = self.arg(args, 0, Ty::Val, sc)?;
                let b = self.arg(args, 1, Ty::Num, sc)?;
                (format!("add_years({a}, {b})?"), Ty::Val)
            }
            (Func::AddMonths, 2) => {
                let a = self.arg(args, 0, Ty::Val, sc)?;
                let b = self.arg(args, 1, Ty::Num, sc)?;
                (format!("add_months({a}, {b})?"), Ty::Val)
            }
            (Func::MonthOf, 1) => (
                format!("month_of({})?", self.arg(args, 0, Ty::Val, sc)?),
                Ty::Val,
            ),
            (Func::Year, 1) => (
                format!("year({})?", self.arg(args, 0, Ty::Val, sc)?),
                Ty::Dec,
            ),
            _ => return Ok(None),
        }))
    }

    /// The functions of lists and maps, and the test for `null`.
    fn list_call(&mut self, func: Func, args: &[Node], sc: Scope) -> Gened<Called> {
        Ok(Some(match (func, args.len()) {
            (Func::Count, 1) => (
                format!("count({})?", self.arg(args, 0, Ty::Val, sc)?),
                Ty::Dec,
            ),
            (Func::Sum, 1) => (
                format!("sum({})?", self.arg(args, 0, Ty::Val, sc)?),
                Ty::Num,
            ),
            (Func::Any | Func::All, 1) => (
                format!(
                    "any_all({}, {})?",
                    self.arg(args, 0, Ty::Val, sc)?,
                    func == Func::Any
                ),
                Ty::Bool,
            ),
            (Func::Min | Func::Max, 1) => (
                format!(
                    "extremum_of({}, {})?",
                    self.arg(args, 0, Ty::Val, sc)?,
                    func == Func::Max
                ),
                Ty::Val,
            ),
            (Func::FindIndex, 1) => (
                format!("find_index({})?", self.arg(args, 0, Ty::Val, sc)?),
                Ty::Val,
            ),
            (Func::Get, 2) => {
                let m = self.arg(args, 0, Ty::Val, sc)?;
                let k = self.arg(args, 1, Ty::Val, sc)?;
                (format!("get({m}, {k})?"), Ty::Val)
            }
            (Func::Keys | Func::Values, 1) => (
                format!(
                    "keys_values({}, {})?",
                    self.arg(args, 0, Ty::Val, sc)?,
                    func == Func::Keys
                ),
                Ty::Val,
            ),
            (Func::IsNull, 1) => (
                format!("({} == &Value::Null)", self.arg(args, 0, Ty::Val, sc)?),
                Ty::Bool,
            ),
            _ => return Ok(None),
        }))
    }

    /// Argument `i` as type `ty`; as `Ty::Val`, a `&Value`.
    fn arg(&mut self, args: &[Node], i: usize, ty: Ty, sc: Scope) -> Gened<String> {
        let e = self.node(&args[i], sc)?;
        Ok(match ty {
            Ty::Val => e.as_value().borrow(),
            ty => e.to(ty),
        })
    }

    /// A formula node inside a tree node: lowered as its context was, then generated.
    fn node(&mut self, node: &Node, sc: Scope) -> Gened<Ex> {
        let code = match sc.row {
            Some(_) => Plan::lower_in_row(self.rb, node),
            None => Plan::lower(self.rb, node),
        };
        self.expr(&code, sc)
    }
}

/// The table a function's first argument names.
fn table_of(func: Func, args: &[Node]) -> Gened<usize> {
    match args.first().map(|a| &a.kind) {
        Some(NodeKind::Table(t)) => Ok(*t),
        _ => Err(Unsupported(format!("`{func:?}` of something not a table"))),
    }
}

fn kind_name(kind: &NodeKind) -> &'static str {
    match kind {
        NodeKind::Comprehension { .. } => "a list comprehension",
        NodeKind::Group(_) => "a group read whole",
        NodeKind::Local(_) => "a comprehension variable",
        NodeKind::Decision => "`decision`",
        NodeKind::Reason => "`reason`",
        NodeKind::Clauses => "`clauses`",
        _ => "this form",
    }
}
