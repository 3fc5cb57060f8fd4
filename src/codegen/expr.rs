//! Lowered code (`Code`) written out as Rust expressions: reads, arithmetic,
//! comparisons, logic, choices, rounding points and constants.
//!
//! Each code becomes one expression of a known [`Ty`], computed on decimals
//! and booleans where the operand types allow and through the runtime's
//! `Num` and `Value` functions otherwise, so compiled code does what the
//! interpreter does without a value per node. Calls, comprehensions and
//! the other code the runtime writes out go to `tree`.
//!
//! Invariant: every operation that can fault ends in `?`, so a fault gives
//! the case up to the interpreter.

use std::fmt::Write as _;

use rust_decimal::Decimal;

use super::state::{Gen, Gened, Scope, Unsupported};
use super::ty::{value_ty, Ex, Ty};
use crate::expr::BinOp;
use crate::model::code::{Code, CodeKind};
use crate::model::{Func, InputKind, Rulebook};
use crate::num::RoundingMode;
use crate::value::Value;

impl<'r> Gen<'r> {
    pub(super) fn expr(&mut self, code: &Code, sc: Scope) -> Gened<Ex> {
        // A formula nests up to the parser's bound, and a debug build's
        // frames here are large: grow the stack rather than overflow it.
        stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || self.expr_now(code, sc))
    }

    fn expr_now(&mut self, code: &Code, sc: Scope) -> Gened<Ex> {
        Ok(match &code.kind {
            CodeKind::Const(v) | CodeKind::Fixed(_, v) | CodeKind::Folded { value: v, .. } => {
                self.constant(v)?
            }
            // Only in the steps a traced evaluation runs: the code as written.
            CodeKind::Recorded(r) => return self.expr(&r.whole, sc),
            CodeKind::Input(id) => {
                let i = id.index();
                Ex {
                    ty: value_ty(self.rb.inputs.get(i).map(|input| &input.kind)),
                    ..Ex::place(format!("x[{i}]"))
                }
            }
            CodeKind::Step(id) => {
                let i = id.index();
                match self.step_ty[i].unwrap_or(Ty::Val) {
                    ty if ty.is_value() => Ex {
                        ty,
                        ..Ex::place(format!("(*s{i}.as_ref()?)"))
                    },
                    ty => Ex::new(format!("s{i}?"), ty),
                }
            }
            CodeKind::Param(i) => Ex::place(format!("(*p{i}.as_ref()?)")),
            CodeKind::Item => match sc.item {
                Some((item, _)) => Ex::place(item.to_string()),
                None => return Err(Unsupported("the item is read outside its group".into())),
            },
            CodeKind::ItemStep(j) => match sc.item.and_then(|(_, steps)| steps.get(*j)?.clone()) {
                Some((name, ty)) => self.local(name, ty),
                None => {
                    return Err(Unsupported(
                        "an item step is read before it is known".into(),
                    ))
                }
            },
            CodeKind::Field(base, index, _) => self.field(base, *index, sc)?,
            CodeKind::RowField(j, _) => match sc.row.and_then(|row| row.get(*j)) {
                Some((name, ty)) => self.local(name.clone(), *ty),
                None => return Err(Unsupported("a row field is read outside its sum".into())),
            },
            CodeKind::Arith(op, a, b) => self.arith(*op, a, b, sc)?,
            CodeKind::Compare(op, a, b) => self.compare(*op, a, b, sc)?,
            CodeKind::Neg(a) => {
                let a = self.expr(a, sc)?;
                match a.ty {
                    Ty::Dec => Ex::new(format!("neg_dec({})", a.text), Ty::Dec),
                    _ => Ex::new(format!("neg({})", a.to(Ty::Num)), Ty::Num),
                }
            }
            CodeKind::And(a, b) => self.logic(a, "&&", b, sc)?,
            CodeKind::Or(a, b) => self.logic(a, "||", b, sc)?,
            CodeKind::Not(a) => Ex::new(format!("!{}", self.expr(a, sc)?.to(Ty::Bool)), Ty::Bool),
            CodeKind::If(parts) => {
                let c = self.expr(&parts.0, sc)?.to(Ty::Bool);
                let (a, b) = (self.lazy(&parts.1, sc)?, self.lazy(&parts.2, sc)?);
                let ty = a.ty.join(b.ty);
                Ex::new(
                    format!("if {c} {{ {} }} else {{ {} }}", a.to(ty), b.to(ty)),
                    ty,
                )
            }
            CodeKind::Match(scrutinee, arms, otherwise) => {
                self.match_arms(scrutinee, arms, otherwise, sc)?
            }
            // The value is the local `l{depth}`, as a comprehension's item is.
            CodeKind::Let(value, body) => {
                let value = self.expr(value, sc)?.as_value();
                let d = sc.depth;
                let body = self.expr(body, Scope { depth: d + 1, ..sc })?;
                let text = format!(
                    "{{ let l{d}: &Value = {}; {} }}",
                    value.borrow(),
                    body.to(body.ty)
                );
                Ex::new(text, body.ty)
            }
            CodeKind::Coalesce(args) => self.coalesce(args, sc)?,
            CodeKind::IsMissing(a) => {
                let e = self.expr(a, sc)?;
                match e.ty {
                    Ty::Val | Ty::Opt => Ex::new(format!("({}).is_missing()", e.text), Ty::Bool),
                    _ => Ex::new(format!("{{ let _ = {}; false }}", e.text), Ty::Bool),
                }
            }
            CodeKind::Round(x, places, mode) => self.rounded(x, *places, *mode, false, sc)?,
            CodeKind::Extremum(func, args) => self.extremum(*func == Func::Max, args, sc)?,
            CodeKind::SumColumn { group, index, .. } => self.sum_column(*group, *index)?,
            CodeKind::SumRows {
                group,
                filter,
                body,
                nodes,
                ..
            } => self.sum_rows(*group, filter.as_deref(), body, *nodes, sc)?,
            CodeKind::Call(..)
            | CodeKind::Comprehension { .. }
            | CodeKind::Local(_)
            | CodeKind::InItem(_)
            | CodeKind::Group(_)
            | CodeKind::Table(_)
            | CodeKind::Mode(_)
            | CodeKind::Decision
            | CodeKind::Reason
            | CodeKind::Clauses => self.tree(code, sc)?,
        })
    }

    /// A field of a record, typed as declared when the record is an input's.
    fn field(&mut self, base: &Code, index: usize, sc: Scope) -> Gened<Ex> {
        let kind = match self.input_kind(base, sc) {
            Some(InputKind::Record { fields, .. }) => fields.get(index).map(|f| &f.kind),
            _ => None,
        };
        let b = self.expr(base, sc)?;
        Ok(Ex::new(
            format!("field({}, {index})?", b.as_value().borrow()),
            value_ty(kind),
        ))
    }

    /// `+ - × /`: on decimals where no fraction can arise; a quotient of
    /// decimals may be a fraction.
    fn arith(&mut self, op: BinOp, a: &Code, b: &Code, sc: Scope) -> Gened<Ex> {
        let f = match op {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            _ => "div",
        };
        let (a, b) = (self.expr(a, sc)?, self.expr(b, sc)?);
        Ok(match (f, a.ty.arith(b.ty)) {
            ("div", Ty::Dec) => Ex::new(
                format!("div_dec({}, {})?", a.to(Ty::Dec), b.to(Ty::Dec)),
                Ty::Num,
            ),
            ("div", _) | (_, Ty::Num) => Ex::new(
                format!("{f}({}, {})?", a.to(Ty::Num), b.to(Ty::Num)),
                Ty::Num,
            ),
            (f, _) => Ex::new(
                format!("{f}_dec({}, {})?", a.to(Ty::Dec), b.to(Ty::Dec)),
                Ty::Dec,
            ),
        })
    }

    /// A comparison: of numbers as numbers, of anything else as the interpreter
    /// compares values.
    fn compare(&mut self, op: BinOp, a: &Code, b: &Code, sc: Scope) -> Gened<Ex> {
        let (a, b) = (self.expr(a, sc)?, self.expr(b, sc)?);
        let number = |t: Ty| t.numeric() || t == Ty::Opt;
        let numbers = (number(a.ty) && number(b.ty))
            || (a.ty.numeric() && b.ty == Ty::Val)
            || (a.ty == Ty::Val && b.ty.numeric());
        if !numbers {
            // A text compared spends its units, as the interpreter's does.
            return Ok(Ex::new(
                format!(
                    "{{ let l = {}; let r = {}; spent += text_units(l) + text_units(r); \
                     BinOp::{op:?}.holds(cmp_value(l, r)?) }}",
                    a.as_value().borrow(),
                    b.as_value().borrow()
                ),
                Ty::Bool,
            ));
        }
        Ok(match a.ty.arith(b.ty) {
            // Decimals compare as the interpreter compares two numbers.
            Ty::Dec => Ex::new(
                format!("({} {} {})", a.to(Ty::Dec), op.symbol(), b.to(Ty::Dec)),
                Ty::Bool,
            ),
            _ => Ex::new(
                format!(
                    "BinOp::{op:?}.holds(cmp_num({}, {})?)",
                    a.to(Ty::Num),
                    b.to(Ty::Num)
                ),
                Ty::Bool,
            ),
        })
    }

    /// `and` / `or` (`rust_op` `&&` / `||`): the right side is computed only
    /// when it is read.
    fn logic(&mut self, a: &Code, rust_op: &str, b: &Code, sc: Scope) -> Gened<Ex> {
        let (a, b) = (self.expr(a, sc)?, self.lazy(b, sc)?);
        Ok(Ex::new(
            format!("({} {rust_op} {})", a.to(Ty::Bool), b.to(Ty::Bool)),
            Ty::Bool,
        ))
    }

    /// `match`: each arm's value computed only in its branch.
    fn match_arms(
        &mut self,
        scrutinee: &Code,
        arms: &[(Vec<Value>, Code)],
        otherwise: &Code,
        sc: Scope,
    ) -> Gened<Ex> {
        let s = self.expr(scrutinee, sc)?.as_value();
        let mut text = format!("{{ let m = {}; spent += text_units(m);", s.borrow());
        let mut values = Vec::with_capacity(arms.len() + 1);
        let mut literals = Vec::with_capacity(arms.len());
        for (lits, value) in arms {
            let mut tests = Vec::with_capacity(lits.len());
            for literal in lits {
                let literal = self.constant(literal)?.as_value();
                tests.push(format!("matches(m, {})?", literal.borrow()));
            }
            literals.push(tests.join(" || "));
            values.push(self.lazy(value, sc)?);
        }
        values.push(self.lazy(otherwise, sc)?);
        let ty = values.iter().fold(values[0].ty, |t, v| t.join(v.ty));
        if arms.is_empty() {
            text.push_str(" if m.is_missing() { return None; }");
        }
        for (tests, value) in literals.iter().zip(&values) {
            let _ = write!(text, " if {tests} {{ {} }} else", value.to(ty));
        }
        let _ = write!(text, " {{ {} }} }}", values[values.len() - 1].to(ty));
        Ok(Ex::new(text, ty))
    }

    /// `coalesce`: the first argument present; later ones computed only
    /// when those before are missing, and none after one that cannot be.
    fn coalesce(&mut self, args: &[Code], sc: Scope) -> Gened<Ex> {
        let mut text = String::from("{");
        let mut closed = 0;
        let mut ended = false;
        let mut ty = Ty::Opt;
        for (i, a) in args.iter().enumerate() {
            let e = if i == 0 {
                self.expr(a, sc)?
            } else {
                self.lazy(a, sc)?
            };
            ty = ty.join(e.ty);
            if !e.ty.is_value() {
                let _ = write!(text, " {} ", e.to(Ty::Val));
                ended = true;
                break;
            }
            let _ = write!(
                text,
                " let c = {}; if !c.is_missing() {{ c }} else {{",
                e.to(Ty::Val)
            );
            closed += 1;
        }
        if !ended {
            text.push_str(" Value::Absent ");
        }
        text.push_str(&"}".repeat(closed));
        text.push('}');
        Ok(Ex::new(text, if ty == Ty::Opt { Ty::Opt } else { Ty::Val }))
    }

    /// `min` / `max` of two or more arguments, in the type they all fit.
    fn extremum(&mut self, max: bool, args: &[Code], sc: Scope) -> Gened<Ex> {
        let args = args
            .iter()
            .map(|a| self.expr(a, sc))
            .collect::<Gened<Vec<Ex>>>()?;
        // Arguments must be present: a decimal or nothing is a decimal here.
        let ty = match args.iter().fold(args[0].ty, |t, a| t.join(a.ty)) {
            Ty::Opt => Ty::Dec,
            ty => ty,
        };
        let mut text = args[0].to(ty);
        for a in &args[1..] {
            text = match ty {
                Ty::Dec => format!("better_dec({text}, {}, {max})", a.to(ty)),
                Ty::Num => format!("better_num({text}, {}, {max})?", a.to(ty)),
                _ => format!("better_value({text}, {}, {max})?", a.to(Ty::Val)),
            };
        }
        Ok(Ex::new(text, if ty.numeric() { ty } else { Ty::Val }))
    }

    /// `x` at a rounding point. A step's rounding keeps a missing value
    /// (`keep_missing`); `round()` needs a number. `a × b / 10^k` (a payslip
    /// line) rounds in one step.
    pub(super) fn rounded(
        &mut self,
        x: &Code,
        places: u32,
        mode: RoundingMode,
        keep_missing: bool,
        sc: Scope,
    ) -> Gened<Ex> {
        if let CodeKind::Arith(BinOp::Div, product, divisor) = &x.kind {
            if let CodeKind::Arith(BinOp::Mul, a, b) = &product.kind {
                let (a, b, d) = (
                    self.expr(a, sc)?,
                    self.expr(b, sc)?,
                    self.expr(divisor, sc)?,
                );
                if a.ty.arith(b.ty) == Ty::Dec && d.ty.arith(Ty::Dec) == Ty::Dec {
                    return Ok(Ex::new(
                        format!(
                            "mul_div_round({}, {}, {}, {places}, RoundingMode::{mode:?})?",
                            a.to(Ty::Dec),
                            b.to(Ty::Dec),
                            d.to(Ty::Dec)
                        ),
                        Ty::Dec,
                    ));
                }
            }
        }
        let value = self.expr(x, sc)?;
        Ok(match value.ty {
            Ty::Val | Ty::Opt if keep_missing => Ex::new(
                format!(
                    "round_value({}, {places}, RoundingMode::{mode:?})?",
                    value.to(Ty::Val)
                ),
                Ty::Val,
            ),
            _ => round_point(value, places, mode),
        })
    }

    /// The declared kind of what `code` reads, when it reads an input, a
    /// field of one, or an item of a list input.
    fn input_kind(&self, code: &Code, sc: Scope<'_>) -> Option<&'r InputKind> {
        let rb: &'r Rulebook = self.rb;
        match &code.kind {
            CodeKind::Input(i) => rb.inputs.get(i.index()).map(|input| &input.kind),
            CodeKind::Field(base, index, _) => match self.input_kind(base, sc)? {
                InputKind::Record { fields, .. } => fields.get(*index).map(|f| &f.kind),
                _ => None,
            },
            CodeKind::Item => {
                let g = sc.group?;
                match self.input_kind(&rb.groups.get(g)?.over.code, Scope::default())? {
                    InputKind::List { item, .. } => Some(&item.kind),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A local: a `Value` one is read in place.
    fn local(&self, name: String, ty: Ty) -> Ex {
        match ty {
            Ty::Val | Ty::Opt => Ex {
                ty,
                ..Ex::place(name)
            },
            _ => Ex::new(name, ty),
        }
    }

    /// A constant: numbers and booleans inline, other values in statics built once.
    pub(super) fn constant(&mut self, v: &Value) -> Gened<Ex> {
        let (init, ty, decl) = match v {
            Value::Number(d) => (num_literal(*d), Ty::Dec, "const"),
            Value::Bool(b) => return Ok(Ex::new(b.to_string(), Ty::Bool)),
            Value::Absent => return Ok(Ex::new("Value::Absent".into(), Ty::Opt)),
            Value::Null => return Ok(Ex::new("Value::Null".into(), Ty::Opt)),
            Value::Text(t) => (
                format!("LazyLock::new(|| text({:?}))", &**t),
                Ty::Val,
                "static",
            ),
            Value::Date(d) => {
                use chrono::Datelike;
                let init = format!(
                    "LazyLock::new(|| date({}, {}, {}))",
                    d.year(),
                    d.month(),
                    d.day()
                );
                (init, Ty::Val, "static")
            }
            Value::Month(m) => (
                format!(
                    "Value::Month(Month {{ year: {}, month: {} }})",
                    m.year, m.month
                ),
                Ty::Val,
                "const",
            ),
            other => {
                return Err(Unsupported(format!(
                    "a constant {} is not compiled",
                    other.kind_name()
                )))
            }
        };
        let name = match self.const_names.get(&init) {
            Some(name) => name.clone(),
            None => {
                let name = format!("K{}", self.const_names.len());
                let rust_ty = match (ty, decl) {
                    (Ty::Dec, _) => "Decimal",
                    (_, "static") => "LazyLock<Value>",
                    _ => "Value",
                };
                self.consts
                    .push(format!("{decl} {name}: {rust_ty} = {init};"));
                self.const_names.insert(init, name.clone());
                name
            }
        };
        Ok(match (ty, decl) {
            (Ty::Dec, _) => Ex::new(name, Ty::Dec),
            (_, "static") => Ex::place(format!("(*{name})")),
            _ => Ex::place(name),
        })
    }
}

/// A rounding point on a number.
fn round_point(x: Ex, places: u32, mode: RoundingMode) -> Ex {
    let text = match x.ty {
        Ty::Dec => format!("round_dec({}, {places}, RoundingMode::{mode:?})", x.text),
        _ => format!(
            "round({}, {places}, RoundingMode::{mode:?})?",
            x.to(Ty::Num)
        ),
    };
    Ex::new(text, Ty::Dec)
}

/// A decimal as a `const` expression, digits and scale as held.
fn num_literal(d: Decimal) -> String {
    let m = d.mantissa().unsigned_abs();
    format!(
        "Decimal::from_parts({}, {}, {}, {}, {})",
        m as u32,
        (m >> 32) as u32,
        (m >> 64) as u32,
        d.is_sign_negative(),
        d.scale()
    )
}
