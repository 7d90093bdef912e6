//! The candidates of an expression in Hive's filter language, so that a listing by
//! expression runs on the engine's filter planning (value ranges on the leading keys, a
//! binary search over a kept listing) and evaluates the expression only on what that
//! selects. The candidate filter is implied by the expression for every partition whose
//! constrained keys hold a value: comparisons, `IN` and `BETWEEN` of a string key with string
//! literals (the filter language compares strings byte by byte, as Hive's `Text` does),
//! joined by `AND` (any part that maps) and `OR` (every part must). A partition whose
//! constrained key holds the default partition name evaluates to null there, so it may be
//! unknown rather than false: the filter takes those partitions too.

use super::eval::{KeyType, Node};
use super::{CompiledExpression, ExprFunction};
use crate::partitions::filter::Operator;

impl CompiledExpression {
    /// A filter selecting a superset of the partitions the expression does not prune, or
    /// `None` when nothing of it maps.
    pub fn candidate_filter(&self, key_names: &[String]) -> Option<String> {
        let mut keys_used = Vec::new();
        let filter = Mapper {
            expression: self,
            key_names,
            keys_used: &mut keys_used,
        }
        .map(&self.root)?;
        let mut alternatives = vec![format!("({filter})")];
        keys_used.sort_unstable();
        keys_used.dedup();
        let default_name = quote(&self.default_partition_name)?;
        for key in keys_used {
            alternatives.push(format!("{} = {default_name}", key_names[key]));
        }
        Some(alternatives.join(" or "))
    }
}

struct Mapper<'a> {
    expression: &'a CompiledExpression,
    key_names: &'a [String],
    keys_used: &'a mut Vec<usize>,
}

impl Mapper<'_> {
    fn map(&mut self, node: &Node) -> Option<String> {
        let Node::Function(function, children) = node else {
            return None;
        };
        match function {
            ExprFunction::And => {
                let parts: Vec<String> = children
                    .iter()
                    .filter_map(|child| self.map(child))
                    .collect();
                (!parts.is_empty()).then(|| {
                    parts
                        .iter()
                        .map(|part| format!("({part})"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                })
            }
            ExprFunction::Or => {
                let parts: Option<Vec<String>> =
                    children.iter().map(|child| self.map(child)).collect();
                let parts = parts?;
                (!parts.is_empty()).then(|| {
                    parts
                        .iter()
                        .map(|part| format!("({part})"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                })
            }
            ExprFunction::Compare(operator) => match children.as_slice() {
                [left, right] => match (self.key(left), self.literal(right)) {
                    (Some(key), Some(literal)) => self.comparison(key, *operator, &literal),
                    _ => {
                        let key = self.key(right)?;
                        let literal = self.literal(left)?;
                        self.comparison(key, reversed(*operator), &literal)
                    }
                },
                _ => None,
            },
            ExprFunction::In => {
                let (first, members) = children.split_first()?;
                let key = self.key(first)?;
                let literals: Option<Vec<String>> =
                    members.iter().map(|member| self.literal(member)).collect();
                let literals = literals?;
                let parts: Vec<String> = literals
                    .iter()
                    .map(|literal| self.comparison(key, Operator::Equals, literal))
                    .collect::<Option<_>>()?;
                (!parts.is_empty()).then(|| parts.join(" or "))
            }
            ExprFunction::Between => match children.as_slice() {
                [Node::Constant(invert), value, low, high]
                    if *invert == super::eval::Datum::Boolean(false) =>
                {
                    let key = self.key(value)?;
                    let low =
                        self.comparison(key, Operator::GreaterOrEqual, &self.literal(low)?)?;
                    let high = self.comparison(key, Operator::LessOrEqual, &self.literal(high)?)?;
                    Some(format!("{low} and {high}"))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// A string key, by position.
    fn key(&self, node: &Node) -> Option<usize> {
        match node {
            Node::Key(index) if self.expression.key_type(*index) == KeyType::Text => {
                let name = self.key_names.get(*index)?;
                let plain = !name.is_empty()
                    && name
                        .bytes()
                        .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_');
                plain.then_some(*index)
            }
            _ => None,
        }
    }

    /// A string literal, quoted for the filter language.
    fn literal(&self, node: &Node) -> Option<String> {
        match node {
            Node::Constant(super::eval::Datum::Text(text)) => quote(text),
            _ => None,
        }
    }

    fn comparison(&mut self, key: usize, operator: Operator, literal: &str) -> Option<String> {
        let symbol = match operator {
            Operator::Equals => "=",
            Operator::Less => "<",
            Operator::LessOrEqual => "<=",
            Operator::Greater => ">",
            Operator::GreaterOrEqual => ">=",
            Operator::NotEquals | Operator::Like => return None,
        };
        self.keys_used.push(key);
        Some(format!("{} {symbol} {literal}", self.key_names[key]))
    }
}

fn reversed(operator: Operator) -> Operator {
    match operator {
        Operator::Less => Operator::Greater,
        Operator::LessOrEqual => Operator::GreaterOrEqual,
        Operator::Greater => Operator::Less,
        Operator::GreaterOrEqual => Operator::LessOrEqual,
        other => other,
    }
}

/// A literal in quotes the filter language reads back as the same text: it keeps what is
/// between the quotes verbatim, so a text holding a backslash or both quotes does not map.
fn quote(text: &str) -> Option<String> {
    if text.contains('\\') {
        return None;
    }
    if !text.contains('\'') {
        return Some(format!("'{text}'"));
    }
    (!text.contains('"')).then(|| format!("\"{text}\""))
}
