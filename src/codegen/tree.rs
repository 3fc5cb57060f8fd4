//! Code written out as calls of the runtime: comprehensions, `decision` and
//! `reason`, a group read whole, and the functions of tables, calendars,
//! lists and maps.
//!
//! Arithmetic, comparisons, logic and choices become Rust expressions
//! (`expr`); the rest of the code a rulebook uses is generated here by the
//! runtime function that does what the interpreter does. A function with
//! an operation in its table entry (`model::func`) is written as that entry
//! says; a new kind of code or a hand-run function needs a case here; one
//! without gives up where it is needed and is listed as a fallback.
//!
//! Invariant: a function called with an arity it was not checked for is
//! not compiled, never guessed.

use std::fmt::Write as _;

use super::state::{Gen, Gened, Scope, Unsupported};
use super::ty::{Ex, Ty};
use crate::model::code::{Code, CodeKind};
use crate::model::func::{Carrier, Emit, Op};
use crate::model::{CheckOutcome, Func};
use crate::value::Value;

/// A generated call: its text and type, or `None` when the function (at
/// this arity) is not compiled.
type Called = Option<(String, Ty)>;

impl Gen<'_> {
    /// Comprehensions, the decision taken, a group read whole, and the
    /// functions of lists, tables and calendars, each by the runtime
    /// function that does what the interpreter does.
    pub(super) fn tree(&mut self, code: &Code, sc: Scope) -> Gened<Ex> {
        let rb = self.rb;
        match &code.kind {
            CodeKind::Call(func, args) => self.call(*func, args, sc),
            CodeKind::Local(i) | CodeKind::InItem(i) if *i < sc.depth => {
                Ok(Ex::place(format!("(*l{i})")))
            }
            CodeKind::Comprehension {
                indexed,
                body,
                list,
                filter,
                nodes,
            } => self.comprehension(*indexed, body, list, filter.as_deref(), *nodes, sc),
            CodeKind::Decision => {
                let (_, d) = sc
                    .decided
                    .ok_or_else(|| Unsupported("`decision` is read before an answer".into()))?;
                self.constant(&Value::Text(rb.decisions[d].name.clone()))
            }
            CodeKind::Reason => {
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
            CodeKind::Clauses => Ok(Ex::new("Value::Absent".into(), Ty::Opt)),
            CodeKind::Group(g) => self.group_list(*g),
            other => Err(Unsupported(format!("{} is not compiled", kind_name(other)))),
        }
    }

    /// `[body for x in list if filter]` as a loop; `x` is the local `l{depth}`,
    /// or with an index `i`, `i` is `l{depth}` and `x` the next.
    fn comprehension(
        &mut self,
        indexed: bool,
        body: &Code,
        list: &Code,
        filter: Option<&Code>,
        nodes: u64,
        sc: Scope,
    ) -> Gened<Ex> {
        let list = self.expr(list, sc)?.as_value();
        let d = sc.depth;
        let (item, index) = if indexed {
            (
                format!("(i{d}, l{})", d + 1),
                format!("let l{d}: &Value = &Value::Number(Decimal::from(i{d})); "),
            )
        } else {
            (format!("l{d}"), String::new())
        };
        let iter = if indexed { ".enumerate()" } else { "" };
        let inner = Scope {
            depth: d + 1 + usize::from(indexed),
            ..sc
        };
        let keep = match filter {
            Some(f) => format!("if {} ", self.expr(f, inner)?.to(Ty::Bool)),
            None => String::new(),
        };
        let body_text = self.expr(body, inner)?.to(Ty::Val);
        let per_item = 2 * nodes;
        Ok(Ex::new(
            format!(
                "{{ let mut out: Vec<Value> = Vec::new(); for {item} in items({})?.iter(){iter} {{ \
                 spent += {per_item}; {index}{keep}{{ out.push({body_text}); }} }} Value::List(out.into()) }}",
                list.borrow()
            ),
            Ty::Val,
        ))
    }

    /// A function call: a function of the table as its entry says, the
    /// others by their family.
    fn call(&mut self, func: Func, args: &[Code], sc: Scope) -> Gened<Ex> {
        let called = match (&func.spec().op, func) {
            (Some(op), _) => self.op_call(func, op, args, sc)?,
            (None, Func::Date | Func::Month) if args.len() == 1 => return self.expr(&args[0], sc),
            (
                None,
                Func::Lookup
                | Func::PeriodRow
                | Func::RangeRow
                | Func::Scale
                | Func::ScaleBy
                | Func::Rows,
            ) => self.table_call(func, args, sc)?,
            (None, Func::Min | Func::Max) => self.extremum_call(func, args, sc)?,
            _ => None,
        };
        match called {
            Some((text, ty)) => Ok(Ex::new(text, ty)),
            None => Err(Unsupported(format!("`{func:?}` is not compiled"))),
        }
    }

    /// A function of the table: its typed runtime function where it has
    /// one, else `rt::call` on the table's own operation. Each list it reads
    /// and each list or map it makes spends a unit per item, as the
    /// interpreter's `run_op` does (so the compiled code never spends less
    /// than the interpreter, and hands back every case the budget stops).
    fn op_call(&mut self, func: Func, op: &Op, args: &[Code], sc: Scope) -> Gened<Called> {
        let (call, ty, counted) = match &op.emit {
            Emit::Rt {
                text,
                args: carriers,
                ty,
            } => {
                if args.len() != carriers.len() {
                    return Ok(None);
                }
                let mut texts = Vec::with_capacity(args.len());
                let mut counted = work_spent(func);
                for (i, c) in carriers.iter().enumerate() {
                    let ty = carried(*c);
                    let arg = self.arg(args, i, ty, sc)?;
                    texts.push(counted_arg(&mut counted, op, i, arg, ty == Ty::Val));
                }
                (fill(text, &texts), carried(*ty), counted)
            }
            Emit::Call => {
                if args.len() != op.reads.len() {
                    return Ok(None);
                }
                let mut texts = Vec::with_capacity(args.len());
                let mut counted = work_spent(func);
                for (i, a) in args.iter().enumerate() {
                    let arg = self.expr(a, sc)?.to(Ty::Val);
                    texts.push(counted_arg(&mut counted, op, i, arg, true));
                }
                let call = format!("call(Func::{func:?}, [{}])?", texts.join(", "));
                (call, Ty::Val, counted)
            }
        };
        Ok(Some(match ty {
            Ty::Val => (
                format!("{{ {counted}let made = {call}; spent += units(&made); made }}"),
                ty,
            ),
            _ if counted.is_empty() => (call, ty),
            _ => (format!("{{ {counted}{call} }}"), ty),
        }))
    }

    /// `min(list)` and `max(list)` (with more arguments, `expr` compares
    /// them); the list spends a unit per item, as the interpreter's read.
    fn extremum_call(&mut self, func: Func, args: &[Code], sc: Scope) -> Gened<Called> {
        Ok(match args.len() {
            1 => Some((
                format!(
                    "{{ let listed = {}; spent += units(listed); extremum_of(listed, {})? }}",
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
    fn table_call(&mut self, func: Func, args: &[Code], sc: Scope) -> Gened<Called> {
        let n = args.len();
        Ok(Some(match (func, n) {
            (Func::Lookup, 2..) => {
                let t = table_of(func, args)?;
                let keys = (1..n)
                    .map(|i| self.expr(&args[i], sc).map(|k| k.to(Ty::Val)))
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
                    Some(CodeKind::Const(Value::Number(p))) => {
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
            (Func::ScaleBy, 5) => {
                let t = table_of(func, args)?;
                let x = self.arg(args, 1, Ty::Num, sc)?;
                let factor = self.arg(args, 2, Ty::Num, sc)?;
                let (places, mode) = match (&args[3].kind, &args[4].kind) {
                    (CodeKind::Const(Value::Number(p)), CodeKind::Mode(m)) => {
                        let p = crate::model::ops::whole(*p, "places")
                            .map_err(|e| Unsupported(format!("`scale_by`: {e}")))?;
                        (p, *m)
                    }
                    _ => {
                        return Err(Unsupported(
                            "`scale_by` without literal places and mode".into(),
                        ))
                    }
                };
                (
                    format!("scale_by(rb, facts, {t}, {x}, {factor}, {places}, RoundingMode::{mode:?})?"),
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
    fn arg(&mut self, args: &[Code], i: usize, ty: Ty, sc: Scope) -> Gened<String> {
        let e = self.expr(&args[i], sc)?;
        Ok(match ty {
            Ty::Val => e.as_value().borrow(),
            ty => e.to(ty),
        })
    }
}

/// What a call spends for its work, before its arguments (`Func::work_units`,
/// as the interpreter's `call` spends it).
fn work_spent(func: Func) -> String {
    match func.work_units() {
        0 => String::new(),
        work => format!("spent += {work}; "),
    }
}

/// Argument `i`'s text, or, when `op` reads it as a list or it is a value
/// (`value`: it may be a text), a local it is bound to in `counted`, where
/// its items or its text's units are spent, as the interpreter spends them.
fn counted_arg(counted: &mut String, op: &Op, i: usize, arg: String, value: bool) -> String {
    if matches!(op.reads.get(i), Some(crate::model::func::ArgRead::List)) {
        let _ = write!(
            counted,
            "let listed{i} = {arg}; spent += units(&listed{i}); "
        );
        return format!("listed{i}");
    }
    if !value {
        return arg;
    }
    let _ = write!(
        counted,
        "let arg{i} = {arg}; spent += text_units(&arg{i}); "
    );
    format!("arg{i}")
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
fn table_of(func: Func, args: &[Code]) -> Gened<usize> {
    match args.first().map(|a| &a.kind) {
        Some(CodeKind::Table(t)) => Ok(t.index()),
        _ => Err(Unsupported(format!("`{func:?}` of something not a table"))),
    }
}

fn kind_name(kind: &CodeKind) -> &'static str {
    match kind {
        CodeKind::Comprehension { .. } => "a list comprehension",
        CodeKind::Group(_) => "a group read whole",
        CodeKind::Local(_) | CodeKind::InItem(_) => "a comprehension variable",
        CodeKind::Decision => "`decision`",
        CodeKind::Reason => "`reason`",
        CodeKind::Clauses => "`clauses`",
        _ => "this form",
    }
}
