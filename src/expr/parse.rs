//! Text to [`Expr`]: the only user of pest.
//!
//! Parsing is bounded before pest runs: an expression longer than
//! [`MAX_EXPR_BYTES`] or nesting deeper than [`MAX_NESTING`] is refused, so a
//! hostile rulebook cannot overflow the stack of the recursive-descent parser.
//!
//! The grammar reads any text, valid or not, in time linear in its length
//! (an `if` or `let` ends the expression around it, so no alternative reads
//! a nested group again: `grammar/expr.pest`), and pest's call limit,
//! [`MAX_PARSE_CALLS`], makes that a bound rather than a hope.
//!
//! Invariant: no `unwrap` on pest pairs; a grammar surprise is a `ParseError`.

use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;
use rust_decimal::Decimal;
use std::sync::{Arc, LazyLock};

use super::ast::{BinOp, Expr, ExprKind, Ident, UnOp};
use crate::span::Span;

/// Longest expression text accepted.
pub const MAX_EXPR_BYTES: usize = 4096;
/// Deepest nesting accepted (parentheses, calls, `if`, prefix operators).
pub const MAX_NESTING: usize = 64;

/// Most pest calls (rules, sequences, repetitions, lookaheads) one parse may
/// make. Measured on the grammar: about 15 calls a byte on flat text (a
/// chain of `+`, nested `if`s, `let`s and `match`es, failing or not), and
/// about 130 more per bracket level, which [`MAX_NESTING`] bounds; so any
/// text of [`MAX_EXPR_BYTES`] needs under 100,000, and this bound, 64 a
/// byte, holds them all with room. The failing texts that were exponential
/// (`if a then 0 else 1 + (` 22 times: 22 s) take 25,000 calls at 60 levels.
/// pest keeps the limit process-wide: it is set once, on the first parse,
/// and no other parser of this crate uses pest.
pub const MAX_PARSE_CALLS: usize = 64 * MAX_EXPR_BYTES;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/expr.pest"]
struct ExprParser;

/// A syntax error, located in the expression string.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// Where, relative to the expression string.
    pub span: Span,
}

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    PrattParser::new()
        .op(Op::infix(Rule::or, Assoc::Left))
        .op(Op::infix(Rule::and, Assoc::Left))
        .op(Op::prefix(Rule::not))
        .op(Op::infix(Rule::eq, Assoc::Left)
            | Op::infix(Rule::ne, Assoc::Left)
            | Op::infix(Rule::lt, Assoc::Left)
            | Op::infix(Rule::le, Assoc::Left)
            | Op::infix(Rule::gt, Assoc::Left)
            | Op::infix(Rule::ge, Assoc::Left))
        .op(Op::postfix(Rule::membership))
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left) | Op::infix(Rule::div, Assoc::Left))
        .op(Op::prefix(Rule::neg))
        .op(Op::postfix(Rule::field))
});

/// Parses one expression. pest's descent and the lowering below recurse once
/// per nesting level (bounded by [`MAX_NESTING`]) with frames that are large
/// in a debug build: the stack is grown first when less than 1 MiB is left,
/// whatever depth the caller parses at.
pub fn parse_expr(text: &str) -> Result<Expr, ParseError> {
    stacker::maybe_grow(1024 * 1024, 8 * 1024 * 1024, || parse_now(text))
}

fn parse_now(text: &str) -> Result<Expr, ParseError> {
    if text.len() > MAX_EXPR_BYTES {
        return Err(ParseError {
            message: format!(
                "expression is {} bytes long, more than the limit of {MAX_EXPR_BYTES}",
                text.len()
            ),
            span: Span::new(0, text.len()),
        });
    }
    check_nesting(text)?;
    static CALL_LIMIT: std::sync::Once = std::sync::Once::new();
    CALL_LIMIT.call_once(|| pest::set_call_limit(std::num::NonZeroUsize::new(MAX_PARSE_CALLS)));
    let mut pairs = ExprParser::parse(Rule::expr_root, text).map_err(from_pest)?;
    let root = pairs.next().ok_or_else(|| internal(text, "empty parse"))?;
    let expr = root
        .into_inner()
        .find(|p| p.as_rule() == Rule::expr)
        .ok_or_else(|| internal(text, "no expression in root"))?;
    let lowered = lower_expr(expr)?;
    if lowered.depth() > MAX_NESTING * 4 {
        return Err(ParseError {
            message: format!(
                "expression is nested {} levels deep, more than the limit",
                lowered.depth()
            ),
            span: Span::new(0, text.len()),
        });
    }
    Ok(lowered)
}

/// Counts what makes the parser recurse, before it runs.
fn check_nesting(text: &str) -> Result<(), ParseError> {
    let mut depth = 0usize;
    let mut max_depth = 0usize;
    let mut recursions = 0usize;
    let bytes = text.as_bytes();
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate() {
        if let Some(q) = quote {
            if b == q || b == b'\n' {
                quote = None;
            }
            continue;
        }
        match b {
            b'"' | b'\'' => quote = Some(b),
            b'(' | b'[' => {
                depth += 1;
                max_depth = max_depth.max(depth);
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            b'-' => recursions += 1,
            b'i' | b'n' => {
                let word_start = i == 0 || !is_ident_byte(bytes[i - 1]);
                let rest = &text[i..];
                let is_word = |w: &str| {
                    rest.starts_with(w)
                        && rest
                            .as_bytes()
                            .get(w.len())
                            .is_none_or(|&c| !is_ident_byte(c))
                };
                if word_start && (is_word("if") || is_word("not")) {
                    recursions += 1;
                }
            }
            b'l' => {
                let word_start = i == 0 || !is_ident_byte(bytes[i - 1]);
                let rest = &text[i..];
                let is_let = rest.starts_with("let")
                    && rest.as_bytes().get(3).is_none_or(|&c| !is_ident_byte(c));
                if word_start && is_let {
                    recursions += 1;
                }
            }
            _ => {}
        }
        if max_depth + recursions > MAX_NESTING * 4 || max_depth > MAX_NESTING {
            return Err(ParseError {
                message: format!("expression nests more than {MAX_NESTING} levels deep"),
                span: Span::new(i, i + 1),
            });
        }
    }
    Ok(())
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn internal(text: &str, what: &str) -> ParseError {
    ParseError {
        message: format!("internal parser error: {what}"),
        span: Span::new(0, text.len()),
    }
}

fn from_pest(err: pest::error::Error<Rule>) -> ParseError {
    let span = match err.location {
        pest::error::InputLocation::Pos(p) => Span::new(p, p + 1),
        pest::error::InputLocation::Span((a, b)) => Span::new(a, b.max(a + 1)),
    };
    let message = match &err.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => {
            let mut wanted: Vec<&str> = positives.iter().filter_map(|r| rule_name(*r)).collect();
            wanted.sort_unstable();
            wanted.dedup();
            if wanted.contains(&"an expression") {
                wanted.retain(|w| *w != "a name" && *w != "a value");
            }
            if wanted.is_empty() {
                "unexpected text".to_string()
            } else {
                format!("expected {}", wanted.join(", "))
            }
        }
        pest::error::ErrorVariant::CustomError { message } if message.contains("call limit") => {
            format!("expression too complex to read (more than {MAX_PARSE_CALLS} parser steps)")
        }
        pest::error::ErrorVariant::CustomError { message } => message.clone(),
    };
    ParseError { message, span }
}

fn rule_name(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::expr
        | Rule::paren
        | Rule::name
        | Rule::call
        | Rule::conditional
        | Rule::number
        | Rule::string => "an expression",
        Rule::boolean => "a value",
        Rule::add | Rule::sub | Rule::mul | Rule::div => "an operator",
        Rule::eq | Rule::ne | Rule::lt | Rule::le | Rule::gt | Rule::ge => "an operator",
        Rule::and | Rule::or => "an operator",
        Rule::field => "`.field`",
        Rule::literal => "a literal (number, text or boolean)",
        Rule::arrow => "`=>`",
        Rule::bar => "`|`",
        Rule::arm => "a match arm (`literal => value` or `else => value`)",
        Rule::list_sep => "`,`",
        Rule::list_end => "`]`",
        Rule::kw_then => "`then`",
        Rule::assign => "`=`",
        Rule::semicolon => "`;`",
        Rule::kw_for => "`for`",
        Rule::kw_in => "`in`",
        Rule::kw_else => "`else`",
        Rule::ident => "a name",
        Rule::EOI => "end of expression",
        _ => return None,
    })
}

fn span_of(pair: &Pair<'_, Rule>) -> Span {
    let s = pair.as_span();
    Span::new(s.start(), s.end())
}

fn ident(pair: &Pair<'_, Rule>) -> Ident {
    Ident {
        name: Arc::from(pair.as_str()),
        span: span_of(pair),
    }
}

fn lower_expr(pair: Pair<'_, Rule>) -> Result<Expr, ParseError> {
    stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || {
        lower_pairs(pair.into_inner())
    })
}

fn lower_pairs(pairs: Pairs<'_, Rule>) -> Result<Expr, ParseError> {
    PRATT
        .map_primary(lower_primary)
        .map_prefix(|op, rhs| {
            let rhs = rhs?;
            let un = if op.as_rule() == Rule::not {
                UnOp::Not
            } else {
                UnOp::Neg
            };
            Ok(Expr {
                span: span_of(&op).join(rhs.span),
                kind: ExprKind::Unary(un, Box::new(rhs)),
            })
        })
        .map_postfix(|lhs, op| {
            let lhs = lhs?;
            if op.as_rule() == Rule::membership {
                return membership(lhs, op);
            }
            let name = op
                .into_inner()
                .find(|p| p.as_rule() == Rule::ident)
                .map(|p| ident(&p))
                .ok_or_else(|| ParseError {
                    message: "expected a field name".into(),
                    span: lhs.span,
                })?;
            Ok(Expr {
                span: lhs.span.join(name.span),
                kind: ExprKind::Field(Box::new(lhs), name),
            })
        })
        .map_infix(|lhs, op, rhs| {
            let (lhs, rhs) = (lhs?, rhs?);
            let bin = match op.as_rule() {
                Rule::add => BinOp::Add,
                Rule::sub => BinOp::Sub,
                Rule::mul => BinOp::Mul,
                Rule::div => BinOp::Div,
                Rule::eq => BinOp::Eq,
                Rule::ne => BinOp::Ne,
                Rule::lt => BinOp::Lt,
                Rule::le => BinOp::Le,
                Rule::gt => BinOp::Gt,
                Rule::ge => BinOp::Ge,
                Rule::and => BinOp::And,
                Rule::or => BinOp::Or,
                other => {
                    return Err(ParseError {
                        message: format!("internal parser error: unexpected operator {other:?}"),
                        span: span_of(&op),
                    })
                }
            };
            Ok(Expr {
                span: lhs.span.join(rhs.span),
                kind: ExprKind::Binary(bin, Box::new(lhs), Box::new(rhs)),
            })
        })
        .parse(pairs)
}

/// `value in [lit, …]`, `value not in […]`, or `value in list`.
fn membership(value: Expr, op: Pair<'_, Rule>) -> Result<Expr, ParseError> {
    let span = value.span.join(span_of(&op));
    let mut negated = false;
    let mut set = Vec::new();
    for part in op.into_inner() {
        match part.as_rule() {
            Rule::kw_not_in => negated = true,
            Rule::literal => set.push(literal(part)?),
            Rule::member_list => {
                return Ok(Expr {
                    span,
                    kind: ExprKind::InList {
                        value: Box::new(value),
                        list: Box::new(member_list(part)?),
                        negated,
                    },
                })
            }
            _ => {}
        }
    }
    Ok(Expr {
        span,
        kind: ExprKind::In {
            value: Box::new(value),
            set,
            negated,
        },
    })
}

/// The list of `x in list`: a primary and its field accesses.
fn member_list(pair: Pair<'_, Rule>) -> Result<Expr, ParseError> {
    let span = span_of(&pair);
    let mut parts = pair.into_inner();
    let first = parts.next().ok_or_else(|| ParseError {
        message: "expected a list after `in`".into(),
        span,
    })?;
    let mut e = lower_primary(first)?;
    for field in parts {
        let at = span_of(&field);
        let name = field
            .into_inner()
            .find(|p| p.as_rule() == Rule::ident)
            .map(|p| ident(&p))
            .ok_or_else(|| ParseError {
                message: "expected a field name".into(),
                span: at,
            })?;
        e = Expr {
            span: e.span.join(at),
            kind: ExprKind::Field(Box::new(e), name),
        };
    }
    Ok(e)
}

/// The number, text or boolean of a `literal` pair.
fn literal(pair: Pair<'_, Rule>) -> Result<Expr, ParseError> {
    let span = span_of(&pair);
    pair.into_inner()
        .next()
        .ok_or_else(|| ParseError {
            message: "expected a literal".into(),
            span,
        })
        .and_then(lower_primary)
}

fn lower_primary(pair: Pair<'_, Rule>) -> Result<Expr, ParseError> {
    let span = span_of(&pair);
    let kind = match pair.as_rule() {
        Rule::expr => return lower_expr(pair),
        Rule::paren => {
            let inner = pair
                .into_inner()
                .find(|p| p.as_rule() == Rule::expr)
                .ok_or_else(|| ParseError {
                    message: "expected an expression inside brackets".into(),
                    span,
                })?;
            let mut expr = lower_expr(inner)?;
            expr.span = span;
            return Ok(expr);
        }
        Rule::number => {
            let value = Decimal::from_str_exact(pair.as_str()).map_err(|_| ParseError {
                message: format!("number {} has too many digits", pair.as_str()),
                span,
            })?;
            ExprKind::Number(value)
        }
        Rule::string => {
            let text = pair
                .into_inner()
                .next()
                .map(|p| p.as_str())
                .unwrap_or_default();
            ExprKind::Text(Arc::from(text))
        }
        Rule::boolean => ExprKind::Bool(pair.as_str() == "true"),
        Rule::name => ExprKind::Name(ident(&pair)),
        Rule::conditional => {
            let mut parts = pair.into_inner().filter(|p| p.as_rule() == Rule::expr);
            let mut next = |what: &str| {
                parts
                    .next()
                    .ok_or_else(|| ParseError {
                        message: format!("`if` without {what}"),
                        span,
                    })
                    .and_then(lower_expr)
            };
            let cond = next("a condition")?;
            let then = next("`then`")?;
            let other = next("`else`")?;
            ExprKind::If(Box::new(cond), Box::new(then), Box::new(other))
        }
        Rule::matching => {
            let mut parts = pair
                .into_inner()
                .filter(|p| matches!(p.as_rule(), Rule::expr | Rule::arm));
            let scrutinee = parts
                .next()
                .filter(|p| p.as_rule() == Rule::expr)
                .ok_or_else(|| ParseError {
                    message: "`match` without a value".into(),
                    span,
                })
                .and_then(lower_expr)?;
            let mut arms = Vec::new();
            let mut otherwise = None;
            for arm in parts {
                let arm_span = span_of(&arm);
                let mut literals = Vec::new();
                let mut value = None;
                for part in arm.into_inner() {
                    match part.as_rule() {
                        Rule::literal => literals.push(literal(part)?),
                        Rule::expr => value = Some(part),
                        _ => {}
                    }
                }
                let value = value
                    .ok_or_else(|| ParseError {
                        message: "an arm needs `=> value`".into(),
                        span: arm_span,
                    })
                    .and_then(lower_expr)?;
                if otherwise.is_some() {
                    return Err(ParseError {
                        message: "`else` must be the last arm of `match`".into(),
                        span: arm_span,
                    });
                }
                if literals.is_empty() {
                    otherwise = Some(Box::new(value));
                } else {
                    arms.push((literals, value));
                }
            }
            let otherwise = otherwise.ok_or_else(|| ParseError {
                message: "`match` needs an `else` arm, so every value has one".into(),
                span,
            })?;
            ExprKind::Match {
                scrutinee: Box::new(scrutinee),
                arms,
                otherwise,
            }
        }
        Rule::binding => {
            let mut var = None;
            let mut parts = Vec::with_capacity(2);
            for part in pair.into_inner() {
                match part.as_rule() {
                    Rule::ident => var = Some(ident(&part)),
                    Rule::expr => parts.push(lower_expr(part)?),
                    _ => {}
                }
            }
            let missing = |what: &str| ParseError {
                message: format!("`let` without {what}"),
                span,
            };
            let var = var.ok_or_else(|| missing("a name"))?;
            let mut parts = parts.into_iter();
            let value = parts.next().ok_or_else(|| missing("a value"))?;
            let body = parts.next().ok_or_else(|| missing("a body after `;`"))?;
            ExprKind::Let {
                var,
                value: Box::new(value),
                body: Box::new(body),
            }
        }
        Rule::comprehension => {
            let mut body = None;
            let mut index = None;
            let mut var = None;
            let mut list = None;
            let mut filter = None;
            for part in pair.into_inner() {
                match part.as_rule() {
                    // With two names, the first is the index.
                    Rule::ident => index = var.replace(ident(&part)),
                    Rule::expr if body.is_none() => body = Some(lower_expr(part)?),
                    Rule::expr if list.is_none() => list = Some(lower_expr(part)?),
                    Rule::expr => filter = Some(Box::new(lower_expr(part)?)),
                    _ => {}
                }
            }
            let missing = |what: &str| ParseError {
                message: format!("list comprehension without {what}"),
                span,
            };
            ExprKind::Comprehension {
                body: Box::new(body.ok_or_else(|| missing("a value"))?),
                index,
                var: var.ok_or_else(|| missing("a name"))?,
                list: Box::new(list.ok_or_else(|| missing("a list"))?),
                filter,
            }
        }
        Rule::call => {
            let mut parts = pair.into_inner();
            let callee = parts.next().map(|p| ident(&p)).ok_or_else(|| ParseError {
                message: "call without a function name".into(),
                span,
            })?;
            let args = parts.map(lower_expr).collect::<Result<Vec<_>, _>>()?;
            ExprKind::Call(callee, args)
        }
        other => {
            return Err(ParseError {
                message: format!("internal parser error: unexpected {other:?}"),
                span,
            });
        }
    };
    Ok(Expr { span, kind })
}
