//! Hive's partition filter language (`get_partitions_by_filter`,
//! `get_num_partitions_by_filter`, `get_part_specs_by_filter`), parsed once
//! into an [`Expression`] tree.
//!
//! The grammar is Hive 4's (`PartitionFilter.g4`), which accepts Hive 2/3's:
//!
//! ```text
//! filter    := or?
//! or        := and (OR and)*                  AND binds tighter; n-ary here
//! and       := primary (AND primary)*
//! primary   := '(' or ')' | condition
//! condition := key op literal | literal op key      (reversed: 5 < x is x > 5)
//!            | key [NOT] BETWEEN literal AND literal
//!            | '(' key ')' [NOT] IN '(' literal, ... ')'
//!            | '(' STRUCT '(' key, ... ')' ')' [NOT] IN
//!                  '(' [CONST] STRUCT '(' literal, ... ')', ... ')'
//! op        := = | == | != | <> | < | <= | > | >= | LIKE
//! key       := [A-Za-z0-9_]+ | `backquoted` (`` is a backquote)
//! literal   := 'text' | "text" (adjacent ones join) | integer (i64)
//!            | DATE 'yyyy-mm-dd' | yyyy-mm-dd
//!            | TIMESTAMP 'yyyy-mm-dd hh:mm:ss[.f]' | yyyy-mm-dd hh:mm:ss
//! ```
//!
//! Keywords are case-insensitive; keys and text keep their case. A quoted
//! text keeps backslashes as written (`'it\'s'` is `it\'s`), as Hive does.
//! `BETWEEN`, `IN` and `NOT` desugar to comparisons, as in Hive's tree.
//! Two leniencies: `key IN (...)` without parentheses around the key, and
//! `DATE`/`TIMESTAMP` as key names where no literal follows.
//!
//! Parsing is bounded: at most [`FILTER_LEN_MAX`] bytes,
//! [`FILTER_DEPTH_MAX`] nested parentheses, [`FILTER_COMPARISON_COUNT_MAX`] comparisons of
//! which [`FILTER_LIKE_COUNT_MAX`] `LIKE`s; it never panics. Errors are
//! [`Error::Refused`] (Hive's `MetaException`) quoting the filter.

use crate::error::{Error, Result};
use crate::model::table::FieldSchema;
pub use crate::partitions::filter_eval::CompiledFilter;
pub(crate) use crate::partitions::filter_eval::ValueRange;

/// The longest filter accepted, in bytes.
pub const FILTER_LEN_MAX: usize = 1 << 20;
/// The deepest nesting of parentheses accepted.
pub const FILTER_DEPTH_MAX: usize = 64;
/// The most comparisons a filter may hold after desugaring.
pub const FILTER_COMPARISON_COUNT_MAX: usize = 100_000;
/// The most `LIKE` comparisons a filter may hold: each compiles a regular expression of up to
/// `PATTERN_COMPILED_BYTES_MAX`, and Spark's filters hold one per `LIKE` the query has.
pub const FILTER_LIKE_COUNT_MAX: usize = 64;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    /// `=`, `==`
    Equals,
    /// `!=`, `<>`
    NotEquals,
    /// `<`
    Less,
    /// `<=`
    LessOrEqual,
    /// `>`
    Greater,
    /// `>=`
    GreaterOrEqual,
    /// `LIKE`
    Like,
}

impl Operator {
    /// The operator seen from the other side: `a < b` is `b > a`.
    fn reversed(self) -> Operator {
        match self {
            Operator::Less => Operator::Greater,
            Operator::LessOrEqual => Operator::GreaterOrEqual,
            Operator::Greater => Operator::Less,
            Operator::GreaterOrEqual => Operator::LessOrEqual,
            other => other,
        }
    }
}

/// A literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Literal {
    /// A quoted text, outer quotes removed.
    Text(String),
    /// An integer.
    Integer(i64),
    /// A date, `yyyy-mm-dd` (validated, zero-padded).
    Date(String),
    /// A timestamp, `yyyy-mm-dd hh:mm:ss[.f]` (validated), as written.
    Timestamp(String),
}

/// A parsed filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expression {
    /// Every member holds.
    And(Vec<Expression>),
    /// Some member holds.
    Or(Vec<Expression>),
    /// `key operator literal`.
    Compare {
        /// The key as written.
        key: String,
        /// The operator, with the key on the left.
        operator: Operator,
        /// The literal.
        literal: Literal,
    },
}

/// A filter parsed once, to be compiled against a table's partition keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionFilter {
    text: String,
    expression: Option<Expression>,
}

/// The error for `filter`, quoting it (shortened past 200 bytes).
pub(crate) fn filter_error(filter: &str, reason: &str) -> Error {
    let mut end = filter.len().min(200);
    while !filter.is_char_boundary(end) {
        end -= 1;
    }
    let ellipsis = if end < filter.len() { "…" } else { "" };
    Error::Refused(format!(
        "Error parsing partition filter \"{}{ellipsis}\": {reason}",
        &filter[..end]
    ))
}

impl PartitionFilter {
    /// Parses `filter`. An empty (or blank) filter selects every partition.
    pub fn parse(filter: &str) -> Result<Self> {
        if filter.len() > FILTER_LEN_MAX {
            let reason = format!("longer than the {FILTER_LEN_MAX} bytes allowed");
            return Err(filter_error(filter, &reason));
        }
        let tokens = tokenize(filter).map_err(|reason| filter_error(filter, &reason))?;
        let expression = if tokens.is_empty() {
            None
        } else {
            let mut parser = Parser {
                tokens,
                position: 0,
                comparisons: 0,
                likes: 0,
            };
            let expression = parser.parse_or(0);
            let expression = expression.and_then(|expression| parser.finish(expression));
            Some(expression.map_err(|reason| filter_error(filter, &reason))?)
        };
        Ok(PartitionFilter {
            text: filter.to_string(),
            expression,
        })
    }

    /// The filter as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The parsed tree; `None` for the empty filter.
    pub fn expression(&self) -> Option<&Expression> {
        self.expression.as_ref()
    }

    /// Resolves keys and literal types against the table's partition keys:
    /// unknown keys and comparisons Hive refuses are errors quoting the
    /// filter.
    pub fn compile(&self, keys: &[FieldSchema]) -> Result<CompiledFilter> {
        CompiledFilter::new(self, keys)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Quoted(String),
    Text(String),
    Integer(i64),
    Date(String),
    Timestamp(String),
    Operator(Operator),
    /// `<=>`: lexed, then refused as Hive 4 does.
    NullSafeEquals,
    Open,
    Close,
    Comma,
}

fn tokenize(filter: &str) -> std::result::Result<Vec<Token>, String> {
    let bytes = filter.as_bytes();
    let mut tokens = Vec::new();
    let mut position = 0;
    while position < bytes.len() {
        let byte = bytes[position];
        if matches!(byte, b' ' | b'\t' | b'\r' | b'\n') {
            position += 1;
            continue;
        }
        let (token, length) = next_token(filter, position)?;
        tokens.push(token);
        position += length;
    }
    Ok(tokens)
}

/// The token at `position` (not whitespace) and its length in bytes.
fn next_token(filter: &str, position: usize) -> std::result::Result<(Token, usize), String> {
    let rest = &filter[position..];
    let bytes = rest.as_bytes();
    let operator = |token: Token, length: usize| Ok((token, length));
    match bytes[0] {
        b'(' => operator(Token::Open, 1),
        b')' => operator(Token::Close, 1),
        b',' => operator(Token::Comma, 1),
        b'=' if bytes.get(1) == Some(&b'=') => operator(Token::Operator(Operator::Equals), 2),
        b'=' => operator(Token::Operator(Operator::Equals), 1),
        b'!' if bytes.get(1) == Some(&b'=') => operator(Token::Operator(Operator::NotEquals), 2),
        b'<' if rest.starts_with("<=>") => operator(Token::NullSafeEquals, 3),
        b'<' if bytes.get(1) == Some(&b'>') => operator(Token::Operator(Operator::NotEquals), 2),
        b'<' if bytes.get(1) == Some(&b'=') => operator(Token::Operator(Operator::LessOrEqual), 2),
        b'<' => operator(Token::Operator(Operator::Less), 1),
        b'>' if bytes.get(1) == Some(&b'=') => {
            operator(Token::Operator(Operator::GreaterOrEqual), 2)
        }
        b'>' => operator(Token::Operator(Operator::Greater), 1),
        b'\'' | b'"' => {
            quoted_text(rest, bytes[0]).map(|(text, length)| (Token::Text(text), length))
        }
        b'`' => backquoted(rest).map(|(word, length)| (Token::Quoted(word), length)),
        b'-' | b'0'..=b'9' => number_or_date(rest),
        byte if byte.is_ascii_alphabetic() || byte == b'_' => {
            let length = word_length(bytes);
            Ok((Token::Word(rest[..length].to_string()), length))
        }
        _ => {
            let character = rest.chars().next().unwrap_or('?');
            Err(format!(
                "lexer error: unexpected character '{character}' at byte {position}"
            ))
        }
    }
}

fn word_length(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|byte| byte.is_ascii_alphanumeric() || **byte == b'_')
        .count()
}

/// A quoted text: a backslash protects the next character from ending it,
/// and stays in the value.
fn quoted_text(rest: &str, quote: u8) -> std::result::Result<(String, usize), String> {
    let bytes = rest.as_bytes();
    let mut position = 1;
    while position < bytes.len() {
        match bytes[position] {
            b'\\' => position += 2,
            byte if byte == quote => return Ok((rest[1..position].to_string(), position + 1)),
            _ => position += 1,
        }
    }
    Err("lexer error: unterminated string".to_string())
}

/// A backquoted key; a doubled backquote stands for one.
fn backquoted(rest: &str) -> std::result::Result<(String, usize), String> {
    let mut word = String::new();
    let mut characters = rest.char_indices().skip(1).peekable();
    while let Some((index, character)) = characters.next() {
        if character != '`' {
            word.push(character);
            continue;
        }
        if characters.peek().map(|(_, next)| *next) == Some('`') {
            characters.next();
            word.push('`');
            continue;
        }
        return Ok((word, index + 1));
    }
    Err("lexer error: unterminated backquoted name".to_string())
}

/// An integer, a bare date, a bare timestamp, or a key starting with a
/// digit.
fn number_or_date(rest: &str) -> std::result::Result<(Token, usize), String> {
    let bytes = rest.as_bytes();
    if let Some(length) = bare_date_length(bytes) {
        let date = &rest[..10];
        let canonical = crate::partitions::filter_eval::parse_date(date)
            .map(|date| date.to_string())
            .ok_or_else(|| format!("invalid date {date}"))?;
        let time_length = bare_time_length(&bytes[length..]);
        if time_length > 0 {
            let text = &rest[..length + time_length];
            crate::partitions::filter_eval::parse_timestamp(text)
                .ok_or_else(|| format!("invalid timestamp {text}"))?;
            return Ok((Token::Timestamp(text.to_string()), length + time_length));
        }
        return Ok((Token::Date(canonical), length));
    }
    let sign = usize::from(bytes[0] == b'-');
    let length = sign + word_length(&bytes[sign..]);
    let text = &rest[..length];
    if length == sign {
        return Err("lexer error: '-' not followed by a number".to_string());
    }
    if text[sign..].bytes().all(|byte| byte.is_ascii_digit()) {
        let value = text
            .parse::<i64>()
            .map_err(|_| format!("integer {text} does not fit in 64 bits"))?;
        return Ok((Token::Integer(value), length));
    }
    if sign == 1 {
        return Err(format!("lexer error: unexpected '-' before {}", &text[1..]));
    }
    Ok((Token::Word(text.to_string()), length))
}

/// `dddd-dd-dd` at the start of `bytes`, not followed by a word character.
fn bare_date_length(bytes: &[u8]) -> Option<usize> {
    let shape = b"dddd-dd-dd";
    let matches = bytes.len() >= shape.len()
        && shape
            .iter()
            .zip(bytes)
            .all(|(expected, byte)| match expected {
                b'd' => byte.is_ascii_digit(),
                other => byte == other,
            });
    let ends = bytes
        .get(shape.len())
        .is_none_or(|next| !next.is_ascii_alphanumeric() && *next != b'_');
    (matches && ends).then_some(shape.len())
}

/// ` dd:dd:dd[.d+]` at the start of `bytes`, or 0.
fn bare_time_length(bytes: &[u8]) -> usize {
    let shape = b" dd:dd:dd";
    let matches = bytes.len() >= shape.len()
        && shape
            .iter()
            .zip(bytes)
            .all(|(expected, byte)| match expected {
                b'd' => byte.is_ascii_digit(),
                other => byte == other,
            });
    if !matches {
        return 0;
    }
    let fraction = match bytes.get(shape.len()) {
        Some(b'.') => {
            1 + bytes[shape.len() + 1..]
                .iter()
                .take_while(|byte| byte.is_ascii_digit())
                .count()
        }
        _ => 0,
    };
    shape.len() + fraction
}

struct Parser {
    tokens: Vec<Token>,
    position: usize,
    comparisons: usize,
    likes: usize,
}

type Parsed<T> = std::result::Result<T, String>;

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.position)
    }

    fn peek_at(&self, offset: usize) -> Option<&Token> {
        self.tokens.get(self.position + offset)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.position).cloned();
        self.position += usize::from(token.is_some());
        token
    }

    fn finish(&self, expression: Expression) -> Parsed<Expression> {
        match self.peek() {
            None => Ok(expression),
            Some(token) => Err(format!(
                "unexpected {} after the expression",
                describe(token)
            )),
        }
    }

    fn keyword_at(&self, offset: usize, keyword: &str) -> bool {
        matches!(self.peek_at(offset), Some(Token::Word(word)) if word.eq_ignore_ascii_case(keyword))
    }

    fn eat_keyword(&mut self, keyword: &str) -> bool {
        let found = self.keyword_at(0, keyword);
        self.position += usize::from(found);
        found
    }

    fn expect(&mut self, expected: &Token, what: &str) -> Parsed<()> {
        match self.next() {
            Some(token) if token == *expected => Ok(()),
            Some(token) => Err(format!("expected {what}, found {}", describe(&token))),
            None => Err(format!("expected {what} at the end of the filter")),
        }
    }

    fn parse_or(&mut self, depth: usize) -> Parsed<Expression> {
        let mut members = vec![self.parse_and(depth)?];
        while self.eat_keyword("or") {
            members.push(self.parse_and(depth)?);
        }
        Ok(flatten(members, true))
    }

    fn parse_and(&mut self, depth: usize) -> Parsed<Expression> {
        let mut members = vec![self.parse_primary(depth)?];
        while self.eat_keyword("and") {
            members.push(self.parse_primary(depth)?);
        }
        Ok(flatten(members, false))
    }

    fn parse_primary(&mut self, depth: usize) -> Parsed<Expression> {
        if self.peek() != Some(&Token::Open) {
            return self.parse_condition();
        }
        if self.keyword_at(1, "struct") {
            return self.parse_struct_in();
        }
        let key_in_parentheses = self.peek_at(2) == Some(&Token::Close)
            && matches!(self.peek_at(1), Some(Token::Word(_) | Token::Quoted(_)))
            && (self.keyword_at(3, "in")
                || (self.keyword_at(3, "not") && self.keyword_at(4, "in")));
        if key_in_parentheses {
            self.next();
            let key = self.parse_key()?;
            self.next();
            return self.parse_in(vec![key]);
        }
        if depth >= FILTER_DEPTH_MAX {
            return Err(format!("nested deeper than {FILTER_DEPTH_MAX} parentheses"));
        }
        self.next();
        let inner = self.parse_or(depth + 1)?;
        self.expect(&Token::Close, "')'")?;
        Ok(inner)
    }

    fn parse_key(&mut self) -> Parsed<String> {
        match self.next() {
            Some(Token::Word(word) | Token::Quoted(word)) => Ok(word),
            Some(token) => Err(format!(
                "expected a partition key, found {}",
                describe(&token)
            )),
            None => Err("expected a partition key at the end of the filter".to_string()),
        }
    }

    /// Whether the next tokens are a literal (and not a key).
    fn at_literal(&self) -> bool {
        match self.peek() {
            Some(Token::Text(_) | Token::Integer(_) | Token::Date(_) | Token::Timestamp(_)) => true,
            Some(Token::Word(_)) => {
                (self.keyword_at(0, "date") || self.keyword_at(0, "timestamp"))
                    && matches!(self.peek_at(1), Some(Token::Text(_)))
            }
            _ => false,
        }
    }

    fn parse_literal(&mut self) -> Parsed<Literal> {
        if self.eat_keyword("date") {
            let text = self.parse_texts()?;
            let date = crate::partitions::filter_eval::parse_date(&text)
                .ok_or_else(|| format!("invalid date '{text}'"))?;
            return Ok(Literal::Date(date.to_string()));
        }
        if self.eat_keyword("timestamp") {
            let text = self.parse_texts()?;
            crate::partitions::filter_eval::parse_timestamp(&text)
                .ok_or_else(|| format!("invalid timestamp '{text}'"))?;
            return Ok(Literal::Timestamp(text));
        }
        match self.peek().cloned() {
            Some(Token::Text(_)) => Ok(Literal::Text(self.parse_texts()?)),
            Some(Token::Integer(value)) => self.take(Literal::Integer(value)),
            Some(Token::Date(date)) => self.take(Literal::Date(date)),
            Some(Token::Timestamp(text)) => self.take(Literal::Timestamp(text)),
            Some(token) => Err(format!("expected a value, found {}", describe(&token))),
            None => Err("expected a value at the end of the filter".to_string()),
        }
    }

    fn take(&mut self, literal: Literal) -> Parsed<Literal> {
        self.next();
        Ok(literal)
    }

    /// One or more adjacent quoted texts, joined.
    fn parse_texts(&mut self) -> Parsed<String> {
        let mut joined = String::new();
        let mut any = false;
        while let Some(Token::Text(text)) = self.peek() {
            joined.push_str(text);
            any = true;
            self.next();
        }
        if any {
            Ok(joined)
        } else {
            Err("expected a quoted text".to_string())
        }
    }

    fn parse_operator(&mut self) -> Parsed<Operator> {
        if self.eat_keyword("like") {
            return Ok(Operator::Like);
        }
        match self.next() {
            Some(Token::Operator(operator)) => Ok(operator),
            Some(Token::NullSafeEquals) => Err("Unsupported comparison operator <=>".to_string()),
            Some(token) => Err(format!("expected a comparison, found {}", describe(&token))),
            None => Err("expected a comparison at the end of the filter".to_string()),
        }
    }

    fn compare(&mut self, key: String, operator: Operator, literal: Literal) -> Parsed<Expression> {
        self.comparisons += 1;
        if self.comparisons > FILTER_COMPARISON_COUNT_MAX {
            return Err(format!(
                "more than {FILTER_COMPARISON_COUNT_MAX} comparisons"
            ));
        }
        if operator == Operator::Like {
            self.likes += 1;
            if self.likes > FILTER_LIKE_COUNT_MAX {
                return Err(format!(
                    "more than the {FILTER_LIKE_COUNT_MAX} LIKE comparisons allowed"
                ));
            }
        }
        Ok(Expression::Compare {
            key,
            operator,
            literal,
        })
    }

    fn parse_condition(&mut self) -> Parsed<Expression> {
        if self.at_literal() {
            let literal = self.parse_literal()?;
            let operator = self.parse_operator()?;
            let key = self.parse_key()?;
            if operator == Operator::Like {
                return Err(format!(
                    "Value should be on the RHS for LIKE operator : Key <{key}>"
                ));
            }
            return self.compare(key, operator.reversed(), literal);
        }
        let key = self.parse_key()?;
        let negated = self.keyword_at(0, "not");
        if (negated && self.keyword_at(1, "between")) || self.keyword_at(0, "between") {
            self.position += 1 + usize::from(negated);
            return self.parse_between(key, negated);
        }
        if (negated && self.keyword_at(1, "in")) || self.keyword_at(0, "in") {
            return self.parse_in(vec![key]);
        }
        let operator = self.parse_operator()?;
        let literal = self.parse_literal()?;
        self.compare(key, operator, literal)
    }

    fn parse_between(&mut self, key: String, negated: bool) -> Parsed<Expression> {
        let low = self.parse_literal()?;
        if !self.eat_keyword("and") {
            return Err("expected AND in BETWEEN".to_string());
        }
        let high = self.parse_literal()?;
        if negated {
            let below = self.compare(key.clone(), Operator::Less, low)?;
            let above = self.compare(key, Operator::Greater, high)?;
            Ok(Expression::Or(vec![below, above]))
        } else {
            let from = self.compare(key.clone(), Operator::GreaterOrEqual, low)?;
            let to = self.compare(key, Operator::LessOrEqual, high)?;
            Ok(Expression::And(vec![from, to]))
        }
    }

    /// `[NOT] IN (tuples)` for `keys` (one key, or a struct's keys).
    fn parse_in(&mut self, keys: Vec<String>) -> Parsed<Expression> {
        let negated = self.eat_keyword("not");
        if !self.eat_keyword("in") {
            return Err("expected IN".to_string());
        }
        self.expect(&Token::Open, "'(' after IN")?;
        let mut alternatives = Vec::new();
        loop {
            let tuple = if keys.len() == 1 {
                vec![self.parse_literal()?]
            } else {
                self.parse_struct_literal(keys.len())?
            };
            alternatives.push(self.tuple_test(&keys, tuple, negated)?);
            match self.next() {
                Some(Token::Comma) => continue,
                Some(Token::Close) => break,
                Some(token) => {
                    return Err(format!("expected ',' or ')', found {}", describe(&token)))
                }
                None => return Err("unterminated IN list".to_string()),
            }
        }
        Ok(flatten(alternatives, !negated))
    }

    /// `k1 = v1 AND k2 = v2`, or negated `k1 != v1 OR k2 != v2`.
    fn tuple_test(
        &mut self,
        keys: &[String],
        tuple: Vec<Literal>,
        negated: bool,
    ) -> Parsed<Expression> {
        let operator = if negated {
            Operator::NotEquals
        } else {
            Operator::Equals
        };
        let mut members = Vec::with_capacity(keys.len());
        for (key, literal) in keys.iter().zip(tuple) {
            members.push(self.compare(key.clone(), operator, literal)?);
        }
        Ok(flatten(members, negated))
    }

    fn parse_struct_in(&mut self) -> Parsed<Expression> {
        self.next();
        self.eat_keyword("struct");
        self.expect(&Token::Open, "'(' after STRUCT")?;
        let mut keys = vec![self.parse_key()?];
        while self.peek() == Some(&Token::Comma) {
            self.next();
            keys.push(self.parse_key()?);
        }
        self.expect(&Token::Close, "')' after the STRUCT keys")?;
        self.expect(&Token::Close, "')' around STRUCT")?;
        self.parse_in(keys)
    }

    fn parse_struct_literal(&mut self, arity: usize) -> Parsed<Vec<Literal>> {
        self.eat_keyword("const");
        if !self.eat_keyword("struct") {
            return Err("expected STRUCT(...) in a STRUCT IN list".to_string());
        }
        self.expect(&Token::Open, "'(' after STRUCT")?;
        let mut literals = vec![self.parse_literal()?];
        while self.peek() == Some(&Token::Comma) {
            self.next();
            literals.push(self.parse_literal()?);
        }
        self.expect(&Token::Close, "')' after the STRUCT values")?;
        if literals.len() != arity {
            return Err(format!(
                "STRUCT of {} values where {arity} keys were given",
                literals.len()
            ));
        }
        Ok(literals)
    }
}

/// One expression of `members`: the member itself if alone, else their OR
/// (`or`) or AND, with nested nodes of the same kind merged.
fn flatten(members: Vec<Expression>, or: bool) -> Expression {
    if members.len() == 1 {
        return members
            .into_iter()
            .next()
            .unwrap_or(Expression::And(Vec::new()));
    }
    let mut flat = Vec::with_capacity(members.len());
    for member in members {
        match member {
            Expression::Or(inner) if or => flat.extend(inner),
            Expression::And(inner) if !or => flat.extend(inner),
            other => flat.push(other),
        }
    }
    if or {
        Expression::Or(flat)
    } else {
        Expression::And(flat)
    }
}

fn describe(token: &Token) -> String {
    match token {
        Token::Word(word) => format!("'{word}'"),
        Token::Quoted(word) => format!("`{word}`"),
        Token::Text(text) => format!("the text '{text}'"),
        Token::Integer(value) => format!("the number {value}"),
        Token::Date(date) => format!("the date {date}"),
        Token::Timestamp(text) => format!("the timestamp {text}"),
        Token::Operator(operator) => format!("the operator {operator:?}"),
        Token::NullSafeEquals => "'<=>'".to_string(),
        Token::Open => "'('".to_string(),
        Token::Close => "')'".to_string(),
        Token::Comma => "','".to_string(),
    }
}
