//! Steps and per-item groups: the rulebook's computations, in dependency order.
//!
//! Every formula is parsed first; the names each one reads make a graph of
//! top-level steps and groups (a group is one node; a dated parameter stands
//! for what its `at` reads), and a cycle is reported by its members. Steps
//! are then resolved in an order where each comes after what it reads, so a
//! step's type is known before any step reading it is typed. Inside a group,
//! its own steps make a second graph, read per item.
//!
//! Invariant: the step graph is acyclic once checked, so evaluation's
//! memoisation cannot loop.

use indexmap::IndexMap;
use std::collections::HashMap;
use std::sync::Arc;

use super::{sp, type_word, Checker, GroupNames, Pending, Resolved};
use crate::expr::{Expr, ExprKind};
use crate::model::*;
use crate::num::{RoundingMode, MAX_PLACES};
use crate::rulebook::raw::*;
use crate::rulebook::resolve::{Binding, GroupScope, Scope};
use crate::span::Span;

/// A step's formula, `when`, `otherwise` and `cite` conditions, parsed.
struct ParsedStep {
    expr: Pending,
    when: Option<Pending>,
    otherwise: Option<Pending>,
    cites: Vec<Pending>,
}

impl ParsedStep {
    /// Every formula of the step, each of whose reads is a dependency.
    fn all(&self) -> impl Iterator<Item = &Pending> {
        std::iter::once(&self.expr)
            .chain(&self.when)
            .chain(&self.otherwise)
            .chain(&self.cites)
    }
}

/// A group's `over` and its steps, parsed.
struct ParsedGroup {
    over: Pending,
    steps: Vec<ParsedStep>,
}

impl Checker<'_> {
    /// Compiles top-level steps and per-item groups so each comes after what it reads.
    pub(super) fn steps_and_groups(
        &mut self,
        steps: &IndexMap<String, RawStep>,
        groups: &IndexMap<String, RawGroup>,
        names: &HashMap<Arc<str>, Binding>,
        param_at: &[Option<Pending>],
        tables: &[Table],
        clause_ids: &[Arc<str>],
    ) -> Resolved {
        let n_steps = steps.len();
        let parsed_steps: Vec<ParsedStep> = steps.values().map(|s| self.parse_step(s)).collect();
        let parsed_groups: Vec<ParsedGroup> = groups
            .values()
            .map(|g| ParsedGroup {
                // A group without `over` was refused at load, before checking.
                over: match &g.over {
                    Some(over) => self.parse(over),
                    None => Pending {
                        text: Arc::from(""),
                        ast: None,
                        offset: None,
                        span: g.anchor(),
                    },
                },
                steps: g.steps.values().map(|s| self.parse_step(s)).collect(),
            })
            .collect();
        let order = self.step_order(
            steps,
            groups,
            &parsed_steps,
            &parsed_groups,
            names,
            param_at,
        );

        let mut out = Resolved {
            steps: Vec::new(),
            step_types: vec![Type::Any; n_steps],
            groups: Vec::new(),
            group_types: vec![Type::Any; groups.len()],
            group_scopes: Vec::new(),
        };
        let mut step_slots: Vec<Option<Step>> = vec![None; n_steps];
        let mut group_slots: Vec<Option<(Group, GroupNames)>> = vec![None; groups.len()];
        for node in order {
            let shapes = self.shapes.clone();
            let scope = Scope::top(names, &shapes, tables, &out.step_types, &out.group_types);
            if node < n_steps {
                let Some((name, raw)) = steps.get_index(node) else {
                    continue;
                };
                if let Some(step) = self.step(name, raw, &parsed_steps[node], &scope, clause_ids) {
                    out.step_types[node] = step.ty.clone();
                    step_slots[node] = Some(step);
                }
                continue;
            }
            let g = node - n_steps;
            let Some((gname, raw)) = groups.get_index(g) else {
                continue;
            };
            if let Some((group, scope_names)) =
                self.group(gname, raw, &parsed_groups[g], &scope, clause_ids)
            {
                out.group_types[g] = Type::List(Box::new(Type::Record(group.shape)));
                group_slots[g] = Some((group, scope_names));
            }
        }
        out.steps = step_slots.into_iter().flatten().collect();
        for (group, names) in group_slots.into_iter().flatten() {
            out.groups.push(group);
            out.group_scopes.push(names);
        }
        out
    }

    /// A step's formula, `when`, `otherwise` and `cite` conditions, parsed
    /// in that order.
    fn parse_step(&mut self, s: &RawStep) -> ParsedStep {
        ParsedStep {
            expr: self.parse(&s.expr),
            when: s.when.as_ref().map(|w| self.parse(w)),
            otherwise: s.otherwise.as_ref().map(|o| self.parse(o)),
            cites: s.cite.iter().map(|c| self.parse(&c.when)).collect(),
        }
    }

    /// The order of the top-level graph's nodes: steps, then groups (a group
    /// is one node, reading what its `over` and its steps read outside it).
    fn step_order(
        &mut self,
        steps: &IndexMap<String, RawStep>,
        groups: &IndexMap<String, RawGroup>,
        parsed_steps: &[ParsedStep],
        parsed_groups: &[ParsedGroup],
        names: &HashMap<Arc<str>, Binding>,
        param_at: &[Option<Pending>],
    ) -> Vec<usize> {
        let n_steps = steps.len();
        let node_of = |name: &str| match names.get(name) {
            Some(Binding::Step(i)) => Some(i.index()),
            Some(Binding::Group(g)) => Some(n_steps + g),
            _ => None,
        };
        // A parameter chosen by a date that a step computes depends on that step.
        let param_deps: Vec<Vec<usize>> = param_at
            .iter()
            .map(|p| {
                p.as_ref()
                    .and_then(|p| p.ast.as_ref())
                    .map(|ast| refs(ast, &|n| node_of(n), &[], names))
                    .unwrap_or_default()
            })
            .collect();
        let top_refs = |exprs: &[&Pending], shadow: &[&str]| -> Vec<usize> {
            let mut out: Vec<usize> = exprs
                .iter()
                .filter_map(|p| p.ast.as_ref())
                .flat_map(|ast| {
                    refs(
                        ast,
                        &|n| {
                            if shadow.contains(&n) {
                                None
                            } else {
                                node_of(n)
                            }
                        },
                        &param_deps,
                        names,
                    )
                })
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        // Each node's formulas with what each reads: a cycle is shown at
        // the formula that closes it (a `cite` condition, a `when`), not
        // at the step's `expr`.
        let mut reads: Vec<Vec<(Span, Vec<usize>)>> = parsed_steps
            .iter()
            .map(|p| p.all().map(|f| (f.span, top_refs(&[f], &[]))).collect())
            .collect();
        let mut node_names: Vec<String> = steps.keys().cloned().collect();
        let mut node_spans: Vec<Span> = steps.values().map(|s| s.anchor()).collect();
        for ((gname, g), parsed) in groups.iter().zip(parsed_groups) {
            let mut shadow: Vec<&str> = g.steps.keys().map(String::as_str).collect();
            shadow.push(g.item_name());
            let mut r: Vec<(Span, Vec<usize>)> = parsed
                .steps
                .iter()
                .flat_map(ParsedStep::all)
                .map(|f| (f.span, top_refs(&[f], &shadow)))
                .collect();
            r.push((parsed.over.span, top_refs(&[&parsed.over], &[])));
            reads.push(r);
            node_names.push(gname.clone());
            node_spans.push(g.anchor());
        }
        let deps = merged(&reads);
        let at = |node: usize, dep: usize| reading(&reads, node, dep);
        self.topo_order(&deps, &node_names, &node_spans, &at, "steps")
    }

    /// One per-item group, once what it reads outside has its type: the item
    /// read from `over`, its own names, and its steps in their own order.
    fn group(
        &mut self,
        gname: &str,
        raw: &RawGroup,
        parsed: &ParsedGroup,
        scope: &Scope<'_>,
        clause_ids: &[Arc<str>],
    ) -> Option<(Group, GroupNames)> {
        let over = &parsed.over;
        let (over_f, over_ty) = self.resolve(over, scope)?;
        let item_type = match over_ty {
            Type::List(inner) => *inner,
            Type::Any => Type::Any,
            other => {
                let message = format!("`over` must be a list, found {}", type_word(&other));
                self.problem("check::type_mismatch", over.span, message, "here");
                Type::Any
            }
        };
        let item: &str = raw.item_name();
        self.group_names(raw, scope.names);
        let local: HashMap<Arc<str>, usize> = raw
            .steps
            .keys()
            .enumerate()
            .map(|(j, k)| (Arc::from(k.as_str()), j))
            .collect();
        let local_order = self.item_step_order(gname, raw, &parsed.steps, &local, scope.names);
        let mut local_types = vec![Type::Any; raw.steps.len()];
        let mut local_steps: Vec<Option<Step>> = vec![None; raw.steps.len()];
        for j in local_order {
            let shapes = self.shapes.clone();
            let scope = Scope {
                group: Some(GroupScope {
                    item,
                    item_type: item_type.clone(),
                    steps: &local,
                    step_types: &local_types,
                }),
                ..Scope::top(
                    scope.names,
                    &shapes,
                    scope.tables,
                    scope.step_types,
                    scope.group_types,
                )
            };
            let Some((name, s)) = raw.steps.get_index(j) else {
                continue;
            };
            if let Some(step) = self.step(name, s, &parsed.steps[j], &scope, clause_ids) {
                local_types[j] = step.ty.clone();
                local_steps[j] = Some(step);
            }
        }
        let step_names: Arc<[Arc<str>]> = raw.steps.keys().map(|k| Arc::from(k.as_str())).collect();
        let fields = step_names
            .iter()
            .cloned()
            .zip(local_types.iter().cloned())
            .collect();
        let shape = self.shape(format!("item of {gname}"), fields);
        let group = Group {
            name: Arc::from(gname),
            label: raw.label.clone(),
            item: Arc::from(item),
            over: over_f,
            steps: local_steps.into_iter().flatten().collect(),
            shape,
            names: step_names,
            specialized: None,
        };
        let scope_names = GroupNames {
            item: Arc::from(item),
            item_type,
            steps: local,
            step_types: local_types,
        };
        Some((group, scope_names))
    }

    /// The item and the group's steps need names of their own: none may be
    /// a top-level name, and the item no step of the group.
    fn group_names(&mut self, raw: &RawGroup, names: &HashMap<Arc<str>, Binding>) {
        let item: &str = raw.item_name();
        self.check_ident(item, raw.item_anchor());
        if raw.steps.contains_key(item) || names.contains_key(item) {
            let message = format!(
                "the item name `{item}` is already the name of a step, input, parameter or table"
            );
            self.problem("check::duplicate_name", raw.item_anchor(), message, "here");
        }
        for (k, s) in &raw.steps {
            self.check_ident(k, s.anchor());
            if names.contains_key(k.as_str()) {
                let message = format!(
                    "`{k}` is already declared at the top level; per-item steps need their own names"
                );
                self.problem("check::duplicate_name", s.anchor(), message, "here");
            }
        }
    }

    /// The order of a group's own steps, each after the steps of the group it
    /// reads for the same item.
    fn item_step_order(
        &mut self,
        gname: &str,
        raw: &RawGroup,
        parsed: &[ParsedStep],
        local: &HashMap<Arc<str>, usize>,
        names: &HashMap<Arc<str>, Binding>,
    ) -> Vec<usize> {
        let item: &str = raw.item_name();
        let local_of = |n: &str| {
            if n == item {
                None
            } else {
                local.get(n).copied()
            }
        };
        let reads: Vec<Vec<(Span, Vec<usize>)>> = parsed
            .iter()
            .map(|p| {
                p.all()
                    .map(|f| {
                        let r = f
                            .ast
                            .as_ref()
                            .map_or_else(Vec::new, |ast| refs(ast, &local_of, &[], names));
                        (f.span, r)
                    })
                    .collect()
            })
            .collect();
        let local_deps = merged(&reads);
        let local_names: Vec<String> = raw.steps.keys().map(|k| format!("{gname}.{k}")).collect();
        let local_spans: Vec<Span> = raw.steps.values().map(|s| s.anchor()).collect();
        let at = |node: usize, dep: usize| reading(&reads, node, dep);
        self.topo_order(
            &local_deps,
            &local_names,
            &local_spans,
            &at,
            "per-item steps",
        )
    }

    /// Compiles one step (formula, condition, fallback, citations) in a scope.
    fn step(
        &mut self,
        name: &str,
        raw: &RawStep,
        parsed: &ParsedStep,
        scope: &Scope<'_>,
        clause_ids: &[Arc<str>],
    ) -> Option<Step> {
        let ParsedStep {
            expr,
            when,
            otherwise,
            cites,
        } = parsed;
        let mut cite = Vec::new();
        for (p, c) in cites.iter().zip(&raw.cite) {
            if let Some((f, ty)) = self.resolve(p, scope) {
                self.expect_type(p, &ty, &Type::Bool, "a citation's `when`");
                cite.push((f, self.clause_refs(&c.clauses, clause_ids).into()));
            }
        }
        let when = when.as_ref().and_then(|p| {
            let (f, ty) = self.resolve(p, scope)?;
            self.expect_type(p, &ty, &Type::Bool, "a step's `when`");
            Some(f)
        });
        if raw.otherwise.is_some() && raw.when.is_none() {
            self.problem(
                "check::bad_step",
                raw.anchor(),
                "`otherwise` without `when` never applies",
                "this step",
            );
        }
        let otherwise = otherwise
            .as_ref()
            .and_then(|p| self.resolve(p, scope).map(|c| (p, c)));
        let p = expr;
        let (f, ty) = self.resolve(p, scope)?;
        if matches!(ty, Type::Table(_) | Type::Clauses) {
            self.problem(
                "check::type_mismatch",
                p.span,
                format!("a step cannot hold {}", type_word(&ty)),
                "here",
            );
        }
        let otherwise = otherwise.map(|(op, (of, oty))| {
            self.expect_type(op, &oty, &ty, "`otherwise`");
            of
        });
        if raw.round.is_some() && !Type::Number.accepts(&ty) {
            self.problem(
                "check::rounding",
                p.span,
                "only a number can be rounded",
                "not a number",
            );
        }
        Some(Step {
            name: Arc::from(name),
            label: raw.label.as_deref().map(Arc::from),
            clauses: self.clause_refs(&raw.clauses, clause_ids).into(),
            cite,
            expr: f,
            when,
            otherwise,
            round: raw.round.as_ref().and_then(|r| self.round(r)),
            ty,
            detail: raw.detail,
        })
    }

    /// A step's `round`: places and a known mode.
    fn round(&mut self, r: &RawRound) -> Option<(u32, RoundingMode)> {
        let mode = RoundingMode::parse(r.mode.get_ref());
        if mode.is_none() {
            let message = format!(
                "unknown rounding mode `{}`; modes are {}",
                r.mode.get_ref(),
                RoundingMode::NAMES.join(", ")
            );
            self.problem("check::rounding", sp(&r.mode), message, "here");
        }
        if r.places > MAX_PLACES {
            self.problem(
                "check::rounding",
                sp(&r.mode),
                format!("at most {MAX_PLACES} places"),
                "here",
            );
        }
        Some((r.places, mode?))
    }
}

/// Graph nodes an expression reads: `node_of` maps a name to a node, and a
/// dated parameter stands for the nodes its selector reads.
fn refs(
    e: &Expr,
    node_of: &dyn Fn(&str) -> Option<usize>,
    param_deps: &[Vec<usize>],
    names: &HashMap<Arc<str>, Binding>,
) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        if let ExprKind::Name(id) = &e.kind {
            if let Some(n) = node_of(&id.name) {
                out.push(n);
            } else if let Some(Binding::Param(i, _)) = names.get(&id.name) {
                out.extend(param_deps.get(*i).into_iter().flatten().copied());
            }
        }
        stack.extend(e.children());
    }
    out
}

/// Each node's dependencies: what any of its formulas reads, once each.
fn merged(reads: &[Vec<(Span, Vec<usize>)>]) -> Vec<Vec<usize>> {
    reads
        .iter()
        .map(|formulas| {
            let mut d: Vec<usize> = formulas
                .iter()
                .flat_map(|(_, r)| r.iter().copied())
                .collect();
            d.sort_unstable();
            d.dedup();
            d
        })
        .collect()
}

/// The first of `node`'s formulas that reads `dep`.
fn reading(reads: &[Vec<(Span, Vec<usize>)>], node: usize, dep: usize) -> Option<Span> {
    reads
        .get(node)?
        .iter()
        .find(|(_, r)| r.contains(&dep))
        .map(|(span, _)| *span)
}
