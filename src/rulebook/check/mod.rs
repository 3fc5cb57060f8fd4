//! Static checks: from the serde mirror to a checked, resolved [`Rulebook`].
//!
//! Every problem found is reported, each located in the TOML file down to the
//! name inside an expression string. A rulebook with any problem is refused.
//!
//! [`Checker::rulebook`] checks the sections of a rulebook in turn, each in
//! its own file: identity and names, tables, inputs, parameters, steps,
//! input rules, decisions and checks, outputs and reports, ablations. The
//! order of its calls is the order of the problems reported. This file holds
//! what the sections share: parsing and resolving a formula where it stands
//! in the file, messages with `{expr}` parts, identifiers, clause references,
//! record shapes, headers, and the order of a dependency graph; periods and
//! their overlaps are in `periods.rs`.
//!
//! Invariant: no IO; no evaluation of case data (defaults and table cells are
//! validated with the same code that validates cases).
//! Invariant: no section file imports another; what two sections share is
//! here or in `periods.rs`.

mod ablations;
mod decisions;
mod identity;
pub use identity::is_rulebook_id;
mod input_rules;
mod inputs;
mod outputs;
mod parameters;
mod pattern;
mod periods;
mod steps;
mod tables;

use indexmap::IndexMap;
use rust_decimal::Decimal;
use std::collections::HashMap;
use std::sync::Arc;
use toml::Spanned;

use super::raw::*;
use super::resolve::{
    resolve_with_locals, suggest_within, Binding, ExprProblem, GroupScope, Scope, SUGGEST_WORK,
};
use crate::diag::{Diagnostics, Problem};
use crate::expr::{parse_expr, Expr, ExprKind};
use crate::model::*;
use crate::span::Span;

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
        suggest_work: SUGGEST_WORK,
        nodes_left: Some(MAX_FORMULA_NODES),
    };
    // INVARIANT: every section runs whatever the others found, so a
    // rulebook's problems are reported all at once.
    let declared = super::usage::Declarations::of(&raw);
    let built = cx.rulebook(raw, hash);
    match built {
        Some(mut rb) if diags.is_empty() => match super::depth::too_deep(&rb) {
            Some(problem) => {
                diags.push(problem);
                Err(diags)
            }
            None => {
                let mut warnings = super::usage::unused(&mut rb, &declared);
                warnings.extend(super::constant::failing_constants(&mut rb));
                // Placed now, while the chain's parts are known: a span
                // indexes the files one after the other.
                rb.warnings = warnings.into_iter().map(|w| diags.place(w)).collect();
                super::prepare(&mut rb);
                Ok(rb)
            }
        },
        _ => Err(diags),
    }
}

/// The state of a check: each section is an `impl Checker` block in its file.
struct Checker<'d> {
    /// The file's text, to locate a name inside an expression string.
    text: Arc<str>,
    /// The problems found so far.
    diags: &'d mut Diagnostics,
    /// Record layouts declared so far (records, table rows, group items).
    shapes: Vec<Shape>,
    /// What is left for "did you mean" searches, over the whole rulebook.
    suggest_work: usize,
    /// Formula nodes the rulebook may still hold ([`MAX_FORMULA_NODES`]);
    /// `None` once it is spent, and reported.
    nodes_left: Option<usize>,
}

/// How many nodes a rulebook's formulas may hold in all (every expression
/// string: steps, conditions, answers, reports, messages, ablations). A
/// node costs about 250 bytes once parsed, resolved and lowered, and one
/// expression's 4,096 bytes hold up to about 4,000 of them: without a
/// bound, a 16 MiB rulebook of long sums took 3.9 GB and 21 s to load.
/// paie-fr holds 634, succession-fr 668; past the bound, the formulas
/// after the one that crosses it are not read, and the rulebook is refused
/// (`check::too_large`).
pub const MAX_FORMULA_NODES: usize = 500_000;

/// An expression parsed but not yet resolved, with where it sits in the file.
struct Pending {
    text: Arc<str>,
    ast: Option<Expr>,
    offset: Option<usize>,
    span: Span,
}

/// Whether `name` can be declared: an identifier, and no keyword.
fn is_ident(name: &str) -> bool {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let reserved = [
        "if", "then", "else", "and", "or", "not", "true", "false", "for", "in", "match", "let",
        "decision", "reason", "clauses",
    ];
    ok && !reserved.contains(&name)
}

/// Where an item of the file is, for a problem about it.
fn sp(item: &impl Anchor) -> Span {
    item.anchor()
}

impl Checker<'_> {
    /// Checks each section of the rulebook in turn. The order of the calls is
    /// the order of the problems reported, and each section reads only what
    /// the sections before it built.
    fn rulebook(&mut self, raw: RawRulebook, hash: String) -> Option<Rulebook> {
        let RawRulebook {
            rulebook: ident,
            case,
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
        let clauses: IndexMap<Arc<str>, String> = clauses
            .into_iter()
            .map(|(k, v)| (Arc::from(k), v))
            .collect();
        let clause_ids: Vec<Arc<str>> = clauses.keys().cloned().collect();
        let limits = self.limits(&limits);

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

        // What the case may hold besides its inputs (`[case]`).
        let input_names: Vec<&str> = built_inputs.iter().map(|i| &*i.name).collect();
        let case_extra = self.extra_keys(&case.extra_keys, &input_names, "input");
        self.envelope_not_ignored(&case.extra_keys);

        Some(Rulebook {
            ablations: built_ablations,
            applied_ablations: Vec::new(),
            reports: built_reports,
            id: ident.id.get_ref().clone(),
            version: *ident.version.get_ref(),
            schema: *ident.schema.get_ref(),
            title: ident.title.as_ref().map(|t| t.get_ref().clone()),
            reference: format!(
                "{}@{}#{}",
                ident.id.get_ref(),
                ident.version.get_ref(),
                hash.get(..12).unwrap_or(&hash)
            ),
            hash,
            source: self.diags.source.clone(),
            files: Vec::new(),
            clauses,
            inputs: built_inputs,
            extra_keys: case_extra,
            shapes: self.shapes.clone(),
            params: built_params,
            tables: built_tables,
            steps: built_steps,
            groups: built_groups,
            checks: built_checks,
            decisions: built_decisions,
            limits,
            warnings: Vec::new(),
        })
    }
}

/// Formulas and messages, parsed and resolved where they stand in the file.
impl Checker<'_> {
    /// Reports a problem at one place.
    /// A `reject` path must name something (`$` is the whole case).
    fn require_reject_path(&mut self, path: &Spanned<String>) {
        if path.get_ref().trim().is_empty() {
            self.problem(
                "check::check_shape",
                sp(path),
                "`reject` needs the path of what it rejects (`$` for the whole case)",
                "an empty path",
            );
        }
    }

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

    /// Parses an expression string; a syntax error is reported where it is.
    fn parse(&mut self, s: &Spanned<String>) -> Pending {
        let offset = self.content_offset(s);
        let span = sp(s);
        let text: Arc<str> = Arc::from(s.get_ref().as_str());
        let ast = self.parse_text(&text, offset, span);
        Pending {
            text,
            ast,
            offset,
            span,
        }
    }

    /// Parses one expression's text (at `offset` in the file when known,
    /// else somewhere in `whole`), its nodes spent from the rulebook's
    /// [`MAX_FORMULA_NODES`]; a syntax error is reported where it is, and
    /// the bound where it is crossed. Once the bound is crossed nothing
    /// more is parsed: the rulebook is refused already.
    fn parse_text(&mut self, text: &str, offset: Option<usize>, whole: Span) -> Option<Expr> {
        let left = self.nodes_left?;
        match parse_expr(text) {
            Ok(ast) => {
                let size = ast.size();
                match left.checked_sub(size) {
                    Some(rest) => {
                        self.nodes_left = Some(rest);
                        Some(ast)
                    }
                    None => {
                        self.nodes_left = None;
                        let at = self.locate(offset, whole, Span::new(0, text.len()));
                        let message = format!(
                            "the rulebook's formulas hold more than {MAX_FORMULA_NODES} nodes in all"
                        );
                        self.diags.push(
                            Problem::new("check::too_large", message)
                                .at(at, "this formula passes the bound")
                                .help("the formulas after it are not read; split the rule set, or write it with fewer, shorter formulas (a table, a scale)"),
                        );
                        None
                    }
                }
            }
            Err(e) => {
                let at = self.locate(offset, whole, e.span);
                self.diags.push(
                    Problem::new("check::syntax", format!("syntax error: {}", e.message))
                        .at(at, "here"),
                );
                None
            }
        }
    }

    /// Where `[section.name]` is declared, for a problem about a table that
    /// holds nothing with a span of its own (`[decisions.pay]` with `answer =
    /// {}`): its first header `[section.name…]`, else the `name` key under
    /// `[section]`, else `[section]`, else the file's start.
    fn header(&self, section: &str, name: &str) -> Span {
        match self.declaration(section, name) {
            Ok(at) => at,
            Err(section_at) => section_at.unwrap_or_default(),
        }
    }

    /// Where `name` is declared in the named file: its header
    /// `[section.name…]` or its key under `[section]`; `None` when this file
    /// does not declare it (a rulebook it extends does).
    fn declared_at(&self, section: &str, name: &str) -> Option<Span> {
        self.declaration(section, name).ok()
    }

    /// `[section.name…]` or the `name` key under `[section]`, else (as the
    /// error) where `[section]` starts, if it does.
    fn declaration(&self, section: &str, name: &str) -> Result<Span, Option<Span>> {
        // The dotted key of a header or a key line, segments unquoted.
        let segments = |key: &str| -> Vec<String> {
            key.split('.')
                .map(|k| k.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
                .collect()
        };
        let (mut in_section, mut section_at) = (false, None);
        let mut at = 0;
        for line in self.text.split_inclusive('\n') {
            let start = at;
            at += line.len();
            let body = line.trim_start();
            let indent = start + line.len() - body.len();
            if let Some(inner) = body.strip_prefix('[') {
                // The header up to its closing brackets, comment left out.
                let close = body.find(']').unwrap_or(0);
                let rest = body.get(close..).unwrap_or("");
                let end = close + rest.len() - rest.trim_start_matches(']').len();
                let whole = Span::new(indent, indent + end);
                let key = inner
                    .split(']')
                    .next()
                    .unwrap_or("")
                    .trim_start_matches('[');
                let key = segments(key);
                in_section = key.len() == 1 && key.first().is_some_and(|k| k == section);
                if in_section && section_at.is_none() {
                    section_at = Some(whole);
                }
                if key.len() >= 2
                    && key.first().is_some_and(|k| k == section)
                    && key.get(1).is_some_and(|k| k == name)
                {
                    return Ok(whole);
                }
            } else if in_section {
                let key = body.split('=').next().unwrap_or("").trim_end();
                if segments(key).first().is_some_and(|k| k == name) {
                    return Ok(Span::new(indent, indent + key.len()));
                }
            }
        }
        Err(section_at)
    }

    /// A span inside an expression, in the file when the string has no escapes, else the whole string.
    fn locate(&self, offset: Option<usize>, whole: Span, inner: Span) -> Span {
        match offset {
            Some(o) => inner.shifted(o),
            None => whole,
        }
    }

    /// Resolves a parsed expression's names in a scope and types it.
    fn resolve(&mut self, p: &Pending, scope: &Scope<'_>) -> Option<(Formula, Type)> {
        self.resolve_locals(p, scope, Vec::new())
    }

    /// Resolves with `locals` bound (a field rule's `value` and `item`).
    fn resolve_locals(
        &mut self,
        p: &Pending,
        scope: &Scope<'_>,
        locals: Vec<(Arc<str>, Type)>,
    ) -> Option<(Formula, Type)> {
        let ast = p.ast.as_ref()?;
        let mut problems: Vec<ExprProblem> = Vec::new();
        let (node, ty) =
            resolve_with_locals(ast, scope, locals, &mut problems, &mut self.suggest_work);
        for e in problems {
            let at = self.locate(p.offset, p.span, e.span);
            let mut problem = Problem::new(e.code, e.message).at(at, "here");
            if let Some(h) = e.help {
                problem = problem.help(h);
            }
            self.diags.push(problem);
        }
        Some((super::lower::formula(p.text.clone(), node, p.offset), ty))
    }

    /// Refuses a rounding (`round`, `floor`, `ceil`, `scale_by`'s limits)
    /// in a formula whose roundings no trace records: only a step's are,
    /// and every rounding that changes an answer is to be in its receipt.
    /// `what` names the place (`a check's \`when\``).
    fn unrecorded_rounding(&mut self, p: &Pending, what: &str) {
        const ROUNDING: [&str; 4] = ["round", "floor", "ceil", "scale_by"];
        let Some(ast) = &p.ast else { return };
        let mut stack = vec![ast];
        while let Some(e) = stack.pop() {
            if let ExprKind::Call(f, _) = &e.kind {
                if ROUNDING.contains(&&*f.name) {
                    let at = self.locate(p.offset, p.span, e.span);
                    let message = format!(
                        "`{}` rounds in {what}, where no trace records a rounding: only a step's roundings are recorded",
                        f.name
                    );
                    self.diags.push(
                        Problem::new("check::unrecorded_rounding", message)
                            .at(at, "this rounding")
                            .help("compute the rounded value in a step and read the step here"),
                    );
                    return;
                }
            }
            stack.extend(e.children());
        }
    }

    /// Reports `what` when its type is not the one wanted.
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

    /// A text with `{expr}` parts, each resolved in `scope`.
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
            let inner_at = offset.map(|o| o + at + open + 1);
            let pending = Pending {
                text: Arc::from(inner),
                ast: self.parse_text(inner, inner_at, sp(m)),
                offset: inner_at,
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

/// Names, clauses, shapes, periods and orders that several sections check.
impl Checker<'_> {
    /// A declared name must be an identifier, and no keyword.
    fn check_ident(&mut self, name: &str, span: Span) {
        if !is_ident(name) {
            let message = format!(
                "`{name}` cannot be used as a name: use ASCII letters, digits and `_`, not a keyword"
            );
            self.problem("check::bad_name", span, message, "here");
        }
    }

    /// Clause ids, each one declared under `[clauses]` and listed once: a
    /// list is what a step, a decision or a citation applies, and a trace,
    /// a page and a receipt would cite a clause listed twice twice.
    fn clause_refs(&mut self, refs: &[Spanned<String>], known: &[Arc<str>]) -> Vec<Arc<str>> {
        let mut seen = std::collections::HashSet::new();
        for r in refs {
            if !seen.insert(r.get_ref().as_str()) {
                let message = format!("clause `{}` is listed twice", r.get_ref());
                self.problem(
                    "check::duplicate_clause",
                    sp(r),
                    message,
                    "listed again here",
                );
            }
        }
        refs.iter().map(|r| self.clause_ref(r, known)).collect()
    }

    /// A clause id; an unknown one is reported, with the nearest known one.
    fn clause_ref(&mut self, r: &Spanned<String>, known: &[Arc<str>]) -> Arc<str> {
        let name = r.get_ref().as_str();
        match known.iter().find(|k| &***k == name) {
            Some(k) => k.clone(),
            None => {
                let mut p =
                    Problem::new("check::unknown_clause", format!("unknown clause `{name}`"))
                        .at(sp(r), "not declared under [clauses]");
                if let Some(s) =
                    suggest_within(&mut self.suggest_work, name, known.iter().map(|k| &**k))
                {
                    p = p.help(format!("did you mean `{s}`?"));
                }
                self.diags.push(p);
                Arc::from(name)
            }
        }
    }

    /// Declares a record layout; its id is its place in the rulebook's shapes.
    fn shape(&mut self, name: String, fields: Vec<(Arc<str>, Type)>) -> ShapeId {
        self.shapes.push(Shape {
            name: Arc::from(name),
            fields,
        });
        self.shapes.len() - 1
    }

    /// `[case] extra_keys` may not name `case`: a case holding only that
    /// key is read as the envelope around a case, so the key the schema
    /// said was ignored would become the case (the same reason no input
    /// may be named `case`).
    fn envelope_not_ignored(&mut self, raw: &Option<Spanned<RawExtraKeys>>) {
        let Some(RawExtraKeys::Keys(keys)) = raw.as_ref().map(Spanned::get_ref) else {
            return;
        };
        for key in keys.iter().filter(|k| k.get_ref() == "case") {
            let message = "`case` cannot be ignored: `{\"case\": …}` is the envelope around a case";
            self.problem("check::bad_name", sp(key), message, "here");
        }
    }

    /// Orders nodes so each comes after the nodes it reads; reports each
    /// cycle once, by its members, at the formula where the last member
    /// reads the first (`reads_at(node, dep)`), else at that member.
    fn topo_order(
        &mut self,
        deps: &[Vec<usize>],
        names: &[String],
        spans: &[Span],
        reads_at: &dyn Fn(usize, usize) -> Option<Span>,
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
                if let Some(&dep) = deps.get(node).and_then(|d| d.get(*next)) {
                    *next += 1;
                    // INVARIANT: callers number nodes below `deps.len()`; a
                    // node past it is no node of this graph, and is skipped.
                    let Some(&seen) = colour.get(dep) else {
                        continue;
                    };
                    match seen {
                        0 => {
                            colour[dep] = 1;
                            stack.push((dep, 0));
                        }
                        1 => {
                            let start = stack.iter().position(|(s, _)| *s == dep).unwrap_or(0);
                            let members: Vec<usize> =
                                stack[start..].iter().map(|(s, _)| *s).collect();
                            let name = |m: usize| names.get(m).map_or("?", String::as_str);
                            if !members.iter().any(|m| reported[*m]) {
                                for m in &members {
                                    reported[*m] = true;
                                }
                                let mut cycle: Vec<&str> =
                                    members.iter().map(|m| name(*m)).collect();
                                cycle.push(name(dep));
                                let message = format!(
                                    "{what} depend on each other in a cycle: {}",
                                    cycle.join(" → ")
                                );
                                let at = reads_at(node, dep)
                                    .or_else(|| spans.get(dep).copied())
                                    .unwrap_or_default();
                                self.diags.push(
                                    Problem::new("check::cycle", message)
                                        .at(at, "part of the cycle"),
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

/// An input's `when` or `required_when`, parsed while the inputs are
/// declared and resolved once every name has a type.
struct Condition {
    input: usize,
    expr: Pending,
    /// `required_when` rather than `when`.
    required: bool,
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

    /// The top-level scope, no group, no answer built-ins.
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

/// Each name's position among the declarations of its section.
fn index_of<V>(declarations: &IndexMap<String, V>) -> HashMap<&str, usize> {
    declarations
        .keys()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect()
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
    Decimal::from_str_exact(text).ok()
}

/// A type as a message names it.
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
        Type::Clauses => "a clause list",
        Type::Any => "any value",
    }
}
