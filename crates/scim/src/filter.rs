//! The SCIM filter grammar (RFC 7644 §3.4.2.2) and PATCH paths (§3.5.2),
//! parsed into an AST.
//!
//! Over 500 lines on purpose: the lexer, the parser and the tree of one grammar
//! change together, and PATCH paths reuse the same parser.
//!
//! ```text
//! FILTER    = attrExp / logExp / valuePath / *1"not" "(" FILTER ")"
//! valuePath = attrPath "[" valFilter "]"      ; also valuePath "." subAttr op value (Entra)
//! attrExp   = (attrPath SP "pr") / (attrPath SP compareOp SP compValue)
//! logExp    = FILTER SP ("and" / "or") SP FILTER
//! compValue = false / null / true / number / string
//! attrPath  = [URI ":"] ATTRNAME *1subAttr
//! PATH      = attrPath / valuePath [subAttr]
//! ```
//!
//! Precedence: `not` binds tighter than `and`, which binds tighter than `or`;
//! parentheses group. Operators and keywords are case-insensitive; strings are
//! JSON strings (escapes included); numbers are finite (`1e999` is refused).
//! A filter holds at most [`MAX_FILTER_CONDITIONS`] conditions and nests
//! parentheses at most [`MAX_FILTER_NESTING`] deep.
//!
//! [`Filter`] and [`PatchPath`] print (`Display`) in a canonical form that
//! parses back to the same value.

use std::fmt;

/// Most comparisons and presence tests in one filter or PATCH path. Bounds
/// the depth of the parsed tree (an `and`/`or` chain is as deep as it is
/// long), which every later step walks recursively: a filter of thousands of
/// conditions overflowed the stack of the thread parsing it, aborting the
/// server.
pub const MAX_FILTER_CONDITIONS: usize = 100;

/// Deepest nesting of parentheses (`(…)`, `not (…)`) in one filter or PATCH
/// path; the parser recurses once per level.
pub const MAX_FILTER_NESTING: usize = 32;

/// An attribute path: optional schema URN, attribute, optional sub-attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrPath {
    /// The schema URN prefix, if written (`urn:ietf:params:scim:schemas:core:2.0:User`).
    pub uri: Option<String>,
    /// The attribute name as written.
    pub attr: String,
    /// The sub-attribute, if any (`givenName` of `name.givenName`).
    pub sub_attr: Option<String>,
}

impl fmt::Display for AttrPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(uri) = &self.uri {
            write!(f, "{uri}:")?;
        }
        write!(f, "{}", self.attr)?;
        if let Some(sub) = &self.sub_attr {
            write!(f, ".{sub}")?;
        }
        Ok(())
    }
}

/// A comparison operator: the domain's ([`equip_domain::filter::CompareOp`]),
/// which the parser produces directly; its SCIM names are [`op_name`] and
/// [`parse_op`].
pub use equip_domain::filter::CompareOp;

/// The operator `word` names (`eq`, `ne`, `co`, `sw`, `ew`, `gt`, `ge`, `lt`,
/// `le`, in any case).
#[must_use]
pub fn parse_op(word: &str) -> Option<CompareOp> {
    Some(match word.to_ascii_lowercase().as_str() {
        "eq" => CompareOp::Eq,
        "ne" => CompareOp::Ne,
        "co" => CompareOp::Co,
        "sw" => CompareOp::Sw,
        "ew" => CompareOp::Ew,
        "gt" => CompareOp::Gt,
        "ge" => CompareOp::Ge,
        "lt" => CompareOp::Lt,
        "le" => CompareOp::Le,
        _ => return None,
    })
}

/// The operator's SCIM name, lowercase (what [`parse_op`] reads back).
#[must_use]
pub const fn op_name(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Eq => "eq",
        CompareOp::Ne => "ne",
        CompareOp::Co => "co",
        CompareOp::Sw => "sw",
        CompareOp::Ew => "ew",
        CompareOp::Gt => "gt",
        CompareOp::Ge => "ge",
        CompareOp::Lt => "lt",
        CompareOp::Le => "le",
    }
}

/// A literal compared with.
#[derive(Debug, Clone, PartialEq)]
pub enum CompValue {
    /// A JSON string, unescaped.
    Str(String),
    /// A JSON number.
    Number(f64),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
}

impl fmt::Display for CompValue {
    /// A string as a JSON string (escaped), a number in Rust's shortest
    /// round-trip form, `true`, `false`, `null`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Str(s) => f.write_str(&serde_json::to_string(s).map_err(|_| fmt::Error)?),
            Self::Number(n) => write!(f, "{n}"),
            Self::Bool(b) => write!(f, "{b}"),
            Self::Null => f.write_str("null"),
        }
    }
}

/// A filter expression.
///
/// Its [`Display`](fmt::Display) is the filter in canonical form: lowercase
/// operators, single spaces, strings as JSON strings, and parentheses exactly
/// where the grammar's precedence and left associativity need them
/// (`a or (b or c)`, `(a or b) and c`), so that for every filter `f` that
/// [`parse_filter`] returns, `parse_filter(&f.to_string()) == Ok(f)`, and
/// printing a parsed filter is a fixpoint. An Entra-style
/// `emails[type eq "work"].value eq "x"` prints as the value filter it means,
/// `emails[type eq "work" and value eq "x"]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// `attrPath op value`.
    Compare(AttrPath, CompareOp, CompValue),
    /// `attrPath pr`.
    Present(AttrPath),
    /// `a and b`.
    And(Box<Filter>, Box<Filter>),
    /// `a or b`.
    Or(Box<Filter>, Box<Filter>),
    /// `not (a)`.
    Not(Box<Filter>),
    /// `attr[filter]`: some element of the multi-valued `attr` satisfies the
    /// inner filter, whose paths are relative to the element.
    ValuePath(AttrPath, Box<Filter>),
}

/// Binding strength of a position in a printed filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    /// Anything: an `or` chain.
    Or,
    /// An `and` chain or tighter.
    And,
    /// A single condition, `not (…)`, a value filter, or a group.
    Unary,
}

impl Filter {
    fn print(&self, f: &mut fmt::Formatter<'_>, at: Level) -> fmt::Result {
        let needs = match self {
            Self::Or(..) => Level::Or,
            Self::And(..) => Level::And,
            _ => Level::Unary,
        };
        if needs < at {
            f.write_str("(")?;
            self.print(f, Level::Or)?;
            return f.write_str(")");
        }
        match self {
            Self::Compare(path, op, value) => write!(f, "{path} {} {value}", op_name(*op)),
            Self::Present(path) => write!(f, "{path} pr"),
            // Left-associative: the left operand may be a chain of the same
            // operator, the right one must bind tighter.
            Self::Or(a, b) => {
                a.print(f, Level::Or)?;
                f.write_str(" or ")?;
                b.print(f, Level::And)
            }
            Self::And(a, b) => {
                a.print(f, Level::And)?;
                f.write_str(" and ")?;
                b.print(f, Level::Unary)
            }
            Self::Not(a) => {
                f.write_str("not (")?;
                a.print(f, Level::Or)?;
                f.write_str(")")
            }
            Self::ValuePath(path, a) => {
                write!(f, "{path}[")?;
                a.print(f, Level::Or)?;
                f.write_str("]")
            }
        }
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.print(f, Level::Or)
    }
}

/// A PATCH operation's `path`.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchPath {
    /// The attribute (with a sub-attribute when written `name.givenName`).
    pub attr: AttrPath,
    /// The value selection filter of `emails[type eq "work"]`.
    pub filter: Option<Filter>,
    /// The sub-attribute after the filter: `value` of `emails[type eq "work"].value`.
    pub sub_attr: Option<String>,
}

impl fmt::Display for PatchPath {
    /// `attr`, `attr[filter]` or `attr[filter].sub`: what [`parse_path`] reads
    /// back into the same path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.attr)?;
        if let Some(filter) = &self.filter {
            write!(f, "[{filter}]")?;
        }
        if let Some(sub) = &self.sub_attr {
            write!(f, ".{sub}")?;
        }
        Ok(())
    }
}

/// Why a filter or path does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at character {position})")]
pub struct FilterError {
    /// What is wrong.
    pub message: String,
    /// 0-based character offset.
    pub position: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    LParen,
    RParen,
    LBracket,
    RBracket,
    /// `.subAttr` right after `]`.
    DotWord(String),
    Word(String),
    Str(String),
    Number(f64),
}

struct Lexer<'a> {
    chars: Vec<char>,
    pos: usize,
    src: &'a str,
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '$' | ':' | '.')
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        Self {
            chars: src.chars().collect(),
            pos: 0,
            src,
        }
    }

    fn err(&self, message: impl Into<String>, position: usize) -> FilterError {
        let _ = self.src;
        FilterError {
            message: message.into(),
            position,
        }
    }

    fn tokens(mut self) -> Result<Vec<(Tok, usize)>, FilterError> {
        let mut out = Vec::new();
        while self.pos < self.chars.len() {
            let c = self.chars[self.pos];
            let start = self.pos;
            match c {
                ' ' | '\t' | '\n' | '\r' => {
                    self.pos += 1;
                }
                '(' => {
                    out.push((Tok::LParen, start));
                    self.pos += 1;
                }
                ')' => {
                    out.push((Tok::RParen, start));
                    self.pos += 1;
                }
                '[' => {
                    out.push((Tok::LBracket, start));
                    self.pos += 1;
                }
                ']' => {
                    out.push((Tok::RBracket, start));
                    self.pos += 1;
                    if self.chars.get(self.pos) == Some(&'.') {
                        self.pos += 1;
                        let at = self.pos;
                        let word = self.word();
                        if word.is_empty() {
                            return Err(self.err("expected a sub-attribute after '].'", at));
                        }
                        // `emails[…].2x` or `emails[…].a.b` is no sub-attribute.
                        if !is_attr_name(&word) {
                            return Err(self.err(
                                format!("'{word}' after '].' is not a sub-attribute name"),
                                at,
                            ));
                        }
                        out.push((Tok::DotWord(word), start));
                    }
                }
                '"' => out.push((Tok::Str(self.string()?), start)),
                c if c == '-' || c.is_ascii_digit() => {
                    let mut end = self.pos + 1;
                    while end < self.chars.len()
                        && (self.chars[end].is_ascii_digit()
                            || matches!(self.chars[end], '.' | 'e' | 'E' | '+' | '-'))
                    {
                        end += 1;
                    }
                    let text: String = self.chars[self.pos..end].iter().collect();
                    let n = text
                        .parse::<f64>()
                        .map_err(|_| self.err(format!("'{text}' is not a number"), start))?;
                    // `1e999` reads as infinity, which no JSON number is (and
                    // which would print as `inf`, not a number).
                    if !n.is_finite() {
                        return Err(self.err(format!("'{text}' is out of range"), start));
                    }
                    self.pos = end;
                    out.push((Tok::Number(n), start));
                }
                c if is_name_char(c) => {
                    let word = self.word();
                    out.push((Tok::Word(word), start));
                }
                other => return Err(self.err(format!("unexpected character '{other}'"), start)),
            }
        }
        Ok(out)
    }

    fn word(&mut self) -> String {
        let start = self.pos;
        while self.pos < self.chars.len() && is_name_char(self.chars[self.pos]) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    /// A JSON string starting at the opening quote.
    fn string(&mut self) -> Result<String, FilterError> {
        let start = self.pos;
        let mut end = self.pos + 1;
        let mut escaped = false;
        while end < self.chars.len() {
            let c = self.chars[end];
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                break;
            }
            end += 1;
        }
        if end >= self.chars.len() {
            return Err(self.err("unterminated string", start));
        }
        let raw: String = self.chars[start..=end].iter().collect();
        self.pos = end + 1;
        serde_json::from_str::<String>(&raw)
            .map_err(|e| self.err(format!("bad string literal: {e}"), start))
    }
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
    /// Groups open at the current position.
    depth: usize,
    /// Conditions read so far.
    conditions: usize,
}

fn keyword(tok: Option<&Tok>, kw: &str) -> bool {
    matches!(tok, Some(Tok::Word(w)) if w.eq_ignore_ascii_case(kw))
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn here(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |(_, p)| *p)
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, FilterError> {
        Err(FilterError {
            message: message.into(),
            position: self.here(),
        })
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|(t, _)| t.clone());
        self.pos += 1;
        t
    }

    /// or-expression (lowest precedence).
    fn or(&mut self, inner: bool) -> Result<Filter, FilterError> {
        let mut left = self.and(inner)?;
        while keyword(self.peek(), "or") {
            self.pos += 1;
            let right = self.and(inner)?;
            left = Filter::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self, inner: bool) -> Result<Filter, FilterError> {
        let mut left = self.unary(inner)?;
        while keyword(self.peek(), "and") {
            self.pos += 1;
            let right = self.unary(inner)?;
            left = Filter::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self, inner: bool) -> Result<Filter, FilterError> {
        if keyword(self.peek(), "not")
            && matches!(self.toks.get(self.pos + 1), Some((Tok::LParen, _)))
        {
            self.pos += 1;
            let f = self.group(inner)?;
            return Ok(Filter::Not(Box::new(f)));
        }
        match self.peek() {
            Some(Tok::LParen) => self.group(inner),
            Some(Tok::Word(_)) => self.attr_exp(inner),
            None => self.err("expected an expression, found the end of the filter"),
            Some(other) => {
                let other = other.clone();
                self.err(format!("expected an attribute or '(', found {other:?}"))
            }
        }
    }

    fn group(&mut self, inner: bool) -> Result<Filter, FilterError> {
        if self.peek() != Some(&Tok::LParen) {
            return self.err("expected '('");
        }
        if self.depth == MAX_FILTER_NESTING {
            return self.err(format!(
                "parentheses nest deeper than {MAX_FILTER_NESTING} levels"
            ));
        }
        self.pos += 1;
        self.depth += 1;
        let f = self.or(inner)?;
        self.depth -= 1;
        if self.next() != Some(Tok::RParen) {
            self.pos -= 1;
            return self.err("expected ')'");
        }
        Ok(f)
    }

    fn attr_exp(&mut self, inner: bool) -> Result<Filter, FilterError> {
        let start = self.here();
        let Some(Tok::Word(word)) = self.next() else {
            self.pos -= 1;
            return self.err("expected an attribute path");
        };
        let path = parse_attr_path(&word).map_err(|message| FilterError {
            message,
            position: start,
        })?;
        if self.peek() == Some(&Tok::LBracket) {
            if inner {
                return self.err("value filters cannot be nested");
            }
            if path.sub_attr.is_some() {
                return self.err("a value filter follows an attribute, not a sub-attribute");
            }
            self.pos += 1;
            let f = self.or(true)?;
            match self.next() {
                Some(Tok::RBracket) => {}
                _ => {
                    self.pos -= 1;
                    return self.err("expected ']'");
                }
            }
            // Entra: emails[type eq "work"].value eq "x"
            let f = if let Some(Tok::DotWord(sub)) = self.peek().cloned() {
                self.pos += 1;
                let sub_path = AttrPath {
                    uri: None,
                    attr: sub,
                    sub_attr: None,
                };
                let cond = self.condition(sub_path)?;
                Filter::And(Box::new(f), Box::new(cond))
            } else {
                f
            };
            return Ok(Filter::ValuePath(path, Box::new(f)));
        }
        self.condition(path)
    }

    fn condition(&mut self, path: AttrPath) -> Result<Filter, FilterError> {
        if self.conditions == MAX_FILTER_CONDITIONS {
            // At the attribute just read.
            let position = self
                .pos
                .checked_sub(1)
                .and_then(|i| self.toks.get(i))
                .map_or(self.end, |(_, p)| *p);
            return Err(FilterError {
                message: format!("more than {MAX_FILTER_CONDITIONS} conditions in one filter"),
                position,
            });
        }
        self.conditions += 1;
        let op = match self.next() {
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("pr") => return Ok(Filter::Present(path)),
            Some(Tok::Word(w)) => match parse_op(&w) {
                Some(op) => op,
                None => {
                    self.pos -= 1;
                    return self.err(format!("unknown operator '{w}'"));
                }
            },
            None => return self.err(format!("expected an operator after '{path}'")),
            Some(_) => {
                self.pos -= 1;
                return self.err(format!("expected an operator after '{path}'"));
            }
        };
        let value = match self.next() {
            Some(Tok::Str(s)) => CompValue::Str(s),
            Some(Tok::Number(n)) => CompValue::Number(n),
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("true") => CompValue::Bool(true),
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("false") => CompValue::Bool(false),
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("null") => CompValue::Null,
            None => return self.err("expected a value, found the end of the filter"),
            Some(_) => {
                self.pos -= 1;
                return self.err(
                    "expected a value (a string in double quotes, a number, true, false or null)",
                );
            }
        };
        Ok(Filter::Compare(path, op, value))
    }
}

/// `ATTRNAME`: a letter (or `$`, for `$ref`), then letters, digits, `_`, `-`, `$`.
fn is_attr_name(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '$')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '$'))
}

/// Splits `[URI ":"] ATTRNAME ["." subAttr]`.
fn parse_attr_path(word: &str) -> Result<AttrPath, String> {
    let (uri, rest) = match word.rsplit_once(':') {
        Some((uri, rest)) => (Some(uri.to_owned()), rest),
        None => (None, word),
    };
    let (attr, sub) = match rest.split_once('.') {
        Some((a, s)) => (a, Some(s)),
        None => (rest, None),
    };
    if !is_attr_name(attr) || sub.is_some_and(|s| !is_attr_name(s)) {
        return Err(format!("'{word}' is not an attribute path"));
    }
    Ok(AttrPath {
        uri,
        attr: attr.to_owned(),
        sub_attr: sub.map(str::to_owned),
    })
}

fn parser(src: &str) -> Result<Parser, FilterError> {
    let toks = Lexer::new(src).tokens()?;
    Ok(Parser {
        toks,
        pos: 0,
        end: src.chars().count(),
        depth: 0,
        conditions: 0,
    })
}

/// Parses a filter expression.
///
/// # Errors
/// [`FilterError`] with the position of the first problem.
pub fn parse_filter(src: &str) -> Result<Filter, FilterError> {
    let mut p = parser(src)?;
    if p.toks.is_empty() {
        return p.err("the filter is empty");
    }
    let f = p.or(false)?;
    if p.pos < p.toks.len() {
        return p.err("unexpected text after the end of the expression");
    }
    Ok(f)
}

/// Parses a PATCH `path`.
///
/// # Errors
/// [`FilterError`] for anything that is not `attrPath` or `valuePath[.subAttr]`.
pub fn parse_path(src: &str) -> Result<PatchPath, FilterError> {
    let mut p = parser(src)?;
    let start = p.here();
    let Some(Tok::Word(word)) = p.next() else {
        return Err(FilterError {
            message: "expected an attribute path".into(),
            position: 0,
        });
    };
    let attr = parse_attr_path(&word).map_err(|message| FilterError {
        message,
        position: start,
    })?;
    let mut path = PatchPath {
        attr,
        filter: None,
        sub_attr: None,
    };
    if p.peek() == Some(&Tok::LBracket) {
        if path.attr.sub_attr.is_some() {
            return p.err("a value filter follows an attribute, not a sub-attribute");
        }
        p.pos += 1;
        path.filter = Some(p.or(true)?);
        if p.next() != Some(Tok::RBracket) {
            p.pos -= 1;
            return p.err("expected ']'");
        }
        if let Some(Tok::DotWord(sub)) = p.peek().cloned() {
            p.pos += 1;
            path.sub_attr = Some(sub);
        }
    }
    if p.pos < p.toks.len() {
        return p.err("unexpected text after the path");
    }
    Ok(path)
}

#[cfg(test)]
mod tests;
