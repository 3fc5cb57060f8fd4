//! Function calls: a built-in's arity and argument types from its table
//! entry, and the calls typed by hand (tables, rounding points, calendar
//! literals, lists whose element type decides the result).

use crate::expr::{Expr, ExprKind, Ident};
use crate::model::func::{Param, Returns, Signature};
use crate::model::{Func, Node, NodeKind, TableKind, Type};
use crate::num::{RoundingMode, MAX_PLACES};
use crate::span::Span;
use crate::value::{Month, Value};

use super::{suggest_within, Resolver};

impl Resolver<'_, '_> {
    pub(super) fn arity(
        &mut self,
        span: Span,
        f: &Ident,
        args: &[Expr],
        min: usize,
        max: usize,
    ) -> bool {
        if args.len() < min || args.len() > max {
            let wanted = match (min, max) {
                (a, b) if a == b => format!("{a}"),
                (a, usize::MAX) => format!("at least {a}"),
                (a, b) => format!("{a} to {b}"),
            };
            let message = format!(
                "`{}` takes {wanted} argument(s), found {}",
                f.name,
                args.len()
            );
            self.problem("check::arity", span, message);
            return false;
        }
        true
    }

    pub(super) fn call(&mut self, span: Span, f: &Ident, args: &[Expr]) -> (NodeKind, Type) {
        let Some(func) = Func::parse(&f.name) else {
            let help = suggest_within(self.suggest_work, &f.name, Func::names())
                .map(|s| format!("did you mean `{s}`?"))
                .unwrap_or_else(|| {
                    format!(
                        "functions are: {}",
                        Func::names().collect::<Vec<_>>().join(", ")
                    )
                });
            self.problem_help(
                "check::unknown_function",
                f.span,
                format!("unknown function `{}`", f.name),
                help,
            );
            for a in args {
                self.expr(a);
            }
            return (NodeKind::Const(Value::Absent), Type::Any);
        };
        let spec = func.spec();
        let (min, max) = spec.arity;
        if !self.arity(span, f, args, min, max) {
            for a in args {
                self.expr(a);
            }
            return (NodeKind::Const(Value::Absent), Type::Any);
        }
        match func {
            Func::Round | Func::Floor | Func::Ceil => return self.rounding_call(func, f, args),
            Func::ScaleBy => return self.scale_by_call(f, args),
            Func::Date | Func::Month => return self.calendar_literal(func, &args[0]),
            _ => {}
        }
        let compiled: Vec<(Node, Type)> = args.iter().map(|a| self.expr(a)).collect();
        let tys: Vec<&Type> = compiled.iter().map(|(_, t)| t).collect();
        let arg = |i: usize| args[i].span;
        let name = &f.name;
        if let Signature::Fixed(params, returns) = spec.signature {
            let ty = self.fixed_signature(name, params, returns, &tys, &arg);
            let nodes = compiled.into_iter().map(|(n, _)| n).collect();
            return (NodeKind::Call(func, nodes), ty);
        }
        let ty = match func {
            Func::Min | Func::Max if args.len() == 1 => match tys[0] {
                Type::List(inner)
                    if matches!(**inner, Type::Number | Type::Date | Type::Month | Type::Any) =>
                {
                    (**inner).clone()
                }
                Type::Any => Type::Any,
                other => {
                    let message = format!("`{name}` of one argument takes a list of numbers, dates or months, found {}", self.type_name(other));
                    self.problem("check::type_mismatch", arg(0), message);
                    Type::Any
                }
            },
            Func::Rows => {
                let shape = self.table_arg(tys[0], arg(0), name, |_| true, "a table");
                shape.map_or(Type::Any, |s| Type::List(Box::new(Type::Record(s))))
            }
            Func::RangeRow => {
                let shape = self.table_arg(
                    tys[0],
                    arg(0),
                    name,
                    |k| *k == TableKind::Ranges,
                    "a ranges table",
                );
                self.require(tys[1], &Type::Number, arg(1), "argument 2 of `range_row`");
                shape.map_or(Type::Any, Type::Record)
            }
            Func::Get => {
                self.require(tys[1], &Type::Text, arg(1), "the key of `get`");
                match tys[0] {
                    Type::Map(inner) => (**inner).clone(),
                    Type::Any => Type::Any,
                    other => {
                        let message = format!(
                            "argument 1 of `get` must be a map, found {}",
                            self.type_name(other)
                        );
                        self.problem("check::type_mismatch", arg(0), message);
                        Type::Any
                    }
                }
            }
            Func::Min | Func::Max | Func::Coalesce => {
                let first = tys[0].clone();
                if func != Func::Coalesce
                    && !matches!(first, Type::Number | Type::Date | Type::Month | Type::Any)
                {
                    let message = format!(
                        "`{name}` compares numbers, dates or months, found {}",
                        self.type_name(&first)
                    );
                    self.problem("check::type_mismatch", arg(0), message);
                }
                let mut ty = first;
                for (i, t) in tys.iter().enumerate().skip(1) {
                    ty = self.unify(&ty, t, arg(i), &format!("argument {} of `{name}`", i + 1));
                }
                ty
            }
            Func::Scale => {
                self.table_arg(
                    tys[0],
                    arg(0),
                    name,
                    |k| *k == TableKind::Scale,
                    "a scale table",
                );
                self.require(tys[1], &Type::Number, arg(1), "argument 2 of `scale`");
                if let Some(places) = args.get(2) {
                    let literal = matches!(&places.kind, ExprKind::Number(n) if n.scale() == 0 && *n <= MAX_PLACES.into());
                    if !literal {
                        let message = format!("the places of `scale` (each band rounded) must be a whole number from 0 to {MAX_PLACES}, written as is");
                        self.problem("check::rounding", places.span, message);
                    }
                }
                Type::Number
            }
            Func::PeriodRow => {
                let shape = self.table_arg(
                    tys[0],
                    arg(0),
                    name,
                    |k| *k == TableKind::Periods,
                    "a period table",
                );
                if !matches!(tys[1], Type::Month | Type::Date | Type::Any) {
                    let message = format!(
                        "argument 2 of `period_row` must be a month or a date, found {}",
                        self.type_name(tys[1])
                    );
                    self.problem("check::type_mismatch", arg(1), message);
                }
                shape.map_or(Type::Any, Type::Record)
            }
            Func::Lookup => {
                let table = match tys[0] {
                    Type::Table(t) => Some(*t),
                    _ => None,
                };
                let shape = self.table_arg(
                    tys[0],
                    arg(0),
                    name,
                    |k| matches!(k, TableKind::Keyed { .. }),
                    "a keyed table",
                );
                if let (Some(t), Some(_)) = (table, shape) {
                    let table = &self.scope.tables[t.index()];
                    if let TableKind::Keyed { keys } = &table.kind {
                        if keys.len() != args.len() - 1 {
                            let message = format!(
                                "table `{}` has {} key(s), found {}",
                                table.name,
                                keys.len(),
                                args.len() - 1
                            );
                            self.problem("check::arity", span, message);
                        } else {
                            for (i, k) in keys.iter().enumerate() {
                                let want = table.columns[*k].kind.value_type();
                                self.require(
                                    tys[i + 1],
                                    &want,
                                    arg(i + 1),
                                    &format!("key `{}`", table.columns[*k].name),
                                );
                            }
                        }
                    }
                }
                shape.map_or(Type::Any, Type::Record)
            }
            // Typed from the table above; rounding points and literals return early.
            _ => Type::Any,
        };
        // Tables and modes are arguments only: reject them where a value is needed.
        let nodes = compiled.into_iter().map(|(n, _)| n).collect();
        (NodeKind::Call(func, nodes), ty)
    }

    /// A call typed by its table entry: each argument against its
    /// parameter, in order, then the result's type.
    pub(super) fn fixed_signature(
        &mut self,
        name: &str,
        params: &[Param],
        returns: Returns,
        tys: &[&Type],
        arg: &dyn Fn(usize) -> Span,
    ) -> Type {
        for (i, (param, ty)) in params.iter().zip(tys).enumerate() {
            let what = if params.len() == 1 {
                format!("the argument of `{name}`")
            } else {
                format!("argument {} of `{name}`", i + 1)
            };
            let (ok, want) = match param {
                Param::Any => (true, ""),
                Param::Number => (Type::Number.accepts(ty), "a number"),
                Param::Date => (Type::Date.accepts(ty), "a date"),
                Param::Text => (Type::Text.accepts(ty), "a text"),
                Param::MonthOrDate => (
                    matches!(ty, Type::Month | Type::Date | Type::Any),
                    "a month or a date",
                ),
                Param::ListOrMap => (
                    matches!(ty, Type::List(_) | Type::Map(_) | Type::Any),
                    "a list or a map",
                ),
                Param::Map => (matches!(ty, Type::Map(_) | Type::Any), "a map"),
                Param::Numbers | Param::Booleans => {
                    let (elem, items) = match param {
                        Param::Numbers => (Type::Number, "numbers"),
                        _ => (Type::Bool, "booleans"),
                    };
                    if !matches!(ty, Type::List(inner) if elem.accepts(inner)) && **ty != Type::Any
                    {
                        let message = format!(
                            "`{name}` takes a list of {items}, found {}",
                            self.type_name(ty)
                        );
                        self.problem("check::type_mismatch", arg(i), message);
                    }
                    continue;
                }
            };
            if !ok {
                let message = format!("{what} must be {want}, found {}", self.type_name(ty));
                self.problem("check::type_mismatch", arg(i), message);
            }
        }
        let first = tys.first().copied().unwrap_or(&Type::Any);
        match returns {
            Returns::Number => Type::Number,
            Returns::Bool => Type::Bool,
            Returns::Date => Type::Date,
            Returns::Month => Type::Month,
            Returns::Text => Type::Text,
            Returns::First => first.clone(),
            Returns::Keys => match first {
                Type::Map(_) => Type::List(Box::new(Type::Text)),
                _ => Type::Any,
            },
            Returns::Values => match first {
                Type::Map(inner) => Type::List(Box::new((**inner).clone())),
                _ => Type::Any,
            },
        }
    }

    pub(super) fn table_arg(
        &mut self,
        ty: &Type,
        span: Span,
        func: &str,
        ok: impl Fn(&TableKind) -> bool,
        what: &str,
    ) -> Option<usize> {
        match ty {
            Type::Table(t) if ok(&self.scope.tables[t.index()].kind) => {
                Some(self.scope.tables[t.index()].shape)
            }
            Type::Any => None,
            other => {
                let message = format!(
                    "argument 1 of `{func}` must be {what}, found {}",
                    self.type_name(other)
                );
                self.problem("check::type_mismatch", span, message);
                None
            }
        }
    }

    pub(super) fn rounding_call(
        &mut self,
        func: Func,
        f: &Ident,
        args: &[Expr],
    ) -> (NodeKind, Type) {
        let (value, ty) = self.expr(&args[0]);
        self.require(
            &ty,
            &Type::Number,
            args[0].span,
            &format!("argument 1 of `{}`", f.name),
        );
        let places = self.literal_places(&args[1], &format!("`{}`", f.name));
        let mode = match func {
            Func::Floor => RoundingMode::Floor,
            Func::Ceil => RoundingMode::Ceiling,
            _ => self.literal_mode(args.get(2), "round"),
        };
        let places_node = Node {
            span: args[1].span,
            kind: NodeKind::Const(Value::Number(places)),
        };
        let mode_span = args.get(2).map_or(args[1].span, |a| a.span);
        let mode_node = Node {
            span: mode_span,
            kind: NodeKind::Mode(mode),
        };
        (
            NodeKind::Call(Func::Round, vec![value, places_node, mode_node]),
            Type::Number,
        )
    }

    /// `scale_by(table, x, factor, places[, mode])`: places and mode are
    /// written as in `round`, so each band limit's rounding is known at load.
    fn scale_by_call(&mut self, f: &Ident, args: &[Expr]) -> (NodeKind, Type) {
        let (table, table_ty) = self.expr(&args[0]);
        self.table_arg(
            &table_ty,
            args[0].span,
            &f.name,
            |k| *k == TableKind::Scale,
            "a scale table",
        );
        let mut nodes = vec![table];
        for (i, what) in [
            (1, "argument 2 of `scale_by`"),
            (2, "the factor of `scale_by`"),
        ] {
            let (node, ty) = self.expr(&args[i]);
            self.require(&ty, &Type::Number, args[i].span, what);
            nodes.push(node);
        }
        let places = self.literal_places(&args[3], "`scale_by` (each band limit rounded)");
        let mode = self.literal_mode(args.get(4), "scale_by");
        nodes.push(Node {
            span: args[3].span,
            kind: NodeKind::Const(Value::Number(places)),
        });
        nodes.push(Node {
            span: args.get(4).map_or(args[3].span, |a| a.span),
            kind: NodeKind::Mode(mode),
        });
        (NodeKind::Call(Func::ScaleBy, nodes), Type::Number)
    }

    /// Places written as a whole number from 0 to `MAX_PLACES`, so that a
    /// rounding point is known at load; `of` names what they round.
    fn literal_places(&mut self, arg: &Expr, of: &str) -> rust_decimal::Decimal {
        match &arg.kind {
            ExprKind::Number(n) if n.scale() == 0 && *n >= 0.into() && *n <= MAX_PLACES.into() => {
                *n
            }
            _ => {
                let message = format!(
                    "the places of {of} must be a whole number from 0 to {MAX_PLACES}, written as is"
                );
                self.problem("check::rounding", arg.span, message);
                0.into()
            }
        }
    }

    /// A rounding mode written by name (half-up when left out): a name in
    /// this place is the mode, never a step of the same name.
    fn literal_mode(&mut self, arg: Option<&Expr>, func: &str) -> RoundingMode {
        let Some(arg) = arg else {
            return RoundingMode::HalfUp;
        };
        if let ExprKind::Name(id) = &arg.kind {
            if let Some(mode) = RoundingMode::parse(&id.name) {
                return mode;
            }
        }
        let message = format!(
            "the mode of `{func}` must be one of {}",
            RoundingMode::NAMES.join(", ")
        );
        self.problem("check::rounding", arg.span, message);
        RoundingMode::HalfUp
    }

    pub(super) fn calendar_literal(&mut self, func: Func, arg: &Expr) -> (NodeKind, Type) {
        let text = match &arg.kind {
            ExprKind::Text(t) => Some(t.clone()),
            _ => None,
        };
        let (value, ty, what) = if func == Func::Date {
            let v = text.as_deref().and_then(crate::value::parse_date);
            (
                v.map(Value::Date),
                Type::Date,
                "a date literal like \"2026-03-14\"",
            )
        } else {
            let v = text.as_deref().and_then(Month::parse);
            (
                v.map(Value::Month),
                Type::Month,
                "a month literal like \"2026-07\"",
            )
        };
        match value {
            Some(v) => (NodeKind::Const(v), ty),
            None => {
                self.problem("check::literal", arg.span, format!("expected {what}"));
                (NodeKind::Const(Value::Absent), ty)
            }
        }
    }
}
