//! Our compiled copy of a template: minijinja's code, rewritten so that
//! every operator that builds a value calls the guarded function of
//! `guard` that sizes it first, and every assignment to a namespace has its
//! value checked (a namespace holding itself would send every later walk of
//! it, a comparison or a write, round forever), and every comparison and
//! lookup by value counts what it walks.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use minijinja::machinery::{
    parse, tokenize, CompiledTemplate, Instruction, Instructions, TemplateConfig, Token,
    WhitespaceConfig,
};
use minijinja::syntax::SyntaxConfig;
use minijinja::{AutoEscape, Environment, Error, ErrorKind};

use super::fold::Bounds;
use super::guard::{
    ADD, BUILT, CONCAT, ITEM_BYTES, LIST, MAP, MAX_ITEMS, MAX_LITERAL_BYTES, MAX_TEMPLATE_BYTES,
    MUL, STORE, WALK, WALK_TEXT,
};

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

/// Most tokens one tag (`{{ … }}`, `{% … %}`) may hold. minijinja reads a
/// chain of operators (`1 + 1 + …`, `x.a.b…`, `- - 1`) without recursion,
/// but compiles and drops the tree it makes by recursion, a frame a link:
/// 35,000 links overflowed the stack and aborted the load. A tag's depth is
/// at most its tokens (the bundled templates' longest tag holds under 100).
pub(crate) const MAX_TAG_TOKENS: usize = 2_000;

/// The line of the first tag of `source` past [`MAX_TAG_TOKENS`], if any;
/// a text the lexer refuses is left for the compiler to report.
fn overlong_tag(source: &str, ws_config: WhitespaceConfig) -> Option<usize> {
    let mut inside: Option<usize> = None;
    for token in tokenize(source, false, SyntaxConfig, ws_config) {
        let Ok((token, span)) = token else {
            return None;
        };
        match token {
            Token::VariableStart | Token::BlockStart => inside = Some(0),
            Token::VariableEnd | Token::BlockEnd => inside = None,
            _ => {
                if let Some(n) = inside.as_mut() {
                    *n += 1;
                    if *n > MAX_TAG_TOKENS {
                        return Some(usize::from(span.start_line));
                    }
                }
            }
        }
    }
    None
}

/// A template compiled by us, its value-building operators calling the
/// guarded functions, with the longest literal it writes.
pub(crate) struct Compiled<'s> {
    pub(crate) instructions: Instructions<'s>,
    pub(crate) blocks: BTreeMap<&'s str, Instructions<'s>>,
    pub(crate) longest_literal: usize,
}

/// Compiles `source` as minijinja would (trailing newline kept), once its
/// folded constants are sized (`fold`), and rewrites its code ([`rewrite`]).
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
    if let Some(line) = overlong_tag(source, ws_config) {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "the tag on line {line} holds more than {MAX_TAG_TOKENS} tokens: split the expression with `set`"
            ),
        ));
    }
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
        instructions,
        blocks,
        ..
    } = CompiledTemplate::new(name, source, &config)?;
    let (instructions, mut longest_literal) = rewrite(&instructions)?;
    let mut rewritten = BTreeMap::new();
    for (block, code) in &blocks {
        let (code, longest) = rewrite(code)?;
        longest_literal = longest_literal.max(longest);
        rewritten.insert(*block, code);
    }
    Ok(Compiled {
        instructions,
        blocks: rewritten,
        longest_literal,
    })
}

impl Compiled<'_> {
    /// The first filter or test the template names that `env` lacks, as
    /// minijinja would name it when the template reached it: found at load
    /// rather than on the first task that renders that branch.
    pub(crate) fn unknown_name(&self, env: &Environment<'static>) -> Option<String> {
        let name = self.instructions.name();
        for code in std::iter::once(&self.instructions).chain(self.blocks.values()) {
            let len = u32::try_from(code.len()).unwrap_or(u32::MAX);
            for i in 0..len {
                let (what, probe, kind, used) = match code.get(i) {
                    Some(Instruction::ApplyFilter(f, ..)) => {
                        ("filter", format!("1|{f}"), ErrorKind::UnknownFilter, *f)
                    }
                    Some(Instruction::PerformTest(t, ..)) => {
                        ("test", format!("1 is {t}"), ErrorKind::UnknownTest, *t)
                    }
                    _ => continue,
                };
                let missing = env
                    .compile_expression(&probe)
                    .and_then(|e| e.eval(()))
                    .is_err_and(|e| e.kind() == kind);
                if missing {
                    let line = code.get_line(i).unwrap_or(1);
                    return Some(format!("{what} {used} is unknown (in {name}:{line})"));
                }
            }
        }
        None
    }
}

/// Whether `instruction` compares the two values on top of the stack.
fn compares(instruction: &Instruction<'_>) -> bool {
    matches!(
        instruction,
        Instruction::Eq
            | Instruction::Ne
            | Instruction::Lt
            | Instruction::Lte
            | Instruction::Gt
            | Instruction::Gte
            | Instruction::In
            | Instruction::CompareAndPreserve(_)
    )
}

/// The instructions of ours that stand for `instruction`, a jump's target
/// moved by `to`: an operator that builds a value calls its guarded
/// function; a namespace's assignment gets its value checked first
/// (`Swap`, the check, `Swap`); a comparison gets both its sides counted
/// as walked first, a lookup by value its key and its text, and a slice
/// its result counted as built. The one place that says how many
/// instructions each becomes, so that the jumps [`rewrite`] moves land
/// where it puts them.
fn expand<'s>(
    instruction: &Instruction<'s>,
    to: impl Fn(u32) -> Result<u32, Error>,
) -> Result<Vec<Instruction<'s>>, Error> {
    let call = |name: &'static str, args: u16| Instruction::CallFunction(name, Some(args));
    Ok(match instruction {
        Instruction::StringConcat => vec![call(CONCAT, 2)],
        Instruction::Add => vec![call(ADD, 2)],
        Instruction::Mul => vec![call(MUL, 2)],
        Instruction::BuildList(Some(n)) => vec![call(LIST, items(*n)?)],
        Instruction::BuildList(None) => vec![Instruction::CallFunction(LIST, None)],
        Instruction::BuildMap(n) => vec![call(MAP, items(n.saturating_mul(2))?)],
        Instruction::SetAttr(name) => vec![
            Instruction::Swap,
            call(STORE, 1),
            Instruction::Swap,
            Instruction::SetAttr(name),
        ],
        i if compares(i) => vec![
            call(WALK, 1),
            Instruction::Swap,
            call(WALK, 1),
            Instruction::Swap,
            i.clone(),
        ],
        Instruction::GetItem => vec![
            call(WALK, 1),
            Instruction::Swap,
            call(WALK_TEXT, 1),
            Instruction::Swap,
            Instruction::GetItem,
        ],
        Instruction::Slice => vec![Instruction::Slice, call(BUILT, 1)],
        Instruction::Jump(t) => vec![Instruction::Jump(to(*t)?)],
        Instruction::JumpIfFalse(t) => vec![Instruction::JumpIfFalse(to(*t)?)],
        Instruction::JumpIfFalseOrPop(t) => vec![Instruction::JumpIfFalseOrPop(to(*t)?)],
        Instruction::JumpIfTrueOrPop(t) => vec![Instruction::JumpIfTrueOrPop(to(*t)?)],
        Instruction::Iterate(t) => vec![Instruction::Iterate(to(*t)?)],
        Instruction::BuildMacro(name, t, flags) => {
            vec![Instruction::BuildMacro(name, to(*t)?, *flags)]
        }
        other => vec![other.clone()],
    })
}

/// `code` again, each instruction replaced by its [`expand`]ed form, with
/// its longest literal. Jumps, macros and locations are moved to the new
/// positions: each instruction's expansion is taken once with its jump
/// left as it is, for its length, then again with the jump moved.
fn rewrite<'s>(code: &Instructions<'s>) -> Result<(Instructions<'s>, usize), Error> {
    let too_long = || Error::new(ErrorKind::InvalidOperation, "the template is too long");
    let len = u32::try_from(code.len()).map_err(|_| too_long())?;
    // Where each instruction lands, and one past the end (a jump may go there).
    let mut at = Vec::with_capacity(code.len() + 1);
    let mut next = 0u32;
    for i in 0..len {
        at.push(next);
        let width = match code.get(i) {
            Some(instruction) => expand(instruction, Ok)?.len(),
            None => 1,
        };
        next = u32::try_from(width)
            .ok()
            .and_then(|w| next.checked_add(w))
            .ok_or_else(too_long)?;
    }
    at.push(next);
    let to = |target: u32| -> Result<u32, Error> {
        at.get(target as usize).copied().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidOperation,
                "the template's code jumps outside itself",
            )
        })
    };
    let mut out = Instructions::new(code.name(), code.source());
    let mut longest = 0;
    for i in 0..len {
        let Some(instruction) = code.get(i) else {
            break;
        };
        if let Instruction::EmitRaw(text) = instruction {
            longest = longest.max(text.len());
        }
        for instruction in expand(instruction, to)? {
            if let Some(span) = code.get_span(i) {
                out.add_with_span(instruction, span);
            } else if let Some(line) = code.get_line(i).and_then(|l| u16::try_from(l).ok()) {
                out.add_with_line(instruction, line);
            } else {
                out.add(instruction);
            }
        }
    }
    Ok((out, longest))
}

/// A count of arguments a call can carry.
fn items(n: usize) -> Result<u16, Error> {
    u16::try_from(n).map_err(|_| {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("a list or map literal of more than {} items", u16::MAX),
        )
    })
}

/// Instructions a rendering may run: minijinja's fuel, cut so that fuel ×
/// the longest literal stays under [`MAX_LITERAL_BYTES`].
pub(crate) fn fuel(full: u64, longest_literal: usize) -> u64 {
    let longest = u64::try_from(longest_literal.max(1)).unwrap_or(u64::MAX);
    full.min(MAX_LITERAL_BYTES / longest).max(1)
}
