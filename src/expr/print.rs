//! Canonical printing of expressions.
//!
//! The printed form is what traces and tests show; parsing it again gives the
//! same tree (`parse(print(e)) == e` up to spans).

use super::ast::{Expr, ExprKind, UnOp};

/// Prints an expression with the fewest parentheses that keep its meaning.
pub fn print(expr: &Expr) -> String {
    let mut out = String::new();
    write(expr, 0, &mut out);
    out
}

fn write(expr: &Expr, outer: u8, out: &mut String) {
    match &expr.kind {
        ExprKind::Number(n) => out.push_str(&n.to_string()),
        ExprKind::Text(t) => {
            let quote = if t.contains('"') { '\'' } else { '"' };
            out.push(quote);
            out.push_str(t);
            out.push(quote);
        }
        ExprKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        ExprKind::Name(id) => out.push_str(&id.name),
        ExprKind::Field(base, field) => {
            write(base, 8, out);
            out.push('.');
            out.push_str(&field.name);
        }
        ExprKind::Unary(op, inner) => {
            let (prec, text) = match op {
                UnOp::Neg => (7, "-"),
                UnOp::Not => (3, "not "),
            };
            paren(outer > prec, out, |out| {
                out.push_str(text);
                write(inner, prec, out);
            });
        }
        ExprKind::Binary(op, a, b) => {
            let prec = op.precedence();
            paren(outer > prec, out, |out| {
                write(a, prec, out);
                out.push(' ');
                out.push_str(op.symbol());
                out.push(' ');
                write(b, prec + 1, out);
            });
        }
        ExprKind::If(c, a, b) => paren(outer > 0, out, |out| {
            out.push_str("if ");
            write(c, 0, out);
            out.push_str(" then ");
            write(a, 0, out);
            out.push_str(" else ");
            write(b, 0, out);
        }),
        ExprKind::Let { var, value, body } => paren(outer > 0, out, |out| {
            out.push_str("let ");
            out.push_str(&var.name);
            out.push_str(" = ");
            write(value, 0, out);
            out.push_str("; ");
            write(body, 0, out);
        }),
        ExprKind::Match {
            scrutinee,
            arms,
            otherwise,
        } => paren(outer > 0, out, |out| {
            out.push_str("match ");
            write(scrutinee, 0, out);
            out.push_str(" { ");
            for (lits, value) in arms {
                for (i, lit) in lits.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" | ");
                    }
                    write(lit, 0, out);
                }
                out.push_str(" => ");
                write(value, 0, out);
                out.push_str(", ");
            }
            out.push_str("else => ");
            write(otherwise, 0, out);
            out.push_str(" }");
        }),
        ExprKind::InList {
            value,
            list,
            negated,
        } => paren(outer > 4, out, |out| {
            write(value, 5, out);
            out.push_str(if *negated { " not in " } else { " in " });
            write(list, 9, out);
        }),
        // A postfix at the comparisons' precedence: its value binds tighter.
        ExprKind::In {
            value,
            set,
            negated,
        } => paren(outer > 4, out, |out| {
            write(value, 5, out);
            out.push_str(if *negated { " not in [" } else { " in [" });
            for (i, lit) in set.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(lit, 0, out);
            }
            out.push(']');
        }),
        ExprKind::Comprehension {
            body,
            index,
            var,
            list,
            filter,
        } => {
            out.push('[');
            write(body, 0, out);
            out.push_str(" for ");
            if let Some(i) = index {
                out.push_str(&i.name);
                out.push_str(", ");
            }
            out.push_str(&var.name);
            out.push_str(" in ");
            write(list, 0, out);
            if let Some(f) = filter {
                out.push_str(" if ");
                write(f, 0, out);
            }
            out.push(']');
        }
        ExprKind::Call(f, args) => {
            out.push_str(&f.name);
            out.push('(');
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(arg, 0, out);
            }
            out.push(')');
        }
    }
}

fn paren(needed: bool, out: &mut String, body: impl FnOnce(&mut String)) {
    if needed {
        out.push('(');
    }
    body(out);
    if needed {
        out.push(')');
    }
}
