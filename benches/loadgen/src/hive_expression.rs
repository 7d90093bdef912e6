//! The bytes Hive 2.3's `SerializationUtilities.serializeExpressionToKryo` writes for the
//! partition predicate Hive's planner sends in `get_partitions_by_expr`, here
//! `ds >= 'first' AND ds < 'end'` on a string key: an `ExprNodeGenericFuncDesc` of
//! `GenericUDFOPAnd` over two comparisons of an `ExprNodeColumnDesc` and an
//! `ExprNodeConstantDesc`, in Kryo's layout (references on; a class by name the first time,
//! by its name id after; FieldSerializer fields in name order), with the fields Hive leaves
//! unset by an uninitialised UDF null.

const ARRAY_LIST: &str = "java.util.ArrayList";
const FUNCTION: &str = "org.apache.hadoop.hive.ql.plan.ExprNodeGenericFuncDesc";
const COLUMN: &str = "org.apache.hadoop.hive.ql.plan.ExprNodeColumnDesc";
const CONSTANT: &str = "org.apache.hadoop.hive.ql.plan.ExprNodeConstantDesc";
const PRIMITIVE_TYPE: &str = "org.apache.hadoop.hive.serde2.typeinfo.PrimitiveTypeInfo";
const BOOLEAN_WRITABLE: &str = "org.apache.hadoop.io.BooleanWritable";
const AND: &str = "org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPAnd";
const AT_LEAST: &str = "org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPEqualOrGreaterThan";
const LESS: &str = "org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPLessThan";
/// Hive's `hive.exec.default.partition.name`, sent with the expression.
pub const DEFAULT_PARTITION_NAME: &str = "__HIVE_DEFAULT_PARTITION__";
/// Kryo's registered id of `String`, plus two.
const STRING_CLASS_ID: u8 = 3;

/// Hive 2.3's bytes of `key >= first AND key < end`, `key` a string partition key.
pub fn string_range_expression(key: &str, first: &str, end: &str) -> Vec<u8> {
    let mut writer = KryoWriter::default();
    writer.new_object();
    // The AND's fields: chidren, genericUDF, isSortedExpr, typeInfo.
    writer.class(ARRAY_LIST);
    writer.new_object();
    writer.bytes.push(2);
    writer.comparison(key, AT_LEAST, ">=", "EQUAL OR GREATER THAN", first);
    writer.comparison(key, LESS, "<", "LESS THAN", end);
    writer.class(AND);
    writer.new_object();
    writer.boolean_writable();
    writer.bytes.push(0);
    writer.type_info("boolean");
    writer.bytes
}

/// Kryo's output with references: every new object takes the next reference id.
#[derive(Default)]
struct KryoWriter {
    bytes: Vec<u8>,
    class_names: Vec<&'static str>,
    references: u32,
    /// The reference id of `string`'s type description, once written.
    string_type: Option<u32>,
}

impl KryoWriter {
    fn var_u32(&mut self, mut value: u32) {
        while value >= 0x80 {
            self.bytes.push((value as u8) | 0x80);
            value >>= 7;
        }
        self.bytes.push(value as u8);
    }

    /// A class by name: its name id, and the name the first time.
    fn class(&mut self, name: &'static str) {
        self.bytes.push(1);
        match self.class_names.iter().position(|known| *known == name) {
            Some(id) => self.var_u32(id as u32),
            None => {
                self.var_u32(self.class_names.len() as u32);
                self.class_names.push(name);
                self.text(name);
            }
        }
    }

    /// The marker of an object not written before.
    fn new_object(&mut self) -> u32 {
        self.bytes.push(1);
        self.references += 1;
        self.references - 1
    }

    /// Kryo's `writeString` in its length form: characters plus one, then each character.
    fn text(&mut self, text: &str) {
        let units: Vec<u16> = text.encode_utf16().collect();
        let length = units.len() as u32 + 1;
        if length < 0x40 {
            self.bytes.push(length as u8 | 0x80);
        } else {
            assert!(length < 1 << 13, "texts here are short");
            self.bytes.push((length as u8 & 0x3F) | 0xC0);
            self.bytes.push((length >> 6) as u8);
        }
        for unit in units {
            match unit {
                0x01..=0x7F => self.bytes.push(unit as u8),
                0x80..=0x7FF => {
                    self.bytes.push(0xC0 | (unit >> 6) as u8);
                    self.bytes.push(0x80 | (unit & 0x3F) as u8);
                }
                _ => {
                    self.bytes.push(0xE0 | (unit >> 12) as u8);
                    self.bytes.push(0x80 | ((unit >> 6) & 0x3F) as u8);
                    self.bytes.push(0x80 | (unit & 0x3F) as u8);
                }
            }
        }
    }

    /// A string in a field of final class `String`: its marker, then the text.
    fn string_field(&mut self, text: &str) {
        self.new_object();
        self.text(text);
    }

    fn type_info(&mut self, type_name: &str) {
        self.class(PRIMITIVE_TYPE);
        if type_name == "string" {
            if let Some(reference) = self.string_type {
                self.var_u32(reference + 2);
                return;
            }
        }
        let reference = self.new_object();
        if type_name == "string" {
            self.string_type = Some(reference);
        }
        self.string_field(type_name);
    }

    fn boolean_writable(&mut self) {
        self.class(BOOLEAN_WRITABLE);
        self.new_object();
        self.bytes.push(0);
    }

    /// `key <operator> literal`, a function node in a children list.
    fn comparison(
        &mut self,
        key: &str,
        udf: &'static str,
        display: &str,
        name: &str,
        literal: &str,
    ) {
        self.class(FUNCTION);
        self.new_object();
        self.class(ARRAY_LIST);
        self.new_object();
        self.bytes.push(2);
        // The column: column, isPartitionColOrVirtualCol, isSkewedCol, tabAlias, typeInfo.
        self.class(COLUMN);
        self.new_object();
        self.string_field(key);
        self.bytes.extend_from_slice(&[1, 0, 0]);
        self.type_info("string");
        // The constant: typeInfo, value.
        self.class(CONSTANT);
        self.new_object();
        self.type_info("string");
        self.bytes.push(STRING_CLASS_ID);
        self.string_field(literal);
        // The UDF: compareOI, compareType, opDisplayName, opName, result.
        self.class(udf);
        self.new_object();
        self.bytes.extend_from_slice(&[0, 0]);
        self.string_field(display);
        self.string_field(name);
        self.boolean_writable();
        // isSortedExpr, typeInfo.
        self.bytes.push(0);
        self.type_info("boolean");
    }
}

#[cfg(test)]
mod tests {
    use hivestore_engine::{FieldSchema, PartitionExpression};

    use super::*;

    #[test]
    fn hivestore_reads_the_range_as_hive_s_filter() {
        let bytes = string_range_expression("ds", "2024-01-03", "2024-01-05");
        let expression = PartitionExpression::decode(&bytes).expect("decodes");
        let keys = [
            FieldSchema {
                name: "ds".into(),
                type_name: "string".into(),
                comment: None,
            },
            FieldSchema {
                name: "hr".into(),
                type_name: "int".into(),
                comment: None,
            },
        ];
        let compiled = expression
            .compile(&keys, DEFAULT_PARTITION_NAME)
            .expect("compiles");
        let names = ["ds".to_string(), "hr".to_string()];
        assert_eq!(
            compiled.exact_filter(&names).as_deref(),
            Some("(ds >= '2024-01-03') and (ds < '2024-01-05')")
        );
        assert_eq!(compiled.evaluate(&["2024-01-04", "1"]), Some(true));
        assert_eq!(compiled.evaluate(&["2024-01-05", "1"]), Some(false));
    }
}
