//! The one-pass reader: a JSON text into [`Node`]s, each container pushed,
//! then its parts, then given its count and end.
//!
//! It is strict where a reader may choose: two equal keys in one object,
//! `NaN` and `Infinity`, lone surrogate escapes and nesting past the
//! caller's bound are each refused by name, and a number is kept as the
//! text written, checked against the JSON grammar only. Where it stops is
//! given as a byte offset and, for the errors a reader of a path wants
//! (a constant, a duplicate key), as the keys and indices leading there,
//! gathered while the error unwinds, so reading costs nothing for them.
//!
//! Invariant: linear in the text (each byte looked at a bounded number of
//! times; an object's keys compared pairwise up to [`FEW`], through one
//! hash set past that), recursion at most `max_depth` deep, every index
//! checked, no panic on any input.

use std::borrow::Cow;
use std::collections::HashSet;

use super::{Item, Node};

/// Why a text is not read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What is wrong.
    pub kind: ErrorKind,
    /// The byte offset the reader stood at.
    pub at: usize,
    /// From the root: the keys and indices leading to the value being read
    /// (for a duplicate key, to its object).
    pub path: Vec<Step>,
}

/// What is wrong with a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Nothing but whitespace.
    Empty,
    /// Not JSON: what was found where, in a few words.
    Syntax(&'static str),
    /// `NaN`, `Infinity`, `-Infinity`, `+Infinity` or `-NaN` where a value should be.
    Constant(&'static str),
    /// Arrays and objects nested deeper than the bound.
    TooDeep,
    /// A key written twice in one object (unescaped).
    DuplicateKey(String),
    /// A `\u` escape of half a surrogate pair without the other half.
    LoneSurrogate,
}

/// One step of a path into a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// An object's key.
    Key(String),
    /// An array's index.
    Index(usize),
}

/// Keys of an object compared pairwise; past them, a hash set. Enough for
/// the widest object of a bundled rulebook's case (a paie-fr payslip's 18
/// inputs), so a case never builds a set: SipHash for each key and the set's
/// growth cost more than the pairwise scan of so few (BENCHMARKS.md, "The
/// library round").
const FEW: usize = 24;

/// Reads `text` as exactly one JSON value (JSON whitespace allowed around
/// it) into `nodes`, which must be empty: the value's node first, then its
/// parts. Arrays and objects may nest `max_depth` deep.
pub fn read<'t>(
    text: &'t str,
    max_depth: usize,
    nodes: &mut Vec<Node<'t>>,
) -> Result<(), Box<Error>> {
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        max_depth,
        nodes,
    };
    reader.skip_ws();
    if reader.pos == reader.bytes.len() {
        return Err(reader.error(ErrorKind::Empty));
    }
    let read = reader.value(0).and_then(|()| {
        reader.skip_ws();
        if reader.pos < reader.bytes.len() {
            return Err(reader.syntax("text after the JSON value"));
        }
        Ok(())
    });
    read.map_err(|mut e| {
        e.path.reverse();
        e
    })
}

struct Reader<'t, 'n> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    max_depth: usize,
    nodes: &'n mut Vec<Node<'t>>,
}

type Read<T> = Result<T, Box<Error>>;

impl<'t> Reader<'t, '_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn rest(&self) -> &'t [u8] {
        self.bytes.get(self.pos..).unwrap_or_default()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\r' | b'\n') = self.peek() {
            self.pos += 1;
        }
    }

    #[cold]
    fn error(&self, kind: ErrorKind) -> Box<Error> {
        Box::new(Error {
            kind,
            at: self.pos,
            path: Vec::new(),
        })
    }

    #[cold]
    fn syntax(&self, what: &'static str) -> Box<Error> {
        self.error(ErrorKind::Syntax(what))
    }

    fn push(&mut self, item: Item<'t>) -> usize {
        let at = self.nodes.len();
        self.nodes.push(Node { item, end: at + 1 });
        at
    }

    /// The value at `pos` (whitespace before it already skipped).
    fn value(&mut self, depth: usize) -> Read<()> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => {
                let s = self.string()?;
                self.push(Item::String(s));
                Ok(())
            }
            Some(b'-' | b'0'..=b'9') => {
                let n = self.number()?;
                self.push(Item::Number(n));
                Ok(())
            }
            Some(b't') => self.literal("true", Item::Bool(true)),
            Some(b'f') => self.literal("false", Item::Bool(false)),
            Some(b'n') => self.literal("null", Item::Null),
            _ => Err(self.not_a_value()),
        }
    }

    /// A value that does not start as JSON: a named constant or a syntax error.
    #[cold]
    fn not_a_value(&self) -> Box<Error> {
        let rest = self.rest();
        for constant in ["NaN", "Infinity", "-Infinity", "+Infinity", "-NaN"] {
            if rest.starts_with(constant.as_bytes()) {
                return self.error(ErrorKind::Constant(constant));
            }
        }
        match self.peek() {
            None => self.syntax("the text ends where a value should be"),
            Some(_) => self.syntax("expected a value"),
        }
    }

    fn literal(&mut self, word: &str, item: Item<'t>) -> Read<()> {
        if !self.rest().starts_with(word.as_bytes()) {
            return Err(self.syntax("expected a value"));
        }
        self.pos += word.len();
        self.push(item);
        Ok(())
    }

    fn deeper(&self, depth: usize) -> Read<()> {
        if depth > self.max_depth {
            return Err(self.error(ErrorKind::TooDeep));
        }
        Ok(())
    }

    /// The container at `at` closed: its count and end set.
    fn close(&mut self, at: usize, item: Item<'t>) {
        let end = self.nodes.len();
        if let Some(node) = self.nodes.get_mut(at) {
            *node = Node { item, end };
        }
    }

    fn array(&mut self, depth: usize) -> Read<()> {
        self.deeper(depth)?;
        self.pos += 1;
        let at = self.push(Item::Array(0));
        let mut n = 0;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.close(at, Item::Array(0));
            return Ok(());
        }
        loop {
            self.skip_ws();
            self.value(depth).map_err(|e| within(e, Step::Index(n)))?;
            n += 1;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    self.close(at, Item::Array(n));
                    return Ok(());
                }
                _ => return Err(self.syntax("expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Read<()> {
        self.deeper(depth)?;
        self.pos += 1;
        let at = self.push(Item::Object(0));
        let mut n = 0;
        let mut keys = Keys::default();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.close(at, Item::Object(0));
            return Ok(());
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.syntax("expected a key in double quotes"));
            }
            let key = self.string()?;
            let key_at = self.push(Item::String(key));
            if !keys.insert(self.nodes, key_at) {
                let key = key_text(self.nodes, key_at).to_string();
                return Err(self.error(ErrorKind::DuplicateKey(key)));
            }
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.syntax("expected `:` after a key"));
            }
            self.pos += 1;
            self.skip_ws();
            if let Err(e) = self.value(depth) {
                return Err(within(e, Step::Key(key_text(self.nodes, key_at).into())));
            }
            n += 1;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    self.close(at, Item::Object(n));
                    return Ok(());
                }
                _ => return Err(self.syntax("expected `,` or `}`")),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    /// A number's text, checked against the JSON grammar.
    fn number(&mut self) -> Read<&'t str> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if self.rest().starts_with(b"Infinity") || self.rest().starts_with(b"NaN") {
                self.pos = start;
                return Err(self.not_a_value());
            }
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.syntax("a number may not start with 0"));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.syntax("expected digits")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.syntax("expected digits after `.`"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.syntax("expected digits in the exponent"));
            }
        }
        // ASCII only was matched, so both ends are character boundaries.
        Ok(self.text.get(start..self.pos).unwrap_or_default())
    }

    /// Skips the characters of a string that stand for themselves; it stops
    /// only at ASCII bytes, so on a character boundary.
    fn run(&mut self) {
        while let Some(b) = self.peek() {
            if b == b'"' || b == b'\\' || b < 0x20 {
                break;
            }
            self.pos += 1;
        }
    }

    /// A string (its opening quote at `pos`), borrowed from the text unless
    /// it holds an escape.
    fn string(&mut self) -> Read<Cow<'t, str>> {
        self.pos += 1;
        let start = self.pos;
        self.run();
        if self.peek() == Some(b'"') {
            let s = self.text.get(start..self.pos).unwrap_or_default();
            self.pos += 1;
            return Ok(Cow::Borrowed(s));
        }
        let mut out = String::from(self.text.get(start..self.pos).unwrap_or_default());
        loop {
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(e) = self.peek() else {
                        return Err(self.syntax("the text ends inside a string"));
                    };
                    self.pos += 1;
                    out.push(match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return Err(self.syntax("unknown escape in a string")),
                    });
                }
                Some(_) => return Err(self.syntax("a control character inside a string")),
                None => return Err(self.syntax("the text ends inside a string")),
            }
            let run = self.pos;
            self.run();
            out.push_str(self.text.get(run..self.pos).unwrap_or_default());
        }
    }

    fn hex4(&mut self) -> Read<u32> {
        let Some(chunk) = self.bytes.get(self.pos..self.pos + 4) else {
            return Err(self.syntax("a \\u escape needs four hex digits"));
        };
        let mut n = 0u32;
        for &b in chunk {
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return Err(self.syntax("a \\u escape needs four hex digits")),
            };
            n = n * 16 + u32::from(d);
        }
        self.pos += 4;
        Ok(n)
    }

    /// A `\u` escape (its `\u` read), a surrogate pair as one character.
    fn unicode_escape(&mut self) -> Read<char> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if !self.rest().starts_with(b"\\u") {
                    return Err(self.error(ErrorKind::LoneSurrogate));
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.error(ErrorKind::LoneSurrogate));
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error(ErrorKind::LoneSurrogate)),
            c => c,
        };
        char::from_u32(code).ok_or_else(|| self.error(ErrorKind::LoneSurrogate))
    }
}

/// An error raised inside a container's part: the part's step added (the
/// path is gathered innermost first, and turned round at the top).
#[cold]
fn within(mut e: Box<Error>, step: Step) -> Box<Error> {
    e.path.push(step);
    e
}

/// The text of the key node at `at`.
fn key_text<'a>(nodes: &'a [Node<'_>], at: usize) -> &'a str {
    match nodes.get(at).map(|n| &n.item) {
        Some(Item::String(k)) => k,
        _ => "",
    }
}

/// The keys of the object being read, as node indices: the first [`FEW`]
/// compared pairwise, and past them a set of all.
#[derive(Default)]
struct Keys<'t> {
    first: [usize; FEW],
    /// Each of the first keys' [`fingerprint`], compared before its text.
    prints: [u64; FEW],
    count: usize,
    more: Option<HashSet<Cow<'t, str>>>,
}

impl<'t> Keys<'t> {
    /// Whether the key node at `at` is new to the object, counting it.
    fn insert(&mut self, nodes: &[Node<'t>], at: usize) -> bool {
        let key = |at: usize| match nodes.get(at).map(|n| &n.item) {
            Some(Item::String(k)) => k.clone(),
            _ => Cow::Borrowed(""),
        };
        if let Some(more) = &mut self.more {
            return more.insert(key(at));
        }
        let n = self.count;
        if n < FEW {
            let text = key_text(nodes, at);
            let print = fingerprint(text);
            let same = |i: usize| self.prints[i] == print && key_text(nodes, self.first[i]) == text;
            if (0..n).any(same) {
                return false;
            }
            self.first[n] = at;
            self.prints[n] = print;
            self.count += 1;
            return true;
        }
        // The first past the few: from now on, a set, sized for as many again.
        let mut more: HashSet<Cow<'t, str>> = HashSet::with_capacity(2 * FEW);
        more.extend(self.first.iter().map(|&k| key(k)));
        let new = more.insert(key(at));
        self.more = Some(more);
        new
    }
}

/// A key's length and its first and last bytes: two keys that differ here
/// differ, so most pairs are told apart without reading either text.
fn fingerprint(key: &str) -> u64 {
    let bytes = key.as_bytes();
    let edge = |b: Option<&u8>| u64::from(b.copied().unwrap_or(0));
    ((bytes.len() as u64) << 16) | (edge(bytes.first()) << 8) | edge(bytes.last())
}
