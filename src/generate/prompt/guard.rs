//! What bounds a template's memory: every byte of text a rendering builds
//! is counted against one budget, [`MAX_TEMPLATE_BYTES`].
//!
//! Fuel bounds the instructions a template runs, not the bytes: `s ~ s` run
//! forty times asks for a terabyte in forty instructions, and `replace` or
//! `join` can square a string in one. So a template is run from our own
//! compiled copy ([`compile`]) in which the operators that build values
//! (`~`, `+`, `*`) call the functions of this module instead, which size
//! the result before building it; the filters that can build more than a
//! few times their input are sized first too, the others are counted after
//! (they are at most a few times the largest value, which the budget
//! already bounds), and the few whose size an argument alone sets
//! (`indent`, `format`, `batch`, `slice`, `pprint`) and `debug` are not
//! offered. Every value written out is counted. Literal text written out
//! is bounded by fuel: each instruction writes at most the longest literal
//! of the templates, so the fuel is cut to keep that product under
//! [`MAX_LITERAL_BYTES`] ([`fuel`]). Templates cannot include, import or
//! extend one another: no template is registered with the environment.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt::{self, Write as _};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use minijinja::machinery::{
    parse, CompiledTemplate, Instruction, Instructions, TemplateConfig, WhitespaceConfig,
};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Rest, Value};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, State};

use super::fold::Bounds;

/// Bytes of text one rendering may build in all: its values, the results of
/// its filters and what it writes out (the bundled prompts are under 10 KB).
pub(crate) const MAX_TEMPLATE_BYTES: usize = 8 << 20;

/// Bytes of literal text one rendering may write: with the longest literal
/// of the templates, sets the fuel ([`fuel`]).
pub(crate) const MAX_LITERAL_BYTES: u64 = 64 << 20;

/// Most items of a list a template builds with `+` or `*`.
const MAX_ITEMS: usize = 1_000_000;

/// Estimated bytes of one item of a list.
const ITEM_BYTES: usize = 16;

/// The names the operators are rewritten to call: not identifiers, so no
/// template can name or shadow them.
const CONCAT: &str = "bareme:~";
const ADD: &str = "bareme:+";
const MUL: &str = "bareme:*";

thread_local! {
    /// Bytes the rendering on this thread has built so far.
    static SPENT: Cell<usize> = const { Cell::new(0) };
}

/// Starts a rendering's count (a rendering runs on one thread).
pub(crate) fn start() {
    SPENT.with(|s| s.set(0));
}

fn too_much() -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!("the template builds more than {MAX_TEMPLATE_BYTES} bytes of text"),
    )
}

/// Counts `bytes` more, or refuses past the budget.
fn spend(bytes: usize) -> Result<(), Error> {
    SPENT.with(|s| {
        let total = s.get().saturating_add(bytes);
        s.set(total);
        if total > MAX_TEMPLATE_BYTES {
            Err(too_much())
        } else {
            Ok(())
        }
    })
}

fn left() -> usize {
    MAX_TEMPLATE_BYTES.saturating_sub(SPENT.with(Cell::get))
}

/// Counts the bytes written to it, failing past `limit` so that a huge
/// value is never written out whole to be measured.
struct Counter {
    bytes: usize,
    limit: usize,
}

impl fmt::Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.bytes = self.bytes.saturating_add(s.len());
        if self.bytes > self.limit {
            Err(fmt::Error)
        } else {
            Ok(())
        }
    }
}

/// The bytes of `v` as text, or an error once they pass what is left.
fn size(v: &Value) -> Result<usize, Error> {
    if let Some(s) = v.as_str() {
        return if s.len() > left() {
            Err(too_much())
        } else {
            Ok(s.len())
        };
    }
    let mut counter = Counter {
        bytes: 0,
        limit: left(),
    };
    match write!(counter, "{v}") {
        Ok(()) => Ok(counter.bytes),
        Err(_) => Err(too_much()),
    }
}

/// Items of a list, when it says how many.
fn items(v: &Value) -> Option<usize> {
    matches!(
        v.kind(),
        minijinja::value::ValueKind::Seq | minijinja::value::ValueKind::Iterable
    )
    .then(|| v.len())
    .flatten()
}

fn too_many() -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!("the template builds a list of more than {MAX_ITEMS} items"),
    )
}

/// `a ~ b`, sized before it is built.
fn concat(a: Value, b: Value) -> Result<Value, Error> {
    if a.is_undefined() || b.is_undefined() {
        return Err(Error::from(ErrorKind::UndefinedError));
    }
    spend(size(&a)?.saturating_add(size(&b)?))?;
    Ok(Value::from(format!("{a}{b}")))
}

/// `a + b`: texts and lists sized first, then minijinja's own operator.
fn add(a: Value, b: Value) -> Result<Value, Error> {
    if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
        spend(x.len().saturating_add(y.len()))?;
    } else if let (Some(x), Some(y)) = (items(&a), items(&b)) {
        let n = x
            .checked_add(y)
            .filter(|n| *n <= MAX_ITEMS)
            .ok_or_else(too_many)?;
        spend(n.saturating_mul(ITEM_BYTES))?;
    }
    operator("a + b", a, b)
}

/// `a * b`: a repeated text or list sized first, then minijinja's own operator.
fn mul(a: Value, b: Value) -> Result<Value, Error> {
    let times = |n: &Value| n.as_usize().unwrap_or(0);
    for (x, n) in [(&a, &b), (&b, &a)] {
        if let Some(s) = x.as_str() {
            spend(s.len().saturating_mul(times(n)))?;
        } else if let Some(len) = items(x) {
            let total = len
                .checked_mul(times(n))
                .filter(|t| *t <= MAX_ITEMS)
                .ok_or_else(too_many)?;
            spend(total.saturating_mul(ITEM_BYTES))?;
        }
    }
    operator("a * b", a, b)
}

/// Runs minijinja's operator on values already sized, in an environment of
/// its own (whose undefined values behave as the operator's do).
fn operator(expr: &'static str, a: Value, b: Value) -> Result<Value, Error> {
    thread_local! {
        static PLAIN: Environment<'static> = Environment::new();
    }
    PLAIN.with(|env| {
        env.compile_expression(expr)?
            .eval(Value::from_iter([("a", a), ("b", b)]))
    })
}

/// Filters offered as minijinja has them, each result counted after: none
/// builds more than a few times the bytes or items it is given.
const COUNTED_AFTER: &[&str] = &[
    "safe",
    "escape",
    "e",
    "lower",
    "upper",
    "title",
    "capitalize",
    "length",
    "count",
    "dictsort",
    "items",
    "reverse",
    "trim",
    "split",
    "lines",
    "default",
    "d",
    "round",
    "abs",
    "int",
    "float",
    "attr",
    "first",
    "last",
    "min",
    "max",
    "sort",
    "list",
    "bool",
    "select",
    "reject",
    "selectattr",
    "rejectattr",
    "map",
    "groupby",
    "unique",
    "chain",
    "zip",
];

/// Filters whose result is sized from their arguments before they run.
const SIZED_FIRST: &[&str] = &["join", "replace", "string", "sum"];

/// The bytes `filter` would build from `args`, at most.
fn before(filter: &str, args: &[Value]) -> Result<usize, Error> {
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::UNDEFINED);
    match filter {
        // Each item as text, and the separator between them.
        "join" | "sum" => {
            let sep = if filter == "join" { size(&arg(1))? } else { 0 };
            let mut total = 0usize;
            if let Ok(iter) = arg(0).try_iter() {
                for item in iter {
                    total = total.saturating_add(size(&item)?).saturating_add(sep);
                    if total > left() {
                        return Err(too_much());
                    }
                }
            }
            Ok(total)
        }
        // The text, and the new text once per match (between every two
        // characters for an empty pattern).
        "replace" => {
            let text = arg(0).to_string();
            let old = arg(1).to_string();
            let new = size(&arg(2))?;
            let matches = if old.is_empty() {
                text.chars().count() + 1
            } else {
                text.matches(old.as_str()).count()
            };
            Ok(text.len().saturating_add(matches.saturating_mul(new)))
        }
        _ => size(&arg(0)),
    }
}

/// Registers the guarded operators and filters, the formatter that counts
/// what is written out, and takes away what a template could use to build
/// text of a size an argument alone sets.
pub(crate) fn install(env: &mut Environment<'static>) {
    env.add_function(CONCAT, concat);
    env.add_function(ADD, add);
    env.add_function(MUL, mul);
    env.remove_global("debug");
    for name in [
        "indent",
        "format",
        "batch",
        "slice",
        "pprint",
        "tojson",
        "urlencode",
    ] {
        env.remove_filter(name);
    }
    for &name in COUNTED_AFTER.iter().chain(SIZED_FIRST) {
        let Some(inner) = builtin_filter(name) else {
            continue;
        };
        let first = SIZED_FIRST.contains(&name);
        env.add_filter(
            name,
            move |state: &State, args: Rest<Value>| -> Result<Value, Error> {
                if first {
                    spend(before(name, &args)?)?;
                }
                let result = inner.call(state, &args)?;
                if !first {
                    spend(size(&result)?)?;
                }
                Ok(result)
            },
        );
    }
    env.set_formatter(|out, state, value| {
        spend(size(value)?)?;
        minijinja::escape_formatter(out, state, value)
    });
}

/// A filter of our own, its result counted.
pub(crate) fn counted<F>(env: &mut Environment<'static>, name: &'static str, f: F)
where
    F: Fn(Value) -> Result<String, Error> + Send + Sync + 'static,
{
    env.add_filter(name, move |v: Value| -> Result<String, Error> {
        let text = f(v)?;
        spend(text.len())?;
        Ok(text)
    });
}

/// minijinja's own filter `name`, as a value to call.
fn builtin_filter(name: &str) -> Option<Value> {
    use minijinja::filters as f;
    Some(match name {
        "safe" => Value::from_function(f::safe),
        "escape" | "e" => Value::from_function(f::escape),
        "lower" => Value::from_function(f::lower),
        "upper" => Value::from_function(f::upper),
        "title" => Value::from_function(f::title),
        "capitalize" => Value::from_function(f::capitalize),
        "length" | "count" => Value::from_function(f::length),
        "dictsort" => Value::from_function(f::dictsort),
        "items" => Value::from_function(f::items),
        "reverse" => Value::from_function(f::reverse),
        "trim" => Value::from_function(f::trim),
        "split" => Value::from_function(f::split),
        "lines" => Value::from_function(f::lines),
        "default" | "d" => Value::from_function(f::default),
        "round" => Value::from_function(f::round),
        "abs" => Value::from_function(f::abs),
        "int" => Value::from_function(f::int),
        "float" => Value::from_function(f::float),
        "attr" => Value::from_function(f::attr),
        "first" => Value::from_function(f::first),
        "last" => Value::from_function(f::last),
        "min" => Value::from_function(f::min),
        "max" => Value::from_function(f::max),
        "sort" => Value::from_function(f::sort),
        "list" => Value::from_function(f::list),
        "bool" => Value::from_function(f::bool),
        "select" => Value::from_function(f::select),
        "reject" => Value::from_function(f::reject),
        "selectattr" => Value::from_function(f::selectattr),
        "rejectattr" => Value::from_function(f::rejectattr),
        "map" => Value::from_function(f::map),
        "groupby" => Value::from_function(f::groupby),
        "unique" => Value::from_function(f::unique),
        "chain" => Value::from_function(f::chain),
        "zip" => Value::from_function(f::zip),
        "join" => Value::from_function(f::join),
        "replace" => Value::from_function(f::replace),
        "string" => Value::from_function(f::string),
        "sum" => Value::from_function(f::sum),
        _ => return None,
    })
}

/// `source` for as long as the process runs, each distinct text kept once:
/// a compiled template borrows its text, and the task template, compiled
/// once per generator rather than once per task, is kept beside the
/// environment that runs it.
pub(crate) fn interned(source: &str) -> &'static str {
    static SOURCES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut sources = SOURCES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(kept) = sources.get(source) {
        return kept;
    }
    let kept: &'static str = Box::leak(source.to_owned().into_boxed_str());
    sources.insert(kept);
    kept
}

/// Most `elif` branches a template may have in all (the bundled templates
/// have a few): minijinja's parser recurses once per branch.
pub(crate) const MAX_ELIFS: usize = 200;

/// How many `{% elif` tags (`{%-`, `{%+` and spaces allowed) `source` holds.
fn elif_tags(source: &str) -> usize {
    source
        .match_indices("{%")
        .filter(|(at, _)| {
            let rest = source[at + 2..].trim_start_matches(['-', '+']).trim_start();
            rest.starts_with("elif")
                && !rest[4..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
        })
        .count()
}

/// A template compiled by us, its value-building operators calling the
/// guarded functions above, with the longest literal it writes.
pub(crate) struct Compiled<'s> {
    pub(crate) instructions: Instructions<'s>,
    pub(crate) blocks: std::collections::BTreeMap<&'s str, Instructions<'s>>,
    pub(crate) longest_literal: usize,
}

/// Compiles `source` as minijinja would (trailing newline kept), once its
/// folded constants are sized (`fold`), and rewrites its operators in place
/// (one instruction for one, so every jump and location stays as it was).
pub(crate) fn compile<'s>(name: &'s str, source: &'s str) -> Result<Compiled<'s>, Error> {
    // minijinja reads an `elif` chain by recursion, one frame per branch:
    // thousands of them overflow the stack and abort the process before any
    // fuel is spent. Counted first, on the text.
    let elifs = elif_tags(source);
    if elifs > MAX_ELIFS {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "the template has {elifs} `elif` branches, more than the {MAX_ELIFS} a template may have: use a mapping, or split the template"
            ),
        ));
    }
    let ws_config = WhitespaceConfig {
        keep_trailing_newline: true,
        lstrip_blocks: false,
        trim_blocks: false,
    };
    let config = TemplateConfig {
        syntax_config: SyntaxConfig,
        ws_config,
        default_auto_escape: Arc::new(|_: &str| AutoEscape::None),
    };
    // Read without folding first; a syntax error is left for the compiler,
    // which reports it with the template's text.
    if let Ok(tree) = parse(source, name, SyntaxConfig, ws_config) {
        let bounds = Bounds {
            bytes: MAX_TEMPLATE_BYTES,
            items: MAX_ITEMS,
            item_bytes: ITEM_BYTES,
        };
        if let Some(why) = super::fold::check(&tree, source.len(), bounds) {
            return Err(Error::new(ErrorKind::InvalidOperation, why));
        }
    }
    let CompiledTemplate {
        mut instructions,
        mut blocks,
        ..
    } = CompiledTemplate::new(name, source, &config)?;
    let mut longest_literal = rewrite(&mut instructions);
    for block in blocks.values_mut() {
        longest_literal = longest_literal.max(rewrite(block));
    }
    Ok(Compiled {
        instructions,
        blocks,
        longest_literal,
    })
}

/// Rewrites the operators of `code`; gives its longest literal.
fn rewrite(code: &mut Instructions<'_>) -> usize {
    let mut longest = 0;
    for i in 0..code.len() {
        let Ok(at) = u32::try_from(i) else { break };
        let Some(instruction) = code.get_mut(at) else {
            break;
        };
        match instruction {
            Instruction::StringConcat => *instruction = Instruction::CallFunction(CONCAT, Some(2)),
            Instruction::Add => *instruction = Instruction::CallFunction(ADD, Some(2)),
            Instruction::Mul => *instruction = Instruction::CallFunction(MUL, Some(2)),
            Instruction::EmitRaw(text) => longest = longest.max(text.len()),
            _ => {}
        }
    }
    longest
}

/// Instructions a rendering may run: minijinja's fuel, cut so that fuel ×
/// the longest literal stays under [`MAX_LITERAL_BYTES`].
pub(crate) fn fuel(full: u64, longest_literal: usize) -> u64 {
    let longest = u64::try_from(longest_literal.max(1)).unwrap_or(u64::MAX);
    full.min(MAX_LITERAL_BYTES / longest).max(1)
}
