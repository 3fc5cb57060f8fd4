//! Formula nodes the plan leaves to the walker (`Code::Tree`), written out
//! as calls of the runtime: comprehensions, `decision` and `reason`, a group
//! read whole, and the functions of tables, calendars, lists and maps.
//!
//! The plan lowers only what it computes faster than the walker; the rest
//! stays a tree node. Compiled code still needs every node a rulebook
//! uses, so each one is generated here by the runtime function that does
//! what the walker does. A function with an operation in its table entry
//! (`model::func`) is written as that entry says; a new node kind or a
//! hand-run function needs a case here; one without gives up where it is
//! needed and is listed as a fallback.
//!
//! Invariant: a function called with an arity it was not checked for is
//! not compiled, never guessed.

use super::ty::{Ex, Ty};
use super::{Gen, Gened, Scope, Unsupported};
use crate::model::func::{Carrier, Emit, Op};
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

    /// A function call: a function of the table as its entry says, the
    /// others by their family.
    fn call(&mut self, func: Func, args: &[Node], sc: Scope) -> Gened<Ex> {
        let called = match (&func.spec().op, func) {
            (Some(op), _) => self.op_call(func, op, args, sc)?,
            (None, Func::Date | Func::Month) if args.len() == 1 => return self.node(&args[0], sc),
            (None, Func::Lookup | Func::PeriodRow | Func::RangeRow | Func::Scale | Func::Rows) => {
                self.table_call(func, args, sc)?
            }
            (None, Func::Min | Func::Max) => self.extremum_call(func, args, sc)?,
            _ => None,
        };
        match called {
            Some((text, ty)) => Ok(Ex::new(text, ty)),
            None => Err(Unsupported(format!("`{func:?}` is not compiled"))),
        }
    }

    /// A function of the table: its typed runtime function where it has
    /// one, else `rt::call` on the table's own operation.
    fn op_call(&mut self, func: Func, op: &Op, args: &[Node], sc: Scope) -> Gened<Called> {
        match &op.emit {
            Emit::Rt {
                text,
                args: carriers,
                ty,
            } => {
                if args.len() != carriers.len() {
                    return Ok(None);
                }
                let mut texts = Vec::with_capacity(args.len());
                for (i, c) in carriers.iter().enumerate() {
                    texts.push(self.arg(args, i, carried(*c), sc)?);
                }
                Ok(Some((fill(text, &texts), carried(*ty))))
            }
            Emit::Call => {
                if args.len() != op.reads.len() {
                    return Ok(None);
                }
                let mut texts = Vec::with_capacity(args.len());
                for a in args {
                    texts.push(self.node(a, sc)?.to(Ty::Val));
                }
                Ok(Some((
                    format!("call(Func::{func:?}, [{}])?", texts.join(", ")),
                    Ty::Val,
                )))
            }
        }
    }

    /// `min(list)` and `max(list)` (with more arguments, the plan compares them).
    fn extremum_call(&mut self, func: Func, args: &[Node], sc: Scope) -> Gened<Called> {
        Ok(match args.len() {
            1 => Some((
                format!(
                    "extremum_of({}, {})?",
                    self.arg(args, 0, Ty::Val, sc)?,
                    func == Func::Max
                ),
                Ty::Val,
            )),
            _ => None,
        })
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

/// How generated code carries a value of this kind.
fn carried(c: Carrier) -> Ty {
    match c {
        Carrier::Value => Ty::Val,
        Carrier::Num => Ty::Num,
        Carrier::Dec => Ty::Dec,
        Carrier::Bool => Ty::Bool,
    }
}

/// A runtime call's text: each `{i}` of `template` replaced by argument
/// `i`, in one pass (an argument's own text is never read as a template).
fn fill(template: &str, args: &[String]) -> String {
    let mut out =
        String::with_capacity(template.len() + args.iter().map(String::len).sum::<usize>());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('}');
        let arg = close
            .and_then(|c| after[..c].parse::<usize>().ok())
            .and_then(|i| args.get(i));
        match (arg, close) {
            (Some(a), Some(c)) => {
                out.push_str(a);
                rest = &after[c + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
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
