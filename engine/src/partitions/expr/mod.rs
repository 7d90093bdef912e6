//! Hive's serialised partition expressions (`get_partitions_by_expr`,
//! `get_partitions_spec_by_expr`, `get_partition_names_req`, `drop_partitions_req`'s
//! expressions): the Kryo bytes of an `ExprNodeGenericFuncDesc`, decoded into an
//! [`ExprNode`] tree and evaluated over partition values with Hive's semantics.
//!
//! Two layouts are read, as Hive 4's `PartitionExpressionForMetastore` reads them: the root's
//! class named first (Hive 4's `serializeObjectWithTypeInformation`), else the root's fields
//! straight away (Hive 2.3's `serializeExpressionToKryo`). The blob is untrusted: decoding is
//! bounded by [`EXPRESSION_BYTES_MAX`], [`EXPRESSION_OBJECT_COUNT_MAX`],
//! [`EXPRESSION_DEPTH_MAX`] and [`EXPRESSION_CLASS_COUNT_MAX`], reads only the classes whose
//! layouts it knows, never panics, and every failure is [`Error::Refused`] (Hive's
//! `MetaException`) saying what was wrong and at which byte.

mod candidates;
mod eval;
mod hive_layouts;
mod kryo_graph;
mod kryo_input;
mod tree;

pub use eval::CompiledExpression;

use crate::error::{Error, Result};
use crate::partitions::filter::Operator;

/// The longest expression accepted, in bytes.
pub const EXPRESSION_BYTES_MAX: usize = 8 << 20;
/// The most objects (nodes, strings, lists, type descriptions) an expression may hold.
pub const EXPRESSION_OBJECT_COUNT_MAX: usize = 200_000;
/// The deepest nesting of objects accepted (a node and its children list are two levels).
pub const EXPRESSION_DEPTH_MAX: usize = 256;
/// The most distinct classes an expression may name.
pub const EXPRESSION_CLASS_COUNT_MAX: usize = 256;

const FUNCTION_DESC: &str = "org.apache.hadoop.hive.ql.plan.ExprNodeGenericFuncDesc";

/// A decimal: `unscaled` × 10^-`scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decimal {
    unscaled: i128,
    scale: u8,
}

impl Decimal {
    pub(crate) fn new(unscaled: i128, scale: u8) -> Self {
        Decimal { unscaled, scale }
    }

    /// The digits without the point.
    pub fn unscaled(&self) -> i128 {
        self.unscaled
    }

    /// How many digits follow the point.
    pub fn scale(&self) -> u8 {
        self.scale
    }
}

/// A literal of an expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprConstant {
    /// SQL's null: what Hive's client puts where a predicate on other columns stood.
    Null,
    /// A boolean.
    Boolean(bool),
    /// A `tinyint` .. `bigint`.
    Integer(i64),
    /// A `float` or `double`.
    Double(f64),
    /// A `decimal`.
    Decimal(Decimal),
    /// A `string`, `varchar` or `char`.
    Text(String),
    /// A `date`, as days since 1970-01-01.
    Date(i32),
    /// A value of a class hivestore does not evaluate (a timestamp, an interval): unknown.
    Unknown,
}

/// A function of an expression, by its `GenericUDF` class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExprFunction {
    /// `=`, `<>`, `<`, `<=`, `>`, `>=`.
    Compare(Operator),
    /// `<=>`.
    EqualNullSafe,
    /// `IS DISTINCT FROM` (Hive 4's `GenericUDFOPNotEqualNS`).
    NotEqualNullSafe,
    /// `AND` of its children.
    And,
    /// `OR` of its children.
    Or,
    /// `NOT`.
    Not,
    /// `IS NULL`.
    IsNull,
    /// `IS NOT NULL`.
    IsNotNull,
    /// The first child `IN` the others.
    In,
    /// `BETWEEN`: children are the inversion flag, the value, the low and high ends.
    Between,
    /// `LIKE`.
    Like,
    /// A cast to the Hive type named.
    Cast(String),
    /// A function hivestore does not evaluate, by its class: its value is unknown.
    Unknown(String),
}

/// A node of an expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprNode {
    /// A partition key.
    Column {
        /// The key's name as the client wrote it.
        name: String,
        /// Its Hive type as the client saw it.
        type_name: String,
    },
    /// A literal.
    Constant {
        /// The value.
        value: ExprConstant,
        /// Its Hive type.
        type_name: String,
    },
    /// A function of its children.
    Function {
        /// Which function.
        function: ExprFunction,
        /// Its arguments.
        children: Vec<ExprNode>,
        /// Its result's Hive type.
        type_name: String,
    },
}

/// A decoded partition expression.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionExpression {
    root: ExprNode,
}

impl PartitionExpression {
    /// Decodes Hive's Kryo bytes of an expression, in Hive 4's layout or Hive 2.3's.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.len() > EXPRESSION_BYTES_MAX {
            return Err(refused(&format!(
                "{} bytes, more than the {EXPRESSION_BYTES_MAX} allowed",
                bytes.len()
            )));
        }
        if bytes.is_empty() {
            return Err(refused("the expression is empty"));
        }
        let typed = kryo_graph::read_graph(bytes, None)
            .and_then(|(graph, root)| tree::to_tree(&graph, &root));
        let root = match typed {
            Ok(root) => root,
            Err(typed_error) => {
                let bare = kryo_graph::read_graph(bytes, Some(FUNCTION_DESC))
                    .and_then(|(graph, root)| tree::to_tree(&graph, &root));
                bare.map_err(|bare_error| {
                    refused(&format!(
                        "read with its class: {typed_error}; read as Hive 2.3 writes it: {bare_error}"
                    ))
                })?
            }
        };
        Ok(PartitionExpression { root })
    }

    /// The tree.
    pub fn root(&self) -> &ExprNode {
        &self.root
    }
}

fn refused(reason: &str) -> Error {
    Error::Refused(format!("Failed to deserialize the expression: {reason}"))
}

#[cfg(test)]
mod tests;
