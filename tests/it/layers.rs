//! The engine's layers, checked on every line of every library file: each
//! module path a file names points down the layers (or stays in its own),
//! no module ever reads one that a "never" rule keeps from it, and no files
//! import each other through any chain, a folder's `mod.rs` and its own
//! files included. `ARCHITECTURE.md` states what these tests prove.
//!
//! A file is read as code: comments, string and character literals and the
//! bodies of `#[cfg(test)] mod … { … }` are blanked first, and every path
//! that starts with `crate::`, `super::` (any number), `self::` or a child
//! module's name is parsed as a use tree, groups and renames included.

use std::collections::{BTreeMap, BTreeSet};

use crate::root;

/// The layers, bottom first. A module path belongs to the layer of its
/// longest listed prefix; a file may use its own layer and any below it.
const LAYERS: &[&[&str]] = &[
    &["json"],
    &["span", "chunks"],
    &["reply"],
    &["diag", "expr"],
    &["num"],
    &["value"],
    // A trace's events are plain data the model keeps for replays.
    &["trace::event"],
    &["model"],
    &["facts"],
    &["trace"],
    &["outcome"],
    &["eval"],
    &["case"],
    &["evaluation"],
    &["rulebook"],
    &["codegen"],
    &["compiled"],
    &["tasks"],
    &["conformance", "coverage", "sweep", "audit"],
    &["generate"],
    &["score"],
    &["diff"],
    &["repair"],
    &["embed"],
    &[""],
];

/// Reads the order alone allows but the design forbids: `(module, never)`,
/// each a prefix. The order says what may be below; these say what a
/// module must stay independent of although it sits above it.
const NEVER: &[(&str, &str)] = &[
    // Compiled code is written from the lowered model, never from the
    // interpreter, the validator or the front end it would then mirror.
    ("codegen", "eval"),
    ("codegen", "case"),
    ("codegen", "rulebook"),
    ("codegen", "evaluation"),
    // A trace is data the interpreter fills; it never calls back into it.
    ("trace", "eval"),
    // The interpreter never validates: facts come to it validated.
    ("eval", "case"),
    // Generators draw and check tasks; grading them is the rubric's.
    ("generate", "score"),
    ("generate", "coverage"),
    // A rubric grades tasks; it needs no coverage or generator.
    ("score", "coverage"),
    ("score", "generate"),
    // The trace re-verifier shares the parser, the numbers and the model's
    // data and pure operations with the engine, never the interpreter, the
    // lowered code or compiled code, so a defect there cannot hide in its
    // own receipt (issue 30).
    ("audit", "eval"),
    ("audit", "evaluation"),
    ("audit", "case"),
    ("audit", "codegen"),
    ("audit", "compiled"),
    ("audit", "model::code"),
];

/// Modules that read nothing but what is listed: the JSON layer is the
/// bottom, and the reply reader needs nothing of the engine but it.
const ONLY: &[(&str, &[&str])] = &[("json", &[]), ("reply", &["json"])];

/// Circles known today: none. Kept as a list so that a circle found
/// later is written down here before it is cured, and the test says when
/// it is gone (the list only shrinks). The cure is the shared types moved
/// into a file of their own (`eval/machine.rs`, `case/messages.rs`).
const KNOWN_CIRCLES: &[&[&str]] = &[];

/// A source file as the checker sees it: its module path and its text.
pub(super) struct Source {
    pub(super) module: String,
    pub(super) text: String,
}

/// A path in `src/` as a module path: `eval/plan.rs` → `eval::plan`,
/// `model/mod.rs` → `model`, `lib.rs` → ``.
fn module_of(rel: &str) -> String {
    let rel = rel.trim_end_matches(".rs");
    let rel = rel.strip_suffix("/mod").unwrap_or(rel);
    match rel {
        "lib" | "main" => String::new(),
        _ => rel.replace('/', "::"),
    }
}

fn layer_of(module: &str) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (i, layer) in LAYERS.iter().enumerate() {
        for prefix in *layer {
            if within(module, prefix) && best.is_none_or(|(len, _)| prefix.len() >= len) {
                best = Some((prefix.len(), i));
            }
        }
    }
    best.map(|(_, i)| i)
}

/// Whether `module` is `prefix` or inside it (everything is inside ``).
fn within(module: &str, prefix: &str) -> bool {
    prefix.is_empty() || module == prefix || module.starts_with(&format!("{prefix}::"))
}

/// The code of a file with comments, string and character literals and
/// test modules blanked (lines kept), so a path named in prose, in a string
/// or in a test helper is no import, and everything else is read.
pub(super) fn code_of(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !ident_before(&chars, i) {
            // A raw string: r"…", r#"…"#, with as many hashes as it opened with.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                match chars.get(j) {
                    None => break,
                    Some('"') if (1..=hashes).all(|h| chars.get(j + h) == Some(&'#')) => {
                        j += 1 + hashes;
                        break;
                    }
                    Some(_) => j += 1,
                }
            }
            chars[i..j.min(chars.len())]
                .iter()
                .for_each(|&c| out.push(blank(c)));
            i = j;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if let Some(&c) = chars.get(i) {
                    out.push(blank(c));
                }
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A character literal ('"', '\'', '\u{…}'); otherwise a lifetime.
            let end = if next == Some('\\') {
                (i + 2..chars.len()).find(|&j| chars[j] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    (i..=end).for_each(|_| out.push(' '));
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    without_test_modules(&out)
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Blanks each `#[cfg(test)] mod name { … }` body (braces balance once
/// literals and comments are gone). Any other item under `#[cfg(test)]` is
/// library code as far as layering goes, and is read.
fn without_test_modules(code: &str) -> String {
    let mut out: Vec<char> = code.chars().collect();
    let attr: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + attr.len() <= out.len() {
        if out[i..i + attr.len()] != attr[..] {
            i += 1;
            continue;
        }
        let rest: String = out[i + attr.len()..].iter().collect();
        let trimmed = rest.trim_start();
        let skipped = rest.len() - trimmed.len();
        let words: Vec<&str> = trimmed.splitn(3, char::is_whitespace).collect();
        let is_mod = words.first() == Some(&"mod")
            || (words.first().is_some_and(|w| w.starts_with("pub"))
                && words.get(1) == Some(&"mod"));
        let open = trimmed.find(['{', ';']);
        if is_mod && open.is_some_and(|o| trimmed.as_bytes()[o] == b'{') {
            let start = i + attr.len() + skipped + trimmed[..open.unwrap_or(0)].chars().count();
            let mut depth = 0;
            let mut j = start;
            while j < out.len() {
                match out[j] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            let end = j.min(out.len() - 1) + 1;
            for c in out.iter_mut().take(end).skip(i) {
                if *c != '\n' {
                    *c = ' ';
                }
            }
            i = j;
        } else {
            i += attr.len();
        }
    }
    out.into_iter().collect()
}

/// A token of code: a word, `::`, or one punctuation character.
fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// One module path a file names, and whether it is a re-export of the
/// file's own descendants (`pub use child::Item` in a `mod.rs`: structure,
/// like `mod child;`, not an import).
#[derive(Debug)]
struct Reference {
    target: String,
    reexport: bool,
}

/// The children a file declares (`mod x;`, `pub mod x;`, `mod x { … }`).
fn children(toks: &[String]) -> BTreeSet<String> {
    toks.windows(2)
        .filter(|w| w[0] == "mod")
        .map(|w| w[1].clone())
        .collect()
}

/// Every module path a file names, resolved to the longest known module.
fn references(src: &Source, known: &BTreeSet<String>) -> Vec<Reference> {
    let toks = tokens(&code_of(&src.text));
    let kids = children(&toks);
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            format!("{a}::{b}")
        }
    };
    let parent = |m: &str| {
        m.rsplit_once("::")
            .map_or(String::new(), |(p, _)| p.to_string())
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].as_str();
        let after_path = i > 0 && toks[i - 1] == "::";
        let head = !after_path
            && toks.get(i + 1).is_some_and(|n| n == "::")
            && (matches!(t, "crate" | "super" | "self") || kids.contains(t));
        if !head {
            i += 1;
            continue;
        }
        // The statement's visibility: `pub use`, `pub(crate) use` re-export.
        let reexport = i >= 2 && toks[i - 1] == "use" && {
            let v = &toks[..i - 1];
            v.last().is_some_and(|t| t == "pub")
                || (v.len() >= 4 && v[v.len() - 1] == ")" && v[v.len() - 4] == "pub")
        };
        let mut base = match t {
            "crate" => String::new(),
            "self" => src.module.clone(),
            "super" => parent(&src.module),
            child => join(&src.module, child),
        };
        let mut j = i + 2;
        while toks.get(j).is_some_and(|t| t == "super")
            && toks.get(j + 1).is_some_and(|t| t == "::")
        {
            base = parent(&base);
            j += 2;
        }
        let mut leaves = Vec::new();
        j = use_tree(&toks, j, base, &mut leaves, &join);
        for path in leaves {
            let target = longest_known(&path, known);
            out.push(Reference { target, reexport });
        }
        i = j.max(i + 1);
    }
    out
}

/// Parses a use tree (or an expression path) from token `j`, pushing each
/// leaf's module path; returns the index after it.
fn use_tree(
    toks: &[String],
    mut j: usize,
    mut path: String,
    leaves: &mut Vec<String>,
    join: &dyn Fn(&str, &str) -> String,
) -> usize {
    loop {
        match toks.get(j).map(String::as_str) {
            Some("{") => {
                j += 1;
                loop {
                    match toks.get(j).map(String::as_str) {
                        None => return j,
                        Some("}") => return j + 1,
                        Some(",") => j += 1,
                        Some(_) => j = use_tree(toks, j, path.clone(), leaves, join),
                    }
                }
            }
            Some(word)
                if word
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_') =>
            {
                if word != "self" {
                    path = join(&path, word);
                }
                j += 1;
                if toks.get(j).is_some_and(|t| t == "::") {
                    j += 1;
                    continue;
                }
                if toks.get(j).is_some_and(|t| t == "as") {
                    j += 2;
                }
                leaves.push(path);
                return j;
            }
            _ => {
                leaves.push(path);
                return j;
            }
        }
    }
}

/// The longest prefix of `path` that is a module of the crate.
fn longest_known(path: &str, known: &BTreeSet<String>) -> String {
    let mut best = String::new();
    let mut cur = String::new();
    for part in path.split("::").filter(|p| !p.is_empty()) {
        cur = if cur.is_empty() {
            part.to_string()
        } else {
            format!("{cur}::{part}")
        };
        if known.contains(&cur) {
            best = cur.clone();
        }
    }
    best
}

fn known(sources: &[Source]) -> BTreeSet<String> {
    sources.iter().map(|s| s.module.clone()).collect()
}

/// Every reference that points to a higher layer: `(file, target)`.
fn upward(sources: &[Source]) -> Vec<(String, String)> {
    let known = known(sources);
    let mut bad = BTreeSet::new();
    for src in sources {
        let Some(own) = layer_of(&src.module) else {
            bad.insert((src.module.clone(), "<no layer listed>".to_string()));
            continue;
        };
        for r in references(src, &known) {
            if layer_of(&r.target).is_some_and(|t| t > own) {
                bad.insert((src.module.clone(), r.target));
            }
        }
    }
    bad.into_iter().collect()
}

/// Every reference a "never" rule forbids: `(file, target)`.
fn forbidden(sources: &[Source]) -> Vec<(String, String)> {
    let known = known(sources);
    let mut bad = BTreeSet::new();
    for src in sources {
        for r in references(src, &known) {
            let never = NEVER.iter().any(|(from, to)| {
                within(&src.module, from) && within(&r.target, to) && !within(&r.target, from)
            });
            let beyond = ONLY.iter().any(|(from, allowed)| {
                within(&src.module, from)
                    && !within(&r.target, from)
                    && !allowed.iter().any(|a| within(&r.target, a))
            });
            let broken = !r.target.is_empty() && (never || beyond);
            if broken {
                bad.insert((src.module.clone(), r.target));
            }
        }
    }
    bad.into_iter().collect()
}

/// The import circles among files, each as the sorted list of its modules.
/// Declaring a child (`mod x;`) and re-exporting its items are structure;
/// every other reference is an edge, a parent's calls into its own
/// children and a child's use of its parent's items included.
fn circles(sources: &[Source]) -> Vec<Vec<String>> {
    let known = known(sources);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for src in sources {
        let own = src.module.clone();
        let targets = references(src, &known)
            .into_iter()
            .filter(|r| r.target != own && known.contains(&r.target))
            .filter(|r| !(r.reexport && within(&r.target, &own)))
            .map(|r| r.target)
            .collect();
        edges.insert(own, targets);
    }
    strongly_connected(&edges)
}

/// Tarjan's strongly connected components of more than one node.
fn strongly_connected(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit(s: &mut State<'_>, v: &str) {
        s.index.insert(v.to_string(), s.next);
        s.low.insert(v.to_string(), s.next);
        s.next += 1;
        s.stack.push(v.to_string());
        for w in s.edges.get(v).cloned().unwrap_or_default() {
            if !s.index.contains_key(&w) {
                visit(s, &w);
                let low = s.low[v].min(s.low[&w]);
                s.low.insert(v.to_string(), low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[&w]);
                s.low.insert(v.to_string(), low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                let done = w == v;
                component.push(w);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !state.index.contains_key(v) {
            visit(&mut state, v);
        }
    }
    state.out.sort();
    state.out
}

pub(super) fn library_sources() -> Vec<Source> {
    fn walk(dir: &std::path::Path, base: &std::path::Path, out: &mut Vec<Source>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, base, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(base)
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
                    .unwrap_or_default();
                // The binary (`main.rs`, `cli/`) sits on top of the library
                // and reaches it as `bareme::`; unit-test files are tests.
                if rel == "main.rs" || rel.starts_with("cli/") || rel.ends_with("tests.rs") {
                    continue;
                }
                out.push(Source {
                    module: module_of(&rel),
                    text: std::fs::read_to_string(&path).unwrap_or_default(),
                });
            }
        }
    }
    let src = root().join("src");
    let mut out = Vec::new();
    walk(&src, &src, &mut out);
    out.sort_by(|a, b| a.module.cmp(&b.module));
    out
}

#[test]
fn every_import_points_down() {
    let sources = library_sources();
    assert!(sources.len() > 20, "read {} source files", sources.len());
    assert_eq!(upward(&sources), Vec::<(String, String)>::new());
}

#[test]
fn no_module_reads_what_a_never_rule_forbids() {
    assert_eq!(
        forbidden(&library_sources()),
        Vec::<(String, String)>::new()
    );
}

#[test]
fn no_source_files_import_each_other_in_a_circle() {
    let known: Vec<Vec<String>> = KNOWN_CIRCLES
        .iter()
        .map(|c| c.iter().map(|m| m.to_string()).collect())
        .collect();
    assert_eq!(circles(&library_sources()), known);
}

fn fixture(module: &str, text: &str) -> Source {
    Source {
        module: module.to_string(),
        text: text.to_string(),
    }
}

/// The checker itself: an upward import and a circle are both found, and
/// prose, strings and characters are not imports.
#[test]
fn the_layer_checker_finds_an_upward_import_and_a_circle() {
    let sources = vec![
        fixture("value", "//! v\nuse crate::eval::ops::sum; // reads upward\n"),
        fixture("eval", "//! e\npub mod ops;\nuse crate::value::{Value, describe};\n"),
        fixture("eval::ops", "//! o\nuse super::Machine;\n/// see crate::case\n"),
        fixture(
            "case",
            "//! c\nfn f() { let q = b'\"'; let s = \"crate::pipeline // x\"; crate::eval::run(); }\n",
        ),
        fixture("num", "//! n\nconst R: &str = r#\"crate::diff\"#; /* crate::score */\n"),
    ];
    assert_eq!(
        upward(&sources),
        vec![("value".to_string(), "eval::ops".to_string())]
    );
    assert_eq!(
        circles(&sources),
        vec![vec![
            "eval".to_string(),
            "eval::ops".to_string(),
            "value".to_string()
        ]]
    );
}

/// An upward import planted after a `#[cfg(test)]` item is read; one inside
/// a `#[cfg(test)] mod tests { … }` is a test's, and is not.
#[test]
fn the_layer_checker_reads_past_a_cfg_test_item() {
    let text = "//! m\n#[cfg(test)]\nfn helper() {}\n\nuse crate::diff::Style;\n\n\
                #[cfg(test)]\nmod tests {\n    use crate::score::Scorer;\n    fn f() { let _ = '}'; }\n}\n\
                pub fn after() { crate::generate::run(); }\n";
    let sources = vec![
        fixture("model::ops", text),
        fixture("diff", ""),
        fixture("score", ""),
        fixture("generate", ""),
    ];
    assert_eq!(
        upward(&sources),
        vec![
            ("model::ops".to_string(), "diff".to_string()),
            ("model::ops".to_string(), "generate".to_string()),
        ]
    );
}

/// A `mod.rs` that calls into its child while the child uses the parent's
/// items is a circle; re-exporting the child's items is not.
#[test]
fn the_layer_checker_sees_a_parent_and_child_tie() {
    let parent = "//! e\nmod answer;\npub use answer::format_value;\n\
                  pub struct Machine;\nfn run() { answer::template_text(); }\n";
    let child = "//! a\nuse super::Machine;\npub fn template_text() {}\n";
    let sources = vec![fixture("eval", parent), fixture("eval::answer", child)];
    assert_eq!(
        circles(&sources),
        vec![vec!["eval".to_string(), "eval::answer".to_string()]]
    );
    let facade =
        "//! e\nmod answer;\npub(crate) use answer::{format_value, template_text as text};\n";
    let sources = vec![fixture("eval", facade), fixture("eval::answer", child)];
    assert_eq!(circles(&sources), Vec::<Vec<String>>::new());
}

/// `super::super::` climbs two levels, and a "never" rule holds even where
/// the order allows the read.
#[test]
fn the_layer_checker_resolves_super_super_and_never_rules() {
    let sources = vec![
        fixture(
            "codegen::expr::inner",
            "//! i\nuse super::super::super::eval::Machine;\n",
        ),
        fixture("codegen", ""),
        fixture("codegen::expr", ""),
        fixture("eval", ""),
        fixture(
            "generate::task",
            "//! t\nuse crate::score::{grade, Scorer};\n",
        ),
        fixture("score", ""),
    ];
    assert_eq!(
        forbidden(&sources),
        vec![
            ("codegen::expr::inner".to_string(), "eval".to_string()),
            ("generate::task".to_string(), "score".to_string()),
        ]
    );
}

/// A module with an `ONLY` rule reads nothing beyond what it lists.
#[test]
fn the_layer_checker_holds_an_only_rule() {
    let sources = vec![
        fixture(
            "reply::json",
            "//! r\nuse crate::json::read;\nuse crate::num::arith;\n",
        ),
        fixture("json", ""),
        fixture("num", ""),
    ];
    assert_eq!(
        forbidden(&sources),
        vec![("reply::json".to_string(), "num".to_string())]
    );
}
