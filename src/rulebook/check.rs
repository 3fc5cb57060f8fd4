//! Static checks: from the serde mirror to a checked, compiled [`Rulebook`].
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

use super::compile::{compile, suggest, Binding, ExprProblem, Scope};
use super::model::*;
use super::schema::*;
use crate::case::validate_value;
use crate::diag::{Diagnostics, Problem};
use crate::expr::{parse_expr, Expr, ExprKind};
use crate::rounding::{RoundingMode, MAX_PLACES};
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
        Some(rb) if diags.is_empty() => Ok(rb),
        _ => Err(diags),
    }
}

/// A step's formula, condition and fallback, once compiled.
type CompiledStep = (Formula, Option<Formula>, Option<Formula>);

struct Checker<'d> {
    text: Arc<str>,
    diags: &'d mut Diagnostics,
    shapes: Vec<Shape>,
}

/// An expression parsed but not yet compiled, with where it sits in the file.
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

    fn compile(&mut self, p: &Pending, scope: &Scope<'_>) -> Option<(Formula, Type)> {
        let ast = p.ast.as_ref()?;
        let mut problems: Vec<ExprProblem> = Vec::new();
        let (node, ty) = compile(ast, scope, &mut problems);
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

    fn rulebook(&mut self, raw: RawRulebook, hash: String) -> Option<Rulebook> {
        let RawRulebook {
            rulebook: ident,
            clauses,
            inputs,
            parameters,
            tables,
            steps,
            checks,
            decisions,
            limits,
        } = raw;
        self.identity(&ident);
        let clauses: IndexMap<Arc<str>, String> = clauses
            .into_iter()
            .map(|(k, v)| (Arc::from(k), v))
            .collect();
        let clause_ids: Vec<Arc<str>> = clauses.keys().cloned().collect();

        let limits = Limits {
            max_case_bytes: limits
                .max_case_bytes
                .unwrap_or(Limits::default().max_case_bytes),
            max_list_items: limits
                .max_list_items
                .unwrap_or(Limits::default().max_list_items),
            max_eval_steps: limits
                .max_eval_steps
                .unwrap_or(Limits::default().max_eval_steps),
        };

        // Tables first: inputs may replace their rows.
        let mut built_tables = Vec::new();
        for (name, t) in &tables {
            if let Some(table) = self.table(name, t, &clause_ids, &limits) {
                built_tables.push(table);
            } else {
                built_tables.push(Table {
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
        let table_index: HashMap<&str, usize> = tables
            .keys()
            .enumerate()
            .map(|(i, k)| (k.as_str(), i))
            .collect();

        // Inputs, with their `when` conditions kept for later.
        let mut built_inputs = Vec::new();
        let mut conditions: Vec<(usize, Pending)> = Vec::new();
        for (i, (name, raw)) in inputs.iter().enumerate() {
            let input = self.input(
                name,
                raw,
                &clause_ids,
                &table_index,
                &built_tables,
                &limits,
                0,
            );
            if let Some(w) = &raw.when {
                conditions.push((i, self.parse(w)));
            }
            built_inputs.push(input);
        }

        // Names.
        let mut names: HashMap<Arc<str>, Binding> = HashMap::new();
        let mut declare = |cx: &mut Self, name: &str, binding: Binding, span: Span| {
            if names.contains_key(name) {
                let message = format!("`{name}` is declared twice (inputs, parameters, tables and steps share one namespace)");
                cx.problem("check::duplicate_name", span, message, "second declaration");
            } else {
                names.insert(Arc::from(name), binding);
            }
        };
        for (i, (name, raw)) in inputs.iter().enumerate() {
            self.check_ident(name, sp(raw));
            declare(
                self,
                name,
                Binding::Input(i, built_inputs[i].kind.value_type()),
                sp(raw),
            );
        }
        for (i, (name, raw)) in tables.iter().enumerate() {
            self.check_ident(name, sp(raw));
            declare(self, name, Binding::Table(i), sp(raw));
        }
        for (i, (name, raw)) in parameters.iter().enumerate() {
            self.check_ident(name, sp(raw));
            declare(self, name, Binding::Param(i, Type::Number), sp(raw));
        }
        for (i, (name, raw)) in steps.iter().enumerate() {
            self.check_ident(name, sp(raw));
            declare(self, name, Binding::Step(i), sp(raw));
        }

        // Parameters (fixed values now, dated selectors after steps are typed).
        let mut built_params = Vec::new();
        let mut param_at: Vec<Option<Pending>> = Vec::new();
        for (name, raw) in &parameters {
            let (param, at) = self.parameter(name, raw, &clause_ids);
            built_params.push(param);
            param_at.push(at);
        }

        // Steps: parse, order by dependency, then compile in that order.
        let parsed_steps: Vec<[Option<Pending>; 3]> = steps
            .values()
            .map(|s| {
                [
                    Some(self.parse(&s.expr)),
                    s.when.as_ref().map(|w| self.parse(w)),
                    s.otherwise.as_ref().map(|o| self.parse(o)),
                ]
            })
            .collect();
        let order = self.step_order(&steps, &parsed_steps, &param_at, &parameters, &names);
        let mut step_types = vec![Type::Any; steps.len()];
        let mut compiled: Vec<Option<CompiledStep>> = vec![None; steps.len()];
        for i in order {
            let scope = Scope {
                names: &names,
                shapes: &self.shapes.clone(),
                tables: &built_tables,
                step_types: &step_types,
                answer_builtins: false,
                inputs_before: None,
            };
            let [expr, when, otherwise] = &parsed_steps[i];
            let expr = expr
                .as_ref()
                .and_then(|p| self.compile(p, &scope).map(|c| (p, c)));
            let when = when.as_ref().and_then(|p| {
                let (f, ty) = self.compile(p, &scope)?;
                self.expect_type(p, &ty, &Type::Bool, "a step's `when`");
                Some(f)
            });
            let otherwise = otherwise
                .as_ref()
                .and_then(|p| self.compile(p, &scope).map(|c| (p, c)));
            if let Some((p, (f, ty))) = expr {
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
                let rounds = steps[i].round.is_some();
                if rounds && !Type::Number.accepts(&ty) {
                    self.problem(
                        "check::rounding",
                        p.span,
                        "only a number can be rounded",
                        "not a number",
                    );
                }
                step_types[i] = ty;
                compiled[i] = Some((f, when, otherwise));
            }
        }
        let mut built_steps = Vec::new();
        for (i, ((name, raw), c)) in steps.iter().zip(compiled).enumerate() {
            let s = raw;
            let clauses = self.clause_refs(&s.clauses, &clause_ids);
            let round = s.round.as_ref().and_then(|r| self.round(r));
            if let Some((expr, when, otherwise)) = c {
                built_steps.push(Step {
                    name: Arc::from(name.as_str()),
                    label: s.label.clone(),
                    clauses,
                    expr,
                    when,
                    otherwise,
                    round,
                    ty: step_types[i].clone(),
                });
            }
        }

        let shapes = self.shapes.clone();
        let base_scope = |answers: bool, before: Option<usize>| Scope {
            names: &names,
            shapes: &shapes,
            tables: &built_tables,
            step_types: &step_types,
            answer_builtins: answers,
            inputs_before: before,
        };

        // Dated parameters' selectors.
        for (param, at) in built_params.iter_mut().zip(param_at) {
            if let (Some(at), ParamValue::Dated { at: slot, .. }) = (at, &mut param.value) {
                if let Some((f, ty)) = self.compile(&at, &base_scope(false, None)) {
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

        // Conditional inputs read only earlier inputs.
        for (i, p) in conditions {
            if let Some((f, ty)) = self.compile(&p, &base_scope(false, Some(i))) {
                self.expect_type(&p, &ty, &Type::Bool, "an input's `when`");
                built_inputs[i].when = Some(f);
            }
        }

        // Decisions.
        let decision_index: HashMap<&str, usize> = decisions
            .keys()
            .enumerate()
            .map(|(i, k)| (k.as_str(), i))
            .collect();
        let mut built_decisions = Vec::new();
        for (name, raw) in &decisions {
            let d = raw;
            let clauses = self.clause_refs(&d.clauses, &clause_ids);
            let mut cite = Vec::new();
            for c in &d.cite {
                let p = self.parse(&c.when);
                if let Some((f, ty)) = self.compile(&p, &base_scope(false, None)) {
                    self.expect_type(&p, &ty, &Type::Bool, "a citation's `when`");
                    cite.push((f, self.clause_refs(&c.clauses, &clause_ids)));
                }
            }
            if d.answer.is_empty() {
                self.problem(
                    "check::empty_answer",
                    sp(raw),
                    format!("decision `{name}` has no answer fields"),
                    "here",
                );
            }
            let mut answer = Vec::new();
            for (key, out) in &d.answer {
                let o = out;
                let p = self.parse(&o.expr);
                if let Some((f, ty)) = self.compile(&p, &base_scope(true, None)) {
                    let format = self.format(o.format.as_ref(), &ty, &p);
                    answer.push(Output {
                        key: Arc::from(key.as_str()),
                        expr: f,
                        format,
                    });
                }
            }
            built_decisions.push(Decision {
                name: Arc::from(name.as_str()),
                label: d.label.clone(),
                clauses,
                cite,
                answer,
            });
        }

        // Checks.
        let mut built_checks = Vec::new();
        let n_checks = checks.len();
        for (i, raw) in checks.iter().enumerate() {
            let c = raw.get_ref();
            let when = match &c.when {
                Some(w) => {
                    let p = self.parse(w);
                    self.compile(&p, &base_scope(false, None)).map(|(f, ty)| {
                        self.expect_type(&p, &ty, &Type::Bool, "a check's `when`");
                        f
                    })
                }
                None => {
                    if i + 1 != n_checks {
                        self.problem(
                            "check::unconditional_check",
                            sp(raw),
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
                            sp(raw),
                            "`message` goes with `reject`, not with `decision`",
                            "here",
                        );
                    }
                    CheckOutcome::Decide {
                        decision,
                        reason: c.reason.as_deref().map(Arc::from),
                        clauses: self.clause_refs(&c.clauses, &clause_ids),
                    }
                }
                (None, Some(path)) => {
                    if c.reason.is_some() {
                        self.problem(
                            "check::check_shape",
                            sp(raw),
                            "`reason` goes with `decision`, not with `reject`",
                            "here",
                        );
                    }
                    let message = match &c.message {
                        Some(m) => self.message(m, &base_scope(false, None)),
                        None => vec![MessagePart::Text("is invalid".into())],
                    };
                    let _ = self.clause_refs(&c.clauses, &clause_ids);
                    CheckOutcome::Reject {
                        path: Arc::from(path.get_ref().as_str()),
                        message,
                    }
                }
                _ => {
                    self.problem(
                        "check::check_shape",
                        sp(raw),
                        "a check needs exactly one of `decision` and `reject`",
                        "this check",
                    );
                    continue;
                }
            };
            built_checks.push(Check {
                label: c.label.clone(),
                when,
                outcome,
            });
        }
        match checks.last() {
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

        Some(Rulebook {
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
            checks: built_checks,
            decisions: built_decisions,
            limits,
        })
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
            "if", "then", "else", "and", "or", "not", "true", "false", "decision", "reason",
            "clauses",
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

    #[allow(clippy::too_many_arguments)]
    fn input(
        &mut self,
        name: &str,
        raw: &RawInput,
        clause_ids: &[Arc<str>],
        tables: &HashMap<&str, usize>,
        built_tables: &[Table],
        limits: &Limits,
        depth: usize,
    ) -> Input {
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
                let parse = |cx: &mut Self, s: &Option<Spanned<String>>| {
                    s.as_ref().and_then(|v| {
                        let d = chrono::NaiveDate::parse_from_str(v.get_ref(), "%Y-%m-%d").ok();
                        if d.is_none() {
                            cx.problem(
                                "check::bad_value",
                                sp(v),
                                "expected a date YYYY-MM-DD",
                                "here",
                            );
                        }
                        d
                    })
                };
                InputKind::Date {
                    min: parse(self, &r.min),
                    max: parse(self, &r.max),
                }
            }
            "month" => {
                allowed.extend(["min", "max"]);
                let parse = |cx: &mut Self, s: &Option<Spanned<String>>| {
                    s.as_ref().and_then(|v| {
                        let m = Month::parse(v.get_ref());
                        if m.is_none() {
                            cx.problem(
                                "check::bad_value",
                                sp(v),
                                "expected a month YYYY-MM",
                                "here",
                            );
                        }
                        m
                    })
                };
                InputKind::Month {
                    min: parse(self, &r.min),
                    max: parse(self, &r.max),
                }
            }
            "record" if depth < 8 => {
                allowed.push("fields");
                let mut fields = Vec::new();
                for (fname, f) in r.fields.iter().flatten() {
                    self.check_ident(fname, sp(f));
                    fields.push(self.input(
                        fname,
                        f,
                        clause_ids,
                        tables,
                        built_tables,
                        limits,
                        depth + 1,
                    ));
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
            "list" if depth < 8 => {
                allowed.extend(["items", "max_items"]);
                let item = match &r.items {
                    Some(item) => self.input(
                        "item",
                        item,
                        clause_ids,
                        tables,
                        built_tables,
                        limits,
                        depth + 1,
                    ),
                    None => {
                        self.problem("check::bad_input", span, "a list needs `items`", "here");
                        Input {
                            name: Arc::from("item"),
                            label: None,
                            clause: None,
                            required: false,
                            when: None,
                            nullable: false,
                            default: None,
                            kind: InputKind::Bool,
                        }
                    }
                };
                InputKind::List {
                    item: Box::new(item),
                    max_items: r
                        .max_items
                        .unwrap_or(limits.max_list_items)
                        .min(limits.max_list_items),
                }
            }
            "table" if depth == 0 => {
                allowed.push("table");
                let table = match &r.table {
                    Some(t) => match tables.get(t.get_ref().as_str()) {
                        Some(i) if built_tables[*i].kind == TableKind::Periods => *i,
                        Some(_) => {
                            self.problem(
                                "check::bad_input",
                                sp(t),
                                "only period tables can be replaced by a case (for now)",
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
                let help = "types are money, decimal, integer, bool, text, enum, date, month, record, list, table (top level only); records and lists nest at most 8 deep";
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
        let given_len = [("max_length", r.max_length.is_some())];
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
            name: Arc::from(name),
            label: r.label.clone(),
            clause,
            required: r.required,
            when: None,
            nullable: r.nullable,
            default: None,
            kind,
        };
        if r.required && r.default.is_some() {
            self.problem(
                "check::bad_input",
                span,
                "a required input cannot have a default",
                "here",
            );
        }
        if depth > 0 && r.when.is_some() {
            self.problem(
                "check::bad_input",
                span,
                "`when` applies to top-level inputs only",
                "here",
            );
        }
        if let Some(d) = &r.default {
            let json = serde_json::Value::String(d.get_ref().clone());
            match validate_value(&input, Some(&json), name) {
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
        if kind_name == "scale" {
            if !t.columns.is_empty() {
                self.problem(
                    "check::bad_table",
                    sp(raw),
                    "a scale has the fixed columns `upto` and `rate`",
                    "remove `columns`",
                );
            }
            for (col, decl) in [("upto", "money"), ("rate", "decimal")] {
                let spec = NumberSpec {
                    places: None,
                    rescale: None,
                    min: Some(Decimal::ZERO),
                    max: None,
                    numbers: JsonNumbers::Reject,
                };
                let kind = if decl == "money" {
                    InputKind::Money(spec)
                } else {
                    InputKind::Decimal(spec)
                };
                columns.push(Input {
                    name: Arc::from(col),
                    label: None,
                    clause: None,
                    required: col == "rate",
                    when: None,
                    nullable: false,
                    default: None,
                    kind,
                });
            }
        } else {
            for (cname, c) in &t.columns {
                self.check_ident(cname, sp(c));
                let input = self.input(cname, c, clause_ids, &HashMap::new(), &[], limits, 1);
                if matches!(
                    input.kind,
                    InputKind::Record { .. } | InputKind::List { .. } | InputKind::Table { .. }
                ) {
                    self.problem(
                        "check::bad_table",
                        sp(c),
                        "table cells are numbers, texts, booleans, dates or months",
                        "here",
                    );
                }
                columns.push(Input {
                    required: true,
                    ..input
                });
            }
        }
        let kind = match kind_name {
            "periods" => TableKind::Periods,
            "scale" => TableKind::Scale,
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
                    format!("unknown table kind `{other}`; kinds are periods, keyed, scale"),
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
                match validate_value(col, cell.as_ref(), &path) {
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
            if kind == TableKind::Scale
                && ri + 1 < t.rows.len()
                && values.first().is_some_and(Value::is_missing)
            {
                self.problem(
                    "check::bad_table",
                    span,
                    "only the last band of a scale may omit `upto`",
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
            TableKind::Scale => {
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
        let from = from.and_then(|v| v.as_str());
        let to = to.and_then(|v| v.as_str());
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

    /// Orders steps so each comes after the steps it reads; reports cycles by their members.
    fn step_order(
        &mut self,
        steps: &IndexMap<String, RawStep>,
        parsed: &[[Option<Pending>; 3]],
        param_at: &[Option<Pending>],
        parameters: &IndexMap<String, RawParameter>,
        names: &HashMap<Arc<str>, Binding>,
    ) -> Vec<usize> {
        // Parameters' selectors may read steps: a step reading such a parameter depends on them too.
        let param_deps: Vec<Vec<usize>> = param_at
            .iter()
            .map(|p| {
                let mut out = Vec::new();
                if let Some(ast) = p.as_ref().and_then(|p| p.ast.as_ref()) {
                    collect_refs(ast, names, &[], &mut out);
                }
                out
            })
            .collect();
        let deps: Vec<Vec<usize>> = parsed
            .iter()
            .map(|exprs| {
                let mut out = Vec::new();
                for ast in exprs.iter().flatten().filter_map(|p| p.ast.as_ref()) {
                    collect_refs(ast, names, &param_deps, &mut out);
                }
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        let _ = parameters;
        // Iterative depth-first search; colour 0 = new, 1 = on the path, 2 = done.
        let n = deps.len();
        let mut colour = vec![0u8; n];
        let mut order = Vec::with_capacity(n);
        let names_of: Vec<&String> = steps.keys().collect();
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
                                    members.iter().map(|m| names_of[*m].as_str()).collect();
                                cycle.push(names_of[dep].as_str());
                                let message = format!(
                                    "steps depend on each other in a cycle: {}",
                                    cycle.join(" → ")
                                );
                                let span = sp(&steps[dep]);
                                self.diags.push(
                                    Problem::new("check::cycle", message)
                                        .at(span, "this step is part of the cycle"),
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
            if let Some((f, _)) = self.compile(&pending, scope) {
                parts.push(MessagePart::Value(f));
            }
            at += open + close + 1;
            rest = &rest[open + close + 1..];
        }
        parts.push(MessagePart::Text(rest.to_string()));
        parts
    }
}

/// Steps an expression reads, directly or through a dated parameter's selector.
fn collect_refs(
    e: &Expr,
    names: &HashMap<Arc<str>, Binding>,
    param_deps: &[Vec<usize>],
    out: &mut Vec<usize>,
) {
    match &e.kind {
        ExprKind::Name(id) => match names.get(&id.name) {
            Some(Binding::Step(i)) => out.push(*i),
            Some(Binding::Param(i, _)) => {
                out.extend(param_deps.get(*i).into_iter().flatten().copied())
            }
            _ => {}
        },
        ExprKind::Number(_) | ExprKind::Text(_) | ExprKind::Bool(_) => {}
        ExprKind::Field(b, _) | ExprKind::Unary(_, b) => collect_refs(b, names, param_deps, out),
        ExprKind::Binary(_, a, b) => {
            collect_refs(a, names, param_deps, out);
            collect_refs(b, names, param_deps, out);
        }
        ExprKind::If(c, a, b) => {
            for x in [c, a, b] {
                collect_refs(x, names, param_deps, out);
            }
        }
        ExprKind::Call(_, args) => {
            for a in args {
                collect_refs(a, names, param_deps, out);
            }
        }
    }
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

fn toml_to_json(v: &toml::Value) -> Result<serde_json::Value, String> {
    Ok(match v {
        toml::Value::String(s) => serde_json::Value::String(s.clone()),
        toml::Value::Integer(i) => serde_json::Value::Number((*i).into()),
        toml::Value::Boolean(b) => serde_json::Value::Bool(*b),
        toml::Value::Float(_) => {
            return Err("write decimals as strings (\"0.05\"): TOML floats are not exact".into())
        }
        toml::Value::Datetime(d) => serde_json::Value::String(d.to_string()),
        toml::Value::Array(_) | toml::Value::Table(_) => {
            return Err("a cell holds one value".into())
        }
    })
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
        Type::Table(_) => "a table",
        Type::Mode => "a rounding mode",
        Type::Clauses => "a clause list",
        Type::Any => "any value",
    }
}
