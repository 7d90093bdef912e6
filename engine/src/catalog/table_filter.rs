//! The filter of `get_table_names_by_filter`.
//!
//! Hive's table filter language: comparisons of one of three keys with a
//! literal, combined with `and`, `or` and parentheses.
//!
//! - `hive_filter_field_owner__` — the owner; `=`, `<>`/`!=`, `like`.
//! - `hive_filter_field_last_access__` — the last access time, an integer;
//!   `=`, `<>`/`!=`, `<`, `<=`, `>`, `>=`.
//! - `hive_filter_field_params__<key>` — table parameter `<key>`; `=`,
//!   `<>`/`!=`, `like`. A table without the parameter matches none of them
//!   (Hive joins the parameter table).
//!
//! Literals are `"..."` or `'...'` strings, or integers. `like` takes the
//! literal as a regular expression matched against the whole value,
//! case-sensitively, as Hive's JDOQL `matches` does; Iceberg sends
//! `hive_filter_field_params__table_type like "ICEBERG"`. Keywords are
//! case-insensitive. An empty filter matches every table.

use regex::Regex;

use crate::error::{Error, Result};
use crate::model::table::Table;

/// The key prefix for table parameters.
pub const FILTER_FIELD_PARAMS: &str = "hive_filter_field_params__";
/// The key of the owner.
pub const FILTER_FIELD_OWNER: &str = "hive_filter_field_owner__";
/// The key of the last access time.
pub const FILTER_FIELD_LAST_ACCESS: &str = "hive_filter_field_last_access__";
/// The longest filter accepted, in bytes.
pub const TABLE_FILTER_LEN_MAX: usize = 64 * 1024;
/// The deepest nesting of parentheses and operators accepted.
pub const TABLE_FILTER_DEPTH_MAX: usize = 64;
/// The most `like` comparisons a filter may hold, each a compiled regular expression.
pub const TABLE_FILTER_LIKE_COUNT_MAX: usize = 64;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Text(String),
    Number(i64),
    Operator(Operator),
    Open,
    Close,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    Equals,
    NotEquals,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    Like,
}

#[derive(Debug)]
enum Field {
    Owner,
    LastAccess,
    Parameter(String),
}

#[derive(Debug)]
enum Literal {
    Text(String),
    Number(i64),
}

#[derive(Debug)]
enum Expression {
    And(Box<Expression>, Box<Expression>),
    Or(Box<Expression>, Box<Expression>),
    Compare {
        field: Field,
        operator: Operator,
        literal: Literal,
        /// The compiled literal of a `like`.
        like: Option<Regex>,
    },
}

/// A parsed table filter.
#[derive(Debug)]
pub struct TableFilter {
    /// `None` matches everything.
    expression: Option<Expression>,
}

/// Hive's message for a key that is none of the `hive_filter_field_*` constants; a refusal
/// that starts with it is reported as it is, without quoting the filter.
const INVALID_KEY: &str =
    "Invalid key name in filter.  Use constants from org.apache.hadoop.hive.metastore.api";

fn parse_error(filter: &str, reason: &str) -> Error {
    if reason.starts_with(INVALID_KEY) {
        return Error::InvalidInput(reason.to_string());
    }
    Error::InvalidInput(format!("Error parsing table filter \"{filter}\": {reason}"))
}

impl TableFilter {
    /// Parses `filter`; errors are [`Error::InvalidInput`] quoting it.
    pub fn parse(filter: &str) -> Result<Self> {
        if filter.len() > TABLE_FILTER_LEN_MAX {
            let reason = format!("longer than the {TABLE_FILTER_LEN_MAX} bytes allowed");
            return Err(parse_error(filter, &reason));
        }
        let tokens = tokenize(filter).map_err(|reason| parse_error(filter, &reason))?;
        if tokens.is_empty() {
            return Ok(TableFilter { expression: None });
        }
        let mut parser = Parser {
            tokens,
            position: 0,
            likes: 0,
        };
        let expression = parser
            .parse_or(0)
            .map_err(|reason| parse_error(filter, &reason))?;
        if parser.position != parser.tokens.len() {
            return Err(parse_error(filter, "unexpected text after the expression"));
        }
        Ok(TableFilter {
            expression: Some(expression),
        })
    }

    /// Whether `table` passes the filter.
    pub fn matches(&self, table: &Table) -> bool {
        self.expression
            .as_ref()
            .is_none_or(|expression| evaluate(expression, table))
    }
}

fn tokenize(filter: &str) -> std::result::Result<Vec<Token>, String> {
    let bytes = filter.as_bytes();
    let mut tokens = Vec::new();
    let mut position = 0;
    while position < bytes.len() {
        let byte = bytes[position];
        let (token, length) = match byte {
            b' ' | b'\t' | b'\n' | b'\r' => {
                position += 1;
                continue;
            }
            b'(' => (Token::Open, 1),
            b')' => (Token::Close, 1),
            b'"' | b'\'' => quoted(&filter[position..], byte)?,
            b'=' | b'<' | b'>' | b'!' => operator(&bytes[position..])?,
            b'-' | b'0'..=b'9' => number(&filter[position..])?,
            _ => word(&filter[position..])?,
        };
        tokens.push(token);
        position += length;
    }
    Ok(tokens)
}

fn quoted(rest: &str, quote: u8) -> std::result::Result<(Token, usize), String> {
    let body = &rest[1..];
    match body.bytes().position(|byte| byte == quote) {
        Some(end) => Ok((Token::Text(body[..end].to_string()), end + 2)),
        None => Err("unterminated string literal".to_string()),
    }
}

fn operator(rest: &[u8]) -> std::result::Result<(Token, usize), String> {
    let two = rest.get(..2).unwrap_or(rest);
    let (operator, length) = match two {
        b"<>" | b"!=" => (Operator::NotEquals, 2),
        b"<=" => (Operator::LessOrEqual, 2),
        b">=" => (Operator::GreaterOrEqual, 2),
        [b'=', ..] => (Operator::Equals, 1),
        [b'<', ..] => (Operator::Less, 1),
        [b'>', ..] => (Operator::Greater, 1),
        _ => return Err("unknown operator '!'".to_string()),
    };
    Ok((Token::Operator(operator), length))
}

fn number(rest: &str) -> std::result::Result<(Token, usize), String> {
    let sign = usize::from(rest.starts_with('-'));
    let length = sign + rest[sign..].bytes().take_while(u8::is_ascii_digit).count();
    let text = &rest[..length];
    let value = text
        .parse()
        .map_err(|_| format!("'{text}' is not an integer"))?;
    Ok((Token::Number(value), length))
}

fn word(rest: &str) -> std::result::Result<(Token, usize), String> {
    let length = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')))
        .map_or(rest.len(), |(index, _)| index);
    if length == 0 {
        let found = rest.chars().next().unwrap_or(' ');
        return Err(format!("unexpected character '{found}'"));
    }
    let text = &rest[..length];
    let token = if text.eq_ignore_ascii_case("like") {
        Token::Operator(Operator::Like)
    } else {
        Token::Word(text.to_string())
    };
    Ok((token, length))
}

struct Parser {
    tokens: Vec<Token>,
    position: usize,
    likes: usize,
}

type ParseResult<T> = std::result::Result<T, String>;

impl Parser {
    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.position).cloned();
        self.position += usize::from(token.is_some());
        token
    }

    fn peek_keyword(&self, keyword: &str) -> bool {
        matches!(self.tokens.get(self.position), Some(Token::Word(word)) if word.eq_ignore_ascii_case(keyword))
    }

    fn parse_or(&mut self, depth: usize) -> ParseResult<Expression> {
        let mut left = self.parse_and(depth)?;
        while self.peek_keyword("or") {
            self.position += 1;
            let right = self.parse_and(depth)?;
            left = Expression::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_and(&mut self, depth: usize) -> ParseResult<Expression> {
        let mut left = self.parse_primary(depth)?;
        while self.peek_keyword("and") {
            self.position += 1;
            let right = self.parse_primary(depth)?;
            left = Expression::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_primary(&mut self, depth: usize) -> ParseResult<Expression> {
        if depth > TABLE_FILTER_DEPTH_MAX {
            return Err(format!(
                "nested deeper than the {TABLE_FILTER_DEPTH_MAX} levels allowed"
            ));
        }
        if self.tokens.get(self.position) == Some(&Token::Open) {
            self.position += 1;
            let inner = self.parse_or(depth + 1)?;
            return match self.next() {
                Some(Token::Close) => Ok(inner),
                _ => Err("missing ')'".to_string()),
            };
        }
        self.parse_comparison()
    }

    /// `key op literal` or `literal op key`.
    fn parse_comparison(&mut self) -> ParseResult<Expression> {
        let first = self.next().ok_or("unexpected end of filter")?;
        let Some(Token::Operator(operator)) = self.next() else {
            return Err("expected an operator after the first operand".to_string());
        };
        let second = self.next().ok_or("unexpected end of filter")?;
        let (key, literal, operator) = match (first, second) {
            (Token::Word(key), literal) => (key, literal, operator),
            (literal, Token::Word(key)) => (key, literal, mirrored(operator)),
            _ => return Err("a comparison needs a key and a literal".to_string()),
        };
        let literal = match literal {
            Token::Text(text) => Literal::Text(text),
            Token::Number(number) => Literal::Number(number),
            other => return Err(format!("expected a literal, found {other:?}")),
        };
        if operator == Operator::Like {
            self.likes += 1;
            if self.likes > TABLE_FILTER_LIKE_COUNT_MAX {
                return Err(format!(
                    "more than the {TABLE_FILTER_LIKE_COUNT_MAX} like comparisons allowed"
                ));
            }
        }
        comparison(field(&key)?, operator, literal)
    }
}

/// `literal op key` as `key op' literal`.
fn mirrored(operator: Operator) -> Operator {
    match operator {
        Operator::Less => Operator::Greater,
        Operator::LessOrEqual => Operator::GreaterOrEqual,
        Operator::Greater => Operator::Less,
        Operator::GreaterOrEqual => Operator::LessOrEqual,
        other => other,
    }
}

fn field(key: &str) -> ParseResult<Field> {
    if let Some(parameter) = key.strip_prefix(FILTER_FIELD_PARAMS) {
        if parameter.is_empty() {
            return Err(format!("{FILTER_FIELD_PARAMS} needs a parameter name"));
        }
        return Ok(Field::Parameter(parameter.to_string()));
    }
    match key {
        FILTER_FIELD_OWNER => Ok(Field::Owner),
        FILTER_FIELD_LAST_ACCESS => Ok(Field::LastAccess),
        _ => Err(format!(
            "{INVALID_KEY}: '{key}' is none of {FILTER_FIELD_OWNER}, \
             {FILTER_FIELD_LAST_ACCESS} or {FILTER_FIELD_PARAMS}<name>"
        )),
    }
}

fn comparison(field: Field, operator: Operator, literal: Literal) -> ParseResult<Expression> {
    let is_equality = matches!(operator, Operator::Equals | Operator::NotEquals);
    let like = match (&field, operator, &literal) {
        (Field::LastAccess, Operator::Like, _) => {
            return Err(format!(
                "like is not supported for {FILTER_FIELD_LAST_ACCESS}"
            ))
        }
        (Field::LastAccess, _, Literal::Text(_)) => {
            return Err(format!("{FILTER_FIELD_LAST_ACCESS} compares with integers"))
        }
        (Field::LastAccess, _, Literal::Number(_)) => None,
        (_, Operator::Like, Literal::Text(text)) => Some(crate::catalog::pattern::compile_bounded(
            "like pattern",
            text,
            || format!("^(?:{text})$"),
            false,
        )?),
        (_, _, _) if !is_equality => {
            return Err("only =, <> and like are supported for owner and parameters".to_string())
        }
        (_, _, Literal::Number(_)) if operator == Operator::Like => {
            return Err("like needs a string literal".to_string())
        }
        _ => None,
    };
    Ok(Expression::Compare {
        field,
        operator,
        literal,
        like,
    })
}

fn evaluate(expression: &Expression, table: &Table) -> bool {
    match expression {
        Expression::And(left, right) => evaluate(left, table) && evaluate(right, table),
        Expression::Or(left, right) => evaluate(left, table) || evaluate(right, table),
        Expression::Compare {
            field,
            operator,
            literal,
            like,
        } => match field {
            Field::LastAccess => {
                compare_number(i64::from(table.last_access_time), *operator, literal)
            }
            Field::Owner => compare_text(table.owner.as_deref(), *operator, literal, like.as_ref()),
            Field::Parameter(key) => compare_text(
                table.parameters.get(key).map(String::as_str),
                *operator,
                literal,
                like.as_ref(),
            ),
        },
    }
}

fn compare_number(value: i64, operator: Operator, literal: &Literal) -> bool {
    let Literal::Number(literal) = literal else {
        return false;
    };
    match operator {
        Operator::Equals => value == *literal,
        Operator::NotEquals => value != *literal,
        Operator::Less => value < *literal,
        Operator::LessOrEqual => value <= *literal,
        Operator::Greater => value > *literal,
        Operator::GreaterOrEqual => value >= *literal,
        Operator::Like => false,
    }
}

fn compare_text(
    value: Option<&str>,
    operator: Operator,
    literal: &Literal,
    like: Option<&Regex>,
) -> bool {
    let Some(value) = value else {
        return false;
    };
    let literal = match literal {
        Literal::Text(text) => text.clone(),
        Literal::Number(number) => number.to_string(),
    };
    match operator {
        Operator::Equals => value == literal,
        Operator::NotEquals => value != literal,
        Operator::Like => like.is_some_and(|regex| regex.is_match(value)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(owner: &str, last_access: i32, parameters: &[(&str, &str)]) -> Table {
        Table {
            owner: Some(owner.to_string()),
            last_access_time: last_access,
            parameters: parameters
                .iter()
                .map(|(key, value)| (key.to_string(), value.to_string()))
                .collect(),
            ..Table::default()
        }
    }

    fn passes(filter: &str, table: &Table) -> bool {
        TableFilter::parse(filter).unwrap().matches(table)
    }

    #[test]
    fn iceberg_and_trino_filters() {
        let iceberg = table("alice", 0, &[("table_type", "ICEBERG")]);
        let view = table("bob", 0, &[("presto_view", "true")]);
        assert!(passes(
            r#"hive_filter_field_params__table_type like "ICEBERG""#,
            &iceberg
        ));
        assert!(!passes(
            r#"hive_filter_field_params__table_type like "ICEBERG""#,
            &view
        ));
        assert!(passes(
            r#"hive_filter_field_params__presto_view = "true""#,
            &view
        ));
        assert!(passes(
            r#"hive_filter_field_params__presto_view LIKE "true""#,
            &view
        ));
        assert!(!passes(
            r#"hive_filter_field_params__presto_view <> "true""#,
            &iceberg
        ));
    }

    #[test]
    fn owner_last_access_and_boolean_structure() {
        let table = table("alice", 100, &[("a", "1")]);
        assert!(passes(r#"hive_filter_field_owner__ = "alice""#, &table));
        assert!(passes(r#"hive_filter_field_owner__ like "ali.*""#, &table));
        assert!(passes("hive_filter_field_last_access__ > 50", &table));
        assert!(passes("50 < hive_filter_field_last_access__", &table));
        assert!(!passes("hive_filter_field_last_access__ >= 101", &table));
        let filter = r#"(hive_filter_field_owner__ = "bob" or hive_filter_field_params__a = '1') and hive_filter_field_last_access__ = 100"#;
        assert!(passes(filter, &table));
        assert!(passes("", &table));
    }

    #[test]
    fn unparsable_filters_quote_the_filter() {
        for bad in [
            "hive_filter_field_owner__ =",
            "hive_filter_field_params__a > \"1\"",
            "hive_filter_field_last_access__ like \"1\"",
            "(hive_filter_field_owner__ = \"x\"",
            "hive_filter_field_owner__ = \"x",
            "hive_filter_field_owner__ = \"x\" \"y\"",
        ] {
            match TableFilter::parse(bad) {
                Err(Error::InvalidInput(message)) => {
                    assert!(message.contains(&format!("\"{bad}\"")), "{message}")
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        let deep = format!(
            "{}hive_filter_field_owner__ = \"x\"{}",
            "(".repeat(100),
            ")".repeat(100)
        );
        assert!(TableFilter::parse(&deep).is_err());
    }

    #[test]
    fn an_unknown_key_is_refused_with_hives_text() {
        match TableFilter::parse("owner = \"x\"") {
            Err(Error::InvalidInput(message)) => {
                assert!(
                    message.starts_with("Invalid key name in filter"),
                    "{message}"
                );
                assert!(message.contains("'owner'"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
