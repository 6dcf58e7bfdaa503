//! The page's own JSON: a writer and a streaming reader, just big enough for
//! share links.
//!
//! The page's WebAssembly has a budget of 400 KiB gzipped, and it was over.
//! Share links were the only part of the page that used serde_json, and
//! with serde's derives of the link's types (serde_json's generic
//! deserializer instantiated for each of them, serde's buffering of the
//! flattened, internally tagged command) weighed enough that replacing them
//! with this module took 20.6 KB off the optimized, gzipped page (45.4 KB
//! before gzip; measured on the release build after wasm-opt -Oz). A share
//! link is one small, fixed shape, so the page writes and reads it by hand
//! here, and serde_json is left to the native scenario files and the CLI.
//! The links are byte for byte what serde_json wrote and read
//! (`tests/share_links.rs` holds the two side by side).
//!
//! [`Writer`] writes compact JSON with serde_json's escaping. [`Reader`]
//! reads from a string without building a tree: [`Reader::object`] checks a
//! whole object in one pass and notes where each known field's value starts,
//! so fields may come in any order; the caller then reads each field with
//! the reader for its type. Everything it refuses is a [`JsonError`] saying
//! where and why, as data that each language renders.

use std::fmt::Write as _;

/// The deepest nesting read. A share link nests five deep; the margin lets
/// a link of a later version, nested deeper, still be named by its `v`, and
/// the bound keeps the reader's recursion small whatever a link holds.
pub const MAX_DEPTH: u32 = 64;

/// Why a text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// The byte offset in the JSON text.
    pub at: usize,
    pub kind: JsonErrorKind,
    /// The keys and array indexes from the document's top down to the value
    /// at fault (empty for the document itself and for syntax errors).
    pub path: Vec<PathPart>,
}

/// A step of a [`JsonError`]'s path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathPart {
    Key(String),
    Index(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// The text ends inside a value, as a link cut short does.
    Truncated,
    /// A character that cannot stand here.
    Unexpected(char),
    /// More text after the document's end.
    Trailing,
    /// A string with a raw control character, an unknown escape or half a
    /// surrogate pair.
    BadString,
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A value of another type than the field's.
    Expected(Expected),
    /// A whole number outside the range of the field's type.
    OutOfRange { min: i64, max: u64 },
    /// A field the value must have.
    Missing,
    /// A field this kind of object does not have.
    Unknown,
    /// A field given twice.
    Duplicate,
    /// A name that is none of these.
    Choice(&'static [&'static str]),
    /// An array with more than this many elements.
    TooMany(usize),
}

/// The type a value should have had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    Object,
    Array,
    String,
    Integer,
    Bool,
    /// An array of exactly two strings.
    Pair,
}

impl JsonError {
    pub fn new(at: usize, kind: JsonErrorKind) -> Self {
        Self { at, kind, path: Vec::new() }
    }

    /// The same error, one step further down from `part`.
    fn under(mut self, part: PathPart) -> Self {
        self.path.insert(0, part);
        self
    }

    /// The path as JSON names it: `setup.topics[0].name`.
    pub fn path_text(&self) -> String {
        let mut text = String::new();
        for part in &self.path {
            match part {
                PathPart::Key(k) if text.is_empty() => text.push_str(k),
                PathPart::Key(k) => {
                    text.push('.');
                    text.push_str(k);
                }
                PathPart::Index(i) => {
                    let _ = write!(text, "[{i}]");
                }
            }
        }
        text
    }
}

pub type Result<T> = std::result::Result<T, JsonError>;

/// Compact JSON, written as serde_json's `to_string` writes it.
#[derive(Default)]
pub struct Writer {
    out: String,
    /// Whether the next key or value follows another and needs a comma.
    comma: bool,
}

impl Writer {
    pub fn finish(self) -> String {
        self.out
    }

    fn separate(&mut self) {
        if self.comma {
            self.out.push(',');
        }
        self.comma = true;
    }

    /// Opens an object (`{`) or an array (`[`).
    pub fn open(&mut self, bracket: char) {
        self.separate();
        self.out.push(bracket);
        self.comma = false;
    }

    /// Closes what [`Writer::open`] opened (`}` or `]`).
    pub fn close(&mut self, bracket: char) {
        self.out.push(bracket);
        self.comma = true;
    }

    pub fn key(&mut self, key: &str) {
        self.string(key);
        self.out.push(':');
        self.comma = false;
    }

    /// A string, escaped as serde_json escapes: the quote, the backslash and
    /// the control characters, those with a short escape by it, the others
    /// as `\u00xx` in lower-case hex; everything else as it is.
    pub fn string(&mut self, s: &str) {
        self.separate();
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{8}' => self.out.push_str("\\b"),
                '\u{c}' => self.out.push_str("\\f"),
                c if c < ' ' => {
                    let _ = write!(self.out, "\\u{:04x}", c as u32);
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    /// A whole number, in decimal as serde_json writes every integer type.
    pub fn number(&mut self, n: impl std::fmt::Display) {
        self.separate();
        let _ = write!(self.out, "{n}");
    }

    pub fn bool(&mut self, b: bool) {
        self.separate();
        self.out.push_str(if b { "true" } else { "false" });
    }

    pub fn null(&mut self) {
        self.separate();
        self.out.push_str("null");
    }

    pub fn optional_string(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.string(s),
            None => self.null(),
        }
    }

    pub fn optional_number(&mut self, n: Option<impl std::fmt::Display>) {
        match n {
            Some(n) => self.number(n),
            None => self.null(),
        }
    }
}

/// Reads JSON from a string, one value at a time.
pub struct Reader<'a> {
    text: &'a str,
    at: usize,
    depth: u32,
}

/// An object's known fields, each with where its value starts, from
/// [`Reader::object`].
pub struct Object {
    known: &'static [&'static str],
    /// For each known field, where its value starts, until it is read.
    values: Vec<Option<usize>>,
    /// The first field not among the known ones, and where its value starts.
    unknown: Option<(String, usize)>,
    /// The first known field given twice, and where its second value starts.
    duplicate: Option<(usize, usize)>,
    start: usize,
    end: usize,
}

/// Keys longer than this are cut short in an error: a message names the
/// field, it does not repeat a megabyte of it.
const KEY_SHOWN_CHARS: usize = 40;

impl<'a> Reader<'a> {
    pub fn new(text: &'a str) -> Self {
        Self { text, at: 0, depth: 0 }
    }

    /// Whether the next value is an object.
    pub fn at_object(&mut self) -> bool {
        self.peek() == Some(b'{')
    }

    /// Where the next value starts.
    pub fn position(&mut self) -> usize {
        self.peek();
        self.at
    }

    fn error(&self, kind: JsonErrorKind) -> JsonError {
        JsonError::new(self.at, kind)
    }

    /// The next byte after any whitespace (JSON's four), without taking it.
    fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.text.as_bytes().get(self.at) {
            self.at += 1;
        }
        self.text.as_bytes().get(self.at).copied()
    }

    /// The error for what stands at the current position.
    fn unexpected(&self) -> JsonError {
        match self.text.get(self.at..).and_then(|rest| rest.chars().next()) {
            Some(c) => self.error(JsonErrorKind::Unexpected(c)),
            None => self.error(JsonErrorKind::Truncated),
        }
    }

    /// The error for a value of the wrong type: every value the typed
    /// readers see has been checked by [`Reader::skip`] already, so a
    /// mismatch is a type error, not a syntax error.
    fn expected(&self, what: Expected) -> JsonError {
        self.error(JsonErrorKind::Expected(what))
    }

    fn eat(&mut self, byte: u8) -> Result<()> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    /// One of JSON's literal words, whole.
    fn word(&mut self, word: &str) -> Result<()> {
        for expected in word.bytes() {
            match self.text.as_bytes().get(self.at) {
                Some(b) if *b == expected => self.at += 1,
                _ => return Err(self.unexpected()),
            }
        }
        Ok(())
    }

    /// After the document's one value only whitespace may follow.
    pub fn end(&mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error(JsonErrorKind::Trailing)),
        }
    }

    /// Takes a `null` if one stands here.
    pub fn null(&mut self) -> Result<bool> {
        if self.peek() != Some(b'n') {
            return Ok(false);
        }
        self.word("null")?;
        Ok(true)
    }

    pub fn bool(&mut self) -> Result<bool> {
        match self.peek() {
            Some(b't') => self.word("true").map(|_| true),
            Some(b'f') => self.word("false").map(|_| false),
            _ => Err(self.expected(Expected::Bool)),
        }
    }

    pub fn string(&mut self) -> Result<String> {
        if self.peek() != Some(b'"') {
            return Err(self.expected(Expected::String));
        }
        self.at += 1;
        let bytes = self.text.as_bytes();
        let mut out = String::new();
        loop {
            let run = self.at;
            while let Some(b) = bytes.get(self.at) {
                if *b == b'"' || *b == b'\\' || *b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // The run ends before an ASCII byte or at the end, so both ends
            // are character boundaries.
            out.push_str(&self.text[run..self.at]);
            match bytes.get(self.at) {
                None => return Err(self.error(JsonErrorKind::Truncated)),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let c = self.escape()?;
                    out.push(c);
                }
                Some(_) => return Err(self.error(JsonErrorKind::BadString)),
            }
        }
    }

    /// The character of the escape after a backslash; a UTF-16 surrogate
    /// pair is two `\u` escapes.
    fn escape(&mut self) -> Result<char> {
        let Some(b) = self.text.as_bytes().get(self.at).copied() else {
            return Err(self.error(JsonErrorKind::Truncated));
        };
        self.at += 1;
        Ok(match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.hex4()?;
                let code = match first {
                    0xD800..=0xDBFF => {
                        self.word("\\u").map_err(|_| self.error(JsonErrorKind::BadString))?;
                        match self.hex4()? {
                            low @ 0xDC00..=0xDFFF => 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00),
                            _ => return Err(self.error(JsonErrorKind::BadString)),
                        }
                    }
                    code => code,
                };
                // A lone low surrogate is no character.
                char::from_u32(code).ok_or(self.error(JsonErrorKind::BadString))?
            }
            _ => {
                self.at -= 1;
                return Err(self.error(JsonErrorKind::BadString));
            }
        })
    }

    fn hex4(&mut self) -> Result<u32> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = match self.text.as_bytes().get(self.at) {
                None => return Err(self.error(JsonErrorKind::Truncated)),
                Some(b) => (*b as char).to_digit(16).ok_or(self.error(JsonErrorKind::BadString))?,
            };
            code = code * 16 + digit;
            self.at += 1;
        }
        Ok(code)
    }

    /// A whole number from `min` to `max`. As serde_json, it takes no
    /// fraction or exponent (`1.0`, `1e2`) and no `-0`, which serde_json
    /// reads as floating-point numbers, so links it refused stay refused.
    pub fn integer(&mut self, min: i64, max: u64) -> Result<i128> {
        let negative = match self.peek() {
            Some(b'-') => true,
            Some(b'0'..=b'9') => false,
            _ => return Err(self.expected(Expected::Integer)),
        };
        let start_number = self.at;
        self.at += negative as usize;
        let digits = self.at;
        let mut magnitude: u64 = 0;
        let mut overflow = false;
        while let Some(b @ b'0'..=b'9') = self.text.as_bytes().get(self.at).copied() {
            match magnitude.checked_mul(10).and_then(|m| m.checked_add((b - b'0') as u64)) {
                Some(m) => magnitude = m,
                None => overflow = true,
            }
            self.at += 1;
        }
        if self.at == digits {
            return Err(self.unexpected());
        }
        if self.text.as_bytes()[digits] == b'0' && self.at > digits + 1 {
            self.at = digits + 1;
            return Err(self.unexpected());
        }
        let fraction = matches!(self.text.as_bytes().get(self.at), Some(b'.' | b'e' | b'E'));
        let value = if negative { -(magnitude as i128) } else { magnitude as i128 };
        if fraction || (negative && magnitude == 0) {
            self.at = start_number;
            return Err(self.expected(Expected::Integer));
        }
        if overflow || value < min as i128 || value > max as i128 {
            self.at = start_number;
            return Err(self.error(JsonErrorKind::OutOfRange { min, max }));
        }
        Ok(value)
    }

    pub fn u32(&mut self) -> Result<u32> {
        self.integer(0, u32::MAX as u64).map(|n| n as u32)
    }

    pub fn u64(&mut self) -> Result<u64> {
        self.integer(0, u64::MAX).map(|n| n as u64)
    }

    /// A `usize`: its range is the target's, 32 bits in the page.
    pub fn usize(&mut self) -> Result<usize> {
        self.integer(0, usize::MAX as u64).map(|n| n as usize)
    }

    pub fn i32(&mut self) -> Result<i32> {
        self.integer(i32::MIN as i64, i32::MAX as u64).map(|n| n as i32)
    }

    pub fn i64(&mut self) -> Result<i64> {
        self.integer(i64::MIN, i64::MAX as u64).map(|n| n as i64)
    }

    /// Passes over any one value, checking its syntax.
    pub fn skip(&mut self) -> Result<()> {
        match self.peek() {
            Some(b'{') => self.members(&mut |r, _| r.skip()),
            Some(b'[') => self.elements(&mut |r, _| r.skip()),
            Some(b'"') => self.string().map(drop),
            Some(b't') => self.word("true"),
            Some(b'f') => self.word("false"),
            Some(b'n') => self.word("null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.unexpected()),
        }
    }

    /// Passes over a number of any kind: `-? int frac? exp?`.
    fn number(&mut self) -> Result<()> {
        let _ = self.word("-");
        let digits = |r: &mut Self| {
            let start = r.at;
            while let Some(b'0'..=b'9') = r.text.as_bytes().get(r.at) {
                r.at += 1;
            }
            if r.at == start {
                Err(r.unexpected())
            } else {
                Ok(())
            }
        };
        // A leading zero stands alone: what follows it is not the number's.
        if self.word("0").is_err() {
            digits(self)?;
        }
        if self.word(".").is_ok() {
            digits(self)?;
        }
        if let Some(b'e' | b'E') = self.text.as_bytes().get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.text.as_bytes().get(self.at) {
                self.at += 1;
            }
            digits(self)?;
        }
        Ok(())
    }

    fn nest(&mut self) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(JsonErrorKind::TooDeep));
        }
        self.depth += 1;
        self.at += 1;
        Ok(())
    }

    /// An object's or an array's values between the brackets, with commas
    /// between them, calling `each` at each value.
    fn container(&mut self, close: u8, each: &mut dyn FnMut(&mut Self) -> Result<()>) -> Result<()> {
        self.nest()?;
        if self.peek() != Some(close) {
            loop {
                each(self)?;
                match self.peek() {
                    Some(b',') => self.at += 1,
                    Some(b) if b == close => break,
                    _ => return Err(self.unexpected()),
                }
            }
        }
        self.at += 1;
        self.depth -= 1;
        Ok(())
    }

    /// `{ "key": value, ... }`, calling `each` with each key and the reader
    /// at its value, which `each` must read.
    fn members(&mut self, each: &mut dyn FnMut(&mut Self, String) -> Result<()>) -> Result<()> {
        self.container(b'}', &mut |r| {
            if r.peek() != Some(b'"') {
                return Err(r.unexpected());
            }
            let key = r.string()?;
            r.eat(b':')?;
            r.peek();
            each(r, key)
        })
    }

    /// `[ value, ... ]`, calling `each` with each index and the reader at
    /// its value, which `each` must read.
    fn elements(&mut self, each: &mut dyn FnMut(&mut Self, usize) -> Result<()>) -> Result<()> {
        let mut index = 0;
        self.container(b']', &mut |r| {
            each(r, index)?;
            index += 1;
            Ok(())
        })
    }

    /// An object whose fields are among `known`. The whole object is
    /// checked here, once, for its syntax. A field not known, or a known one
    /// given twice, is only noted, and refused when the field is read or by
    /// [`Object::finish`], so that the caller can read one field (the
    /// version) before refusing the rest.
    pub fn object(&mut self, known: &'static [&'static str]) -> Result<Object> {
        if self.peek() != Some(b'{') {
            return Err(self.expected(Expected::Object));
        }
        let start = self.at;
        let mut values = vec![None; known.len()];
        let (mut unknown, mut duplicate) = (None, None);
        self.members(&mut |r, key| {
            match known.iter().position(|k| *k == key) {
                Some(i) if values[i].is_none() => values[i] = Some(r.at),
                Some(i) => {
                    duplicate.get_or_insert((i, r.at));
                }
                None => {
                    unknown.get_or_insert((key, r.at));
                }
            }
            r.skip()
        })?;
        Ok(Object { known, values, unknown, duplicate, start, end: self.at })
    }

    /// An array of values read by `read`, at most `max` of them.
    pub fn array<T>(&mut self, max: usize, read: fn(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        if self.peek() != Some(b'[') {
            return Err(self.expected(Expected::Array));
        }
        let start = self.at;
        let mut items = Vec::new();
        self.elements(&mut |r, i| {
            if i == max {
                return Err(JsonError::new(start, JsonErrorKind::TooMany(max)));
            }
            items.push(read(r).map_err(|e| e.under(PathPart::Index(i)))?);
            Ok(())
        })?;
        Ok(items)
    }
}

impl Object {
    /// Moves the reader to a field's value, once; None when it is absent.
    fn seek(&mut self, r: &mut Reader, key: &'static str) -> Result<Option<()>> {
        let Some(i) = self.known.iter().position(|k| *k == key) else {
            return Ok(None);
        };
        if let Some((_, at)) = self.duplicate.filter(|(d, _)| *d == i) {
            return Err(JsonError::new(at, JsonErrorKind::Duplicate).under(PathPart::Key(key.into())));
        }
        Ok(self.values[i].take().map(|at| r.at = at))
    }

    /// A field that may be absent.
    pub fn get<'t, T>(&mut self, r: &mut Reader<'t>, key: &'static str, read: fn(&mut Reader<'t>) -> Result<T>) -> Result<Option<T>> {
        match self.seek(r, key)? {
            Some(()) => read(r).map(Some).map_err(|e| e.under(PathPart::Key(key.into()))),
            None => Ok(None),
        }
    }

    /// A field that must be there.
    pub fn need<'t, T>(&mut self, r: &mut Reader<'t>, key: &'static str, read: fn(&mut Reader<'t>) -> Result<T>) -> Result<T> {
        self.get(r, key, read)?
            .ok_or_else(|| JsonError::new(self.start, JsonErrorKind::Missing).under(PathPart::Key(key.into())))
    }

    /// A field that may be absent or `null`, both None (serde's
    /// `Option` with `#[serde(default)]`).
    pub fn optional<'t, T>(&mut self, r: &mut Reader<'t>, key: &'static str, read: fn(&mut Reader<'t>) -> Result<T>) -> Result<Option<T>> {
        match self.seek(r, key)? {
            Some(()) => match r.null() {
                Ok(true) => Ok(None),
                _ => read(r).map(Some).map_err(|e| e.under(PathPart::Key(key.into()))),
            },
            None => Ok(None),
        }
    }

    /// Ends the object: a field it holds that was not read, known to the
    /// object's kind but not to its variant, or not known at all, is
    /// refused; the reader moves past the object.
    pub fn finish(self, r: &mut Reader) -> Result<()> {
        if let Some((i, at)) = self.duplicate {
            return Err(JsonError::new(at, JsonErrorKind::Duplicate).under(PathPart::Key(self.known[i].into())));
        }
        let unread = self.known.iter().zip(&self.values).find_map(|(k, v)| v.map(|at| (k.to_string(), at)));
        if let Some((key, at)) = unread.or(self.unknown) {
            let key = match key.char_indices().nth(KEY_SHOWN_CHARS) {
                Some((cut, _)) => format!("{}…", &key[..cut]),
                None => key,
            };
            return Err(JsonError::new(at, JsonErrorKind::Unknown).under(PathPart::Key(key)));
        }
        r.at = self.end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read<'t, T>(text: &'t str, f: fn(&mut Reader<'t>) -> Result<T>) -> Result<T> {
        let mut r = Reader::new(text);
        let v = f(&mut r)?;
        r.end()?;
        Ok(v)
    }

    fn kind<T: std::fmt::Debug>(r: Result<T>) -> JsonErrorKind {
        r.expect_err("an error").kind
    }

    #[test]
    fn strings_unescape_every_escape_json_has() {
        assert_eq!(read(r#""a\"b\\c\/d\b\f\n\r\t""#, Reader::string).unwrap(), "a\"b\\c/d\u{8}\u{c}\n\r\t");
        assert_eq!(read(r#""\u00e9\u00C9 \ud83d\ude00 é""#, Reader::string).unwrap(), "éÉ 😀 é");
        assert_eq!(kind(read(r#""\ud83d""#, Reader::string)), JsonErrorKind::BadString, "a lone high surrogate");
        assert_eq!(kind(read(r#""\ud83dx""#, Reader::string)), JsonErrorKind::BadString);
        assert_eq!(kind(read(r#""\ude00""#, Reader::string)), JsonErrorKind::BadString, "a lone low surrogate");
        assert_eq!(kind(read(r#""\ud83d\u0041""#, Reader::string)), JsonErrorKind::BadString);
        assert_eq!(kind(read(r#""\x""#, Reader::string)), JsonErrorKind::BadString);
        assert_eq!(kind(read(r#""\u12g4""#, Reader::string)), JsonErrorKind::BadString);
        assert_eq!(kind(read("\"a\u{1}\"", Reader::string)), JsonErrorKind::BadString, "a raw control character");
        assert_eq!(kind(read(r#""abc"#, Reader::string)), JsonErrorKind::Truncated);
        assert_eq!(kind(read(r#""\u12"#, Reader::string)), JsonErrorKind::Truncated);
        assert_eq!(kind(read("1", Reader::string)), JsonErrorKind::Expected(Expected::String));
    }

    #[test]
    fn integers_are_whole_and_in_range() {
        assert_eq!(read(" 4294967295 ", Reader::u32), Ok(u32::MAX));
        assert_eq!(read("-9223372036854775808", Reader::i64), Ok(i64::MIN));
        assert_eq!(read("18446744073709551615", Reader::u64), Ok(u64::MAX));
        assert_eq!(read("0", Reader::u64), Ok(0));
        let u32_range = JsonErrorKind::OutOfRange { min: 0, max: u32::MAX as u64 };
        assert_eq!(kind(read("4294967296", Reader::u32)), u32_range);
        assert_eq!(kind(read("-1", Reader::u32)), u32_range);
        assert!(matches!(kind(read("18446744073709551616", Reader::u64)), JsonErrorKind::OutOfRange { .. }));
        assert!(matches!(kind(read("-9223372036854775809", Reader::i64)), JsonErrorKind::OutOfRange { .. }));
        for not_whole in ["1.0", "1e2", "1E2", "-0", "\"1\"", "true", "null", "[]"] {
            assert_eq!(kind(read(not_whole, Reader::u32)), JsonErrorKind::Expected(Expected::Integer), "{not_whole}");
        }
        assert_eq!(kind(read("01", Reader::u32)), JsonErrorKind::Unexpected('1'));
        assert_eq!(kind(read("-", Reader::i32)), JsonErrorKind::Truncated);
        assert_eq!(kind(read("1 2", Reader::u32)), JsonErrorKind::Trailing);
    }

    #[test]
    fn skip_checks_the_syntax_of_any_value() {
        for good in ["0", "-0.5e+3", "1E-2", "12.25", "true", "false", "null", "\"\"", "[]", "{}", r#"{"a":[1,{"b":null}],"c":"d"}"#, " [ 1 , 2 ] "] {
            assert_eq!(read(good, Reader::skip), Ok(()), "{good}");
        }
        for (bad, at) in [("", 0), ("[1,]", 3), ("[1 2]", 3), ("{\"a\" 1}", 5), ("{a:1}", 1), ("[01]", 2), ("1.", 2), ("1e", 2), ("-x", 1), ("tru", 3), ("nul!", 3), ("{\"a\":1,}", 7), ("[", 1), ("+1", 0)] {
            let e = read(bad, Reader::skip).expect_err(bad);
            assert_eq!(e.at, at, "{bad}: {e:?}");
            assert!(matches!(e.kind, JsonErrorKind::Unexpected(_) | JsonErrorKind::Truncated), "{bad}: {e:?}");
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(read(&deep(MAX_DEPTH as usize), Reader::skip), Ok(()));
        assert_eq!(kind(read(&deep(MAX_DEPTH as usize + 1), Reader::skip)), JsonErrorKind::TooDeep);
        // A million brackets: refused at the limit, with no deeper recursion.
        assert_eq!(kind(read(&"[{\"a\":".repeat(1_000_000), Reader::skip)), JsonErrorKind::TooDeep);
    }

    #[test]
    fn objects_take_fields_in_any_order_once_each() {
        const KNOWN: &[&str] = &["a", "b"];
        let pair = |r: &mut Reader| {
            let mut o = r.object(KNOWN)?;
            let v = (o.need(r, "a", Reader::u32)?, o.optional(r, "b", Reader::string)?);
            o.finish(r)?;
            Ok(v)
        };
        assert_eq!(read(r#"{"b":"x","a":1}"#, pair), Ok((1, Some("x".into()))));
        assert_eq!(read(r#"{"a":1,"b":null}"#, pair), Ok((1, None)));
        assert_eq!(read(r#"{ "a" : 1 }"#, pair), Ok((1, None)));
        assert_eq!(read(r#"{"\u0061":1}"#, pair), Ok((1, None)), "keys are compared unescaped");
        let e = read(r#"{"b":"x"}"#, pair).unwrap_err();
        assert_eq!((e.kind, e.path_text()), (JsonErrorKind::Missing, "a".into()));
        let e = read(r#"{"a":1,"a":2}"#, pair).unwrap_err();
        assert_eq!((e.kind, e.path_text(), e.at), (JsonErrorKind::Duplicate, "a".into(), 11));
        let e = read(r#"{"a":1,"c":2}"#, pair).unwrap_err();
        assert_eq!((e.kind, e.path_text()), (JsonErrorKind::Unknown, "c".into()));
        let e = read(r#"{"a":"1"}"#, pair).unwrap_err();
        assert_eq!((e.kind, e.path_text(), e.at), (JsonErrorKind::Expected(Expected::Integer), "a".into(), 5));
        let long = format!("{{\"a\":1,\"{}\":0}}", "k".repeat(100));
        assert_eq!(read(&long, pair).unwrap_err().path_text(), format!("{}…", "k".repeat(40)));
        assert_eq!(kind(read("[]", pair)), JsonErrorKind::Expected(Expected::Object));
    }

    #[test]
    fn arrays_are_read_element_by_element_up_to_a_bound() {
        assert_eq!(read("[1, 2,3]", |r| r.array(3, Reader::u32)), Ok(vec![1, 2, 3]));
        assert_eq!(read("[]", |r| r.array(3, Reader::u32)), Ok(vec![]));
        assert_eq!(kind(read("[1,2,3,4]", |r| r.array(3, Reader::u32))), JsonErrorKind::TooMany(3));
        let e = read("[1,\"2\"]", |r| r.array(3, Reader::u32)).unwrap_err();
        assert_eq!((e.path, e.at), (vec![PathPart::Index(1)], 3));
        assert_eq!(kind(read("{}", |r| r.array(3, Reader::u32))), JsonErrorKind::Expected(Expected::Array));
    }

    #[test]
    fn the_writer_writes_compact_json() {
        let mut w = Writer::default();
        w.open('{');
        w.key("a");
        w.open('[');
        w.number(-1);
        w.string("x\"\\\u{1}\u{1f}\u{7f}é\n/");
        w.optional_number(None::<u32>);
        w.close(']');
        w.key("b");
        w.bool(true);
        w.key("c");
        w.open('{');
        w.close('}');
        w.close('}');
        assert_eq!(w.finish(), "{\"a\":[-1,\"x\\\"\\\\\\u0001\\u001f\u{7f}é\\n/\",null],\"b\":true,\"c\":{}}");
    }
}
