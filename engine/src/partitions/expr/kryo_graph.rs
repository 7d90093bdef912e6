//! Kryo's object graph as Hive writes a partition expression: references on (a marker
//! before each object of a class other than the primitive wrappers: 0 null, 1 new, n + 2
//! the n-th object read before), classes written by name (a name id, then the name the first
//! time) or by registered id, and objects by the serializer Kryo picks for their class. The
//! reader knows the classes of [`hive_layouts`](super::hive_layouts) and Java's own that
//! expressions hold; any other class, a bad marker, or a length beyond the bytes left is an
//! error naming it and its offset. Every object read counts against
//! [`EXPRESSION_OBJECT_COUNT_MAX`], every nesting against [`EXPRESSION_DEPTH_MAX`].

use super::hive_layouts::{ENUMS, FIELD_LAYOUTS};
use super::kryo_input::{DecodeError, KryoInput};
use super::{EXPRESSION_CLASS_COUNT_MAX, EXPRESSION_DEPTH_MAX, EXPRESSION_OBJECT_COUNT_MAX};

/// How a field is written by Kryo's `FieldSerializer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldKind {
    Bool,
    Byte,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    /// A field whose declared class is final: no class is written, only a marker and the
    /// object.
    Final(&'static str),
    /// Any other field: the class, then the object.
    Any,
}

/// A value of the graph. Objects Kryo tracks by reference are [`Value::Object`]'s index
/// into [`Graph::objects`], whether read there or referred back to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    /// `byte`, `short`, `int`, `long` and their wrappers.
    Integer(i64),
    Float(f64),
    Char(u16),
    Object(usize),
}

/// An object tracked by reference.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Object {
    /// Reserved while its fields are read: a reference to it then is a cycle.
    Reading,
    Text(String),
    Bytes(Vec<u8>),
    Longs(Vec<i64>),
    Enum {
        class: &'static str,
        ordinal: u32,
    },
    /// `java.sql.Date`: milliseconds since the epoch.
    SqlDate(i64),
    /// `java.sql.Timestamp`: milliseconds since the epoch, and nanoseconds.
    SqlTimestamp(i64, i32),
    /// A collection or an object array.
    List(Vec<Value>),
    /// A class of [`FIELD_LAYOUTS`]: its fields' values in layout order.
    Fields {
        class: &'static str,
        fields: Vec<Value>,
    },
}

/// What Kryo writes for objects of a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Serializer {
    Wrapper(FieldKind),
    Text,
    SqlDate,
    SqlTimestamp,
    Collection,
    /// An object array; `true` when its element class is final (no class per element).
    ObjectArray(bool),
    ByteArray,
    LongArray,
    Enum,
    Fields(&'static [(&'static str, FieldKind)]),
}

#[derive(Debug, Clone, Copy)]
struct Class {
    name: &'static str,
    serializer: Serializer,
}

/// Classes Kryo registers by id: its own ten (`int` .. `void`, wrappers sharing their
/// primitive's id), then Hive's `SerializationUtilities` registrations in order.
const REGISTERED: &[&str] = &[
    "java.lang.Integer",
    "java.lang.String",
    "java.lang.Float",
    "java.lang.Boolean",
    "java.lang.Byte",
    "java.lang.Character",
    "java.lang.Short",
    "java.lang.Long",
    "java.lang.Double",
    "void",
    "java.sql.Date",
    "java.sql.Timestamp",
];

/// Java's classes an expression may hold, by the serializer Kryo gives them.
fn java_class(name: &str) -> Option<Class> {
    let (name, serializer): (&'static str, Serializer) = match name {
        "java.lang.Integer" => ("java.lang.Integer", Serializer::Wrapper(FieldKind::Int)),
        "java.lang.Long" => ("java.lang.Long", Serializer::Wrapper(FieldKind::Long)),
        "java.lang.Short" => ("java.lang.Short", Serializer::Wrapper(FieldKind::Short)),
        "java.lang.Byte" => ("java.lang.Byte", Serializer::Wrapper(FieldKind::Byte)),
        "java.lang.Boolean" => ("java.lang.Boolean", Serializer::Wrapper(FieldKind::Bool)),
        "java.lang.Float" => ("java.lang.Float", Serializer::Wrapper(FieldKind::Float)),
        "java.lang.Double" => ("java.lang.Double", Serializer::Wrapper(FieldKind::Double)),
        "java.lang.Character" => ("java.lang.Character", Serializer::Wrapper(FieldKind::Char)),
        "java.lang.String" => ("java.lang.String", Serializer::Text),
        "java.sql.Date" => ("java.sql.Date", Serializer::SqlDate),
        "java.sql.Timestamp" => ("java.sql.Timestamp", Serializer::SqlTimestamp),
        "java.util.ArrayList" => ("java.util.ArrayList", Serializer::Collection),
        "java.util.LinkedList" => ("java.util.LinkedList", Serializer::Collection),
        "[B" => ("[B", Serializer::ByteArray),
        "[J" => ("[J", Serializer::LongArray),
        "[Ljava.lang.Object;" => ("[Ljava.lang.Object;", Serializer::ObjectArray(false)),
        "[Ljava.lang.String;" => ("[Ljava.lang.String;", Serializer::ObjectArray(true)),
        "[Lorg.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;" => (
            "[Lorg.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;",
            Serializer::ObjectArray(false),
        ),
        _ => return None,
    };
    Some(Class { name, serializer })
}

fn class_named(name: &str) -> Option<Class> {
    if let Some(class) = java_class(name) {
        return Some(class);
    }
    if let Ok(index) = FIELD_LAYOUTS.binary_search_by(|(class, _)| (*class).cmp(name)) {
        let (name, fields) = FIELD_LAYOUTS[index];
        return Some(Class {
            name,
            serializer: Serializer::Fields(fields),
        });
    }
    ENUMS
        .iter()
        .find(|known| **known == name)
        .map(|name| Class {
            name,
            serializer: Serializer::Enum,
        })
}

/// The objects read, by reference id.
pub(crate) struct Graph {
    pub(crate) objects: Vec<Object>,
}

/// Reads one graph: `root` is the class of the root object when the blob does not name it
/// (Hive 2.3's `serializeExpressionToKryo`), or `None` when it does (Hive 4's
/// `serializeObjectWithTypeInformation`).
pub(crate) fn read_graph(bytes: &[u8], root: Option<&str>) -> Result<(Graph, Value), DecodeError> {
    let mut reader = GraphReader {
        input: KryoInput::new(bytes),
        objects: Vec::new(),
        names: Vec::new(),
        depth: 0,
    };
    let value = match root {
        Some(name) => {
            let class = class_named(name).ok_or_else(|| format!("no layout for class {name}"))?;
            reader.object_after_marker(class, false)?
        }
        None => reader.class_and_object()?,
    };
    if reader.input.remaining() != 0 {
        return Err(format!(
            "{} bytes follow the expression's end at byte {}",
            reader.input.remaining(),
            reader.input.position()
        ));
    }
    Ok((
        Graph {
            objects: reader.objects,
        },
        value,
    ))
}

struct GraphReader<'a> {
    input: KryoInput<'a>,
    objects: Vec<Object>,
    /// Class names by name id, as the blob introduced them.
    names: Vec<(u32, Class)>,
    depth: usize,
}

impl GraphReader<'_> {
    /// `readClass`: `None` for a null object.
    fn class(&mut self) -> Result<Option<Class>, DecodeError> {
        let at = self.input.position();
        match self.input.var_u32("a class")? {
            0 => Ok(None),
            1 => self.class_by_name().map(Some),
            id => {
                let registered = (id - 2) as usize;
                let name = REGISTERED
                    .get(registered)
                    .copied()
                    .filter(|name| *name != "void");
                name.and_then(java_class).map(Some).ok_or_else(|| {
                    format!("the class registered as {registered} (byte {at}) is none Hive writes")
                })
            }
        }
    }

    fn class_by_name(&mut self) -> Result<Class, DecodeError> {
        let name_id = self.input.var_u32("a class name id")?;
        if let Some((_, class)) = self.names.iter().find(|(id, _)| *id == name_id) {
            return Ok(*class);
        }
        let at = self.input.position();
        let name = self
            .input
            .string("a class name")?
            .ok_or_else(|| format!("the class name at byte {at} is null"))?;
        let class = class_named(&name).ok_or_else(|| {
            let shown: String = name.chars().take(200).collect();
            format!("the expression holds an object of class {shown} (byte {at}), which is not one of a Hive partition expression's")
        })?;
        if self.names.len() >= EXPRESSION_CLASS_COUNT_MAX {
            return Err(format!(
                "the expression names more than the {EXPRESSION_CLASS_COUNT_MAX} classes allowed"
            ));
        }
        self.names.push((name_id, class));
        Ok(class)
    }

    /// `readClassAndObject`.
    fn class_and_object(&mut self) -> Result<Value, DecodeError> {
        match self.class()? {
            None => Ok(Value::Null),
            Some(class) => self.object_after_marker(class, false),
        }
    }

    /// `readObjectOrNull` (`may_be_null`) or `readObject` of a known class: the reference
    /// marker (none for a wrapper read by `readObject`), then the object.
    fn object_after_marker(
        &mut self,
        class: Class,
        may_be_null: bool,
    ) -> Result<Value, DecodeError> {
        if let Serializer::Wrapper(kind) = class.serializer {
            if may_be_null && self.input.var_u32("a null marker")? == 0 {
                return Ok(Value::Null);
            }
            return self.primitive(kind);
        }
        let at = self.input.position();
        match self.input.var_u32("a reference marker")? {
            0 if may_be_null => Ok(Value::Null),
            0 => Err(format!(
                "a {} at byte {at} is null where Kryo writes none",
                class.name
            )),
            1 => self.new_object(class),
            reference => {
                let index = (reference - 2) as usize;
                if index >= self.objects.len() {
                    return Err(format!(
                        "the reference at byte {at} is to object {index}, but only {} were read",
                        self.objects.len()
                    ));
                }
                Ok(Value::Object(index))
            }
        }
    }

    fn new_object(&mut self, class: Class) -> Result<Value, DecodeError> {
        if self.objects.len() >= EXPRESSION_OBJECT_COUNT_MAX {
            return Err(format!(
                "the expression holds more than the {EXPRESSION_OBJECT_COUNT_MAX} objects allowed"
            ));
        }
        if self.depth >= EXPRESSION_DEPTH_MAX {
            return Err(format!(
                "the expression nests objects deeper than the {EXPRESSION_DEPTH_MAX} levels allowed"
            ));
        }
        let index = self.objects.len();
        self.objects.push(Object::Reading);
        self.depth += 1;
        let object = self.object_body(class);
        self.depth -= 1;
        self.objects[index] = object?;
        Ok(Value::Object(index))
    }

    fn object_body(&mut self, class: Class) -> Result<Object, DecodeError> {
        let what = class.name;
        Ok(match class.serializer {
            Serializer::Wrapper(_) => unreachable!("wrappers are read without a marker"),
            Serializer::Text => {
                let at = self.input.position();
                Object::Text(self.input.string(what)?.ok_or_else(|| {
                    format!("the string at byte {at} is null after a marker saying it is not")
                })?)
            }
            Serializer::SqlDate => Object::SqlDate(self.input.fixed_i64(what)?),
            Serializer::SqlTimestamp => {
                Object::SqlTimestamp(self.input.fixed_i64(what)?, self.input.fixed_i32(what)?)
            }
            Serializer::Collection => {
                let count = self.input.count(what)?;
                let mut items = Vec::with_capacity(count);
                for _ in 0..count {
                    items.push(self.class_and_object()?);
                }
                Object::List(items)
            }
            Serializer::ObjectArray(final_elements) => self.object_array(what, final_elements)?,
            Serializer::ByteArray => {
                let count = self.array_length(what)?;
                Object::Bytes(self.input.bytes(count, what)?.to_vec())
            }
            Serializer::LongArray => {
                let count = self.array_length(what)?;
                let mut longs = Vec::with_capacity(count);
                for _ in 0..count {
                    longs.push(self.input.zigzag_i64(what)?);
                }
                Object::Longs(longs)
            }
            Serializer::Enum => {
                let at = self.input.position();
                let ordinal = self.input.var_u32(what)?;
                let ordinal = ordinal.checked_sub(1).ok_or_else(|| {
                    format!("the {what} at byte {at} is null after a marker saying it is not")
                })?;
                Object::Enum {
                    class: class.name,
                    ordinal,
                }
            }
            Serializer::Fields(layout) => {
                let mut fields = Vec::with_capacity(layout.len());
                for (_, kind) in layout {
                    fields.push(self.field(*kind)?);
                }
                Object::Fields {
                    class: class.name,
                    fields,
                }
            }
        })
    }

    /// An array's length plus one, as Kryo writes it; a null array here is refused.
    fn array_length(&mut self, what: &str) -> Result<usize, DecodeError> {
        let at = self.input.position();
        let count = self.input.count(what)?;
        count.checked_sub(1).ok_or_else(|| {
            format!("the {what} at byte {at} is null after a marker saying it is not")
        })
    }

    fn object_array(
        &mut self,
        what: &'static str,
        final_elements: bool,
    ) -> Result<Object, DecodeError> {
        let count = self.array_length(what)?;
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(if final_elements {
                let text = java_class("java.lang.String").expect("String is a Java class");
                self.object_after_marker(text, true)?
            } else {
                self.class_and_object()?
            });
        }
        Ok(Object::List(items))
    }

    fn field(&mut self, kind: FieldKind) -> Result<Value, DecodeError> {
        match kind {
            FieldKind::Final(name) => {
                let class = class_named(name)
                    .ok_or_else(|| format!("no layout for the final class {name}"))?;
                self.object_after_marker(class, true)
            }
            FieldKind::Any => self.class_and_object(),
            primitive => self.primitive(primitive),
        }
    }

    fn primitive(&mut self, kind: FieldKind) -> Result<Value, DecodeError> {
        let input = &mut self.input;
        Ok(match kind {
            FieldKind::Bool => Value::Bool(input.byte("a boolean")? == 1),
            FieldKind::Byte => Value::Integer(i64::from(input.byte("a byte")? as i8)),
            FieldKind::Char => Value::Char(input.fixed_i16("a char")? as u16),
            FieldKind::Short => Value::Integer(i64::from(input.fixed_i16("a short")?)),
            FieldKind::Int => Value::Integer(i64::from(input.zigzag_i32("an int")?)),
            FieldKind::Long => Value::Integer(input.zigzag_i64("a long")?),
            FieldKind::Float => Value::Float(f64::from(f32::from_bits(
                input.fixed_i32("a float")? as u32,
            ))),
            FieldKind::Double => Value::Float(f64::from_bits(input.fixed_i64("a double")? as u64)),
            FieldKind::Final(_) | FieldKind::Any => unreachable!("objects are read by field()"),
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn layouts_are_sorted_for_binary_search() {
        let names: Vec<&str> = super::FIELD_LAYOUTS.iter().map(|(name, _)| *name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
    }
}
