//! Expressions in Hive's filter language, so that a listing by expression runs on the
//! engine's filter planning (value ranges on the leading keys, a binary search over a kept
//! listing).
//!
//! - [`CompiledExpression::exact_filter`]: the filter Hive's metastore itself answers the
//!   expression with. Its `ObjectStore` turns the expression into its display string
//!   (`PartitionExpressionProxy.convertExprToFilter`) and, when that parses as a filter and
//!   pushes down to SQL, answers by the filter, with no unknown partitions; only otherwise
//!   does it prune names with `PartitionPruner`. That string parses for comparisons, `IN` and
//!   `BETWEEN` of a key with literals whose display the filter grammar reads: quoted strings
//!   against string keys, `int` literals against integral keys, `DATE'…'` against date keys,
//!   joined by `AND`/`OR`; Hive 4 also writes `IS NULL` as `= '__HIVE_DEFAULT_PARTITION__'`.
//! - [`CompiledExpression::candidate_filter`]: for the rest, a superset of what the pruner
//!   keeps (string comparisons under `AND`, or all of an `OR`, plus the default partition of
//!   each key it constrains, whose verdict may be unknown), so that only the candidates are
//!   evaluated.

use super::eval::{Datum, KeyType, Node};
use super::{CompiledExpression, ExprFunction};
use crate::partitions::filter::Operator;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Exact,
    Candidates,
}

impl CompiledExpression {
    /// The filter Hive's metastore answers this expression with, or `None` when Hive would
    /// prune partition names with the expression itself.
    pub fn exact_filter(&self, key_names: &[String]) -> Option<String> {
        let mut keys_used = Vec::new();
        let mut mapper = Mapper {
            expression: self,
            key_names,
            keys_used: &mut keys_used,
            mode: Mode::Exact,
        };
        mapper.map(&self.root)
    }

    /// A filter selecting a superset of the partitions the expression does not prune, or
    /// `None` when nothing of it maps.
    pub fn candidate_filter(&self, key_names: &[String]) -> Option<String> {
        let mut keys_used = Vec::new();
        let mut mapper = Mapper {
            expression: self,
            key_names,
            keys_used: &mut keys_used,
            mode: Mode::Candidates,
        };
        let filter = mapper.map(&self.root)?;
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
    mode: Mode,
}

impl Mapper<'_> {
    fn map(&mut self, node: &Node) -> Option<String> {
        let Node::Function(function, children) = node else {
            return None;
        };
        match function {
            ExprFunction::And if self.mode == Mode::Candidates => {
                let parts: Vec<String> = children
                    .iter()
                    .filter_map(|child| self.map(child))
                    .collect();
                joined(&parts, " and ")
            }
            ExprFunction::And | ExprFunction::Or => {
                let parts: Option<Vec<String>> =
                    children.iter().map(|child| self.map(child)).collect();
                let separator = if *function == ExprFunction::And {
                    " and "
                } else {
                    " or "
                };
                joined(&parts?, separator)
            }
            ExprFunction::Compare(operator) => match children.as_slice() {
                [left, right] => match (self.key(left), self.literal(right)) {
                    (Some(key), Some(_)) => self.comparison(key, *operator, right),
                    _ => self.comparison(self.key(right)?, reversed(*operator), left),
                },
                _ => None,
            },
            ExprFunction::In => {
                let (first, members) = children.split_first()?;
                let key = self.key(first)?;
                let parts: Option<Vec<String>> = members
                    .iter()
                    .map(|member| self.comparison(key, Operator::Equals, member))
                    .collect();
                joined(&parts?, " or ")
            }
            ExprFunction::Between => match children.as_slice() {
                [Node::Constant(Datum::Boolean(invert), _), value, low, high] => {
                    let key = self.key(value)?;
                    let (low_operator, high_operator, separator) = match invert {
                        false => (Operator::GreaterOrEqual, Operator::LessOrEqual, " and "),
                        true if self.mode == Mode::Exact => {
                            (Operator::Less, Operator::Greater, " or ")
                        }
                        true => return None,
                    };
                    let low = self.comparison(key, low_operator, low)?;
                    let high = self.comparison(key, high_operator, high)?;
                    Some(format!("({low}{separator}{high})"))
                }
                _ => None,
            },
            ExprFunction::IsNull if self.mode == Mode::Exact => match children.as_slice() {
                // Hive 4's replaceNullFiltersWithDefaultPartition.
                [value] => {
                    let key = self.key(value)?;
                    Some(format!(
                        "{} = {}",
                        self.key_names[key],
                        quote(&self.expression.default_partition_name)?
                    ))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// A key the mode maps, by position: any plain-named key when exact (the literal decides),
    /// a string key for candidates.
    fn key(&self, node: &Node) -> Option<usize> {
        let Node::Key(index) = node else { return None };
        let name = self.key_names.get(*index)?;
        let plain = !name.is_empty()
            && name
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_');
        let key_type = self.expression.key_type(*index);
        let mapped = match self.mode {
            Mode::Exact => matches!(key_type, KeyType::Text | KeyType::Integer | KeyType::Date),
            Mode::Candidates => key_type == KeyType::Text,
        };
        (plain && mapped).then_some(*index)
    }

    /// A literal as the filter reads it.
    fn literal(&self, node: &Node) -> Option<String> {
        match node {
            Node::Constant(Datum::Text(text), _) => quote(text),
            Node::Constant(Datum::Integer(value), type_name)
                if self.mode == Mode::Exact && type_name == "int" =>
            {
                Some(value.to_string())
            }
            Node::Constant(Datum::Date(days), _) if self.mode == Mode::Exact => {
                Some(format!("DATE '{}'", super::eval::date_text(*days)))
            }
            _ => None,
        }
    }

    /// `key operator literal` when the key's type and the literal's agree as Hive's SQL
    /// pushdown wants them.
    fn comparison(&mut self, key: usize, operator: Operator, literal: &Node) -> Option<String> {
        let text = self.literal(literal)?;
        let agrees = matches!(
            (self.expression.key_type(key), literal),
            (KeyType::Text, Node::Constant(Datum::Text(_), _))
                | (KeyType::Integer, Node::Constant(Datum::Integer(_), _))
                | (KeyType::Date, Node::Constant(Datum::Date(_), _))
        );
        let symbol = match operator {
            Operator::Equals => "=",
            Operator::NotEquals if self.mode == Mode::Exact => "<>",
            Operator::Less => "<",
            Operator::LessOrEqual => "<=",
            Operator::Greater => ">",
            Operator::GreaterOrEqual => ">=",
            Operator::NotEquals | Operator::Like => return None,
        };
        if !agrees {
            return None;
        }
        self.keys_used.push(key);
        Some(format!("{} {symbol} {text}", self.key_names[key]))
    }
}

fn joined(parts: &[String], separator: &str) -> Option<String> {
    (!parts.is_empty()).then(|| {
        parts
            .iter()
            .map(|part| format!("({part})"))
            .collect::<Vec<_>>()
            .join(separator)
    })
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
