//! The engine's layers: every `crate::` and `super::` path in `src/` points
//! down (or within its own layer), and no two source files import each other
//! through any chain. `ARCHITECTURE.md` draws the same layers.

use std::collections::BTreeMap;

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
    &["model"],
    &["facts"],
    &["trace"],
    &["eval"],
    &["case"],
    &["pipeline"],
    &["rulebook"],
    &["codegen"],
    &["compiled"],
    &["conformance", "coverage", "sweep"],
    &["generate"],
    &["score"],
    &["diff"],
    &[""],
];

/// A source file as the checker sees it: its module path and its text.
struct Source {
    module: String,
    text: String,
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
            let matches = prefix.is_empty()
                || module == *prefix
                || module.starts_with(&format!("{prefix}::"));
            if matches && best.is_none_or(|(len, _)| prefix.len() >= len) {
                best = Some((prefix.len(), i));
            }
        }
    }
    best.map(|(_, i)| i)
}

/// The code of a file without comments, string literals and test modules,
/// so a path named in prose or a test helper is no import.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|line| {
            let line = match line.find("//") {
                Some(i) => &line[..i],
                None => line,
            };
            let mut out = String::new();
            let mut in_str = false;
            let mut prev = ' ';
            for c in line.chars() {
                if c == '"' && prev != '\\' {
                    in_str = !in_str;
                } else if !in_str {
                    out.push(c);
                }
                prev = c;
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules a file refers to: each `crate::a::b` path and each
/// `super::x` path, resolved to absolute module paths (`use crate::{a, b}`
/// groups are expanded one level).
fn references(src: &Source, known: &[String]) -> Vec<String> {
    let code = code_of(&src.text);
    let parent = |m: &str| {
        m.rsplit_once("::")
            .map_or(String::new(), |(p, _)| p.to_string())
    };
    let mut out = Vec::new();
    for (marker, base) in [("crate::", String::new()), ("super::", parent(&src.module))] {
        let mut rest = code.as_str();
        while let Some(i) = rest.find(marker) {
            let before = rest[..i].chars().last();
            rest = &rest[i + marker.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let heads: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                group[..end]
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .collect()
            } else {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .unwrap_or(rest.len());
                vec![rest[..end].to_string()]
            };
            for head in heads {
                let path: Vec<&str> = head
                    .split("::")
                    .take_while(|s| s.chars().next().is_some_and(|c| c.is_lowercase()))
                    .collect();
                let mut target = base.clone();
                for part in path {
                    let next = if target.is_empty() {
                        part.to_string()
                    } else {
                        format!("{target}::{part}")
                    };
                    if known
                        .iter()
                        .any(|k| k == &next || k.starts_with(&format!("{next}::")))
                    {
                        target = next;
                    } else {
                        break;
                    }
                }
                out.push(target);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every reference that points to a higher layer: `(file, target)`.
fn upward(sources: &[Source]) -> Vec<(String, String)> {
    let known: Vec<String> = sources.iter().map(|s| s.module.clone()).collect();
    let mut bad = Vec::new();
    for src in sources {
        let Some(own) = layer_of(&src.module) else {
            bad.push((src.module.clone(), "<no layer listed>".to_string()));
            continue;
        };
        for target in references(src, &known) {
            if layer_of(&target).is_some_and(|t| t > own) {
                bad.push((src.module.clone(), target));
            }
        }
    }
    bad
}

/// The import circles among files, each as the list of its modules. A
/// module's declaration of its own submodules (`mod plan;` in `eval`) is
/// structure, not an import, so a parent's edges to its children are left
/// out; a child's use of its parent counts.
fn circles(sources: &[Source]) -> Vec<Vec<String>> {
    let known: Vec<String> = sources.iter().map(|s| s.module.clone()).collect();
    let mut edges: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for src in sources {
        let own = src.module.as_str();
        let targets = references(src, &known)
            .into_iter()
            .filter(|t| t != own && !(own.is_empty() || t.starts_with(&format!("{own}::"))))
            .filter(|t| known.contains(t))
            .collect();
        edges.insert(own, targets);
    }
    // Tarjan's strongly connected components.
    struct State<'a> {
        edges: &'a BTreeMap<&'a str, Vec<String>>,
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
                let lw = s.low[&w];
                let lv = s.low[v];
                s.low.insert(v.to_string(), lv.min(lw));
            } else if s.stack.contains(&w) {
                let iw = s.index[&w];
                let lv = s.low[v];
                s.low.insert(v.to_string(), lv.min(iw));
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
        edges: &edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !state.index.contains_key(*v) {
            visit(&mut state, v);
        }
    }
    state.out
}

fn library_sources() -> Vec<Source> {
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
                // The binary (`main.rs`, `cli/`) sits on top of the library;
                // unit-test files are not part of the layering.
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
fn no_source_files_import_each_other_in_a_circle() {
    assert_eq!(circles(&library_sources()), Vec::<Vec<String>>::new());
}

/// The checker itself: an upward import and a circle are both found.
#[test]
fn the_layer_checker_finds_an_upward_import_and_a_circle() {
    let fixture = |module: &str, text: &str| Source {
        module: module.to_string(),
        text: text.to_string(),
    };
    let sources = vec![
        fixture(
            "value",
            "//! v\nuse crate::eval::ops::sum; // reads upward\n",
        ),
        fixture(
            "eval",
            "//! e\npub mod ops;\nuse crate::value::{Value, describe};\n",
        ),
        fixture(
            "eval::ops",
            "//! o\nuse super::Machine;\n/// see crate::case\n",
        ),
        fixture(
            "case",
            "//! c\nfn f() { let s = \"crate::pipeline\"; crate::eval::run(); }\n",
        ),
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
