//! The type model of generated code: the Rust type of each expression and
//! the conversions between them.
//!
//! Compiled code is fast because most of it computes on `Decimal` and `bool`
//! instead of `Value`; every generated expression carries its type ([`Ty`])
//! so the generator can convert only where two types meet, and a
//! conversion that fails gives the case up to the interpreter.
//!
//! Invariant: no generation state here; these are pure text transformations.

use crate::model::InputKind;

/// The Rust type of a generated expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    /// `Decimal`: a decimal number, never missing (most of a payslip).
    Dec,
    /// `Num`: a decimal or an exact fraction, never missing.
    Num,
    /// `bool`.
    Bool,
    /// `Value`: any other kind, or one that may be missing.
    Val,
    /// `Value` known to hold a decimal or nothing (a decimal input, a step
    /// with no `otherwise`), never a fraction: read as a decimal where one
    /// is expected.
    Opt,
}

impl Ty {
    pub(super) fn numeric(self) -> bool {
        matches!(self, Ty::Dec | Ty::Num)
    }

    /// Held in a `Value`.
    pub(super) fn is_value(self) -> bool {
        matches!(self, Ty::Val | Ty::Opt)
    }

    /// The type both branches of a choice fit.
    pub(super) fn join(self, other: Ty) -> Ty {
        match (self, other) {
            (a, b) if a == b => a,
            (Ty::Dec | Ty::Opt, Ty::Dec | Ty::Opt) => Ty::Opt,
            (a, b) if a.numeric() && b.numeric() => Ty::Num,
            _ => Ty::Val,
        }
    }

    /// The type arithmetic on these operands is done in: decimals unless a
    /// fraction may be met. (A boolean gives the case up either way.)
    pub(super) fn arith(self, other: Ty) -> Ty {
        let decimal = |t| matches!(t, Ty::Dec | Ty::Opt | Ty::Bool);
        if decimal(self) && decimal(other) {
            Ty::Dec
        } else {
            Ty::Num
        }
    }

    pub(super) fn rust(self) -> &'static str {
        match self {
            Ty::Dec => "Decimal",
            Ty::Num => "Num",
            Ty::Bool => "bool",
            Ty::Val | Ty::Opt => "Value",
        }
    }
}

/// A generated expression.
#[derive(Clone, Debug)]
pub(super) struct Ex {
    pub(super) text: String,
    pub(super) ty: Ty,
    /// A `Value` that can be borrowed in place (an input, a local), not a temporary.
    pub(super) place: bool,
}

impl Ex {
    pub(super) fn new(text: String, ty: Ty) -> Ex {
        Ex {
            text,
            ty,
            place: false,
        }
    }

    pub(super) fn place(text: String) -> Ex {
        Ex {
            text,
            ty: Ty::Val,
            place: true,
        }
    }

    /// The expression as type `to`: a conversion that fails gives the case
    /// up (a value of a kind the generated code does not expect).
    pub(super) fn to(&self, to: Ty) -> String {
        let t = &self.text;
        match (self.ty, to) {
            (a, b) if a == b && !(a.is_value() && self.place) => t.clone(),
            (a, b) if a.is_value() && b.is_value() => {
                if self.place {
                    format!("{t}.clone()")
                } else {
                    t.clone()
                }
            }
            (Ty::Dec, Ty::Opt) => format!("Value::Number({t})"),
            (Ty::Opt, Ty::Dec) => format!("number({})?", self.borrow()),
            (Ty::Opt, Ty::Num) => format!("Num::Dec(number({})?)", self.borrow()),
            (Ty::Opt, Ty::Bool) => format!("truth({})?", self.borrow()),
            (Ty::Dec, Ty::Num) => format!("Num::Dec({t})"),
            (Ty::Num, Ty::Dec) => format!("dec_of({t})?"),
            (Ty::Dec, Ty::Val) => format!("Value::Number({t})"),
            (Ty::Num, Ty::Val) => format!("value({t})"),
            (Ty::Bool, Ty::Val) => format!("Value::Bool({t})"),
            (Ty::Val, Ty::Dec) => format!("number({})?", self.borrow()),
            (Ty::Val, Ty::Num) => format!("num({})?", self.borrow()),
            (Ty::Val, Ty::Bool) => format!("truth({})?", self.borrow()),
            (_, to) => format!("{{ let _ = {t}; None::<{}>? }}", to.rust()),
        }
    }

    /// A `&Value` of a `Value` expression.
    pub(super) fn borrow(&self) -> String {
        if self.place {
            format!("&{}", self.text)
        } else {
            format!("&({})", self.text)
        }
    }

    /// The same expression, as a `Value`.
    pub(super) fn as_value(&self) -> Ex {
        match self.ty {
            Ty::Val | Ty::Opt => self.clone(),
            _ => Ex::new(self.to(Ty::Val), Ty::Val),
        }
    }
}

/// How a value of an input of this kind is held: a decimal input holds a
/// decimal or nothing.
pub(super) fn value_ty(kind: Option<&InputKind>) -> Ty {
    match kind {
        Some(InputKind::Money(_) | InputKind::Decimal(_) | InputKind::Integer { .. }) => Ty::Opt,
        _ => Ty::Val,
    }
}
