//! Name resolution and type checking of expressions, producing slot-resolved nodes.
//!
//! One pass over the AST: each name becomes a slot, each operator and
//! function call is checked against its signature, and every problem is
//! collected with the span of the offending text (never only the first).
//!
//! Invariant: no IO, no evaluation; spans stay relative to the expression.

mod call;

use std::collections::HashMap;
use std::sync::Arc;

use crate::expr::{BinOp, Expr, ExprKind, Ident, UnOp};
use crate::model::{Func, InputId, Node, NodeKind, Shape, StepId, Table, TableId, Type};
use crate::span::Span;
use crate::value::Value;

/// What a name stands for.
#[derive(Clone, Debug)]
pub enum Binding {
    /// A top-level input of this type.
    Input(InputId, Type),
    /// A step.
    Step(StepId),
    /// A parameter of this type.
    Param(usize, Type),
    /// A table.
    Table(TableId),
    /// A per-item group: at the top level, the list of its items' results.
    Group(usize),
}

/// A problem in one expression, relative to its text.
#[derive(Clone, Debug)]
pub struct ExprProblem {
    /// Stable code.
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// Where, in the expression.
    pub span: Span,
    /// A hint.
    pub help: Option<String>,
}

/// What names mean where an expression is resolved.
pub struct Scope<'a> {
    /// Inputs, steps, parameters and tables by name.
    pub names: &'a HashMap<Arc<str>, Binding>,
    /// Record layouts.
    pub shapes: &'a [Shape],
    /// Tables.
    pub tables: &'a [Table],
    /// Step types known so far (`Any` for steps not resolved yet).
    pub step_types: &'a [Type],
    /// Per-item group types known so far.
    pub group_types: &'a [Type],
    /// Whether `decision`, `reason` and `clauses` may be read (answers only).
    pub answer_builtins: bool,
    /// When set, only inputs with a smaller index may be read (an input's `when`).
    pub inputs_before: Option<usize>,
    /// Inside a per-item group: the item and the group's own steps.
    pub group: Option<GroupScope<'a>>,
}

impl<'a> Scope<'a> {
    /// The top-level scope: every name of the rulebook, no group, no answer built-ins.
    pub fn top(
        names: &'a HashMap<Arc<str>, Binding>,
        shapes: &'a [Shape],
        tables: &'a [Table],
        step_types: &'a [Type],
        group_types: &'a [Type],
    ) -> Self {
        Scope {
            names,
            shapes,
            tables,
            step_types,
            group_types,
            answer_builtins: false,
            inputs_before: None,
            group: None,
        }
    }
}

/// What names mean inside a per-item group.
pub struct GroupScope<'a> {
    /// The name of the current item.
    pub item: &'a str,
    /// Its type.
    pub item_type: Type,
    /// The group's steps by name.
    pub steps: &'a HashMap<Arc<str>, usize>,
    /// Their types known so far.
    pub step_types: &'a [Type],
}

/// Resolves the names of an expression and types it; `locals` are bound, in
/// order, to the evaluator's first local slots (a field rule's `value` and
/// `item`). Problems are appended to `problems`; their "did you mean"
/// searches spend `suggest_work` ([`SUGGEST_WORK`]).
pub fn resolve_with_locals(
    expr: &Expr,
    scope: &Scope<'_>,
    locals: Vec<(Arc<str>, Type)>,
    problems: &mut Vec<ExprProblem>,
    suggest_work: &mut usize,
) -> (Node, Type) {
    Resolver {
        scope,
        problems,
        locals,
        suggest_work,
    }
    .expr(expr)
}

struct Resolver<'s, 'p> {
    scope: &'s Scope<'s>,
    problems: &'p mut Vec<ExprProblem>,
    /// Names bound inside the formula, innermost last.
    locals: Vec<(Arc<str>, Type)>,
    /// What is left for "did you mean" searches.
    suggest_work: &'p mut usize,
}

impl Resolver<'_, '_> {
    fn problem(&mut self, code: &'static str, span: Span, message: String) {
        self.problems.push(ExprProblem {
            code,
            message,
            span,
            help: None,
        });
    }

    fn problem_help(&mut self, code: &'static str, span: Span, message: String, help: String) {
        self.problems.push(ExprProblem {
            code,
            message,
            span,
            help: Some(help),
        });
    }

    fn type_name(&self, ty: &Type) -> String {
        match ty {
            Type::Number => "a number".into(),
            Type::Bool => "a boolean".into(),
            Type::Text => "a text".into(),
            Type::Date => "a date".into(),
            Type::Month => "a month".into(),
            Type::Record(s) => match self.scope.shapes.get(*s) {
                Some(shape) => format!("a record ({})", shape.name),
                None => "a record".into(),
            },
            Type::List(_) => "a list".into(),
            Type::Map(_) => "a map".into(),
            Type::Table(_) => "a table".into(),
            Type::Clauses => "a clause list".into(),
            Type::Any => "any value".into(),
        }
    }

    fn require(&mut self, got: &Type, want: &Type, span: Span, what: &str) {
        if !want.accepts(got) {
            let message = format!(
                "{what} must be {}, found {}",
                self.type_name(want),
                self.type_name(got)
            );
            self.problem("check::type_mismatch", span, message);
        }
    }

    /// A formula nests up to the parser's bound, and a debug build's frames
    /// here are large: grow the stack rather than overflow it.
    fn expr(&mut self, e: &Expr) -> (Node, Type) {
        stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || self.expr_now(e))
    }

    fn expr_now(&mut self, e: &Expr) -> (Node, Type) {
        let (kind, ty) = match &e.kind {
            ExprKind::Number(n) => (NodeKind::Const(Value::Number(*n)), Type::Number),
            ExprKind::Text(t) => (NodeKind::Const(Value::Text(t.clone())), Type::Text),
            ExprKind::Bool(b) => (NodeKind::Const(Value::Bool(*b)), Type::Bool),
            ExprKind::Name(id) => self.name(id),
            ExprKind::Field(base, field) => return self.field(e.span, base, field),
            ExprKind::Unary(op, inner) => {
                let (node, ty) = self.expr(inner);
                match op {
                    UnOp::Neg => {
                        self.require(&ty, &Type::Number, inner.span, "the operand of `-`");
                        (NodeKind::Neg(Box::new(node)), Type::Number)
                    }
                    UnOp::Not => {
                        self.require(&ty, &Type::Bool, inner.span, "the operand of `not`");
                        (NodeKind::Not(Box::new(node)), Type::Bool)
                    }
                }
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            ExprKind::If(c, a, b) => {
                let (cn, ct) = self.expr(c);
                self.require(&ct, &Type::Bool, c.span, "the condition of `if`");
                let (an, at) = self.expr(a);
                let (bn, bt) = self.expr(b);
                let ty = self.unify(&at, &bt, b.span, "the `else` branch");
                (NodeKind::If(Box::new((cn, an, bn))), ty)
            }
            ExprKind::Call(f, args) => self.call(e.span, f, args),
            ExprKind::Match {
                scrutinee,
                arms,
                otherwise,
            } => {
                let (scrutinee_node, scrutinee_ty) = self.expr(scrutinee);
                let mut compiled = Vec::with_capacity(arms.len());
                let mut ty = Type::Any;
                for (lits, value) in arms {
                    let literals = self.literals(lits, &scrutinee_ty, "an arm of `match`");
                    let (node, value_ty) = self.expr(value);
                    ty = self.unify(&ty, &value_ty, value.span, "the value of an arm");
                    compiled.push((literals, node));
                }
                let (otherwise_node, otherwise_ty) = self.expr(otherwise);
                let ty = self.unify(&ty, &otherwise_ty, otherwise.span, "the `else` arm");
                let kind = NodeKind::Match {
                    scrutinee: Box::new(scrutinee_node),
                    arms: compiled,
                    otherwise: Box::new(otherwise_node),
                };
                (kind, ty)
            }
            // A `match` of one arm: the value is read once, as `match` reads it.
            ExprKind::In {
                value,
                set,
                negated,
            } => {
                let (value_node, value_ty) = self.expr(value);
                let literals = self.literals(set, &value_ty, "a literal of `in`");
                let answer = |b: bool| Node {
                    span: e.span,
                    kind: NodeKind::Const(Value::Bool(b)),
                };
                let kind = NodeKind::Match {
                    scrutinee: Box::new(value_node),
                    arms: vec![(literals, answer(!negated))],
                    otherwise: Box::new(answer(*negated)),
                };
                (kind, Type::Bool)
            }
            // `any([v == i for i in list])` with the value read once as `v`;
            // the names pushed are none an author can write.
            ExprKind::InList {
                value,
                list,
                negated,
            } => {
                let (value_node, value_ty) = self.expr(value);
                let at = self.locals.len();
                self.locals.push((Arc::from("in value"), value_ty.clone()));
                let (list_node, list_ty) = self.expr(list);
                let item_ty = match list_ty {
                    Type::List(inner) => *inner,
                    Type::Any => Type::Any,
                    other => {
                        let message = format!(
                            "`in` needs a list or literals in brackets, found {}",
                            self.type_name(&other)
                        );
                        self.problem("check::type_mismatch", list.span, message);
                        Type::Any
                    }
                };
                self.locals.pop();
                let comparable = matches!(
                    value_ty,
                    Type::Number | Type::Text | Type::Date | Type::Month | Type::Bool | Type::Any
                );
                if !comparable {
                    let message =
                        format!("{} cannot be compared with `in`", self.type_name(&value_ty));
                    self.problem("check::type_mismatch", value.span, message);
                } else {
                    self.unify(
                        &value_ty,
                        &item_ty,
                        list.span,
                        "the items of the list after `in`",
                    );
                }
                // Each local at the text it stands for, so that a null one
                // is named: `code`, or an item of `codes`.
                let node = |kind| Node { span: e.span, kind };
                let at_value = Node {
                    span: value.span,
                    kind: NodeKind::Local(at),
                };
                let at_item = Node {
                    span: list.span,
                    kind: NodeKind::InItem(at + 1),
                };
                let equal = NodeKind::Binary(BinOp::Eq, Box::new(at_value), Box::new(at_item));
                let items = NodeKind::Comprehension {
                    indexed: false,
                    body: Box::new(node(equal)),
                    list: Box::new(list_node),
                    filter: None,
                };
                let mut test = NodeKind::Call(Func::Any, vec![node(items)]);
                if *negated {
                    test = NodeKind::Not(Box::new(node(test)));
                }
                let kind = NodeKind::Let {
                    value: Box::new(value_node),
                    body: Box::new(node(test)),
                };
                (kind, Type::Bool)
            }
            ExprKind::Let { var, value, body } => {
                let (value_node, value_ty) = self.expr(value);
                if self.is_bound(&var.name) {
                    let message = format!(
                        "`{}` is already a name here; choose another name to bind",
                        var.name
                    );
                    self.problem("check::duplicate_name", var.span, message);
                }
                self.locals.push((var.name.clone(), value_ty));
                let (body_node, body_ty) = self.expr(body);
                self.locals.pop();
                let kind = NodeKind::Let {
                    value: Box::new(value_node),
                    body: Box::new(body_node),
                };
                (kind, body_ty)
            }
            ExprKind::Comprehension {
                body,
                index,
                var,
                list,
                filter,
            } => {
                let (list_node, list_ty) = self.expr(list);
                let item_ty = match list_ty {
                    Type::List(inner) => *inner,
                    Type::Any => Type::Any,
                    other => {
                        let message =
                            format!("`in` needs a list, found {}", self.type_name(&other));
                        self.problem("check::type_mismatch", list.span, message);
                        Type::Any
                    }
                };
                let same_as_index = index.as_ref().is_some_and(|i| i.name == var.name);
                let names = index.iter().map(|i| (i, "the index", false));
                for (name, what, repeated) in names.chain([(var, "the item", same_as_index)]) {
                    if repeated || self.is_bound(&name.name) {
                        let message = format!(
                            "`{}` is already a name here; choose another name for {what}",
                            name.name
                        );
                        self.problem("check::duplicate_name", name.span, message);
                    }
                }
                if let Some(i) = index {
                    self.locals.push((i.name.clone(), Type::Number));
                }
                self.locals.push((var.name.clone(), item_ty));
                let (body_node, body_ty) = self.expr(body);
                let filter_node = filter.as_ref().map(|f| {
                    let (n, t) = self.expr(f);
                    self.require(&t, &Type::Bool, f.span, "the condition after `if`");
                    Box::new(n)
                });
                self.locals.pop();
                if index.is_some() {
                    self.locals.pop();
                }
                let kind = NodeKind::Comprehension {
                    indexed: index.is_some(),
                    body: Box::new(body_node),
                    list: Box::new(list_node),
                    filter: filter_node,
                };
                (kind, Type::List(Box::new(body_ty)))
            }
        };
        (Node { span: e.span, kind }, ty)
    }

    /// The values of literals compared with a value of type `ty` (a
    /// `match` arm's, `in`'s), each of that type.
    fn literals(&mut self, lits: &[Expr], ty: &Type, what: &str) -> Vec<Value> {
        let mut values = Vec::with_capacity(lits.len());
        for lit in lits {
            let (value, lit_ty) = match &lit.kind {
                ExprKind::Number(n) => (Value::Number(*n), Type::Number),
                ExprKind::Text(t) => (Value::Text(t.clone()), Type::Text),
                ExprKind::Bool(b) => (Value::Bool(*b), Type::Bool),
                _ => (Value::Absent, Type::Any),
            };
            self.unify(ty, &lit_ty, lit.span, what);
            values.push(value);
        }
        values
    }

    fn unify(&mut self, a: &Type, b: &Type, span: Span, what: &str) -> Type {
        if a.accepts(b) {
            if *a == Type::Any {
                b.clone()
            } else {
                a.clone()
            }
        } else {
            let message = format!(
                "{what} must be {} like the first, found {}",
                self.type_name(a),
                self.type_name(b)
            );
            self.problem("check::type_mismatch", span, message);
            Type::Any
        }
    }

    /// Whether a name already means something here (so a new local would shadow it).
    fn is_bound(&self, name: &str) -> bool {
        self.locals.iter().any(|(n, _)| &**n == name)
            || self.scope.names.contains_key(name)
            || self
                .scope
                .group
                .as_ref()
                .is_some_and(|g| g.item == name || g.steps.contains_key(name))
    }

    fn name(&mut self, id: &Ident) -> (NodeKind, Type) {
        let name: &str = &id.name;
        if let Some(i) = self.locals.iter().rposition(|(n, _)| &**n == name) {
            return (NodeKind::Local(i), self.locals[i].1.clone());
        }
        if self.scope.answer_builtins {
            match name {
                "decision" => return (NodeKind::Decision, Type::Text),
                "reason" => return (NodeKind::Reason, Type::Text),
                "clauses" => return (NodeKind::Clauses, Type::Clauses),
                _ => {}
            }
        }
        if let Some(group) = &self.scope.group {
            if name == group.item {
                return (NodeKind::Item, group.item_type.clone());
            }
            if let Some(j) = group.steps.get(name) {
                return (
                    NodeKind::ItemStep(*j),
                    group.step_types.get(*j).cloned().unwrap_or(Type::Any),
                );
            }
        }
        if self.scope.inputs_before.is_some()
            && matches!(
                self.scope.names.get(name),
                Some(Binding::Step(_) | Binding::Group(_))
            )
        {
            let message = format!(
                "an input's `when` reads only inputs declared before it, not the step `{name}`"
            );
            self.problem("check::input_order", id.span, message);
            return (NodeKind::Const(Value::Absent), Type::Any);
        }
        match self.scope.names.get(name) {
            Some(Binding::Group(g)) => (
                NodeKind::Group(*g),
                self.scope.group_types.get(*g).cloned().unwrap_or(Type::Any),
            ),
            Some(Binding::Input(_, Type::Table(t))) => {
                let table = &self.scope.tables[t.index()].name;
                let message = format!(
                    "`{name}` holds rows supplied for table `{table}`: read the table `{table}` instead"
                );
                self.problem("check::type_mismatch", id.span, message);
                (NodeKind::Const(Value::Absent), Type::Any)
            }
            Some(Binding::Input(i, ty)) => {
                if let Some(limit) = self.scope.inputs_before {
                    if i.index() >= limit {
                        let message =
                            format!("`{name}` is validated later, so it cannot be read here");
                        self.problem("check::input_order", id.span, message);
                    }
                }
                (NodeKind::Input(*i), ty.clone())
            }
            Some(Binding::Step(i)) => (
                NodeKind::Step(*i),
                self.scope
                    .step_types
                    .get(i.index())
                    .cloned()
                    .unwrap_or(Type::Any),
            ),
            Some(Binding::Param(i, ty)) => (NodeKind::Param(*i), ty.clone()),
            Some(Binding::Table(t)) => (NodeKind::Table(*t), Type::Table(*t)),
            None => {
                let help = suggest_within(
                    self.suggest_work,
                    name,
                    self.scope.names.keys().map(|k| &**k),
                )
                    .map(|s| format!("did you mean `{s}`?"))
                    .unwrap_or_else(|| {
                        "names are inputs, steps, per-item groups, parameters and tables of this rulebook".into()
                    });
                self.problem_help(
                    "check::unknown_name",
                    id.span,
                    format!("unknown name `{name}`"),
                    help,
                );
                (NodeKind::Const(Value::Absent), Type::Any)
            }
        }
    }

    fn field(&mut self, span: Span, base: &Expr, field: &Ident) -> (Node, Type) {
        let (base_node, base_ty) = self.expr(base);
        // A path through a local changes with every item: it is not noted in the trace.
        let through_local =
            root_name(base).is_some_and(|r| self.locals.iter().any(|(n, _)| n == r));
        let path = name_path(base)
            .filter(|_| !through_local)
            .map(|p| Arc::from(format!("{p}.{}", field.name)));
        let (list, record_ty) = match &base_ty {
            Type::List(inner) => (true, (**inner).clone()),
            other => (false, other.clone()),
        };
        let (index, ty) = match &record_ty {
            Type::Record(shape_id) => {
                let shape = &self.scope.shapes[*shape_id];
                match shape.fields.iter().position(|(n, _)| *n == field.name) {
                    Some(i) => (i, shape.fields[i].1.clone()),
                    None => {
                        // Once the searches are spent, the fields are not
                        // listed either: a list in each of thousands of
                        // problems would be as quadratic.
                        let searched = *self.suggest_work > 0;
                        let near = suggest_within(
                            self.suggest_work,
                            &field.name,
                            shape.fields.iter().map(|(n, _)| &**n),
                        );
                        let help = match near {
                            Some(s) => format!("did you mean `{s}`?"),
                            None if searched && *self.suggest_work > 0 => {
                                let names: Vec<&str> =
                                    shape.fields.iter().map(|(n, _)| &**n).collect();
                                format!("fields of {} are: {}", shape.name, names.join(", "))
                            }
                            None => format!("{} is declared with its fields", shape.name),
                        };
                        let message = format!("{} has no field `{}`", shape.name, field.name);
                        self.problem_help("check::unknown_field", field.span, message, help);
                        (0, Type::Any)
                    }
                }
            }
            Type::Any => (0, Type::Any),
            other => {
                let message = format!("{} has no fields", self.type_name(other));
                self.problem("check::type_mismatch", field.span, message);
                (0, Type::Any)
            }
        };
        let ty = if list { Type::List(Box::new(ty)) } else { ty };
        let node = Node {
            span,
            kind: NodeKind::Field {
                base: Box::new(base_node),
                index,
                path,
            },
        };
        (node, ty)
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> (NodeKind, Type) {
        let (an, at) = self.expr(a);
        let (bn, bt) = self.expr(b);
        let what = |side: &str| format!("the {side} operand of `{}`", op.symbol());
        let ty = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                self.require(&at, &Type::Number, a.span, &what("left"));
                self.require(&bt, &Type::Number, b.span, &what("right"));
                Type::Number
            }
            BinOp::And | BinOp::Or => {
                self.require(&at, &Type::Bool, a.span, &what("left"));
                self.require(&bt, &Type::Bool, b.span, &what("right"));
                Type::Bool
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let ordered = !matches!(op, BinOp::Eq | BinOp::Ne);
                let comparable = match &at {
                    Type::Number | Type::Text | Type::Date | Type::Month | Type::Any => true,
                    Type::Bool => !ordered,
                    _ => false,
                };
                if !comparable {
                    let message = format!(
                        "{} cannot be compared with `{}`",
                        self.type_name(&at),
                        op.symbol()
                    );
                    self.problem("check::type_mismatch", a.span, message);
                } else {
                    self.unify(&at, &bt, b.span, &what("right"));
                }
                Type::Bool
            }
        };
        (NodeKind::Binary(op, Box::new(an), Box::new(bn)), ty)
    }
}

/// The first name of a chain `a.b.c`.
fn root_name(e: &Expr) -> Option<&Arc<str>> {
    match &e.kind {
        ExprKind::Name(id) => Some(&id.name),
        ExprKind::Field(base, _) => root_name(base),
        _ => None,
    }
}

/// `a.b.c` when the expression is a chain of names, for traces.
fn name_path(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(id) => Some(id.name.to_string()),
        ExprKind::Field(base, f) => name_path(base).map(|p| format!("{p}.{}", f.name)),
        _ => None,
    }
}

/// How much the "did you mean" searches of one check of a rulebook may do in
/// all, in characters compared: each search compares a name with every
/// known one, so a rulebook of thousands of unknown names among thousands
/// of known ones made checking quadratic (issue 24: 2,000 unknown names,
/// 86 s in debug). Once it is spent, a problem gets the help it would get
/// with no near name. Far above what a rulebook written by hand spends.
pub const SUGGEST_WORK: usize = 20_000_000;

/// The closest known name, if one is close enough to be a typo (an edit
/// distance of at most a third of its length), its work (characters
/// compared, and one for each known name) taken from `left`: a search that
/// would need more than is left finds nothing and spends the rest. What a search costs does not depend on the
/// order of `known`, so neither does whether it finds anything.
pub fn suggest_within<'a>(
    left: &mut usize,
    name: &str,
    known: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let a: Vec<char> = name.chars().collect();
    let limit = (a.len() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    let mut rows = Rows::default();
    for k in known {
        let mut work = 1;
        let d = rows.distance_within(&a, k, limit, &mut work);
        if work >= *left {
            *left = 0;
            return None;
        }
        *left -= work;
        if let Some(d) = d {
            if best.is_none_or(|b| (d, k) < b) {
                best = Some((d, k));
            }
        }
    }
    best.map(|(_, k)| k)
}

/// The buffers of an edit distance, kept from one known name to the next.
#[derive(Default)]
struct Rows {
    b: Vec<char>,
    prev: Vec<usize>,
    cur: Vec<usize>,
}

impl Rows {
    /// The edit distance of `a` and `b` when it is at most `limit`; `work`
    /// grows by the characters compared. Stops at the first row whose least
    /// distance is past `limit` (no later row is less), and before any row
    /// when the lengths alone differ by more.
    fn distance_within(
        &mut self,
        a: &[char],
        b: &str,
        limit: usize,
        work: &mut usize,
    ) -> Option<usize> {
        self.b.clear();
        self.b.extend(b.chars());
        *work += self.b.len();
        let n = self.b.len();
        if a.len().abs_diff(n) > limit {
            return None;
        }
        self.prev.clear();
        self.prev.extend(0..=n);
        self.cur.clear();
        self.cur.resize(n + 1, 0);
        for (i, ca) in a.iter().enumerate() {
            self.cur[0] = i + 1;
            let mut least = self.cur[0];
            for (j, cb) in self.b.iter().enumerate() {
                let cost = usize::from(ca != cb);
                let d = (self.prev[j] + cost)
                    .min(self.prev[j + 1] + 1)
                    .min(self.cur[j] + 1);
                self.cur[j + 1] = d;
                least = least.min(d);
            }
            *work += n;
            if least > limit {
                return None;
            }
            std::mem::swap(&mut self.prev, &mut self.cur);
        }
        Some(self.prev[n]).filter(|d| *d <= limit)
    }
}
