//! `mapPredicate`: the part of JEXL that Hive's property store is queried with (its own
//! tests, HiveServer2): property references (`fillFactor`, `policy.'Table-name'` into a
//! `json` value), literals, comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`, `=^` starts
//! with, `=$` ends with, `!^`, `!$`, and their word forms `eq`, `ne`, `lt`, `le`, `gt`, `ge`),
//! `&&`/`and`, `||`/`or`, `!`/`not` and parentheses. Anything else is refused, naming the
//! part that is not supported. A map is selected when the predicate is `true`, as Hive's
//! `Boolean.TRUE.equals(result)`.

use super::types::Json;

/// The longest predicate accepted, in bytes (hivestore's bound).
pub const PROPERTY_PREDICATE_BYTES_MAX: usize = 4096;
/// The deepest nesting of a predicate (hivestore's bound).
pub const PROPERTY_PREDICATE_DEPTH_MAX: usize = 64;

/// A parsed predicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal.
    Literal(Value),
    /// A property, then members of its `json` value.
    Reference(Vec<String>),
    /// `!`.
    Not(Box<Expr>),
    /// `&&`.
    And(Box<Expr>, Box<Expr>),
    /// `||`.
    Or(Box<Expr>, Box<Expr>),
    /// A comparison.
    Compare(Op, Box<Expr>, Box<Expr>),
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `=^`
    StartsWith,
    /// `!^`
    NotStartsWith,
    /// `=$`
    EndsWith,
    /// `!$`
    NotEndsWith,
}

/// A value a predicate computes with.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`, or a property without a value.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integral number.
    Int(i64),
    /// A floating point number.
    Double(f64),
    /// A string.
    Str(String),
    /// A `json` value that is an object or an array.
    Json(Json),
}

impl Value {
    /// A JSON value as a predicate sees it.
    pub fn from_json(json: &Json) -> Value {
        match json {
            Json::Null => Value::Null,
            Json::Bool(value) => Value::Bool(*value),
            Json::Number(value) => Value::Double(*value),
            Json::String(text) => Value::Str(text.clone()),
            other => Value::Json(other.clone()),
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Value::Int(value) => Some(*value as f64),
            Value::Double(value) => Some(*value),
            Value::Str(text) => text.trim().parse::<f64>().ok().filter(|v| v.is_finite()),
            _ => None,
        }
    }

    fn is_number(&self) -> bool {
        matches!(self, Value::Int(_) | Value::Double(_))
    }

    fn text(&self) -> Option<String> {
        match self {
            Value::Null => None,
            Value::Bool(value) => Some(value.to_string()),
            Value::Int(value) => Some(value.to_string()),
            Value::Double(value) => Some(super::types::java_double_text(*value)),
            Value::Str(text) => Some(text.clone()),
            Value::Json(json) => Some(json.to_gson()),
        }
    }

    /// JEXL's truth of a value in `&&`, `||` and `!`.
    fn truth(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(value) => *value,
            Value::Int(value) => *value != 0,
            Value::Double(value) => *value != 0.0,
            Value::Str(text) => !text.is_empty() && text != "false",
            Value::Json(_) => true,
        }
    }
}

/// Parses a predicate; `Err` names what is malformed or not supported.
pub fn parse(text: &str) -> Result<Expr, String> {
    if text.len() > PROPERTY_PREDICATE_BYTES_MAX {
        return Err(format!(
            "the predicate is {} bytes long, longer than the {PROPERTY_PREDICATE_BYTES_MAX} \
             bytes allowed",
            text.len()
        ));
    }
    let tokens = tokenize(text)?;
    let mut parser = Parser { tokens, at: 0 };
    let expr = parser.or(0)?;
    match parser.tokens.get(parser.at) {
        None => Ok(expr),
        Some(token) => Err(format!("unexpected {}", token.describe())),
    }
}

/// Evaluates a predicate; `lookup` answers a property's value (or its default).
pub fn evaluate(expr: &Expr, lookup: &dyn Fn(&str) -> Value) -> Value {
    match expr {
        Expr::Literal(value) => value.clone(),
        Expr::Reference(path) => {
            let mut value = lookup(&path[0]);
            for member in &path[1..] {
                value = match &value {
                    Value::Json(json) => json
                        .member(member)
                        .map(Value::from_json)
                        .unwrap_or(Value::Null),
                    _ => Value::Null,
                };
            }
            value
        }
        Expr::Not(inner) => Value::Bool(!evaluate(inner, lookup).truth()),
        Expr::And(left, right) => {
            Value::Bool(evaluate(left, lookup).truth() && evaluate(right, lookup).truth())
        }
        Expr::Or(left, right) => {
            Value::Bool(evaluate(left, lookup).truth() || evaluate(right, lookup).truth())
        }
        Expr::Compare(op, left, right) => Value::Bool(compare(
            *op,
            &evaluate(left, lookup),
            &evaluate(right, lookup),
        )),
    }
}

fn compare(op: Op, left: &Value, right: &Value) -> bool {
    use std::cmp::Ordering;
    let starts_or_ends = |starts: bool| match (left.text(), right.text()) {
        (Some(l), Some(r)) => {
            if starts {
                l.starts_with(&r)
            } else {
                l.ends_with(&r)
            }
        }
        _ => false,
    };
    match op {
        Op::StartsWith => return starts_or_ends(true),
        Op::NotStartsWith => return !starts_or_ends(true),
        Op::EndsWith => return starts_or_ends(false),
        Op::NotEndsWith => return !starts_or_ends(false),
        _ => {}
    }
    let ordering: Option<Ordering> = match (left, right) {
        (Value::Null, Value::Null) => Some(Ordering::Equal),
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::Bool(l), Value::Bool(r)) => Some(l.cmp(r)),
        (Value::Str(l), Value::Str(r)) => Some(l.cmp(r)),
        (l, r) if l.is_number() || r.is_number() => match (l.number(), r.number()) {
            (Some(l), Some(r)) => l.partial_cmp(&r),
            _ => None,
        },
        (l, r) => match (l.text(), r.text()) {
            (Some(l), Some(r)) => Some(l.cmp(&r)),
            _ => None,
        },
    };
    match op {
        Op::Eq => ordering == Some(Ordering::Equal),
        Op::Ne => ordering != Some(Ordering::Equal),
        Op::Lt => ordering == Some(Ordering::Less),
        Op::Le => matches!(ordering, Some(Ordering::Less | Ordering::Equal)),
        Op::Gt => ordering == Some(Ordering::Greater),
        Op::Ge => matches!(ordering, Some(Ordering::Greater | Ordering::Equal)),
        _ => false,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Int(i64),
    Double(f64),
    Op(Op),
    And,
    Or,
    Not,
    Dot,
    Open,
    Close,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Ident(name) => format!("'{name}'"),
            Token::Str(text) => format!("string '{text}'"),
            Token::Int(value) => format!("number {value}"),
            Token::Double(value) => format!("number {value}"),
            Token::Op(op) => format!("operator {op:?}"),
            Token::And => "'&&'".to_owned(),
            Token::Or => "'||'".to_owned(),
            Token::Not => "'!'".to_owned(),
            Token::Dot => "'.'".to_owned(),
            Token::Open => "'('".to_owned(),
            Token::Close => "')'".to_owned(),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let next = chars.get(at + 1).copied();
        let two = |token: Token, tokens: &mut Vec<Token>| {
            tokens.push(token);
            2
        };
        let step = match (c, next) {
            (c, _) if c.is_whitespace() => 1,
            ('&', Some('&')) => two(Token::And, &mut tokens),
            ('|', Some('|')) => two(Token::Or, &mut tokens),
            ('=', Some('=')) => two(Token::Op(Op::Eq), &mut tokens),
            ('!', Some('=')) => two(Token::Op(Op::Ne), &mut tokens),
            ('<', Some('=')) => two(Token::Op(Op::Le), &mut tokens),
            ('>', Some('=')) => two(Token::Op(Op::Ge), &mut tokens),
            ('=', Some('^')) => two(Token::Op(Op::StartsWith), &mut tokens),
            ('!', Some('^')) => two(Token::Op(Op::NotStartsWith), &mut tokens),
            ('=', Some('$')) => two(Token::Op(Op::EndsWith), &mut tokens),
            ('!', Some('$')) => two(Token::Op(Op::NotEndsWith), &mut tokens),
            ('=', Some('~')) | ('!', Some('~')) => {
                return Err(format!(
                    "the operator '{c}~' (regular expression or membership) is not supported"
                ))
            }
            ('<', _) => {
                tokens.push(Token::Op(Op::Lt));
                1
            }
            ('>', _) => {
                tokens.push(Token::Op(Op::Gt));
                1
            }
            ('!', _) => {
                tokens.push(Token::Not);
                1
            }
            ('(', _) => {
                tokens.push(Token::Open);
                1
            }
            (')', _) => {
                tokens.push(Token::Close);
                1
            }
            ('.', Some(d)) if !d.is_ascii_digit() => {
                tokens.push(Token::Dot);
                1
            }
            ('.', None) => {
                tokens.push(Token::Dot);
                1
            }
            ('\'' | '"', _) => {
                let mut out = String::new();
                let mut index = at + 1;
                loop {
                    match chars.get(index) {
                        None => return Err("an unterminated string".to_owned()),
                        Some(&q) if q == c => break,
                        Some('\\') => {
                            match chars.get(index + 1) {
                                Some(escaped) => out.push(*escaped),
                                None => return Err("an unterminated string".to_owned()),
                            }
                            index += 2;
                            continue;
                        }
                        Some(other) => out.push(*other),
                    }
                    index += 1;
                }
                tokens.push(Token::Str(out));
                index + 1 - at
            }
            (c, _) if c.is_ascii_digit() || c == '.' => {
                let mut index = at;
                while index < chars.len()
                    && (chars[index].is_ascii_alphanumeric() || chars[index] == '.')
                {
                    index += 1;
                }
                let literal: String = chars[at..index].iter().collect();
                let token = if let Ok(value) = literal.parse::<i64>() {
                    Token::Int(value)
                } else if let Some(value) = super::types::parse_java_double(&literal) {
                    Token::Double(value)
                } else {
                    return Err(format!("the number '{literal}' is not supported"));
                };
                tokens.push(token);
                index - at
            }
            (c, _) if c.is_alphabetic() || c == '_' || c == '$' => {
                let mut index = at;
                while index < chars.len()
                    && (chars[index].is_alphanumeric()
                        || chars[index] == '_'
                        || chars[index] == '$')
                {
                    index += 1;
                }
                let word: String = chars[at..index].iter().collect();
                tokens.push(match word.as_str() {
                    "and" => Token::And,
                    "or" => Token::Or,
                    "not" => Token::Not,
                    "eq" => Token::Op(Op::Eq),
                    "ne" => Token::Op(Op::Ne),
                    "lt" => Token::Op(Op::Lt),
                    "le" => Token::Op(Op::Le),
                    "gt" => Token::Op(Op::Gt),
                    "ge" => Token::Op(Op::Ge),
                    "true" => Token::Ident("true".to_owned()),
                    _ => Token::Ident(word),
                });
                index - at
            }
            (c, _) => return Err(format!("the character '{c}' is not supported")),
        };
        at += step;
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn deeper(depth: usize) -> Result<usize, String> {
        if depth >= PROPERTY_PREDICATE_DEPTH_MAX {
            Err(format!(
                "the predicate nests deeper than {PROPERTY_PREDICATE_DEPTH_MAX} levels"
            ))
        } else {
            Ok(depth + 1)
        }
    }

    fn or(&mut self, depth: usize) -> Result<Expr, String> {
        let depth = Self::deeper(depth)?;
        let mut left = self.and(depth)?;
        while self.peek() == Some(&Token::Or) {
            self.at += 1;
            let right = self.and(depth)?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self, depth: usize) -> Result<Expr, String> {
        let mut left = self.not(depth)?;
        while self.peek() == Some(&Token::And) {
            self.at += 1;
            let right = self.not(depth)?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn not(&mut self, depth: usize) -> Result<Expr, String> {
        if self.peek() == Some(&Token::Not) {
            self.at += 1;
            let depth = Self::deeper(depth)?;
            return Ok(Expr::Not(Box::new(self.not(depth)?)));
        }
        self.comparison(depth)
    }

    fn comparison(&mut self, depth: usize) -> Result<Expr, String> {
        let left = self.primary(depth)?;
        if let Some(Token::Op(op)) = self.peek().cloned() {
            self.at += 1;
            let right = self.primary(depth)?;
            if let Some(Token::Op(_)) = self.peek() {
                return Err("chained comparisons are not supported".to_owned());
            }
            return Ok(Expr::Compare(op, Box::new(left), Box::new(right)));
        }
        Ok(left)
    }

    fn primary(&mut self, depth: usize) -> Result<Expr, String> {
        let token = self
            .tokens
            .get(self.at)
            .cloned()
            .ok_or_else(|| "the predicate ends too early".to_owned())?;
        self.at += 1;
        let expr = match token {
            Token::Open => {
                let inner = self.or(depth)?;
                if self.peek() != Some(&Token::Close) {
                    return Err("a '(' is not closed".to_owned());
                }
                self.at += 1;
                inner
            }
            Token::Str(text) => Expr::Literal(Value::Str(text)),
            Token::Int(value) => Expr::Literal(Value::Int(value)),
            Token::Double(value) => Expr::Literal(Value::Double(value)),
            Token::Ident(word) => match word.as_str() {
                "true" => Expr::Literal(Value::Bool(true)),
                "false" => Expr::Literal(Value::Bool(false)),
                "null" => Expr::Literal(Value::Null),
                _ => {
                    let mut path = vec![word];
                    while self.peek() == Some(&Token::Dot) {
                        self.at += 1;
                        match self.tokens.get(self.at).cloned() {
                            Some(Token::Ident(member)) | Some(Token::Str(member)) => {
                                path.push(member)
                            }
                            Some(Token::Int(index)) => path.push(index.to_string()),
                            other => {
                                return Err(format!(
                                    "a member access ending in {}",
                                    other
                                        .map(|t| t.describe())
                                        .unwrap_or_else(|| "nothing".to_owned())
                                ))
                            }
                        }
                        self.at += 1;
                    }
                    if self.peek() == Some(&Token::Open) {
                        return Err(format!("calling '{}' is not supported", path.join(".")));
                    }
                    Expr::Reference(path)
                }
            },
            other => return Err(format!("unexpected {}", other.describe())),
        };
        Ok(expr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::properties::types::parse_json;

    fn run(predicate: &str) -> Value {
        let policy =
            parse_json(r#"{"Table-name":"table01","Compaction":{"target-size":128}}"#).unwrap();
        let lookup = move |name: &str| match name {
            "fillFactor" => Value::Double(95.0),
            "someb" => Value::Bool(true),
            "name" => Value::Str("TABLE_1".to_owned()),
            "policy" => Value::Json(policy.clone()),
            _ => Value::Null,
        };
        evaluate(&parse(predicate).unwrap(), &lookup)
    }

    #[test]
    fn hive_predicates() {
        assert_eq!(run("policy.'Table-name' =^ 'table0'"), Value::Bool(true));
        assert_eq!(run("fillFactor > 92"), Value::Bool(true));
        assert_eq!(run("someb && fillFactor < 95"), Value::Bool(false));
        assert_eq!(run("someb && fillFactor <= 95"), Value::Bool(true));
        assert_eq!(run("!someb || name == 'TABLE_1'"), Value::Bool(true));
        assert_eq!(
            run("not (name =$ '_2') and fillFactor ge 95.0"),
            Value::Bool(true)
        );
        assert_eq!(
            run("policy.Compaction.'target-size' == 128"),
            Value::Bool(true)
        );
        assert_eq!(run("missing == null"), Value::Bool(true));
        assert_eq!(run("missing > 1"), Value::Bool(false));
        assert_eq!(run("fillFactor"), Value::Double(95.0));
    }

    #[test]
    fn unsupported_parts_are_named() {
        for (predicate, part) in [
            ("size(name) > 1", "calling 'size'"),
            ("name =~ 'T.*'", "'=~'"),
            ("fillFactor + 1 > 2", "'+'"),
            ("x = 1", "'='"),
            ("a < b < c", "chained"),
            ("(someb", "not closed"),
        ] {
            let error = parse(predicate).unwrap_err();
            assert!(error.contains(part), "{predicate}: {error}");
        }
        let deep = format!("{}someb{}", "(".repeat(100), ")".repeat(100));
        assert!(parse(&deep).unwrap_err().contains("nests deeper"));
        let long = "someb || ".repeat(1000) + "someb";
        assert!(parse(&long).unwrap_err().contains("bytes allowed"));
    }
}
