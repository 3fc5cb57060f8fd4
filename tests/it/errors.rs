//! No public function of the library returns `Result<_, String>`: a
//! caller matches on an error's kind and its stable `code()`, never on
//! its words. Read from the source text as `layers.rs` reads it (comments,
//! literals and `#[cfg(test)]` modules blanked); the binary (`src/cli/`)
//! is not the library and is not read.

use super::layers::{code_of, library_sources};
use crate::root;

/// Modules that keep `pub fn … -> Result<_, String>` because nothing
/// outside the crate reaches them: each lies in a private top-level module
/// (checked against `src/lib.rs`) and still has such a function (checked:
/// the list only shrinks). The built-in functions' operations return a
/// bare message the interpreter locates at the call, and the table of
/// built-ins (`model::func::FUNCS`) holds them as
/// `fn(&[Value]) -> Result<Value, String>`.
const PRIVATE: &[&str] = &["model::ops"];

/// Every `pub fn` (not `pub(crate)` or `pub(super)`) of `code` whose
/// return type is a `Result` with `String` as its error, by name, and
/// every `type Err = String` (a public trait's error), as `Err`.
fn string_errors(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let at = |i: usize, word: &str| {
        let w: Vec<char> = word.chars().collect();
        chars.get(i..i + w.len()) == Some(&w[..])
    };
    let boundary = |i: usize| i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    let mut found = Vec::new();
    for i in 0..chars.len() {
        if at(i, "type Err") && boundary(i) {
            let rest: String = chars[i + 8..].iter().take_while(|&&c| c != ';').collect();
            if rest.trim().trim_start_matches('=').trim() == "String" {
                found.push("Err".to_string());
            }
        }
        if !(at(i, "pub fn ") && boundary(i)) {
            continue;
        }
        let mut j = i + 7;
        let name: String = chars[j..]
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .collect();
        j += name.chars().count();
        // The generic parameters, if any: `->` inside them closes nothing.
        if chars.get(j) == Some(&'<') {
            let mut depth = 0;
            while j < chars.len() {
                match chars[j] {
                    '<' => depth += 1,
                    '>' if chars[j - 1] != '-' => depth -= 1,
                    _ => {}
                }
                j += 1;
                if depth == 0 {
                    break;
                }
            }
        }
        // The parameters: a closure's `-> Result<_, String>` there is no return type.
        let mut depth = 0;
        while j < chars.len() {
            match chars[j] {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            j += 1;
            if depth == 0 {
                break;
            }
        }
        let tail: String = chars[j..]
            .iter()
            .take_while(|&&c| c != '{' && c != ';')
            .collect();
        let tail = tail.split(" where").next().unwrap_or_default();
        let Some(ret) = tail.trim_start().strip_prefix("->") else {
            continue;
        };
        let ret: String = ret.chars().filter(|c| !c.is_whitespace()).collect();
        let Some(start) = ret.find("Result<") else {
            continue;
        };
        if !ret[..start].is_empty() && !ret[..start].ends_with("::") {
            continue;
        }
        // The `Result`'s last argument at its own depth.
        let inner = &ret[start + 7..];
        let (mut depth, mut last) = (0i32, 0);
        let mut end = inner.len();
        for (k, c) in inner.char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' if depth == 0 => {
                    end = k;
                    break;
                }
                '>' | ')' | ']' => depth -= 1,
                ',' if depth == 0 => last = k + 1,
                _ => {}
            }
        }
        if inner[last..end].trim_end_matches(',') == "String" {
            found.push(name);
        }
    }
    found
}

/// The top-level modules `src/lib.rs` declares without `pub`.
fn private_modules() -> Vec<String> {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("src/lib.rs");
    lib.lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect()
}

#[test]
fn no_public_function_returns_a_string_error() {
    let sources = library_sources();
    assert!(sources.len() > 20, "read {} source files", sources.len());
    let mut offenders = Vec::new();
    for src in &sources {
        let found = string_errors(&code_of(&src.text));
        if PRIVATE.contains(&src.module.as_str()) {
            assert!(
                !found.is_empty(),
                "{} returns no String error any more: take it off PRIVATE",
                src.module
            );
            continue;
        }
        offenders.extend(found.into_iter().map(|f| format!("{}::{f}", src.module)));
    }
    assert!(
        offenders.is_empty(),
        "public functions with a String error (give them an error type with a code): {offenders:?}"
    );
    let private = private_modules();
    assert!(private.contains(&"model".to_string()), "{private:?}");
    for module in PRIVATE {
        let top = module.split("::").next().unwrap_or_default();
        assert!(
            private.contains(&top.to_string()),
            "{module} is public now: its String errors are reachable"
        );
        assert!(
            sources.iter().any(|s| s.module == *module),
            "{module} is gone: take it off PRIVATE"
        );
    }
}

#[test]
fn the_string_error_scan_reads_signatures_as_written() {
    let code = code_of(
        r#"
pub fn plain(x: u8) -> Result<u8, String> { todo!() }
pub fn across(
    dir: &Path,
) -> Result<Vec<(String, serde_json::Value)>, String> {
    todo!()
}
pub fn typed() -> std::result::Result<(), String>;
pub fn generic<F: Fn() -> Result<(), String>>(f: F) -> Result<String, Error> { todo!() }
pub fn closure(f: impl Fn(&T) -> Result<R, String>) -> Result<(), E> { todo!() }
pub fn nested() -> Result<Vec<String>, Box<String>> { todo!() }
pub(crate) fn inner() -> Result<(), String> { todo!() }
fn private() -> Result<(), String> { todo!() }
// pub fn commented() -> Result<(), String>
pub fn with_where<T>(t: T) -> Result<T, String> where T: Copy { todo!() }
impl FromStr for X { type Err = String; }
impl FromStr for Y { type Err = YError; }
"#,
    );
    assert_eq!(
        string_errors(&code),
        ["plain", "across", "typed", "with_where", "Err"]
    );
}
