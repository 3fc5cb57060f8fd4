//! A word-level diff of two texts (a reworded clause): the longest common
//! subsequence of their words, as runs of kept, removed and added words.

use serde::Serialize;

/// Texts longer than this many words are shown as one removal and one
/// addition: the table of the common subsequence grows as the product
/// (here at most 4 MB).
const MAX_WORDS: usize = 1000;

/// One run of words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WordRun {
    /// `same`, `removed` or `added`.
    pub op: &'static str,
    /// The words, joined by single spaces.
    pub text: String,
}

/// The runs that turn `old` into `new`, word by word.
pub fn word_diff(old: &str, new: &str) -> Vec<WordRun> {
    let a: Vec<&str> = old.split_whitespace().collect();
    let b: Vec<&str> = new.split_whitespace().collect();
    let mut ops: Vec<(&'static str, &str)> = Vec::new();
    if a.len() > MAX_WORDS || b.len() > MAX_WORDS {
        ops.extend(a.iter().map(|w| ("removed", *w)));
        ops.extend(b.iter().map(|w| ("added", *w)));
        return runs(ops);
    }
    // lcs[i][j]: length of the common subsequence of a[i..] and b[j..].
    let width = b.len() + 1;
    let mut lcs = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i * width + j] = if a[i] == b[j] {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            ops.push(("same", a[i]));
            i += 1;
            j += 1;
        } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
            ops.push(("removed", a[i]));
            i += 1;
        } else {
            ops.push(("added", b[j]));
            j += 1;
        }
    }
    ops.extend(a[i..].iter().map(|w| ("removed", *w)));
    ops.extend(b[j..].iter().map(|w| ("added", *w)));
    runs(ops)
}

fn runs(ops: Vec<(&'static str, &str)>) -> Vec<WordRun> {
    let mut out: Vec<WordRun> = Vec::new();
    for (op, word) in ops {
        match out.last_mut() {
            Some(run) if run.op == op => {
                run.text.push(' ');
                run.text.push_str(word);
            }
            _ => out.push(WordRun {
                op,
                text: word.to_string(),
            }),
        }
    }
    out
}
