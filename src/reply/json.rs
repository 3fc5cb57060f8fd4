//! Strict JSON for replies: one pass, bounded depth, every key kept in order.
//!
//! serde_json keeps the last of two equal keys without a word, and reads
//! `1e999999999` by evaluating it; a reply parser may do neither. This one
//! reports duplicate keys at any depth, names the non-standard constants
//! (`NaN`, `Infinity`) instead of calling them syntax errors, refuses lone
//! surrogates and control characters in strings, and keeps each number as
//! the text written, so that what a number *is* stays the rubric's reading
//! (`amount`), done later and without evaluating huge exponents.
//!
//! Invariant: linear in the text (each byte is looked at a bounded number of
//! times; keys go through one hash set per object), recursion at most
//! [`MAX_DEPTH`] deep, no panic on any input.

use std::collections::HashSet;

use super::Malformed;

/// Deepest nesting of arrays and objects (the replies graded are 3 deep).
pub const MAX_DEPTH: usize = 32;

/// A JSON value as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, as its text (`-12.50e3`), checked against the JSON grammar.
    Number(Box<str>),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, its keys in the order written (no two equal).
    Object(Vec<(String, Json)>),
}

impl Json {
    /// What a value is, for messages: `a list`, `null`, …
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "a list",
            Json::Object(_) => "an object",
        }
    }

    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Parses `text` as exactly one JSON value, with JSON whitespace (space,
/// tab, CR, LF) allowed before and after it and nothing else.
pub fn parse_json(text: &str) -> Result<Json, Malformed> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        pos: 0,
        path: Vec::new(),
    };
    p.skip_ws();
    if p.pos == p.bytes.len() {
        return Err(Malformed::new("reply::empty", "there is no JSON value"));
    }
    let value = p.value(0)?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.syntax("text after the JSON value"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Where the parser is, for messages: keys and list indices.
    path: Vec<String>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\r' | b'\n') = self.peek() {
            self.pos += 1;
        }
    }

    fn here(&self) -> String {
        format!("${}", self.path.concat())
    }

    fn syntax(&self, what: &str) -> Malformed {
        Malformed::new(
            "reply::invalid_json",
            format!("invalid JSON at byte {}: {what}", self.pos),
        )
    }

    fn value(&mut self, depth: usize) -> Result<Json, Malformed> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string().map(Json::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            _ => Err(self.not_a_value()),
        }
    }

    /// A value that does not start as JSON: a named constant or a syntax error.
    fn not_a_value(&self) -> Malformed {
        let rest = &self.bytes[self.pos..];
        for constant in ["NaN", "Infinity", "-Infinity", "+Infinity", "-NaN"] {
            if rest.starts_with(constant.as_bytes()) {
                return Malformed::new(
                    "reply::non_standard_constant",
                    format!("{constant} at {} is not JSON", self.here()),
                );
            }
        }
        match self.peek() {
            None => self.syntax("the text ends where a value should be"),
            Some(_) => self.syntax("expected a value"),
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, Malformed> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.syntax("expected a value"))
        }
    }

    fn deeper(&self, depth: usize) -> Result<(), Malformed> {
        if depth > MAX_DEPTH {
            return Err(Malformed::new(
                "reply::too_deep",
                format!("lists and objects nest more than {MAX_DEPTH} deep"),
            ));
        }
        Ok(())
    }

    fn object(&mut self, depth: usize) -> Result<Json, Malformed> {
        self.deeper(depth)?;
        self.pos += 1;
        let mut entries = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(entries));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.syntax("expected a key in double quotes"));
            }
            let key = self.string()?;
            if !seen.insert(key.clone()) {
                let at = self.here();
                return Err(Malformed::new(
                    "reply::duplicate_key",
                    format!("the key {key:?} appears twice in the object at {at}"),
                ));
            }
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.syntax("expected `:` after a key"));
            }
            self.pos += 1;
            self.skip_ws();
            self.path.push(format!(".{key}"));
            let value = self.value(depth);
            self.path.pop();
            entries.push((key, value?));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(entries));
                }
                _ => return Err(self.syntax("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, Malformed> {
        self.deeper(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_ws();
            self.path.push(format!("[{}]", items.len()));
            let value = self.value(depth);
            self.path.pop();
            items.push(value?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.syntax("expected `,` or `]`")),
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

    fn number(&mut self) -> Result<Json, Malformed> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if self.bytes[self.pos..].starts_with(b"Infinity")
                || self.bytes[self.pos..].starts_with(b"NaN")
            {
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
        // The slice is ASCII: every byte was matched above.
        let text = String::from_utf8_lossy(&self.bytes[start..self.pos]);
        Ok(Json::Number(text.into()))
    }

    fn hex4(&mut self) -> Result<u32, Malformed> {
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

    fn string(&mut self) -> Result<String, Malformed> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let run = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // The input is a &str and the run stops only at ASCII bytes, so
            // it is whole characters.
            out.push_str(&String::from_utf8_lossy(&self.bytes[run..self.pos]));
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(e) = self.peek() else {
                        return Err(self.syntax("the text ends inside a string"));
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let c = self.unicode_escape()?;
                            out.push(c);
                        }
                        _ => return Err(self.syntax("unknown escape in a string")),
                    }
                }
                Some(_) => {
                    return Err(Malformed::new(
                        "reply::invalid_json",
                        format!(
                            "invalid JSON at byte {}: a control character inside a string",
                            self.pos
                        ),
                    ))
                }
                None => return Err(self.syntax("the text ends inside a string")),
            }
        }
    }

    fn unicode_escape(&mut self) -> Result<char, Malformed> {
        let lone = |p: &Self| {
            Malformed::new(
                "reply::lone_surrogate",
                format!(
                    "a \\u escape at byte {} is half of a surrogate pair without the other half",
                    p.pos
                ),
            )
        };
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if !self.bytes[self.pos..].starts_with(b"\\u") {
                    return Err(lone(self));
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(lone(self));
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(lone(self)),
            c => c,
        };
        char::from_u32(code).ok_or_else(|| lone(self))
    }
}
