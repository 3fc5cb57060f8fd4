//! What bounds a template's memory: every byte of text a rendering builds
//! is counted against one budget, [`MAX_TEMPLATE_BYTES`].
//!
//! Fuel bounds the instructions a template runs, not the bytes: `s ~ s` run
//! forty times asks for a terabyte in forty instructions, and `replace` or
//! `join` can square a string in one; `[a, a]` run forty times shares its
//! way to a list whose walk (a comparison, a write) takes 2^40 steps. So a
//! template is run from our own compiled copy (`compile`) in which the
//! operators that build values (`~`, `+`, `*`, list and map literals) call
//! the functions of this module instead, which size the result before
//! building it (`dict` and `namespace` too); the filters that can build
//! more than a few times their input are sized first too, the others are
//! counted after (they are at most a few times the largest value, which
//! the budget already bounds), and the few whose size an argument alone
//! sets (`indent`, `format`, `batch`, `slice`, `pprint`) and `debug` are
//! not offered. A namespace may not be given a value that holds a
//! namespace, so no value holds itself. Every value written out is
//! counted. Literal text written out is bounded by fuel: each instruction
//! writes at most the longest literal of the templates, so the fuel is cut
//! to keep that product under [`MAX_LITERAL_BYTES`] (`compile::fuel`).
//! Templates cannot include, import or extend one another: no template is
//! registered with the environment.

use std::cell::Cell;
use std::fmt::{self, Write as _};
use std::sync::OnceLock;

use minijinja::value::{ObjectRepr, Rest, Value};
use minijinja::{Environment, Error, ErrorKind, State};

/// Bytes of text one rendering may build in all: its values, the results of
/// its filters and what it writes out (the bundled prompts are under 10 KB).
pub(crate) const MAX_TEMPLATE_BYTES: usize = 8 << 20;

/// Bytes of literal text one rendering may write: with the longest literal
/// of the templates, sets the fuel ([`fuel`]).
pub(crate) const MAX_LITERAL_BYTES: u64 = 64 << 20;

/// Most items of a list a template builds with `+` or `*`.
pub(crate) const MAX_ITEMS: usize = 1_000_000;

/// Estimated bytes of one item of a list.
pub(crate) const ITEM_BYTES: usize = 16;

/// The names the operators are rewritten to call: not identifiers, so no
/// template can name or shadow them.
pub(crate) const CONCAT: &str = "bareme:~";
pub(crate) const ADD: &str = "bareme:+";
pub(crate) const MUL: &str = "bareme:*";
pub(crate) const LIST: &str = "bareme:[]";
pub(crate) const MAP: &str = "bareme:{}";
pub(crate) const STORE: &str = "bareme:ns";
pub(crate) const WALK: &str = "bareme:walk";
pub(crate) const WALK_TEXT: &str = "bareme:walk-text";
pub(crate) const BUILT: &str = "bareme:built";

/// Bytes of values (as text) one rendering may have walked: compared,
/// looked up by, or given to a filter that goes through them. Fuel counts
/// each of those as one instruction whatever the size of what it walks
/// (the bundled prompts walk under 10 KB).
pub(crate) const MAX_TEMPLATE_WALK: usize = 32 << 20;

thread_local! {
    /// Bytes the rendering on this thread has built so far.
    static SPENT: Cell<usize> = const { Cell::new(0) };
    /// Bytes of values the rendering on this thread has walked so far.
    static WALKED: Cell<usize> = const { Cell::new(0) };
}

/// Starts a rendering's count (a rendering runs on one thread).
pub(crate) fn start() {
    SPENT.with(|s| s.set(0));
    WALKED.with(|s| s.set(0));
}

/// The work of the rendering on this thread so far beyond its
/// instructions: a unit per 64 bytes built or walked.
pub(crate) fn units() -> u64 {
    let bytes = SPENT.with(Cell::get).saturating_add(WALKED.with(Cell::get));
    u64::try_from(bytes / 64).unwrap_or(u64::MAX)
}

fn walked_too_much() -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!("the template walks more than {MAX_TEMPLATE_WALK} bytes of values (comparisons, lookups and filters)"),
    )
}

/// Counts the walk of `v`, or refuses past the walking budget.
fn walk(v: &Value) -> Result<(), Error> {
    let left = MAX_TEMPLATE_WALK.saturating_sub(WALKED.with(Cell::get));
    let bytes = measure(v, left).ok_or_else(walked_too_much)?;
    WALKED.with(|w| w.set(w.get().saturating_add(bytes)));
    Ok(())
}

/// A value about to be walked (either side of a comparison, a key),
/// counted and given back unchanged.
fn walked(v: Value) -> Result<Value, Error> {
    walk(&v)?;
    Ok(v)
}

/// A value about to be indexed: a text is walked to its character (a list
/// or a map is not), so a text is counted and given back unchanged.
fn walked_text(v: Value) -> Result<Value, Error> {
    if v.as_str().is_some() {
        walk(&v)?;
    }
    Ok(v)
}

/// A value just built by an operator that copies (a slice), counted.
fn built(v: Value) -> Result<Value, Error> {
    spend(size(&v)?)?;
    Ok(v)
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
    measure(v, left()).ok_or_else(too_much)
}

/// The bytes of `v` as text, or `None` past `limit` (which is all that is
/// written to find out).
fn measure(v: &Value, limit: usize) -> Option<usize> {
    if let Some(s) = v.as_str() {
        return (s.len() <= limit).then_some(s.len());
    }
    let mut counter = Counter { bytes: 0, limit };
    write!(counter, "{v}").ok().map(|()| counter.bytes)
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
    finite(&a)?;
    finite(&b)?;
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

/// `[a, b, …]` with an item that is not a literal (those the compiler
/// folds, `fold` sizes): sized as its items' text, which counts a value
/// shared twice twice.
fn list(items: Rest<Value>) -> Result<Value, Error> {
    spend_sizes(&items)?;
    Ok(Value::from(items.0))
}

/// `{k: v, …}` with a key or value that is not a literal, given as keys and
/// values in turn: sized as their text.
fn map(pairs: Rest<Value>) -> Result<Value, Error> {
    spend_sizes(&pairs)?;
    Ok(pairs
        .chunks_exact(2)
        .filter_map(|pair| match pair {
            [key, value] => Some((key.clone(), value.clone())),
            _ => None,
        })
        .collect())
}

fn spend_sizes(values: &[Value]) -> Result<(), Error> {
    let mut total = 0usize;
    for v in values {
        total = total.saturating_add(size(v)?);
        if total > left() {
            return Err(too_much());
        }
    }
    spend(total)
}

/// What a namespace is given (`{% set ns.x = value %}`), refused when it
/// holds a namespace: the only value a template can change is a namespace,
/// so none can then come to hold itself. Each entry looked at is counted.
fn store(value: Value) -> Result<Value, Error> {
    let mut todo = vec![value.clone()];
    let mut walked = 0usize;
    while let Some(v) = todo.pop() {
        let Some(object) = v.as_object() else {
            continue;
        };
        if Some(object.type_name()) == namespace_type() {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "a namespace cannot hold a namespace, nor a list or map that holds one",
            ));
        }
        let before = todo.len();
        match object.repr() {
            ObjectRepr::Map => {
                for (key, item) in object.try_iter_pairs().into_iter().flatten() {
                    todo.push(key);
                    todo.push(item);
                }
            }
            ObjectRepr::Seq | ObjectRepr::Iterable => {
                todo.extend(object.try_iter().into_iter().flatten());
            }
            _ => {}
        }
        walked = walked.saturating_add(todo.len() - before);
        if walked > left() {
            return Err(too_much());
        }
    }
    spend(walked)?;
    Ok(value)
}

/// The type of minijinja's namespaces, which is not public.
fn namespace_type() -> Option<&'static str> {
    static NAME: OnceLock<Option<&'static str>> = OnceLock::new();
    *NAME.get_or_init(|| {
        minijinja::functions::namespace(None)
            .ok()
            .and_then(|ns| ns.as_object().map(|o| o.type_name()))
    })
}

/// minijinja's global function `inner`, its result counted.
fn counted_global(env: &mut Environment<'static>, name: &'static str, inner: Value) {
    env.add_function(
        name,
        move |state: &State, args: Rest<Value>| -> Result<Value, Error> {
            let result = inner.call(state, &args)?;
            spend(size(&result)?)?;
            Ok(result)
        },
    );
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

/// Filters that look at their value without going through it: not counted
/// as a walk.
const NOT_WALKING: &[&str] = &[
    "default", "d", "bool", "round", "abs", "attr", "first", "last", "safe",
];

/// Tests that go through their value (compare it with their argument, or
/// read each of its characters), counted as a walk of both.
const WALKING_TESTS: &[&str] = &[
    "eq",
    "equalto",
    "==",
    "ne",
    "!=",
    "lt",
    "lessthan",
    "<",
    "le",
    "<=",
    "gt",
    "greaterthan",
    ">",
    "ge",
    ">=",
    "in",
    "startingwith",
    "endingwith",
    "lower",
    "upper",
    "iterable",
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
    env.add_function(LIST, list);
    env.add_function(MAP, map);
    env.add_function(STORE, store);
    env.add_function(WALK, walked);
    env.add_function(WALK_TEXT, walked_text);
    env.add_function(BUILT, built);
    counted_global(
        env,
        "dict",
        Value::from_function(minijinja::functions::dict),
    );
    counted_global(
        env,
        "namespace",
        Value::from_function(minijinja::functions::namespace),
    );
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
        let walks = !NOT_WALKING.contains(&name);
        env.add_filter(
            name,
            move |state: &State, args: Rest<Value>| -> Result<Value, Error> {
                if first {
                    spend(before(name, &args)?)?;
                }
                if matches!(name, "length" | "count") {
                    // A list's or a map's length is kept, a text's counted
                    // through its characters: only a text is walked.
                    match args.first() {
                        Some(v) if v.as_str().is_some() => walk(v)?,
                        _ => {}
                    }
                } else if walks {
                    args.iter().try_for_each(walk)?;
                }
                match name {
                    "int" => args.first().map_or(Ok(()), whole)?,
                    "string" | "join" => args.first().map_or(Ok(()), finite)?,
                    _ => {}
                }
                let result = inner.call(state, &args)?;
                if !first {
                    spend(size(&result)?)?;
                }
                Ok(result)
            },
        );
    }
    for &name in WALKING_TESTS {
        let Some(inner) = builtin_test(name) else {
            continue;
        };
        env.add_test(
            name,
            move |state: &State, args: Rest<Value>| -> Result<bool, Error> {
                args.iter().try_for_each(walk)?;
                Ok(inner.call(state, &args)?.is_true())
            },
        );
    }
    env.set_formatter(|out, state, value| {
        stated(value)?;
        finite(value)?;
        spend(size(value)?)?;
        minijinja::escape_formatter(out, state, value)
    });
}

/// Refuses to print a value that is not there (`none`: a row's open `to`,
/// a cell or label the rulebook leaves empty), which minijinja writes as
/// `None`: a prompt would state the word to the model. Strict templates
/// already refuse an undefined name; this is the same slip one step on.
fn stated(v: &Value) -> Result<(), Error> {
    if v.is_none() {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "this prints a value that is not there (none): test it \
             (`{% if x is not none %}`) or give a default (`x or \"…\"`)",
        ));
    }
    Ok(())
}

/// Refuses a number that is not one (`inf`, `nan`: `1 / 0`, `1e308 * 10`)
/// where it would become text, in a list or not: a prompt stating it would
/// be wrong without a word, where a template error names the line.
fn finite(v: &Value) -> Result<(), Error> {
    let bad = |x: &Value| {
        x.is_number() && !x.is_integer() && f64::try_from(x.clone()).is_ok_and(|f| !f.is_finite())
    };
    let listed = || v.try_iter().is_ok_and(|mut items| items.any(|x| bad(&x)));
    if bad(v) || (v.as_str().is_none() && listed()) {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("a number out of range (`{v}`): a division by zero, or a result too large"),
        ));
    }
    Ok(())
}

/// Refuses to make an integer of what has none (`inf`, `nan`, `1e40`, or
/// a text spelling one), which minijinja's `int` would clamp to its
/// largest integer or to 0 without a word.
fn whole(v: &Value) -> Result<(), Error> {
    let float = if v.is_number() && !v.is_integer() {
        f64::try_from(v.clone()).ok()
    } else {
        v.as_str()
            .filter(|s| s.parse::<i128>().is_err())
            .and_then(|s| s.parse::<f64>().ok())
    };
    // i128's range, exactly as a float: -2^127 ≤ f < 2^127.
    let bound = 2f64.powi(127);
    match float {
        Some(f) if !(f.is_finite() && f >= -bound && f < bound) => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("`{v}` has no integer value (`int`): not finite, or too large"),
        )),
        _ => Ok(()),
    }
}

/// A filter of our own, its result counted.
pub(crate) fn counted<F>(env: &mut Environment<'static>, name: &'static str, f: F)
where
    F: Fn(Value) -> Result<String, Error> + Send + Sync + 'static,
{
    env.add_filter(name, move |v: Value| -> Result<String, Error> {
        walk(&v)?;
        let text = f(v)?;
        spend(text.len())?;
        Ok(text)
    });
}

/// minijinja's own test `name`, as a value to call.
fn builtin_test(name: &str) -> Option<Value> {
    use minijinja::tests as t;
    Some(match name {
        "eq" | "equalto" | "==" => Value::from_function(t::is_eq),
        "ne" | "!=" => Value::from_function(t::is_ne),
        "lt" | "lessthan" | "<" => Value::from_function(t::is_lt),
        "le" | "<=" => Value::from_function(t::is_le),
        "gt" | "greaterthan" | ">" => Value::from_function(t::is_gt),
        "ge" | ">=" => Value::from_function(t::is_ge),
        "in" => Value::from_function(t::is_in),
        "startingwith" => Value::from_function(t::is_startingwith),
        "endingwith" => Value::from_function(t::is_endingwith),
        "lower" => Value::from_function(t::is_lower),
        "upper" => Value::from_function(t::is_upper),
        "iterable" => Value::from_function(t::is_iterable),
        _ => return None,
    })
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
