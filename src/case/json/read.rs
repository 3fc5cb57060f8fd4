//! The one-pass reader of a case's text into [`CaseJson`]'s flat nodes:
//! each container pushed, then its parts, then given its count and end.
//!
//! Invariant: it gives `None` for any text it is not sure serde_json reads
//! as it does (see `json`'s invariant), and never panics: every index is
//! checked, recursion stops at [`MAX_DEPTH`].

use std::borrow::Cow;
use std::collections::HashSet;

use super::{Item, JsonNode, JsonView, Node, MAX_DEPTH};

/// The one-pass reader; every method gives `None` where the text is not
/// JSON it is sure of.
pub(super) struct Reader<'t> {
    pub(super) text: &'t str,
    pub(super) bytes: &'t [u8],
    pub(super) pos: usize,
    pub(super) nodes: Vec<Node<'t>>,
}

impl<'t> Reader<'t> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(super) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\r' | b'\n') = self.peek() {
            self.pos += 1;
        }
    }

    fn push(&mut self, item: Item<'t>) -> usize {
        let at = self.nodes.len();
        self.nodes.push(Node { item, end: at + 1 });
        at
    }

    pub(super) fn value(&mut self, depth: usize) -> Option<()> {
        self.skip_ws();
        match self.peek()? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => {
                let s = self.string()?;
                self.push(Item::String(s));
                Some(())
            }
            b'-' | b'0'..=b'9' => {
                let n = self.number()?;
                self.push(Item::Number(n));
                Some(())
            }
            b't' => self.literal("true", Item::Bool(true)),
            b'f' => self.literal("false", Item::Bool(false)),
            b'n' => self.literal("null", Item::Null),
            _ => None,
        }
    }

    fn literal(&mut self, word: &str, item: Item<'t>) -> Option<()> {
        if !self.bytes.get(self.pos..)?.starts_with(word.as_bytes()) {
            return None;
        }
        self.pos += word.len();
        self.push(item);
        Some(())
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        let at = self.push(Item::Array(0));
        let mut n = 0;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            loop {
                self.value(depth)?;
                n += 1;
                self.skip_ws();
                match self.peek()? {
                    b',' => self.pos += 1,
                    b']' => {
                        self.pos += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let end = self.nodes.len();
        *self.nodes.get_mut(at)? = Node {
            item: Item::Array(n),
            end,
        };
        Some(())
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        let at = self.push(Item::Object(0));
        let mut n = 0;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                self.skip_ws();
                if self.peek()? != b'"' {
                    return None;
                }
                let key = self.string()?;
                self.push(Item::String(key));
                self.skip_ws();
                if self.peek()? != b':' {
                    return None;
                }
                self.pos += 1;
                self.value(depth)?;
                n += 1;
                self.skip_ws();
                match self.peek()? {
                    b',' => self.pos += 1,
                    b'}' => {
                        self.pos += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let end = self.nodes.len();
        *self.nodes.get_mut(at)? = Node {
            item: Item::Object(n),
            end,
        };
        let object = JsonNode {
            nodes: &self.nodes,
            at,
        };
        distinct_keys(object).then_some(())
    }

    /// A number's text, checked against the JSON grammar.
    fn number(&mut self) -> Option<&'t str> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        self.text.get(start..self.pos)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    /// A string, borrowed from the text unless it holds an escape.
    fn string(&mut self) -> Option<Cow<'t, str>> {
        self.pos += 1;
        let start = self.pos;
        self.run();
        if self.peek()? == b'"' {
            let s = self.text.get(start..self.pos)?;
            self.pos += 1;
            return Some(Cow::Borrowed(s));
        }
        let mut out = String::from(self.text.get(start..self.pos)?);
        loop {
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Some(Cow::Owned(out));
                }
                b'\\' => {
                    let e = *self.bytes.get(self.pos + 1)?;
                    self.pos += 2;
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
                        _ => return None,
                    });
                }
                // A control character: serde_json names it.
                _ => return None,
            }
            let run = self.pos;
            self.run();
            out.push_str(self.text.get(run..self.pos)?);
        }
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

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.text.get(self.pos..self.pos + 4)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.pos += 4;
        u32::from_str_radix(digits, 16).ok()
    }

    /// A `\u` escape (its `\u` read), a surrogate pair as one character;
    /// half of a pair is left to serde_json.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if !self.bytes.get(self.pos..)?.starts_with(b"\\u") {
                    return None;
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return None;
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return None,
            c => c,
        };
        char::from_u32(code)
    }
}

/// Whether an object's keys are all different: a pair compared for a few
/// keys, a set past that.
fn distinct_keys(object: JsonNode<'_>) -> bool {
    const FEW: usize = 12;
    if object.len() <= FEW {
        let mut keys = [""; FEW];
        for (i, (key, _)) in object.entries().enumerate() {
            if keys[..i].contains(&key) {
                return false;
            }
            if let Some(slot) = keys.get_mut(i) {
                *slot = key;
            }
        }
        return true;
    }
    let mut seen = HashSet::with_capacity(object.len());
    object.entries().all(|(key, _)| seen.insert(key))
}
