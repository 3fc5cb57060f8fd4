//! Prompts, rendered with minijinja from the rulebook's own clause texts,
//! parameters and tables (a rate changed in the rulebook changes the
//! prompt), the case, and the answer format the rubric states.
//!
//! Templates see `rulebook` (id, version, title, `clauses`, `parameters`,
//! `tables`, whose map cells are objects), `case` (and `case_json`, its
//! exact JSON text), `level`, `tier`, `branch`, and in the task template
//! the rendered `rules` (per level) and `format` (the same for every task).
//! Every template also sees `options` (the prompt's switches for this run)
//! and `examples` (worked examples, answered by the reference here).
//! Filters write amounts as a reader of the prompt's language would:
//! `money` (two places), `amount` (as held), `percent` (a rate × 100).
//!
//! A template is untrusted input: what bounds its instructions, its bytes
//! and what it may reach is `guard`.

mod compile;
mod fold;
mod guard;

use minijinja::machinery::{make_string_output, Vm};
use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value as Jinja};
use rust_decimal::Decimal;
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;

use super::model::{Example, Generator, Language, Prompt};
use crate::model::{ParamValue, Period, Rulebook};
use crate::rulebook::check::parse_plain_decimal;
use crate::value::{decimal_text, Value};

/// Instructions one rendering may execute (the bundled prompts use a few
/// thousand), fewer when the templates' literals are long (`compile::fuel`).
const TEMPLATE_FUEL: u64 = 1_000_000;

/// The three templates of a prompt, by name.
fn templates(prompt: &Prompt) -> [(&'static str, &str); 3] {
    [
        ("format", &prompt.format),
        ("rules", &prompt.rules),
        ("task", &prompt.task),
    ]
}

/// Checks the templates' syntax and the filters and tests they name (at
/// load).
pub(crate) fn compile(prompt: &Prompt) -> Result<(), String> {
    let env = environment(Language::English, TEMPLATE_FUEL);
    for (name, source) in templates(prompt) {
        let compiled =
            compile::compile(name, source).map_err(|e| format!("template `{name}`: {e}"))?;
        if let Some(unknown) = compiled.unknown_name(&env) {
            return Err(format!("template `{name}`: {unknown}"));
        }
    }
    Ok(())
}

/// The environment the templates run in: strict, with its fuel, the guarded
/// operators and filters, and the amount filters.
fn environment(language: Language, fuel: u64) -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    // A template is untrusted input: its loops spend fuel, so none runs unbounded.
    env.set_fuel(Some(fuel));
    guard::install(&mut env);
    guard::counted(&mut env, "money", move |v| {
        Ok(write_amount(
            &decimal_of(&v)?.round_dp(2),
            Some(2),
            language,
        ))
    });
    guard::counted(&mut env, "amount", move |v| {
        Ok(write_amount(&decimal_of(&v)?, None, language))
    });
    guard::counted(&mut env, "percent", move |v| {
        let d = decimal_of(&v)?
            .checked_mul(Decimal::ONE_HUNDRED)
            .ok_or_else(|| {
                minijinja::Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    format!("`{v}` × 100 leaves the decimal range"),
                )
            })?
            .normalize();
        Ok(format!("{} %", write_amount(&d, None, language)))
    });
    env
}

/// Renders template `name` of `source` with `context` in `env`.
fn render(
    env: &Environment<'static>,
    name: &str,
    source: &str,
    context: Jinja,
) -> Result<String, minijinja::Error> {
    run(env, &compile::compile(name, source)?, context).map(|(text, _)| text)
}

/// Runs a compiled template with `context` in `env`, from a fresh count of
/// the bytes it builds: its text, and the work it did in units (each
/// instruction one, each 64 bytes built or walked one), which a task counts
/// over its draws as it counts their evaluations' (`budget`).
fn run(
    env: &Environment<'static>,
    compiled: &compile::Compiled<'_>,
    context: Jinja,
) -> Result<(String, u64), minijinja::Error> {
    guard::start();
    let mut text = String::new();
    let (_, state) = Vm::new(env).eval(
        &compiled.instructions,
        context,
        &compiled.blocks,
        &mut make_string_output(&mut text),
        AutoEscape::None,
    )?;
    let instructions = state.fuel_levels().map_or(0, |(used, _)| used);
    Ok((text, instructions.saturating_add(guard::units())))
}

fn decimal_of(v: &Jinja) -> Result<Decimal, minijinja::Error> {
    let text = v
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string());
    // Plain digits only, as a case's amounts: `1_000`, `+5` and `5.` are
    // not amounts a prompt should quietly reword.
    parse_plain_decimal(text.trim()).ok_or_else(|| {
        // Quoted in part: the text may be megabytes long.
        let shown: String = text.chars().take(40).collect();
        let more = if shown.len() < text.len() { "…" } else { "" };
        minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            format!("`{shown}{more}` is not an amount"),
        )
    })
}

/// An amount as a reader of `language` writes it: `1,234.56` or `1 234,56`
/// (a narrow no-break space between thousands).
pub(crate) fn write_amount(d: &Decimal, places: Option<u32>, language: Language) -> String {
    let mut d = *d;
    if let Some(p) = places {
        d.rescale(p);
    }
    let text = decimal_text(&d);
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let (group, point) = match language {
        Language::English => (",", "."),
        Language::French => ("\u{202f}", ","),
    };
    let mut out = String::from(sign);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push_str(group);
        }
        out.push(c);
    }
    if !fraction.is_empty() {
        out.push_str(point);
        out.push_str(fraction);
    }
    out
}

/// Renders a generator's prompts; what depends only on the rulebook and
/// the level is rendered once.
pub(crate) struct Renderer {
    env: Environment<'static>,
    /// The task template, compiled once.
    task: compile::Compiled<'static>,
    /// The rulebook as a template value, converted once (values share it).
    rulebook: Jinja,
    /// The prompt switches of this run, as a template value.
    options: Jinja,
    /// The worked examples with their reference answers, as a template value.
    examples: Jinja,
    format: String,
    rules: BTreeMap<i64, String>,
}

impl Renderer {
    pub(crate) fn new(generator: &Generator, rb: &Rulebook) -> Result<Renderer, String> {
        let prompt = &generator.prompt;
        let mut longest = 0;
        for (name, source) in templates(prompt) {
            let compiled =
                compile::compile(name, source).map_err(|e| format!("template `{name}`: {e}"))?;
            longest = longest.max(compiled.longest_literal);
        }
        let env = environment(generator.language, compile::fuel(TEMPLATE_FUEL, longest));
        let rulebook = rulebook_context(rb);
        let options: Map<String, Json> = prompt
            .options
            .iter()
            .map(|(name, on)| (name.clone(), Json::Bool(*on)))
            .collect();
        let examples = examples_context(&prompt.examples, rb)?;
        let format = render(
            &env,
            "format",
            &prompt.format,
            jinja(&json!({"rulebook": rulebook, "rubric": generator.rubric,
                "options": options, "examples": examples})),
        )
        .map_err(|e| format!("template `format`: {e:#}"))?;
        let mut rules = BTreeMap::new();
        for level in generator.levels.iter().map(|l| l.number) {
            let text = render(
                &env,
                "rules",
                &prompt.rules,
                jinja(&json!({"rulebook": rulebook, "level": level,
                    "options": options, "examples": examples})),
            )
            .map_err(|e| format!("template `rules` at level {level}: {e:#}"))?;
            rules.insert(level, text);
        }
        Ok(Renderer {
            env,
            task: compile::compile("task", compile::interned(&prompt.task))
                .map_err(|e| format!("template `task`: {e}"))?,
            rulebook: jinja(&rulebook),
            options: jinja(&Json::Object(options)),
            examples: jinja(&Json::Array(examples)),
            format,
            rules,
        })
    }

    /// The answer format every task states alike.
    pub(crate) fn format(&self) -> &str {
        &self.format
    }

    /// One task's prompt.
    pub(crate) fn render(
        &self,
        case: &Json,
        level: i64,
        tier: &str,
        branch: &str,
    ) -> Result<(String, u64), String> {
        let rules = self.rules.get(&level).map_or("", String::as_str);
        let case_json = serde_json::to_string_pretty(case).map_err(|e| e.to_string())?;
        let context = minijinja::context! {
            rulebook => self.rulebook.clone(),
            case => jinja(case),
            case_json => case_json,
            level => level,
            tier => tier,
            branch => branch,
            rules => rules,
            format => self.format.as_str(),
            options => self.options.clone(),
            examples => self.examples.clone(),
        };
        run(&self.env, &self.task, context).map_err(|e| format!("template `task`: {e:#}"))
    }
}

/// The worked examples as templates read them: each one's `name`, `case`,
/// `case_json` (written as a task's record is), the reference's `answer`
/// and `answer_json` (the line `bareme eval` prints), and `reply_json`,
/// the answer with the example's `explanation` added last when it has one
/// (a reply a rubric accepts).
fn examples_context(examples: &[Example], rb: &Rulebook) -> Result<Vec<Json>, String> {
    let mut out = Vec::with_capacity(examples.len());
    for (i, example) in examples.iter().enumerate() {
        let (outcome, _) = crate::evaluation::evaluate_value(rb, &example.case, false)
            .map_err(|e| format!("example {}: the reference gives no answer: {e}", i + 1))?;
        // A refused case has no answer to demonstrate: its error object
        // would be shown as the reply to give.
        if let crate::outcome::Outcome::Rejected(e) = &outcome {
            return Err(format!(
                "example {}: the reference refuses its case: {e}",
                i + 1
            ));
        }
        let answer = crate::outcome::outcome_json(Ok(&outcome));
        let mut reply = answer.clone();
        if let (Some(text), Json::Object(map)) = (&example.explanation, &mut reply) {
            map.insert("explanation".into(), Json::String(text.clone()));
        }
        let written = |v: &Json| serde_json::to_string(v).map_err(|e| e.to_string());
        out.push(json!({
            "name": example.name.as_deref().unwrap_or(""),
            "case": example.case,
            "case_json": serde_json::to_string_pretty(&example.case).map_err(|e| e.to_string())?,
            "answer_json": written(&answer)?,
            "reply_json": written(&reply)?,
            "answer": answer,
            "explanation": example.explanation.as_deref().unwrap_or(""),
        }));
    }
    Ok(out)
}

/// JSON as a template value: numbers as integers when they are, else as
/// their exact text (a template never sees a binary float).
fn jinja(v: &Json) -> Jinja {
    match v {
        Json::Null => Jinja::from(()),
        Json::Bool(b) => Jinja::from(*b),
        Json::Number(n) => n
            .as_i64()
            .map_or_else(|| Jinja::from(n.to_string()), Jinja::from),
        Json::String(s) => Jinja::from(s.as_str()),
        Json::Array(items) => Jinja::from(items.iter().map(jinja).collect::<Vec<_>>()),
        Json::Object(map) => Jinja::from_iter(map.iter().map(|(k, v)| (k.clone(), jinja(v)))),
    }
}

/// What templates read of the rulebook.
fn rulebook_context(rb: &Rulebook) -> Json {
    let clauses: Map<String, Json> = rb
        .clauses
        .iter()
        .map(|(k, v)| (k.to_string(), Json::String(v.clone())))
        .collect();
    let parameters: Map<String, Json> = rb
        .params
        .iter()
        .map(|p| {
            let value = match &p.value {
                ParamValue::Fixed(v) => text(v),
                ParamValue::Dated { periods, .. } => Json::Array(
                    periods
                        .iter()
                        .map(|(period, v)| {
                            let (from, to) = period_text(period);
                            json!({"from": from, "to": to, "value": text(v)})
                        })
                        .collect(),
                ),
            };
            (
                p.name.to_string(),
                json!({"label": p.label, "clause": p.clause.as_deref(), "value": value}),
            )
        })
        .collect();
    let tables: Map<String, Json> = rb
        .tables
        .iter()
        .map(|t| {
            let columns: Vec<Json> = t
                .columns
                .iter()
                .map(|c| json!({"name": &*c.name, "label": c.label}))
                .collect();
            let rows: Vec<Json> = t
                .rows
                .iter()
                .map(|r| {
                    let cells: Map<String, Json> = r
                        .record
                        .names
                        .iter()
                        .zip(r.record.fields.iter())
                        .map(|(n, v)| (n.to_string(), text(v)))
                        .collect();
                    let (from, to) = r.period.as_ref().map(period_text).unwrap_or((None, None));
                    json!({"name": r.name.as_deref(), "from": from, "to": to, "cells": cells})
                })
                .collect();
            (
                t.name.to_string(),
                json!({"label": t.label, "clause": t.clause.as_deref(), "columns": columns, "rows": rows}),
            )
        })
        .collect();
    json!({
        "id": rb.id,
        "version": rb.version,
        "title": rb.title,
        "clauses": clauses,
        "parameters": parameters,
        "tables": tables,
    })
}

fn text(v: &Value) -> Json {
    match v {
        Value::Number(d) => Json::String(decimal_text(d)),
        Value::Absent | Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Text(t) => Json::String(t.to_string()),
        // A map cell (sales-tax's taxability by category) is an object a
        // template can walk with `items`; a list, a list.
        Value::Map(m) => Json::Object(m.iter().map(|(k, v)| (k.to_string(), text(v))).collect()),
        Value::List(items) => Json::Array(items.iter().map(text).collect()),
        other => Json::String(crate::value::plain(other)),
    }
}

fn period_text(p: &Period) -> (Option<String>, Option<String>) {
    match p {
        Period::Months(a, b) => (Some(a.to_string()), b.map(|m| m.to_string())),
        Period::Dates(a, b) => (
            Some(a.format("%Y-%m-%d").to_string()),
            b.map(|d| d.format("%Y-%m-%d").to_string()),
        ),
    }
}
