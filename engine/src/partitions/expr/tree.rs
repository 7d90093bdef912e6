//! The expression tree read from Kryo's object graph: `ExprNodeGenericFuncDesc` (a
//! function of its `chidren`, as Hive spells the field), `ExprNodeColumnDesc` (a partition
//! key by name) and `ExprNodeConstantDesc` (a literal), each with its type from its
//! `TypeInfo`. Functions are known by their `GenericUDF` class (and a `GenericUDFBridge` by
//! its `udfClassName`); one hivestore does not evaluate is [`ExprFunction::Unknown`]. The walk is
//! bounded by [`EXPRESSION_DEPTH_MAX`](super::EXPRESSION_DEPTH_MAX), so a reference cycle in
//! a hostile graph ends in an error.

use super::hive_layouts::FIELD_LAYOUTS;
use super::kryo_graph::{Graph, Object, Value};
use super::kryo_input::DecodeError;
use super::{ExprConstant, ExprFunction, ExprNode, EXPRESSION_DEPTH_MAX};
use crate::partitions::filter::Operator;

const PLAN: &str = "org.apache.hadoop.hive.ql.plan.";
const GENERIC: &str = "org.apache.hadoop.hive.ql.udf.generic.";
const UDF: &str = "org.apache.hadoop.hive.ql.udf.";

pub(crate) fn to_tree(graph: &Graph, root: &Value) -> Result<ExprNode, DecodeError> {
    Walk { graph }.node(root, 0)
}

struct Walk<'a> {
    graph: &'a Graph,
}

impl<'a> Walk<'a> {
    fn object(&self, value: &Value) -> Option<&'a Object> {
        match value {
            Value::Object(index) => self.graph.objects.get(*index),
            _ => None,
        }
    }

    /// The class of an object of [`FIELD_LAYOUTS`] and its fields.
    fn fields(&self, value: &Value) -> Option<(&'static str, &'a [Value])> {
        match self.object(value)? {
            Object::Fields { class, fields } => Some((class, fields)),
            _ => None,
        }
    }

    fn field(&self, value: &Value, name: &str) -> Option<&'a Value> {
        let (class, fields) = self.fields(value)?;
        let index = FIELD_LAYOUTS
            .iter()
            .find(|(layout_class, _)| *layout_class == class)?
            .1
            .iter()
            .position(|(field, _)| *field == name)?;
        fields.get(index)
    }

    fn text(&self, value: &Value) -> Option<&'a str> {
        match self.object(value)? {
            Object::Text(text) => Some(text),
            _ => None,
        }
    }

    fn node(&self, value: &Value, depth: usize) -> Result<ExprNode, DecodeError> {
        if depth >= EXPRESSION_DEPTH_MAX {
            return Err(format!(
                "the expression nests deeper than the {EXPRESSION_DEPTH_MAX} levels allowed"
            ));
        }
        let Some((class, _)) = self.fields(value) else {
            return Err("an expression node is not an ExprNodeDesc".to_string());
        };
        let type_name = self.type_name(self.field(value, "typeInfo"));
        match class.strip_prefix(PLAN) {
            Some("ExprNodeColumnDesc") => {
                let name = self
                    .field(value, "column")
                    .and_then(|column| self.text(column));
                let name = name.ok_or("an ExprNodeColumnDesc has no column name")?;
                Ok(ExprNode::Column {
                    name: name.to_string(),
                    type_name,
                })
            }
            Some("ExprNodeConstantDesc") => {
                let constant = self.constant(self.field(value, "value").unwrap_or(&Value::Null));
                Ok(ExprNode::Constant {
                    value: constant,
                    type_name,
                })
            }
            Some("ExprNodeGenericFuncDesc") => {
                let children = match self
                    .field(value, "chidren")
                    .and_then(|list| self.object(list))
                {
                    Some(Object::List(items)) => items.as_slice(),
                    _ => &[],
                };
                let mut nodes = Vec::with_capacity(children.len());
                for child in children {
                    nodes.push(self.node(child, depth + 1)?);
                }
                let udf = self.field(value, "genericUDF").unwrap_or(&Value::Null);
                Ok(ExprNode::Function {
                    function: self.function(udf),
                    children: nodes,
                    type_name,
                })
            }
            _ => Err(format!("{class} is not an expression node hivestore reads")),
        }
    }

    /// Hive's type name of a `TypeInfo`: parameters from its fields.
    fn type_name(&self, type_info: Option<&Value>) -> String {
        let Some(type_info) = type_info else {
            return String::new();
        };
        let name = self
            .field(type_info, "typeName")
            .and_then(|name| self.text(name))
            .unwrap_or_default();
        let integer = |field: &str| match self.field(type_info, field) {
            Some(Value::Integer(value)) => *value,
            _ => 0,
        };
        match self.fields(type_info).map(|(class, _)| class) {
            Some(class) if class.ends_with(".DecimalTypeInfo") => {
                format!("{name}({},{})", integer("precision"), integer("scale"))
            }
            Some(class)
                if class.ends_with(".VarcharTypeInfo") || class.ends_with(".CharTypeInfo") =>
            {
                format!("{name}({})", integer("length"))
            }
            _ => name.to_string(),
        }
    }

    fn constant(&self, value: &Value) -> ExprConstant {
        match value {
            Value::Null => ExprConstant::Null,
            Value::Bool(value) => ExprConstant::Boolean(*value),
            Value::Integer(value) => ExprConstant::Integer(*value),
            Value::Float(value) => ExprConstant::Double(*value),
            Value::Char(unit) => {
                String::from_utf16(&[*unit]).map_or(ExprConstant::Unknown, ExprConstant::Text)
            }
            Value::Object(_) => match self.object(value) {
                Some(Object::Text(text)) => ExprConstant::Text(text.clone()),
                Some(Object::SqlDate(millis)) => ExprConstant::Date(days_of_millis(*millis)),
                Some(Object::Fields { class, .. }) => self.object_constant(class, value),
                _ => ExprConstant::Unknown,
            },
        }
    }

    fn object_constant(&self, class: &str, value: &Value) -> ExprConstant {
        if class.ends_with(".HiveDecimal") {
            return self
                .decimal(value)
                .map_or(ExprConstant::Unknown, ExprConstant::Decimal);
        }
        if class.ends_with(".HiveVarchar") || class.ends_with(".HiveChar") {
            if let Some(text) = self.field(value, "value").and_then(|text| self.text(text)) {
                return ExprConstant::Text(text.to_string());
            }
        }
        ExprConstant::Unknown
    }

    /// A `HiveDecimal` (storage-api 2.x): three longs of sixteen decimal digits each, lowest
    /// first, a scale and a sign.
    fn decimal(&self, value: &Value) -> Option<super::Decimal> {
        let integer = |field: &str| match self.field(value, field) {
            Some(Value::Integer(value)) => Some(*value),
            _ => None,
        };
        let digits_per_word: i128 = 10_000_000_000_000_000;
        let words = [integer("fast0")?, integer("fast1")?, integer("fast2")?];
        if words
            .iter()
            .any(|word| !(0..digits_per_word as i64).contains(word))
        {
            return None;
        }
        let magnitude = i128::from(words[0])
            + i128::from(words[1]) * digits_per_word
            + i128::from(words[2]).checked_mul(digits_per_word * digits_per_word)?;
        let scale = u8::try_from(integer("fastScale")?)
            .ok()
            .filter(|scale| *scale <= 38)?;
        let unscaled = match integer("fastSignum")? {
            0 => 0,
            1 => magnitude,
            -1 => -magnitude,
            _ => return None,
        };
        Some(super::Decimal::new(unscaled, scale))
    }

    fn function(&self, udf: &Value) -> ExprFunction {
        let Some((class, _)) = self.fields(udf) else {
            return ExprFunction::Unknown(String::new());
        };
        let short = class.strip_prefix(GENERIC).unwrap_or(class);
        match short {
            "GenericUDFOPEqual" => ExprFunction::Compare(Operator::Equals),
            "GenericUDFOPNotEqual" => ExprFunction::Compare(Operator::NotEquals),
            "GenericUDFOPLessThan" => ExprFunction::Compare(Operator::Less),
            "GenericUDFOPEqualOrLessThan" => ExprFunction::Compare(Operator::LessOrEqual),
            "GenericUDFOPGreaterThan" => ExprFunction::Compare(Operator::Greater),
            "GenericUDFOPEqualOrGreaterThan" => ExprFunction::Compare(Operator::GreaterOrEqual),
            "GenericUDFOPEqualNS" => ExprFunction::EqualNullSafe,
            "GenericUDFOPNotEqualNS" => ExprFunction::NotEqualNullSafe,
            "GenericUDFOPAnd" => ExprFunction::And,
            "GenericUDFOPOr" => ExprFunction::Or,
            "GenericUDFOPNot" => ExprFunction::Not,
            "GenericUDFOPNull" => ExprFunction::IsNull,
            "GenericUDFOPNotNull" => ExprFunction::IsNotNull,
            "GenericUDFIn" => ExprFunction::In,
            "GenericUDFBetween" => ExprFunction::Between,
            "GenericUDFLike" => ExprFunction::Like,
            "GenericUDFToDate" => ExprFunction::Cast("date".to_string()),
            "GenericUDFToString" => ExprFunction::Cast("string".to_string()),
            "GenericUDFToDecimal" | "GenericUDFToVarchar" | "GenericUDFToChar" => {
                ExprFunction::Cast(self.type_name(self.field(udf, "typeInfo")))
            }
            "GenericUDFBridge" => self.bridge(udf),
            other => ExprFunction::Unknown(other.to_string()),
        }
    }

    /// A `GenericUDFBridge` wraps an old-style UDF named by class.
    fn bridge(&self, udf: &Value) -> ExprFunction {
        let class = self
            .field(udf, "udfClassName")
            .and_then(|name| self.text(name))
            .unwrap_or("");
        let cast = |type_name: &str| ExprFunction::Cast(type_name.to_string());
        match class.strip_prefix(UDF).unwrap_or(class) {
            "UDFLike" => ExprFunction::Like,
            "UDFToInteger" => cast("int"),
            "UDFToLong" => cast("bigint"),
            "UDFToShort" => cast("smallint"),
            "UDFToByte" => cast("tinyint"),
            "UDFToString" => cast("string"),
            "UDFToDouble" => cast("double"),
            "UDFToFloat" => cast("float"),
            "UDFToBoolean" => cast("boolean"),
            other => ExprFunction::Unknown(other.to_string()),
        }
    }
}

/// The day of a `java.sql.Date`'s milliseconds. The client's JVM made them at its local
/// midnight, whose zone the blob does not say: the nearest UTC midnight is that day for
/// every zone within twelve hours of UTC.
fn days_of_millis(millis: i64) -> i32 {
    const DAY_MILLIS: i64 = 86_400_000;
    let days = millis.saturating_add(DAY_MILLIS / 2).div_euclid(DAY_MILLIS);
    i32::try_from(days).unwrap_or(if days < 0 { i32::MIN } else { i32::MAX })
}
