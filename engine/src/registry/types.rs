//! Hive's old type registry: `create_type`, `get_type`, `drop_type`. One registry for the
//! store, keyed by the name as given; lookups trim the name, as Hive's query does.

use crate::error::{Error, Result};
use crate::model::registry::TypeDef;
use crate::registry::check_len;
use crate::storage::keys;
use crate::store::Store;

/// The longest type name accepted, in bytes (Hive's `TYPES.TYPE_NAME varchar(128)`).
pub const TYPE_NAME_LEN_MAX: usize = 128;
/// The longest `type1`, `type2` or field type accepted, in bytes (`TYPES.TYPE1 varchar(767)`).
pub const TYPE_TEXT_LEN_MAX: usize = 767;

/// Whether `name` is a valid type name: Hive's `[\w_]+` (`MetaStoreUtils.validateName`).
pub fn is_valid_type_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

impl Store {
    /// Hive's `create_type`: a name that is not `[\w_]+` is `InvalidObject` ("Invalid type
    /// name"), a name taken `AlreadyExists`.
    pub fn create_type(&self, typedef: TypeDef) -> Result<()> {
        if !is_valid_type_name(&typedef.name) {
            return Err(Error::InvalidObject("Invalid type name".to_string()));
        }
        check_len("type name", &typedef.name, TYPE_NAME_LEN_MAX)?;
        for text in [&typedef.type1, &typedef.type2].into_iter().flatten() {
            check_len("type1 or type2", text, TYPE_TEXT_LEN_MAX)?;
        }
        for field in &typedef.fields {
            check_len("a field name", &field.name, TYPE_NAME_LEN_MAX)?;
            check_len("a field type", &field.type_name, TYPE_TEXT_LEN_MAX)?;
        }
        let key = keys::type_key(&typedef.name);
        self.write(|txn| {
            if txn.get(&key)?.is_some() {
                return Err(Error::AlreadyExists(format!(
                    "Type {} already exists",
                    typedef.name
                )));
            }
            txn.put_value(key.clone(), &typedef)
        })
    }

    /// Type `name` (trimmed), if registered.
    pub fn get_type(&self, name: &str) -> Result<Option<TypeDef>> {
        match self.view::<TypeDef>(&keys::type_key(name.trim()))? {
            Some(view) => Ok(Some(view.to_owned()?)),
            None => Ok(None),
        }
    }

    /// Hive's `drop_type`: removes type `name` (trimmed) if registered. Hive 4's store
    /// answers `true` whether or not the type existed, and so does this.
    pub fn drop_type(&self, name: &str) -> Result<bool> {
        let key = keys::type_key(name.trim());
        self.write(|txn| {
            if txn.get(&key)?.is_some() {
                txn.delete(key.clone());
            }
            Ok(true)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::model::table::FieldSchema;
    use crate::storage::kv::MemoryBackend;
    use crate::{Durability, StoreOptions};

    fn store() -> Store {
        let mut options = StoreOptions::new("/warehouse").metadata_only();
        options.durability = Durability::Memory;
        Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap()
    }

    fn typedef(name: &str) -> TypeDef {
        TypeDef {
            name: name.into(),
            type1: Some("string".into()),
            type2: None,
            fields: vec![FieldSchema {
                name: "f".into(),
                type_name: "int".into(),
                comment: Some("c".into()),
            }],
        }
    }

    #[test]
    fn create_get_drop() {
        let store = store();
        store.create_type(typedef("Point_2")).unwrap();
        assert_eq!(
            store.get_type(" Point_2 ").unwrap(),
            Some(typedef("Point_2"))
        );
        // Names are kept as given: another case is another type.
        assert_eq!(store.get_type("point_2").unwrap(), None);
        assert_eq!(
            store.create_type(typedef("Point_2")).unwrap_err(),
            Error::AlreadyExists("Type Point_2 already exists".into())
        );
        assert!(store.drop_type("Point_2").unwrap());
        assert_eq!(store.get_type("Point_2").unwrap(), None);
        // Hive 4 answers true for a type that is not there.
        assert!(store.drop_type("Point_2").unwrap());
    }

    #[test]
    fn refuses_bad_names_and_long_values() {
        let store = store();
        for name in ["", "a-b", "a b", "a.b"] {
            assert_eq!(
                store.create_type(typedef(name)).unwrap_err(),
                Error::InvalidObject("Invalid type name".into())
            );
        }
        let long = "t".repeat(TYPE_NAME_LEN_MAX + 1);
        assert!(matches!(
            store.create_type(typedef(&long)),
            Err(Error::InvalidObject(_))
        ));
        let mut wide = typedef("wide");
        wide.type2 = Some("x".repeat(TYPE_TEXT_LEN_MAX + 1));
        assert!(matches!(
            store.create_type(wide),
            Err(Error::InvalidObject(_))
        ));
        assert_eq!(store.get_type("wide").unwrap(), None);
    }
}
