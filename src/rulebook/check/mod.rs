//! Static checks: from the serde mirror to a checked, resolved [`Rulebook`].
//!
//! Every problem found is reported, each located in the TOML file down to the
//! name inside an expression string. A rulebook with any problem is refused.
//!
//! Invariant: no IO; no evaluation of case data (defaults and table cells are
//! validated with the same code that validates cases).

use indexmap::IndexMap;
use rust_decimal::Decimal;
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;
use toml::Spanned;

use super::resolve::{resolve_with_locals, suggest, Binding, ExprProblem, GroupScope, Scope};
use super::schema::*;
use crate::case::{json_from_toml as toml_to_json, validate_value};
use crate::diag::{Diagnostics, Problem};
use crate::expr::{parse_expr, Expr, ExprKind};
use crate::model::*;
use crate::num::{RoundingMode, MAX_PLACES};
use crate::span::Span;
use crate::value::{Month, Record, Value};

/// Checks a parsed rulebook file; `hash` is the content hash computed by the loader.
pub fn check_rulebook(
    raw: RawRulebook,
    mut diags: Diagnostics,
    hash: String,
) -> Result<Rulebook, Diagnostics> {
    let mut cx = Checker {
        text: diags.source.text.clone(),
        diags: &mut diags,
        shapes: Vec::new(),
    };
    let built = cx.rulebook(raw, hash);
    match built {
        Some(mut rb) if diags.is_empty() => {
            super::lower::prepare(&mut rb);
            Ok(rb)
        }
        _ => Err(diags),
    }
}

struct Checker<'d> {
    text: Arc<str>,
    diags: &'d mut Diagnostics,
    shapes: Vec<Shape>,
}

/// An expression parsed but not yet resolved, with where it sits in the file.
struct Pending {
    text: Arc<str>,
    ast: Option<Expr>,
    offset: Option<usize>,
    span: Span,
}

fn sp(item: &impl Anchor) -> Span {
    item.anchor()
}

impl Checker<'_> {
    fn problem(&mut self, code: &'static str, span: Span, message: impl Into<String>, label: &str) {
        self.diags.push(Problem::new(code, message).at(span, label));
    }

    /// Where an expression string's text starts in the file, when it is written without escapes.
    fn content_offset(&self, s: &Spanned<String>) -> Option<usize> {
        let span = s.span();
        let raw = self.text.get(span.clone())?;
        let (open, close) = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
            (3, 3)
        } else {
            (1, 1)
        };
        let mut start = span.start + open;
        let inner = self.text.get(start..span.end.checked_sub(close)?)?;
        let inner = if open == 3 {
            if let Some(rest) = inner.strip_prefix("\r\n") {
                start += 2;
                rest
            } else if let Some(rest) = inner.strip_prefix('\n') {
                start += 1;
                rest
            } else {
                inner
            }
        } else {
            inner
        };
        (inner == s.get_ref().as_str()).then_some(start)
    }

    fn parse(&mut self, s: &Spanned<String>) -> Pending {
        let offset = self.content_offset(s);
        let span = sp(s);
        let text: Arc<str> = Arc::from(s.get_ref().as_str());
        let ast = match parse_expr(&text) {
            Ok(ast) => Some(ast),
            Err(e) => {
                let at = self.locate(offset, span, e.span);
                self.diags.push(
                    Problem::new("check::syntax", format!("syntax error: {}", e.message))
                        .at(at, "here"),
                );
                None
            }
        };
        Pending {
            text,
            ast,
            offset,
            span,
        }
    }

    fn locate(&self, offset: Option<usize>, whole: Span, inner: Span) -> Span {
        match offset {
            Some(o) => inner.shifted(o),
            None => whole,
        }
    }

    fn resolve(&mut self, p: &Pending, scope: &Scope<'_>) -> Option<(Formula, Type)> {
        self.resolve_locals(p, scope, Vec::new())
    }

    fn resolve_locals(
        &mut self,
        p: &Pending,
        scope: &Scope<'_>,
        locals: Vec<(Arc<str>, Type)>,
    ) -> Option<(Formula, Type)> {
        let ast = p.ast.as_ref()?;
        let mut problems: Vec<ExprProblem> = Vec::new();
        let (node, ty) = resolve_with_locals(ast, scope, locals, &mut problems);
        for e in problems {
            let at = self.locate(p.offset, p.span, e.span);
            let mut problem = Problem::new(e.code, e.message).at(at, "here");
            if let Some(h) = e.help {
                problem = problem.help(h);
            }
            self.diags.push(problem);
        }
        Some((
            Formula {
                text: p.text.clone(),
                node,
                offset: p.offset,
            },
            ty,
        ))
    }

    fn expect_type(&mut self, p: &Pending, got: &Type, want: &Type, what: &str) {
        if !want.accepts(got) {
            let message = format!(
                "{what} must be {}, found {}",
                type_word(want),
                type_word(got)
            );
            self.problem("check::type_mismatch", p.span, message, "this expression");
        }
    }

    /// Checks each section of the rulebook in turn. The order of the calls is
    /// the order of the problems reported, and each section reads only what
    /// the sections before it built.
    fn rulebook(&mut self, raw: RawRulebook, hash: String) -> Option<Rulebook> {
        let RawRulebook {
            rulebook: ident,
            clauses,
            inputs,
            parameters,
            tables,
            steps,
            per_item,
            checks,
            decisions,
            limits,
            ablations,
            reports,
        } = raw;

        // Identity, clauses and limits: what the rulebook says of itself.
        self.identity(&ident);
        let clauses = clause_texts(clauses);
        let clause_ids: Vec<Arc<str>> = clauses.keys().cloned().collect();
        let limits = limits_or_default(&limits);

        // Tables first: inputs may replace their rows.
        let built_tables = self.tables(&tables, &clause_ids, &limits);

        // Inputs, with their conditions kept until every name has a type.
        let (mut built_inputs, conditions) = self.inputs(
            &inputs,
            &index_of(&tables),
            &built_tables,
            &clause_ids,
            &limits,
        );

        // One namespace for inputs, tables, parameters, steps and groups.
        let names = self.names(
            &inputs,
            &built_inputs,
            &tables,
            &parameters,
            &steps,
            &per_item,
        );

        // Parameters: fixed values now, dated selectors once steps are typed.
        let (mut built_params, param_at) = self.parameters(&parameters, &clause_ids);

        // Steps and per-item groups, in dependency order.
        let Resolved {
            steps: built_steps,
            step_types,
            groups: built_groups,
            group_types,
            group_scopes,
        } = self.steps_and_groups(
            &steps,
            &per_item,
            &names,
            &param_at,
            &built_tables,
            &clause_ids,
        );

        // From here on every name has its type.
        let shapes = self.shapes.clone();
        let declared = Declared {
            names: &names,
            shapes: &shapes,
            tables: &built_tables,
            step_types: &step_types,
            group_types: &group_types,
            group_scopes: &group_scopes,
        };

        // Dated parameters' selectors.
        self.parameter_selectors(&mut built_params, param_at, &declared);

        // What inputs check against other names: `ref` order, `unique`,
        // checks after an input, field rules, `when` and `required_when`.
        self.input_rules(&mut built_inputs, &inputs, conditions, &declared);

        // Decisions and their answers, then the checks that choose them.
        let group_index = index_of(&per_item);
        let built_decisions = self.decisions(&decisions, &clause_ids, &group_index, &declared);
        let built_checks = self.checks(&checks, &decisions, &clause_ids, &declared);

        // Reports: a table of a group's items at the top of a text trace.
        let built_reports = self.reports(&reports, &group_index, &declared);

        // Ablations: named steps with another formula.
        let built_ablations = self.ablations(&ablations, &declared, &built_steps, &built_groups);

        Some(Rulebook {
            ablations: built_ablations,
            applied_ablation: None,
            plan: Default::default(),
            reports: built_reports,
            id: ident.id.get_ref().clone(),
            version: *ident.version.get_ref(),
            schema: *ident.schema.get_ref(),
            title: ident.title.clone(),
            hash,
            source: self.diags.source.clone(),
            clauses,
            inputs: built_inputs,
            shapes: self.shapes.clone(),
            params: built_params,
            tables: built_tables,
            steps: built_steps,
            groups: built_groups,
            checks: built_checks,
            decisions: built_decisions,
            limits,
        })
    }

    /// Declares every input, table, parameter, step and group in one
    /// namespace, in that order; a name declared twice is reported at its
    /// second declaration, a name that is no identifier where it stands.
    fn names(
        &mut self,
        inputs: &IndexMap<String, RawInput>,
        built_inputs: &[Input],
        tables: &IndexMap<String, RawTable>,
        parameters: &IndexMap<String, RawParameter>,
        steps: &IndexMap<String, RawStep>,
        groups: &IndexMap<String, RawGroup>,
    ) -> HashMap<Arc<str>, Binding> {
        let mut names: HashMap<Arc<str>, Binding> = HashMap::new();
        let mut declare = |cx: &mut Self, name: &str, binding: Binding, span: Span| {
            cx.check_ident(name, span);
            if names.contains_key(name) {
                let message = format!("`{name}` is declared twice (inputs, parameters, tables and steps share one namespace)");
                cx.problem("check::duplicate_name", span, message, "second declaration");
            } else {
                names.insert(Arc::from(name), binding);
            }
        };
        for (i, (name, raw)) in inputs.iter().enumerate() {
            let ty = built_inputs[i].kind.value_type();
            declare(self, name, Binding::Input(i, ty), sp(raw));
        }
        for (i, (name, raw)) in tables.iter().enumerate() {
            declare(self, name, Binding::Table(i), sp(raw));
        }
        for (i, (name, raw)) in parameters.iter().enumerate() {
            declare(self, name, Binding::Param(i, Type::Number), sp(raw));
        }
        for (i, (name, raw)) in steps.iter().enumerate() {
            declare(self, name, Binding::Step(i), sp(raw));
        }
        for (g, (name, raw)) in groups.iter().enumerate() {
            declare(self, name, Binding::Group(g), sp(raw));
        }
        names
    }

    /// Builds every table, in order. A table that cannot be built (an unknown
    /// kind) still takes its place, empty, so the indices of the others hold.
    fn tables(
        &mut self,
        raw: &IndexMap<String, RawTable>,
        clause_ids: &[Arc<str>],
        limits: &Limits,
    ) -> Vec<Table> {
        let mut built = Vec::new();
        for (name, t) in raw {
            if let Some(table) = self.table(name, t, clause_ids, limits) {
                built.push(table);
            } else {
                built.push(Table {
                    name: Arc::from(name.as_str()),
                    label: None,
                    clause: None,
                    kind: TableKind::Periods,
                    columns: Vec::new(),
                    shape: self.shape(format!("table {name}"), Vec::new()),
                    names: Arc::from([]),
                    rows: Vec::new(),
                });
            }
        }
        built
    }

    /// Declares the inputs in validation order: each one's type, bounds and
    /// options, and its `ref` to a map or list declared before it. `when` and
    /// `required_when` are parsed now and resolved by [`Checker::input_rules`].
    fn inputs(
        &mut self,
        raw: &IndexMap<String, RawInput>,
        tables: &HashMap<&str, usize>,
        built_tables: &[Table],
        clause_ids: &[Arc<str>],
        limits: &Limits,
    ) -> (Vec<Input>, Vec<Condition>) {
        let mut built = Vec::new();
        let mut conditions = Vec::new();
        let mut maps: HashMap<String, usize> = HashMap::new();
        let mut lists: HashMap<String, (usize, Vec<Arc<str>>)> = HashMap::new();
        for (i, (name, raw)) in raw.iter().enumerate() {
            let cx = InputCx {
                clause_ids,
                tables,
                built_tables,
                limits,
                maps: &maps,
                lists: &lists,
            };
            let input = self.input(name, raw, &cx, 0);
            match &input.kind {
                InputKind::Map { .. } => {
                    maps.insert(name.clone(), i);
                }
                InputKind::List { item, .. } => {
                    if let InputKind::Record { fields, .. } = &item.kind {
                        lists.insert(
                            name.clone(),
                            (
                                i,
                                fields
                                    .iter()
                                    .filter(|f| f.kind.value_type() == Type::Text)
                                    .map(|f| f.name.clone())
                                    .collect(),
                            ),
                        );
                    }
                }
                _ => {}
            }
            if let Some(w) = &raw.when {
                let expr = self.parse(w);
                conditions.push(Condition {
                    input: i,
                    expr,
                    required: false,
                });
            }
            if let Some(w) = &raw.required_when {
                let expr = self.parse(w);
                conditions.push(Condition {
                    input: i,
                    expr,
                    required: true,
                });
            }
            built.push(input);
        }
        (built, conditions)
    }

    /// What inputs check against other names, once every name has a type:
    /// the order of `ref`s to replaceable tables, where `unique` may stand,
    /// the checks after an input, field rules, and the inputs' conditions.
    fn input_rules(
        &mut self,
        built: &mut [Input],
        raw: &IndexMap<String, RawInput>,
        conditions: Vec<Condition>,
        declared: &Declared<'_>,
    ) {
        self.ref_order(built, raw);
        for (input, raw) in built.iter().zip(raw.values()) {
            self.unique_positions(input, raw, false);
        }
        self.after_checks(built, raw, declared);

        // Field rules read their own value, their record, and earlier inputs.
        for (i, (_, raw)) in raw.iter().enumerate() {
            let scope = declared.scope(false, Some(i));
            self.field_rules(&mut built[i], raw, None, &scope);
        }

        // Conditional inputs read only earlier inputs.
        for Condition {
            input,
            expr,
            required,
        } in conditions
        {
            if let Some((f, ty)) = self.resolve(&expr, &declared.scope(false, Some(input))) {
                self.expect_type(&expr, &ty, &Type::Bool, "an input's condition");
                if required {
                    built[input].required_when = Some(f);
                } else {
                    built[input].when = Some(f);
                }
            }
        }
    }

    /// Checks after an input read it and the inputs before it; they only reject.
    fn after_checks(
        &mut self,
        built: &mut [Input],
        raw: &IndexMap<String, RawInput>,
        declared: &Declared<'_>,
    ) {
        for (i, (name, raw)) in raw.iter().enumerate() {
            let scope = declared.scope(false, Some(i + 1));
            for c in &raw.after {
                let (Some(w), Some(path)) = (&c.when, &c.reject) else {
                    let span = c.when.as_ref().map_or(raw.anchor(), |w| w.anchor());
                    self.problem(
                        "check::check_shape",
                        span,
                        format!("a check after `{name}` needs `when` and `reject`"),
                        "here",
                    );
                    continue;
                };
                if c.decision.is_some() || c.reason.is_some() {
                    self.problem(
                        "check::check_shape",
                        w.anchor(),
                        "checks after an input only reject",
                        "here",
                    );
                }
                let p = self.parse(w);
                if let Some((f, ty)) = self.resolve(&p, &scope) {
                    self.expect_type(&p, &ty, &Type::Bool, "a check's `when`");
                    let path = self.message(path, &scope);
                    let message = match &c.message {
                        Some(m) => self.message(m, &scope),
                        None => vec![MessagePart::Text("is invalid".into())],
                    };
                    built[i].after.push((f, path, message));
                }
            }
        }
    }

    /// Reads each parameter's fixed value or dated values. A dated
    /// parameter's `at` is parsed now, and resolved by
    /// [`Checker::parameter_selectors`] once steps have their types.
    fn parameters(
        &mut self,
        raw: &IndexMap<String, RawParameter>,
        clause_ids: &[Arc<str>],
    ) -> (Vec<Parameter>, Vec<Option<Pending>>) {
        let mut built = Vec::new();
        let mut selectors = Vec::new();
        for (name, p) in raw {
            let (param, at) = self.parameter(name, p, clause_ids);
            built.push(param);
            selectors.push(at);
        }
        (built, selectors)
    }

    /// Resolves the `at` of each dated parameter: a month or a date, which may
    /// be computed by a step.
    fn parameter_selectors(
        &mut self,
        params: &mut [Parameter],
        selectors: Vec<Option<Pending>>,
        declared: &Declared<'_>,
    ) {
        for (param, at) in params.iter_mut().zip(selectors) {
            if let (Some(at), ParamValue::Dated { at: slot, .. }) = (at, &mut param.value) {
                if let Some((f, ty)) = self.resolve(&at, &declared.scope(false, None)) {
                    if !matches!(ty, Type::Month | Type::Date | Type::Any) {
                        self.problem(
                            "check::type_mismatch",
                            at.span,
                            "`at` must be a month or a date",
                            "here",
                        );
                    }
                    *slot = f;
                }
            }
        }
    }

    /// Builds each decision: its clauses, its conditional citations, and its
    /// answer fields (which alone may read `decision`, `reason` and `clauses`).
    fn decisions(
        &mut self,
        raw: &IndexMap<String, RawDecision>,
        clause_ids: &[Arc<str>],
        group_index: &HashMap<&str, usize>,
        declared: &Declared<'_>,
    ) -> Vec<Decision> {
        let mut built = Vec::new();
        for (name, d) in raw {
            let clauses = self.clause_refs(&d.clauses, clause_ids);
            let mut cite = Vec::new();
            for c in &d.cite {
                let p = self.parse(&c.when);
                if let Some((f, ty)) = self.resolve(&p, &declared.scope(false, None)) {
                    self.expect_type(&p, &ty, &Type::Bool, "a citation's `when`");
                    cite.push((f, self.clause_refs(&c.clauses, clause_ids)));
                }
            }
            if d.answer.is_empty() {
                self.problem(
                    "check::empty_answer",
                    sp(d),
                    format!("decision `{name}` has no answer fields"),
                    "here",
                );
            }
            let mut answer = Vec::new();
            for (key, out) in &d.answer {
                let scope = declared.scope(true, None);
                if let Some(o) =
                    self.output(key, out, &scope, group_index, declared.group_scopes, 0)
                {
                    answer.push(o);
                }
            }
            built.push(Decision {
                name: Arc::from(name.as_str()),
                label: d.label.clone(),
                clauses,
                cite,
                answer,
            });
        }
        built
    }

    /// Builds the checks in order: each either rejects the case or chooses a
    /// decision, and the last, without `when`, decides every case left.
    fn checks(
        &mut self,
        raw: &[Spanned<RawCheck>],
        decisions: &IndexMap<String, RawDecision>,
        clause_ids: &[Arc<str>],
        declared: &Declared<'_>,
    ) -> Vec<Check> {
        let decision_index = index_of(decisions);
        let mut built = Vec::new();
        let n_checks = raw.len();
        for (i, check) in raw.iter().enumerate() {
            let c = check.get_ref();
            let when = match &c.when {
                Some(w) => {
                    let p = self.parse(w);
                    self.resolve(&p, &declared.scope(false, None))
                        .map(|(f, ty)| {
                            self.expect_type(&p, &ty, &Type::Bool, "a check's `when`");
                            f
                        })
                }
                None => {
                    if i + 1 != n_checks {
                        self.problem(
                            "check::unconditional_check",
                            sp(check),
                            "only the last check may omit `when`",
                            "this check always holds, so the checks after it never run",
                        );
                    }
                    None
                }
            };
            let outcome = match (&c.decision, &c.reject) {
                (Some(d), None) => {
                    let decision = match decision_index.get(d.get_ref().as_str()) {
                        Some(i) => *i,
                        None => {
                            let help = suggest(d.get_ref(), decisions.keys().map(String::as_str))
                                .map(|s| format!("did you mean `{s}`?"));
                            let mut p = Problem::new(
                                "check::unknown_decision",
                                format!("unknown decision `{}`", d.get_ref()),
                            )
                            .at(sp(d), "not declared under [decisions]");
                            if let Some(h) = help {
                                p = p.help(h);
                            }
                            self.diags.push(p);
                            0
                        }
                    };
                    if c.message.is_some() {
                        self.problem(
                            "check::check_shape",
                            sp(check),
                            "`message` goes with `reject`, not with `decision`",
                            "here",
                        );
                    }
                    CheckOutcome::Decide {
                        decision,
                        reason: c.reason.as_deref().map(Arc::from),
                        clauses: self.clause_refs(&c.clauses, clause_ids),
                    }
                }
                (None, Some(path)) => {
                    if c.reason.is_some() {
                        self.problem(
                            "check::check_shape",
                            sp(check),
                            "`reason` goes with `decision`, not with `reject`",
                            "here",
                        );
                    }
                    let message = match &c.message {
                        Some(m) => self.message(m, &declared.scope(false, None)),
                        None => vec![MessagePart::Text("is invalid".into())],
                    };
                    let _ = self.clause_refs(&c.clauses, clause_ids);
                    CheckOutcome::Reject {
                        path: self.message(path, &declared.scope(false, None)),
                        message,
                    }
                }
                _ => {
                    self.problem(
                        "check::check_shape",
                        sp(check),
                        "a check needs exactly one of `decision` and `reject`",
                        "this check",
                    );
                    continue;
                }
            };
            built.push(Check {
                label: c.label.clone(),
                when,
                outcome,
            });
        }
        match raw.last() {
            None => self.diags.push(
                Problem::new(
                    "check::no_checks",
                    "the rulebook has no [[checks]]: nothing decides the answer",
                )
                .help("end with a check without `when`, e.g. `decision = \"calculate\"`"),
            ),
            Some(last) if last.get_ref().when.is_some() || last.get_ref().decision.is_none() => {
                self.problem(
                    "check::no_fallback",
                    sp(last),
                    "the last check must be a decision without `when`, so every case gets one",
                    "last check",
                )
            }
            _ => {}
        }
        built
    }

    /// Builds each report: a table over the items of a per-item group, its
    /// columns read in an item's scope and its totals at the top level.
    fn reports(
        &mut self,
        raw: &IndexMap<String, RawReport>,
        group_index: &HashMap<&str, usize>,
        declared: &Declared<'_>,
    ) -> Vec<Report> {
        let mut built = Vec::new();
        for (name, r) in raw {
            let Some(&g) = group_index.get(r.each.get_ref().as_str()) else {
                let message = format!("unknown per-item group `{}`", r.each.get_ref());
                self.problem(
                    "check::unknown_name",
                    r.each.anchor(),
                    message,
                    "not declared under [per_item]",
                );
                continue;
            };
            let Some(gs) = declared.group_scopes.get(g) else {
                continue;
            };
            let inner = declared.in_group(Some(gs));
            let when = r.when.as_ref().and_then(|w| {
                let p = self.parse(w);
                let (f, ty) = self.resolve(&p, &inner)?;
                self.expect_type(&p, &ty, &Type::Bool, "a report's `when`");
                Some(f)
            });
            let no_groups = HashMap::new();
            let columns = r
                .columns
                .iter()
                .filter_map(|(title, o)| self.output(title, o, &inner, &no_groups, &[], 1))
                .collect();
            let top = declared.scope(false, None);
            let totals = r
                .totals
                .iter()
                .filter_map(|(title, o)| self.output(title, o, &top, &no_groups, &[], 1))
                .collect();
            built.push(Report {
                name: Arc::from(name.as_str()),
                title: r.title.clone(),
                group: g,
                when,
                columns,
                totals,
            });
        }
        built
    }

    fn identity(&mut self, ident: &RawIdentity) {
        let id = ident.id.get_ref();
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        {
            self.problem(
                "check::identity",
                sp(&ident.id),
                "the id must be lowercase letters, digits, `-` and `_`",
                "here",
            );
        }
        if *ident.version.get_ref() < 1 {
            self.problem(
                "check::identity",
                sp(&ident.version),
                "the version must be a positive integer",
                "here",
            );
        }
        if *ident.schema.get_ref() != 1 {
            self.problem(
                "check::identity",
                sp(&ident.schema),
                "this engine reads schema 1 only",
                "unsupported schema",
            );
        }
    }

    fn check_ident(&mut self, name: &str, span: Span) {
        let ok = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let reserved = [
            "if", "then", "else", "and", "or", "not", "true", "false", "for", "in", "match",
            "decision", "reason", "clauses",
        ];
        if !ok || reserved.contains(&name) {
            let message = format!(
                "`{name}` cannot be used as a name: use letters, digits and `_`, not a keyword"
            );
            self.problem("check::bad_name", span, message, "here");
        }
    }

    fn clause_refs(&mut self, refs: &[Spanned<String>], known: &[Arc<str>]) -> Vec<Arc<str>> {
        refs.iter().map(|r| self.clause_ref(r, known)).collect()
    }

    fn clause_ref(&mut self, r: &Spanned<String>, known: &[Arc<str>]) -> Arc<str> {
        let name = r.get_ref().as_str();
        match known.iter().find(|k| &***k == name) {
            Some(k) => k.clone(),
            None => {
                let mut p =
                    Problem::new("check::unknown_clause", format!("unknown clause `{name}`"))
                        .at(sp(r), "not declared under [clauses]");
                if let Some(s) = suggest(name, known.iter().map(|k| &**k)) {
                    p = p.help(format!("did you mean `{s}`?"));
                }
                self.diags.push(p);
                Arc::from(name)
            }
        }
    }

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

    fn shape(&mut self, name: String, fields: Vec<(Arc<str>, Type)>) -> ShapeId {
        self.shapes.push(Shape {
            name: Arc::from(name),
            fields,
        });
        self.shapes.len() - 1
    }

    fn input(&mut self, name: &str, raw: &RawInput, cx: &InputCx<'_>, depth: usize) -> Input {
        let (clause_ids, tables, built_tables, limits) =
            (cx.clause_ids, cx.tables, cx.built_tables, cx.limits);
        let r = raw;
        let span = sp(raw);
        let clause = r.clause.as_ref().map(|c| self.clause_ref(c, clause_ids));
        let decimal = |cx: &mut Self, s: &Option<Spanned<String>>| {
            s.as_ref()
                .and_then(|v| match parse_plain_decimal(v.get_ref()) {
                    Some(d) => Some(d),
                    None => {
                        cx.problem(
                            "check::bad_value",
                            sp(v),
                            "expected a plain decimal like \"0.00\"",
                            "here",
                        );
                        None
                    }
                })
        };
        let ty = r.ty.get_ref().as_str();
        let mut allowed: Vec<&str> = vec![];
        let kind = match ty {
            "money" | "decimal" => {
                allowed.extend(["places", "min", "max", "numbers"]);
                let numbers = match r.numbers.as_ref().map(|n| n.get_ref().as_str()) {
                    None | Some("reject") => JsonNumbers::Reject,
                    Some("plain") => JsonNumbers::Plain,
                    Some("integer") => JsonNumbers::Integer,
                    Some(other) => {
                        let span = r.numbers.as_ref().map_or(span, sp);
                        self.problem(
                            "check::bad_value",
                            span,
                            format!(
                                "unknown `numbers` policy `{other}`; use reject, plain or integer"
                            ),
                            "here",
                        );
                        JsonNumbers::Reject
                    }
                };
                let money = ty == "money";
                let places = r.places.or(money.then_some(2));
                if places.is_some_and(|p| p > MAX_PLACES) {
                    self.problem(
                        "check::bad_value",
                        span,
                        format!("at most {MAX_PLACES} places"),
                        "here",
                    );
                }
                let spec = NumberSpec {
                    places,
                    rescale: if money { places } else { None },
                    min: decimal(self, &r.min).or(money.then_some(Decimal::ZERO)),
                    max: decimal(self, &r.max),
                    numbers,
                };
                if money {
                    InputKind::Money(spec)
                } else {
                    InputKind::Decimal(spec)
                }
            }
            "fraction" => {
                allowed.extend(["min", "max"]);
                InputKind::Fraction {
                    min: decimal(self, &r.min),
                    max: decimal(self, &r.max),
                }
            }
            "integer" => {
                allowed.extend(["min", "max"]);
                InputKind::Integer {
                    min: decimal(self, &r.min),
                    max: decimal(self, &r.max),
                }
            }
            "bool" => InputKind::Bool,
            "text" => {
                allowed.push("max_length");
                InputKind::Text {
                    max_length: r.max_length.unwrap_or(1000),
                }
            }
            "enum" => {
                allowed.push("values");
                let values: Vec<Arc<str>> = r
                    .values
                    .iter()
                    .flatten()
                    .map(|v| Arc::from(v.as_str()))
                    .collect();
                if values.is_empty() {
                    self.problem("check::bad_input", span, "an enum needs `values`", "here");
                }
                InputKind::Enum { values }
            }
            "date" => {
                allowed.extend(["min", "max"]);
                let parse = |t: &str| chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d").ok();
                let min = self.bound(&r.min, parse, "a date YYYY-MM-DD");
                let max = self.bound(&r.max, parse, "a date YYYY-MM-DD");
                InputKind::Date { min, max }
            }
            "month" => {
                allowed.extend(["min", "max"]);
                let min = self.bound(&r.min, Month::parse, "a month YYYY-MM");
                let max = self.bound(&r.max, Month::parse, "a month YYYY-MM");
                InputKind::Month { min, max }
            }
            "record" if depth < 8 => {
                allowed.push("fields");
                let mut fields = Vec::new();
                for (fname, f) in r.fields.iter().flatten() {
                    self.check_ident(fname, sp(f));
                    fields.push(self.input(fname, f, cx, depth + 1));
                }
                let shape_fields = fields
                    .iter()
                    .map(|f: &Input| (f.name.clone(), f.kind.value_type()))
                    .collect();
                let shape = self.shape(name.to_string(), shape_fields);
                let names = fields.iter().map(|f| f.name.clone()).collect();
                InputKind::Record {
                    shape,
                    fields,
                    names,
                }
            }
            "list" | "map" if depth < 8 => {
                allowed.extend(["items", "max_items", "min_items"]);
                if ty == "map" {
                    allowed.extend(["keys", "key_ref"]);
                }
                let item = match &r.items {
                    Some(item) => self.input("item", item, cx, depth + 1),
                    None => {
                        self.problem(
                            "check::bad_input",
                            span,
                            format!("a {ty} needs `items`"),
                            "here",
                        );
                        Input::new("item", InputKind::Bool)
                    }
                };
                let max_items = r
                    .max_items
                    .unwrap_or(limits.max_list_items)
                    .min(limits.max_list_items);
                let min_items = r.min_items.unwrap_or(0);
                if ty == "map" {
                    if r.keys.is_some() && (r.min_items.is_some() || r.max_items.is_some()) {
                        self.problem("check::bad_input", span, "a map with `keys` has exactly those keys: `min_items` and `max_items` do not apply", "here");
                    }
                    let keys = r
                        .keys
                        .as_ref()
                        .map(|k| k.iter().map(|k| Arc::from(k.as_str())).collect());
                    InputKind::Map {
                        item: Box::new(item),
                        keys,
                        min_items,
                        max_items,
                    }
                } else {
                    InputKind::List {
                        item: Box::new(item),
                        min_items,
                        max_items,
                    }
                }
            }
            "table" if depth == 0 => {
                allowed.push("table");
                let table = match &r.table {
                    Some(t) => match tables.get(t.get_ref().as_str()) {
                        Some(i) if replaceable(&built_tables[*i].kind) => *i,
                        Some(_) => {
                            self.problem(
                                "check::bad_input",
                                sp(t),
                                "a case can replace the rows of a period table or of a keyed table with one key",
                                "here",
                            );
                            0
                        }
                        None => {
                            self.problem(
                                "check::unknown_table",
                                sp(t),
                                format!("unknown table `{}`", t.get_ref()),
                                "here",
                            );
                            0
                        }
                    },
                    None => {
                        self.problem(
                            "check::bad_input",
                            span,
                            "a `table` input names the table it replaces: `table = \"...\"`",
                            "here",
                        );
                        0
                    }
                };
                InputKind::Table { table }
            }
            other => {
                let message = format!("unknown input type `{other}`");
                let help = "types are money, decimal, fraction, integer, bool, text, enum, date, month, record, list, map, table (top level only); records, lists and maps nest at most 8 deep";
                self.diags.push(
                    Problem::new("check::bad_input", message)
                        .at(sp(&r.ty), "here")
                        .help(help),
                );
                InputKind::Bool
            }
        };
        let given: [(&str, bool); 9] = [
            ("places", r.places.is_some()),
            ("min", r.min.is_some()),
            ("max", r.max.is_some()),
            ("numbers", r.numbers.is_some()),
            ("values", r.values.is_some()),
            ("fields", r.fields.is_some()),
            ("items", r.items.is_some()),
            ("max_items", r.max_items.is_some()),
            ("table", r.table.is_some()),
        ];
        let given_len = [
            ("key_ref", r.key_ref.is_some()),
            ("max_length", r.max_length.is_some()),
            ("min_items", r.min_items.is_some()),
            ("keys", r.keys.is_some()),
        ];
        for (key, present) in given.iter().chain(given_len.iter()) {
            if *present && !allowed.contains(key) {
                self.problem(
                    "check::bad_input",
                    span,
                    format!("`{key}` does not apply to type `{ty}`"),
                    "in this input",
                );
            }
        }
        let mut input = Input {
            label: r.label.clone(),
            clause,
            required: r.required,
            nullable: r.nullable,
            unique: r.unique,
            ..Input::new(name, kind)
        };
        if let Some(target) = &r.refers {
            if matches!(input.kind, InputKind::Text { .. } | InputKind::Enum { .. }) {
                input.refers = self.ref_target(target, cx);
            } else {
                self.problem(
                    "check::bad_input",
                    target.anchor(),
                    "`ref` applies to text fields",
                    "here",
                );
            }
        }
        if let Some(target) = &r.key_ref {
            if matches!(input.kind, InputKind::Map { .. }) {
                input.key_ref = self.ref_target(target, cx);
            } else {
                self.problem(
                    "check::bad_input",
                    target.anchor(),
                    "`key_ref` applies to maps",
                    "here",
                );
            }
        }
        if r.required && r.default.is_some() {
            self.problem(
                "check::bad_input",
                span,
                "a required input cannot have a default",
                "here",
            );
        }
        if depth > 0 && (r.when.is_some() || r.required_when.is_some() || !r.after.is_empty()) {
            self.problem(
                "check::bad_input",
                span,
                "`when` and `required_when` apply to top-level inputs only",
                "here",
            );
        }
        if r.required && r.required_when.is_some() {
            self.problem(
                "check::bad_input",
                span,
                "an input is `required` or `required_when`, not both",
                "here",
            );
        }
        if let Some(d) = &r.default {
            let json = match toml_to_json(d.get_ref()) {
                Ok(j) => j,
                Err(message) => {
                    self.problem(
                        "check::bad_value",
                        sp(d),
                        format!("bad default: {message}"),
                        "here",
                    );
                    return input;
                }
            };
            match validate_value(&input, Some(&json), name, None) {
                Ok(v) => input.default = Some(v),
                Err(e) => self.problem(
                    "check::bad_value",
                    sp(d),
                    format!("bad default: {}", e.message),
                    "here",
                ),
            }
        }
        input
    }

    /// Compiles each ablation's replacement formulas in the scope of the step they replace.
    fn ablations(
        &mut self,
        raw: &IndexMap<String, RawAblation>,
        declared: &Declared<'_>,
        steps: &[Step],
        groups: &[Group],
    ) -> Vec<Ablation> {
        let mut out = Vec::new();
        for (name, a) in raw {
            self.check_ident(
                name,
                a.steps
                    .values()
                    .next()
                    .map_or(Span::default(), |s| s.anchor()),
            );
            let mut replacements = Vec::new();
            for (target, expr) in &a.steps {
                let found = match target.split_once('.') {
                    None => steps
                        .iter()
                        .position(|s| &*s.name == target)
                        .map(|i| (StepRef::Top(i), &steps[i], None)),
                    Some((g, st)) => groups.iter().position(|x| &*x.name == g).and_then(|gi| {
                        let j = groups[gi].steps.iter().position(|s| &*s.name == st)?;
                        Some((
                            StepRef::Item(gi, j),
                            &groups[gi].steps[j],
                            declared.group_scopes.get(gi),
                        ))
                    }),
                };
                let Some((step_ref, step, gs)) = found else {
                    let message = format!("ablation `{name}` replaces `{target}`, which is not a step (write `group.step` for a per-item step)");
                    self.problem("check::unknown_name", expr.anchor(), message, "here");
                    continue;
                };
                let scope = declared.in_group(gs);
                let p = self.parse(expr);
                if let Some((f, ty)) = self.resolve(&p, &scope) {
                    self.expect_type(&p, &ty, &step.ty, "an ablation's formula");
                    replacements.push((step_ref, f));
                }
            }
            self.ablation_cycles(name, &replacements, steps, groups);
            out.push(Ablation {
                name: Arc::from(name.as_str()),
                label: a.label.clone(),
                description: a.description.clone(),
                replacements,
            });
        }
        out
    }

    /// An ablation's formulas may read steps the original ones did not: the
    /// step graph must stay acyclic under it too.
    fn ablation_cycles(
        &mut self,
        name: &str,
        replacements: &[(StepRef, Formula)],
        steps: &[Step],
        groups: &[Group],
    ) {
        let formula_of = |target: StepRef, original: &Formula| -> Formula {
            replacements
                .iter()
                .find(|(t, _)| *t == target)
                .map_or_else(|| original.clone(), |(_, f)| f.clone())
        };
        let step_formulas = |step: &Step, target: StepRef| -> Vec<Formula> {
            let mut fs = vec![formula_of(target, &step.expr)];
            fs.extend(step.when.iter().cloned());
            fs.extend(step.otherwise.iter().cloned());
            fs
        };
        let n = steps.len();
        let mut deps: Vec<Vec<usize>> = Vec::with_capacity(n + groups.len());
        for (i, step) in steps.iter().enumerate() {
            let mut d = Vec::new();
            for f in step_formulas(step, StepRef::Top(i)) {
                node_refs(&f.node, n, &mut d, &mut Vec::new());
            }
            deps.push(d);
        }
        for (g, group) in groups.iter().enumerate() {
            let mut d = Vec::new();
            node_refs(&group.over.node, n, &mut d, &mut Vec::new());
            let mut local: Vec<Vec<usize>> = Vec::new();
            for (j, step) in group.steps.iter().enumerate() {
                let mut l = Vec::new();
                for f in step_formulas(step, StepRef::Item(g, j)) {
                    node_refs(&f.node, n, &mut d, &mut l);
                }
                local.push(l);
            }
            let names: Vec<String> = group
                .steps
                .iter()
                .map(|s| format!("{}.{} (ablation {name})", group.name, s.name))
                .collect();
            self.topo_order(
                &local,
                &names,
                &vec![Span::default(); names.len()],
                "per-item steps",
            );
            deps.push(d);
        }
        let mut names: Vec<String> = steps
            .iter()
            .map(|s| format!("{} (ablation {name})", s.name))
            .collect();
        names.extend(
            groups
                .iter()
                .map(|g| format!("{} (ablation {name})", g.name)),
        );
        // A cycle is reported at the ablation's first formula.
        let span = replacements
            .first()
            .and_then(|(_, f)| f.offset.map(|o| Span::new(o, o + f.text.len())))
            .unwrap_or_default();
        self.topo_order(&deps, &names, &vec![span; names.len()], "steps");
    }

    /// A `min` or `max` of an input, parsed; a malformed one is reported.
    fn bound<T>(
        &mut self,
        raw: &Option<Spanned<String>>,
        parse: impl Fn(&str) -> Option<T>,
        what: &str,
    ) -> Option<T> {
        let v = raw.as_ref()?;
        let parsed = parse(v.get_ref());
        if parsed.is_none() {
            self.problem(
                "check::bad_value",
                sp(v),
                format!("expected {what}"),
                "here",
            );
        }
        parsed
    }

    /// Compiles the `reject` rules of an input and of the fields nested in it.
    fn field_rules(
        &mut self,
        input: &mut Input,
        raw: &RawInput,
        item: Option<&Type>,
        scope: &Scope<'_>,
    ) {
        for hidden in ["value", "item"] {
            if !raw.reject.is_empty() && scope.names.contains_key(hidden) {
                let span = raw.reject.first().map_or(raw.anchor(), |r| r.when.anchor());
                let message = format!("field rules bind `{hidden}`, which is also the name of an input, step or table: rename it");
                self.problem("check::duplicate_name", span, message, "here");
            }
        }
        let mut locals: Vec<(Arc<str>, Type)> = vec![(Arc::from("value"), input.kind.value_type())];
        if let Some(t) = item {
            locals.push((Arc::from("item"), t.clone()));
        }
        for rule in &raw.reject {
            let p = self.parse(&rule.when);
            if let Some((when, ty)) = self.resolve_locals(&p, scope, locals.clone()) {
                self.expect_type(&p, &ty, &Type::Bool, "a rule's `when`");
                let message = self.message_locals(&rule.message, scope, &locals);
                input.rejects.push(FieldRule { when, message });
            }
        }
        match &mut input.kind {
            InputKind::Record { fields, shape, .. } => {
                let record = Type::Record(*shape);
                for (field, raw_field) in fields
                    .iter_mut()
                    .zip(raw.fields.iter().flat_map(|f| f.values()))
                {
                    self.field_rules(field, raw_field, Some(&record), scope);
                }
            }
            InputKind::List { item, .. } | InputKind::Map { item, .. } => {
                if let Some(raw_item) = &raw.items {
                    self.field_rules(item, raw_item, None, scope);
                }
            }
            _ => {}
        }
    }

    /// `unique` is meaningful only on a field of the records of a list.
    fn unique_positions(&mut self, input: &Input, raw: &RawInput, in_list_record: bool) {
        if input.unique && !in_list_record {
            self.problem(
                "check::bad_input",
                raw.anchor(),
                "`unique` applies to a field of the records of a list",
                "here",
            );
        }
        match (&input.kind, &raw.fields, &raw.items) {
            (InputKind::List { item, .. }, _, Some(raw_item)) => {
                if let (InputKind::Record { fields, .. }, Some(raw_fields)) =
                    (&item.kind, &raw_item.fields)
                {
                    if item.unique {
                        self.problem(
                            "check::bad_input",
                            raw_item.anchor(),
                            "`unique` applies to a field of the records of a list",
                            "here",
                        );
                    }
                    for (f, rf) in fields.iter().zip(raw_fields.values()) {
                        self.unique_positions(f, rf, true);
                    }
                } else {
                    self.unique_positions(item, raw_item, false);
                }
            }
            (InputKind::Map { item, .. }, _, Some(raw_item)) => {
                self.unique_positions(item, raw_item, false)
            }
            (InputKind::Record { fields, .. }, Some(raw_fields), _) => {
                for (f, rf) in fields.iter().zip(raw_fields.values()) {
                    self.unique_positions(f, rf, false);
                }
            }
            _ => {}
        }
    }

    /// A `ref` to a table whose rows the case may replace must come after the
    /// input that replaces them, or it would be checked against the wrong rows.
    fn ref_order(&mut self, inputs: &[Input], raws: &IndexMap<String, RawInput>) {
        fn targets(input: &Input, out: &mut Vec<TableId>) {
            if let Some(RefTarget::Table(t)) = input.refers.or(input.key_ref) {
                out.push(t);
            }
            match &input.kind {
                InputKind::Record { fields, .. } => fields.iter().for_each(|f| targets(f, out)),
                InputKind::List { item, .. } | InputKind::Map { item, .. } => targets(item, out),
                _ => {}
            }
        }
        for (i, input) in inputs.iter().enumerate() {
            let mut found = Vec::new();
            targets(input, &mut found);
            for t in found {
                let replaced_by = inputs
                    .iter()
                    .position(|x| matches!(x.kind, InputKind::Table { table } if table == t));
                if let Some(j) = replaced_by.filter(|j| *j > i) {
                    let span = raws
                        .get_index(i)
                        .map_or(Span::default(), |(_, r)| r.anchor());
                    let message = format!("`{}` refers to keys of a table that `{}` may replace, but is validated before it: declare `{}` first", input.name, inputs[j].name, inputs[j].name);
                    self.problem("check::input_order", span, message, "here");
                }
            }
        }
    }

    /// Resolves `ref`: an earlier map input, or a keyed table with one text key.
    fn ref_target(&mut self, target: &Spanned<String>, cx: &InputCx<'_>) -> Option<RefTarget> {
        let name = target.get_ref().as_str();
        if let Some(i) = cx.maps.get(name) {
            return Some(RefTarget::Input(*i));
        }
        if let Some((list, field)) = name.split_once('.') {
            if let Some((i, fields)) = cx.lists.get(list) {
                if let Some(f) = fields.iter().position(|n| &**n == field) {
                    return Some(RefTarget::ListField(*i, f));
                }
            }
        }
        if let Some(t) = cx.tables.get(name) {
            let table = &cx.built_tables[*t];
            if let TableKind::Keyed { keys } = &table.kind {
                let text_key = keys.len() == 1
                    && table
                        .columns
                        .get(keys[0])
                        .is_some_and(|c| c.kind.value_type() == Type::Text);
                if text_key {
                    return Some(RefTarget::Table(*t));
                }
            }
        }
        let message = format!("`{name}` is none of: a map input declared before this one, `list.field` (a text field) of a list of records declared before, a keyed table with one text key");
        self.problem("check::unknown_ref", target.anchor(), message, "here");
        None
    }

    fn table(
        &mut self,
        name: &str,
        raw: &RawTable,
        clause_ids: &[Arc<str>],
        limits: &Limits,
    ) -> Option<Table> {
        let t = raw;
        let clause = t.clause.as_ref().map(|c| self.clause_ref(c, clause_ids));
        let kind_name = t.kind.get_ref().as_str();
        let mut columns: Vec<Input> = Vec::new();
        let implicit = |name: &str, money: bool, required: bool| {
            let spec = NumberSpec {
                places: None,
                rescale: None,
                min: Some(Decimal::ZERO),
                max: None,
                numbers: JsonNumbers::Plain,
            };
            Input {
                required,
                ..Input::new(
                    name,
                    if money {
                        InputKind::Money(spec)
                    } else {
                        InputKind::Decimal(spec)
                    },
                )
            }
        };
        if kind_name == "scale" {
            if !t.columns.is_empty() {
                self.problem(
                    "check::bad_table",
                    sp(raw),
                    "a scale has the fixed columns `upto` and `rate`",
                    "remove `columns`",
                );
            }
            columns.push(implicit("upto", true, false));
            columns.push(implicit("rate", false, true));
        } else {
            if kind_name == "ranges" {
                // `upto` bounds each range from above, inclusive; the last range is open.
                columns.push(implicit("upto", false, false));
            }
            for (cname, c) in &t.columns {
                self.check_ident(cname, sp(c));
                let no_tables = HashMap::new();
                let no_maps = HashMap::new();
                let no_lists = HashMap::new();
                let cx = InputCx {
                    clause_ids,
                    tables: &no_tables,
                    built_tables: &[],
                    limits,
                    maps: &no_maps,
                    lists: &no_lists,
                };
                let input = self.input(cname, c, &cx, 1);
                if c.default.is_some()
                    || c.refers.is_some()
                    || c.unique
                    || c.key_ref.is_some()
                    || !c.reject.is_empty()
                {
                    self.problem(
                        "check::bad_table",
                        sp(c),
                        "table columns take no `default`, `ref` or `unique`",
                        "here",
                    );
                }
                if matches!(
                    input.kind,
                    InputKind::Record { .. } | InputKind::List { .. } | InputKind::Table { .. }
                ) {
                    self.problem(
                        "check::bad_table",
                        sp(c),
                        "table cells are numbers, texts, booleans, dates, months or maps",
                        "here",
                    );
                }
                columns.push(Input {
                    required: !input.nullable,
                    ..input
                });
            }
        }
        let kind = match kind_name {
            "periods" => TableKind::Periods,
            "scale" => TableKind::Scale,
            "ranges" => TableKind::Ranges,
            "keyed" => {
                let mut keys = Vec::new();
                for k in &t.keys {
                    match columns.iter().position(|c| &*c.name == k) {
                        Some(i) => keys.push(i),
                        None => self.problem(
                            "check::bad_table",
                            sp(raw),
                            format!("key `{k}` is not a column"),
                            "in this table",
                        ),
                    }
                }
                if keys.is_empty() {
                    self.problem(
                        "check::bad_table",
                        sp(raw),
                        "a keyed table needs `keys`",
                        "in this table",
                    );
                }
                TableKind::Keyed { keys }
            }
            other => {
                self.problem(
                    "check::bad_table",
                    sp(&t.kind),
                    format!(
                        "unknown table kind `{other}`; kinds are periods, keyed, scale, ranges"
                    ),
                    "here",
                );
                return None;
            }
        };
        if kind != (TableKind::Keyed { keys: vec![] })
            && !t.keys.is_empty()
            && !matches!(kind, TableKind::Keyed { .. })
        {
            self.problem(
                "check::bad_table",
                sp(raw),
                "`keys` belongs to keyed tables",
                "here",
            );
        }
        let shape = self.shape(
            format!("row of table {name}"),
            columns
                .iter()
                .map(|c| (c.name.clone(), c.kind.value_type()))
                .collect(),
        );
        let names: Arc<[Arc<str>]> = columns.iter().map(|c| c.name.clone()).collect();
        let mut rows: Vec<Row> = Vec::new();
        for (ri, row) in t.rows.iter().enumerate() {
            let cells = row.get_ref();
            let span = sp(row);
            let mut reserved: Vec<&str> = Vec::new();
            let (mut row_name, mut period) = (None, None);
            if kind == TableKind::Periods {
                reserved.extend(["name", "from", "to"]);
                row_name = match cells.get("name").and_then(|v| v.as_str()) {
                    Some(n) => Some(Arc::from(n)),
                    None => {
                        self.problem(
                            "check::bad_table",
                            span,
                            "a period row needs a `name`",
                            "this row",
                        );
                        None
                    }
                };
                period = self.period(cells.get("from"), cells.get("to"), span);
            }
            for key in cells.keys() {
                if !reserved.contains(&key.as_str()) && !columns.iter().any(|c| &*c.name == key) {
                    self.problem(
                        "check::bad_table",
                        span,
                        format!("unknown column `{key}` in row {}", ri + 1),
                        "this row",
                    );
                }
            }
            let mut values = Vec::new();
            for col in &columns {
                let path = format!("{name}.rows[{ri}].{}", col.name);
                let cell = cells.get(&*col.name).map(toml_to_json);
                let cell = match cell {
                    Some(Err(message)) => {
                        self.problem(
                            "check::bad_value",
                            span,
                            format!("{path}: {message}"),
                            "this row",
                        );
                        values.push(Value::Absent);
                        continue;
                    }
                    Some(Ok(v)) => Some(v),
                    None => None,
                };
                match validate_value(col, cell.as_ref(), &path, None) {
                    Ok(v) => values.push(v),
                    Err(e) => {
                        self.problem(
                            "check::bad_value",
                            span,
                            format!("{}: {}", e.path, e.message),
                            "this row",
                        );
                        values.push(Value::Absent);
                    }
                }
            }
            if matches!(kind, TableKind::Scale | TableKind::Ranges)
                && ri + 1 < t.rows.len()
                && values.first().is_some_and(Value::is_missing)
            {
                self.problem(
                    "check::bad_table",
                    span,
                    "only the last row of a scale or ranges table may omit `upto`",
                    "this row",
                );
            }
            let record = Record {
                name: row_name.clone(),
                names: names.clone(),
                fields: values.into(),
            };
            rows.push(Row {
                name: row_name,
                period,
                record: Arc::new(record),
            });
        }
        self.check_rows(name, &kind, &rows, sp(raw));
        Some(Table {
            name: Arc::from(name),
            label: t.label.clone(),
            clause,
            kind,
            columns,
            shape,
            names,
            rows,
        })
    }

    fn check_rows(&mut self, name: &str, kind: &TableKind, rows: &[Row], span: Span) {
        match kind {
            TableKind::Periods => {
                for (i, a) in rows.iter().enumerate() {
                    for b in &rows[i + 1..] {
                        if a.name.is_some() && a.name == b.name {
                            self.problem(
                                "check::bad_table",
                                span,
                                format!(
                                    "table `{name}` has two rows named `{}`",
                                    b.name.as_deref().unwrap_or("")
                                ),
                                "here",
                            );
                        }
                        if let (Some(pa), Some(pb)) = (a.period, b.period) {
                            if std::mem::discriminant(&pa) != std::mem::discriminant(&pb) {
                                let message = format!("table `{name}` mixes month and date periods: use one kind for every row");
                                self.problem("check::bad_table", span, message, "here");
                                continue;
                            }
                            if periods_overlap(pa, pb) {
                                let message = format!(
                                    "rows `{}` and `{}` of table `{name}` overlap",
                                    a.name.as_deref().unwrap_or("?"),
                                    b.name.as_deref().unwrap_or("?")
                                );
                                self.problem("check::bad_table", span, message, "here");
                            }
                        }
                    }
                }
            }
            TableKind::Scale | TableKind::Ranges => {
                let mut last: Option<Decimal> = None;
                for row in rows {
                    if let Some(Value::Number(upto)) = row.record.fields.first() {
                        if last.is_some_and(|l| *upto <= l) {
                            self.problem(
                                "check::bad_table",
                                span,
                                format!("the bands of scale `{name}` must rise"),
                                "here",
                            );
                        }
                        last = Some(*upto);
                    }
                }
                if rows
                    .last()
                    .is_some_and(|r| r.record.fields.first().is_some_and(|u| !u.is_missing()))
                {
                    let message = if *kind == TableKind::Scale {
                        format!("the last band of scale `{name}` must be open (no `upto`), or amounts above it would go untaxed")
                    } else {
                        format!("the last row of ranges table `{name}` must be open (no `upto`), so every value has a row")
                    };
                    self.problem("check::bad_table", span, message, "here");
                }
                if rows.is_empty() {
                    self.problem(
                        "check::bad_table",
                        span,
                        format!("scale `{name}` has no bands"),
                        "here",
                    );
                }
            }
            TableKind::Keyed { keys } => {
                for (i, a) in rows.iter().enumerate() {
                    for b in &rows[i + 1..] {
                        if keys
                            .iter()
                            .all(|k| a.record.fields.get(*k) == b.record.fields.get(*k))
                        {
                            self.problem(
                                "check::bad_table",
                                span,
                                format!("table `{name}` has two rows with the same key"),
                                "here",
                            );
                        }
                    }
                }
            }
        }
    }

    fn period(
        &mut self,
        from: Option<&toml::Value>,
        to: Option<&toml::Value>,
        span: Span,
    ) -> Option<Period> {
        // A TOML date (`from = 2026-01-01`) reads as its text.
        let text = |v: &toml::Value| match v {
            toml::Value::String(s) => Some(s.clone()),
            toml::Value::Datetime(d) => Some(d.to_string()),
            _ => None,
        };
        let from = from.and_then(text);
        let to = to.and_then(text);
        let (from, to) = (from.as_deref(), to.as_deref());
        let Some(from) = from else {
            self.problem(
                "check::bad_table",
                span,
                "a period row needs `from` (YYYY-MM or YYYY-MM-DD)",
                "this row",
            );
            return None;
        };
        let period = if let Some(f) = Month::parse(from) {
            match to.map(Month::parse) {
                None => Some(Period::Months(f, None)),
                Some(Some(t)) if t >= f => Some(Period::Months(f, Some(t))),
                _ => None,
            }
        } else if let Ok(f) = chrono::NaiveDate::parse_from_str(from, "%Y-%m-%d") {
            match to.map(|t| chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d")) {
                None => Some(Period::Dates(f, None)),
                Some(Ok(t)) if t >= f => Some(Period::Dates(f, Some(t))),
                _ => None,
            }
        } else {
            None
        };
        if period.is_none() {
            self.problem("check::bad_table", span, "`from` and `to` must be months (YYYY-MM) or dates (YYYY-MM-DD) of the same kind, `from` ≤ `to`", "this row");
        }
        period
    }

    fn parameter(
        &mut self,
        name: &str,
        raw: &RawParameter,
        clause_ids: &[Arc<str>],
    ) -> (Parameter, Option<Pending>) {
        let p = raw;
        let clause = p.clause.as_ref().map(|c| self.clause_ref(c, clause_ids));
        let number = |cx: &mut Self, text: &str, span: Span| match parse_plain_decimal(text) {
            Some(d) => Value::Number(d),
            None => {
                cx.problem("check::bad_value", span, format!("parameter `{name}`: expected a plain decimal like \"350.00\", found {text:?}"), "here");
                Value::Absent
            }
        };
        let (value, at) = match (&p.value, &p.periods, &p.at) {
            (Some(v), None, None) => (ParamValue::Fixed(number(self, v.get_ref(), sp(v))), None),
            (None, Some(periods), Some(at)) => {
                let mut list = Vec::new();
                for pv in periods {
                    let r = pv.get_ref();
                    let from = toml::Value::String(r.from.clone());
                    let to = r.to.clone().map(toml::Value::String);
                    if let Some(period) = self.period(Some(&from), to.as_ref(), sp(pv)) {
                        list.push((period, number(self, &r.value, sp(pv))));
                    }
                }
                for (i, (a, _)) in list.iter().enumerate() {
                    if list[i + 1..].iter().any(|(b, _)| periods_overlap(*a, *b)) {
                        self.problem(
                            "check::bad_value",
                            sp(raw),
                            format!("periods of parameter `{name}` overlap"),
                            "here",
                        );
                    }
                }
                let pending = self.parse(at);
                let placeholder = Formula {
                    text: pending.text.clone(),
                    node: Node {
                        span: Span::default(),
                        kind: NodeKind::Const(Value::Absent),
                    },
                    offset: None,
                };
                (
                    ParamValue::Dated {
                        at: placeholder,
                        periods: list,
                    },
                    Some(pending),
                )
            }
            _ => {
                self.problem(
                    "check::bad_value",
                    sp(raw),
                    format!("parameter `{name}` needs either `value`, or `periods` with `at`"),
                    "here",
                );
                (ParamValue::Fixed(Value::Absent), None)
            }
        };
        (
            Parameter {
                name: Arc::from(name),
                label: p.label.clone(),
                clause,
                value,
            },
            at,
        )
    }

    /// Compiles top-level steps and per-item groups so each comes after what it reads.
    fn steps_and_groups(
        &mut self,
        steps: &IndexMap<String, RawStep>,
        groups: &IndexMap<String, RawGroup>,
        names: &HashMap<Arc<str>, Binding>,
        param_at: &[Option<Pending>],
        tables: &[Table],
        clause_ids: &[Arc<str>],
    ) -> Resolved {
        let n_steps = steps.len();
        let parse3 = |cx: &mut Self, s: &RawStep| -> [Option<Pending>; 3] {
            [
                Some(cx.parse(&s.expr)),
                s.when.as_ref().map(|w| cx.parse(w)),
                s.otherwise.as_ref().map(|o| cx.parse(o)),
            ]
        };
        let parsed_steps: Vec<[Option<Pending>; 3]> =
            steps.values().map(|s| parse3(self, s)).collect();
        let parsed_groups: Vec<(Pending, Vec<[Option<Pending>; 3]>)> = groups
            .values()
            .map(|g| {
                (
                    self.parse(&g.over),
                    g.steps.values().map(|s| parse3(self, s)).collect(),
                )
            })
            .collect();

        // The top-level graph: steps, then groups (a group is one node).
        let node_of = |name: &str| match names.get(name) {
            Some(Binding::Step(i)) => Some(*i),
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
        let mut deps: Vec<Vec<usize>> = parsed_steps
            .iter()
            .map(|p| top_refs(&p.iter().flatten().collect::<Vec<_>>(), &[]))
            .collect();
        let mut node_names: Vec<String> = steps.keys().cloned().collect();
        let mut node_spans: Vec<Span> = steps.values().map(|s| s.anchor()).collect();
        for ((gname, g), (over, gsteps)) in groups.iter().zip(&parsed_groups) {
            let mut shadow: Vec<&str> = g.steps.keys().map(String::as_str).collect();
            shadow.push(g.item.get_ref());
            let exprs: Vec<&Pending> = gsteps.iter().flat_map(|p| p.iter().flatten()).collect();
            let mut d = top_refs(&exprs, &shadow);
            d.extend(top_refs(&[over], &[]));
            d.sort_unstable();
            d.dedup();
            deps.push(d);
            node_names.push(gname.clone());
            node_spans.push(g.anchor());
        }
        let order = self.topo_order(&deps, &node_names, &node_spans, "steps");

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
            let (over, gsteps) = &parsed_groups[g];
            let Some((over_f, over_ty)) = self.resolve(over, &scope) else {
                continue;
            };
            let item_type = match over_ty {
                Type::List(inner) => *inner,
                Type::Any => Type::Any,
                other => {
                    let message = format!("`over` must be a list, found {}", type_word(&other));
                    self.problem("check::type_mismatch", over.span, message, "here");
                    Type::Any
                }
            };
            let item: &str = raw.item.get_ref();
            self.check_ident(item, raw.item.anchor());
            if raw.steps.contains_key(item) || names.contains_key(item) {
                let message = format!("the item name `{item}` is already the name of a step, input, parameter or table");
                self.problem("check::duplicate_name", raw.item.anchor(), message, "here");
            }
            let local: HashMap<Arc<str>, usize> = raw
                .steps
                .keys()
                .enumerate()
                .map(|(j, k)| (Arc::from(k.as_str()), j))
                .collect();
            for (k, s) in &raw.steps {
                self.check_ident(k, s.anchor());
                if names.contains_key(k.as_str()) {
                    let message = format!("`{k}` is already declared at the top level; per-item steps need their own names");
                    self.problem("check::duplicate_name", s.anchor(), message, "here");
                }
            }
            let local_deps: Vec<Vec<usize>> = gsteps
                .iter()
                .map(|p| {
                    let mut d: Vec<usize> = p
                        .iter()
                        .flatten()
                        .filter_map(|p| p.ast.as_ref())
                        .flat_map(|ast| {
                            refs(
                                ast,
                                &|n| {
                                    if n == item {
                                        None
                                    } else {
                                        local.get(n).copied()
                                    }
                                },
                                &[],
                                names,
                            )
                        })
                        .collect();
                    d.sort_unstable();
                    d.dedup();
                    d
                })
                .collect();
            let local_names: Vec<String> =
                raw.steps.keys().map(|k| format!("{gname}.{k}")).collect();
            let local_spans: Vec<Span> = raw.steps.values().map(|s| s.anchor()).collect();
            let local_order =
                self.topo_order(&local_deps, &local_names, &local_spans, "per-item steps");
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
                    ..Scope::top(names, &shapes, tables, &out.step_types, &out.group_types)
                };
                let Some((name, s)) = raw.steps.get_index(j) else {
                    continue;
                };
                if let Some(step) = self.step(name, s, &gsteps[j], &scope, clause_ids) {
                    local_types[j] = step.ty.clone();
                    local_steps[j] = Some(step);
                }
            }
            let step_names: Arc<[Arc<str>]> =
                raw.steps.keys().map(|k| Arc::from(k.as_str())).collect();
            let fields = step_names
                .iter()
                .cloned()
                .zip(local_types.iter().cloned())
                .collect();
            let shape = self.shape(format!("item of {gname}"), fields);
            out.group_types[g] = Type::List(Box::new(Type::Record(shape)));
            let group = Group {
                name: Arc::from(gname.as_str()),
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
            group_slots[g] = Some((group, scope_names));
        }
        out.steps = step_slots.into_iter().flatten().collect();
        for (group, names) in group_slots.into_iter().flatten() {
            out.groups.push(group);
            out.group_scopes.push(names);
        }
        out
    }

    /// Compiles one step (formula, condition, fallback) in a scope.
    fn step(
        &mut self,
        name: &str,
        raw: &RawStep,
        parsed: &[Option<Pending>; 3],
        scope: &Scope<'_>,
        clause_ids: &[Arc<str>],
    ) -> Option<Step> {
        let [expr, when, otherwise] = parsed;
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
        let p = expr.as_ref()?;
        let (f, ty) = self.resolve(p, scope)?;
        if matches!(ty, Type::Table(_) | Type::Mode | Type::Clauses) {
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
            label: raw.label.clone(),
            clauses: self.clause_refs(&raw.clauses, clause_ids),
            expr: f,
            when,
            otherwise,
            round: raw.round.as_ref().and_then(|r| self.round(r)),
            ty,
        })
    }

    /// Orders nodes so each comes after the nodes it reads; reports each cycle once, by its members.
    fn topo_order(
        &mut self,
        deps: &[Vec<usize>],
        names: &[String],
        spans: &[Span],
        what: &str,
    ) -> Vec<usize> {
        // Iterative depth-first search; colour 0 = new, 1 = on the path, 2 = done.
        let n = deps.len();
        let mut colour = vec![0u8; n];
        let mut order = Vec::with_capacity(n);
        let mut reported = vec![false; n];
        for root in 0..n {
            if colour[root] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            colour[root] = 1;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if let Some(&dep) = deps[node].get(*next) {
                    *next += 1;
                    match colour[dep] {
                        0 => {
                            colour[dep] = 1;
                            stack.push((dep, 0));
                        }
                        1 => {
                            let start = stack.iter().position(|(s, _)| *s == dep).unwrap_or(0);
                            let members: Vec<usize> =
                                stack[start..].iter().map(|(s, _)| *s).collect();
                            if !members.iter().any(|m| reported[*m]) {
                                for m in &members {
                                    reported[*m] = true;
                                }
                                let mut cycle: Vec<&str> =
                                    members.iter().map(|m| names[*m].as_str()).collect();
                                cycle.push(names[dep].as_str());
                                let message = format!(
                                    "{what} depend on each other in a cycle: {}",
                                    cycle.join(" → ")
                                );
                                self.diags.push(
                                    Problem::new("check::cycle", message)
                                        .at(spans[dep], "part of the cycle"),
                                );
                            }
                        }
                        _ => {}
                    }
                } else {
                    colour[node] = 2;
                    order.push(node);
                    stack.pop();
                }
            }
        }
        order
    }

    /// One answer field: a value in a format, or a list over a per-item group.
    fn output(
        &mut self,
        key: &str,
        out: &RawOutput,
        scope: &Scope<'_>,
        groups: &HashMap<&str, usize>,
        group_scopes: &[GroupNames],
        depth: usize,
    ) -> Option<Output> {
        let key: Arc<str> = Arc::from(key);
        match (&out.expr, &out.each, &out.fields) {
            (Some(expr), None, None) => {
                let p = self.parse(expr);
                let (f, ty) = self.resolve(&p, scope)?;
                let format = self.format(out.format.as_ref(), &ty, &p);
                Some(Output {
                    key,
                    value: OutputValue::Value { expr: f, format },
                })
            }
            (None, Some(each), Some(fields)) if depth == 0 => {
                let Some(&g) = groups.get(each.get_ref().as_str()) else {
                    let message = format!("unknown per-item group `{}`", each.get_ref());
                    self.problem(
                        "check::unknown_name",
                        each.anchor(),
                        message,
                        "not declared under [per_item]",
                    );
                    return None;
                };
                let gs = group_scopes.get(g)?;
                let inner = Scope {
                    answer_builtins: scope.answer_builtins,
                    group: Some(gs.scope()),
                    ..Scope::top(
                        scope.names,
                        scope.shapes,
                        scope.tables,
                        scope.step_types,
                        scope.group_types,
                    )
                };
                let mut list = Vec::new();
                for (k, o) in fields {
                    if let Some(field) = self.output(k, o, &inner, groups, group_scopes, depth + 1)
                    {
                        list.push(field);
                    }
                }
                if out.format.is_some() {
                    self.problem(
                        "check::bad_output",
                        each.anchor(),
                        "a list from `each` takes no `format`; give each field its own",
                        "here",
                    );
                }
                let key_formula = out.key.as_ref().and_then(|k| {
                    let p = self.parse(k);
                    let (f, ty) = self.resolve(&p, &inner)?;
                    self.expect_type(&p, &ty, &Type::Text, "the `key` of an `each` list");
                    Some(f)
                });
                Some(Output {
                    key,
                    value: OutputValue::Each {
                        group: g,
                        fields: list,
                        key: key_formula,
                    },
                })
            }
            _ => {
                let message = format!("answer field `{key}` needs either `expr`, or `each` with `fields` (lists do not nest)");
                self.problem("check::bad_output", out.anchor(), message, "here");
                None
            }
        }
    }

    fn format(&mut self, format: Option<&Spanned<String>>, ty: &Type, p: &Pending) -> Format {
        let Some(f) = format else {
            return match ty {
                Type::Number | Type::Any => Format::Decimal,
                Type::Bool => Format::Bool,
                Type::Date | Type::Month => Format::Calendar,
                Type::Clauses => Format::Clauses,
                Type::Text => Format::Text,
                other => {
                    self.problem(
                        "check::bad_output",
                        p.span,
                        format!("{} cannot be an answer field", type_word(other)),
                        "here",
                    );
                    Format::Text
                }
            };
        };
        let (format, want) = match f.get_ref().as_str() {
            "money" => (Format::Fixed(2), Type::Number),
            "decimal" => (Format::Decimal, Type::Number),
            "integer" => (Format::Integer, Type::Number),
            "number" => (Format::Number, Type::Number),
            "text" => (Format::Text, Type::Text),
            "bool" => (Format::Bool, Type::Bool),
            "clauses" => (Format::Clauses, Type::Clauses),
            "date" => (Format::Calendar, Type::Date),
            "month" => (Format::Calendar, Type::Month),
            other => {
                if let Some(places) = other
                    .strip_prefix("fixed")
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|p| *p <= MAX_PLACES)
                {
                    (Format::Fixed(places), Type::Number)
                } else {
                    let message = format!("unknown format `{other}`; formats are money, fixedN, decimal, integer, number, text, bool, date, month, clauses");
                    self.problem("check::bad_output", sp(f), message, "here");
                    return Format::Text;
                }
            }
        };
        if !want.accepts(ty) {
            let message = format!(
                "format `{}` needs {}, the expression gives {}",
                f.get_ref(),
                type_word(&want),
                type_word(ty)
            );
            self.problem("check::type_mismatch", sp(f), message, "here");
        }
        format
    }

    fn message(&mut self, m: &Spanned<String>, scope: &Scope<'_>) -> Vec<MessagePart> {
        self.message_locals(m, scope, &[])
    }

    /// A text with `{expr}` parts, each resolved with `locals` bound.
    fn message_locals(
        &mut self,
        m: &Spanned<String>,
        scope: &Scope<'_>,
        locals: &[(Arc<str>, Type)],
    ) -> Vec<MessagePart> {
        let text = m.get_ref();
        let offset = self.content_offset(m);
        let mut parts = Vec::new();
        let mut rest = text.as_str();
        let mut at = 0usize;
        while let Some(open) = rest.find('{') {
            parts.push(MessagePart::Text(rest[..open].to_string()));
            let Some(close) = rest[open..].find('}') else {
                self.problem(
                    "check::bad_message",
                    sp(m),
                    "unclosed `{` in message",
                    "here",
                );
                return parts;
            };
            let inner = &rest[open + 1..open + close];
            let inner_at = at + open + 1;
            let pending = Pending {
                text: Arc::from(inner),
                ast: match parse_expr(inner) {
                    Ok(a) => Some(a),
                    Err(e) => {
                        let span = self.locate(offset.map(|o| o + inner_at), sp(m), e.span);
                        self.problem(
                            "check::syntax",
                            span,
                            format!("syntax error: {}", e.message),
                            "here",
                        );
                        None
                    }
                },
                offset: offset.map(|o| o + inner_at),
                span: sp(m),
            };
            if let Some((f, _)) = self.resolve_locals(&pending, scope, locals.to_vec()) {
                parts.push(MessagePart::Value(f));
            }
            at += open + close + 1;
            rest = &rest[open + close + 1..];
        }
        parts.push(MessagePart::Text(rest.to_string()));
        parts
    }
}

/// Steps a resolved formula reads: top-level steps and groups (as `n_steps + g`)
/// into `top`, steps of the current item's group into `local`.
fn node_refs(node: &Node, n_steps: usize, top: &mut Vec<usize>, local: &mut Vec<usize>) {
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        match &node.kind {
            NodeKind::Step(i) => top.push(*i),
            NodeKind::Group(g) => top.push(n_steps + g),
            NodeKind::ItemStep(j) => local.push(*j),
            _ => {}
        }
        stack.extend(node.children());
    }
}

/// What declaring an input needs to know about the rest of the rulebook.
struct InputCx<'a> {
    clause_ids: &'a [Arc<str>],
    tables: &'a HashMap<&'a str, usize>,
    built_tables: &'a [Table],
    limits: &'a Limits,
    /// Top-level map inputs declared so far, for `ref`.
    maps: &'a HashMap<String, usize>,
    /// Top-level lists of records declared so far, with their text fields, for `ref = "list.field"`.
    lists: &'a HashMap<String, (usize, Vec<Arc<str>>)>,
}

/// Whether a case may supply a table's rows.
fn replaceable(kind: &TableKind) -> bool {
    match kind {
        TableKind::Periods => true,
        TableKind::Keyed { keys } => keys.len() == 1,
        TableKind::Scale | TableKind::Ranges => false,
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

/// Steps and groups once resolved, with what later scopes need to read a group's items.
struct Resolved {
    steps: Vec<Step>,
    step_types: Vec<Type>,
    groups: Vec<Group>,
    group_types: Vec<Type>,
    group_scopes: Vec<GroupNames>,
}

/// The names inside a per-item group, kept for its answer fields.
#[derive(Clone)]
struct GroupNames {
    item: Arc<str>,
    item_type: Type,
    steps: HashMap<Arc<str>, usize>,
    step_types: Vec<Type>,
}

impl GroupNames {
    /// The scope these names give inside the group.
    fn scope(&self) -> GroupScope<'_> {
        GroupScope {
            item: &self.item,
            item_type: self.item_type.clone(),
            steps: &self.steps,
            step_types: &self.step_types,
        }
    }
}

/// Each name's position among the declarations of its section.
fn index_of<V>(declarations: &IndexMap<String, V>) -> HashMap<&str, usize> {
    declarations
        .keys()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect()
}

/// What a formula checked after the steps may read: every declared name, the
/// record shapes, the tables, and the types steps and groups were found to have.
struct Declared<'a> {
    names: &'a HashMap<Arc<str>, Binding>,
    shapes: &'a [Shape],
    tables: &'a [Table],
    step_types: &'a [Type],
    group_types: &'a [Type],
    /// The names inside each per-item group, for formulas read per item.
    group_scopes: &'a [GroupNames],
}

impl Declared<'_> {
    /// The top-level scope; `answers` lets `decision`, `reason` and `clauses`
    /// be read, and `inputs_before` keeps to the inputs declared before one.
    fn scope(&self, answers: bool, inputs_before: Option<usize>) -> Scope<'_> {
        Scope {
            answer_builtins: answers,
            inputs_before,
            ..self.top()
        }
    }

    /// The scope inside a per-item group: its item and its own steps.
    fn in_group<'s>(&'s self, group: Option<&'s GroupNames>) -> Scope<'s> {
        Scope {
            group: group.map(GroupNames::scope),
            ..self.top()
        }
    }

    fn top(&self) -> Scope<'_> {
        Scope::top(
            self.names,
            self.shapes,
            self.tables,
            self.step_types,
            self.group_types,
        )
    }
}

/// An input's `when` or `required_when`, parsed while the inputs are
/// declared and resolved once every name has a type.
struct Condition {
    input: usize,
    expr: Pending,
    /// `required_when` rather than `when`.
    required: bool,
}

fn periods_overlap(a: Period, b: Period) -> bool {
    fn overlap<T: Ord + Copy>(af: T, at: Option<T>, bf: T, bt: Option<T>) -> bool {
        at.is_none_or(|at| bf <= at) && bt.is_none_or(|bt| af <= bt)
    }
    match (a, b) {
        (Period::Months(af, at), Period::Months(bf, bt)) => overlap(af, at, bf, bt),
        (Period::Dates(af, at), Period::Dates(bf, bt)) => overlap(af, at, bf, bt),
        _ => true,
    }
}

/// `-?[0-9]+(\.[0-9]+)?`, exact.
pub fn parse_plain_decimal(text: &str) -> Option<Decimal> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let mut parts = digits.splitn(2, '.');
    let int = parts.next()?;
    let frac = parts.next();
    let ok = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    if !ok {
        return None;
    }
    Decimal::from_str_exact(text)
        .ok()
        .or_else(|| Decimal::from_str(text).ok().filter(|_| false))
}

fn type_word(ty: &Type) -> &'static str {
    match ty {
        Type::Number => "a number",
        Type::Bool => "a boolean",
        Type::Text => "a text",
        Type::Date => "a date",
        Type::Month => "a month",
        Type::Record(_) => "a record",
        Type::List(_) => "a list",
        Type::Map(_) => "a map",
        Type::Table(_) => "a table",
        Type::Mode => "a rounding mode",
        Type::Clauses => "a clause list",
        Type::Any => "any value",
    }
}

/// The clause texts by id.
fn clause_texts(raw: IndexMap<String, String>) -> IndexMap<Arc<str>, String> {
    raw.into_iter().map(|(k, v)| (Arc::from(k), v)).collect()
}

/// The rulebook's `[limits]`, each one as given or the default.
fn limits_or_default(raw: &RawLimits) -> Limits {
    let default = Limits::default();
    Limits {
        max_case_bytes: raw.max_case_bytes.unwrap_or(default.max_case_bytes),
        max_list_items: raw.max_list_items.unwrap_or(default.max_list_items),
        max_eval_steps: raw.max_eval_steps.unwrap_or(default.max_eval_steps),
    }
}
