//! `SmolStr` fields archived exactly as `String` fields are (an `ArchivedString`), so that
//! values stored before [`super::ColumnStatistics`] held its names inline read the same.

use rkyv::rancor::{Fallible, Source};
use rkyv::string::{ArchivedString, StringResolver};
use rkyv::with::{ArchiveWith, DeserializeWith, SerializeWith};
use rkyv::{Place, SerializeUnsized};
use smol_str::SmolStr;

/// The rkyv wrapper: `#[rkyv(with = AsArchivedString)]` on a `SmolStr` field.
pub struct AsArchivedString;

impl ArchiveWith<SmolStr> for AsArchivedString {
    type Archived = ArchivedString;
    type Resolver = StringResolver;

    fn resolve_with(field: &SmolStr, resolver: StringResolver, out: Place<ArchivedString>) {
        ArchivedString::resolve_from_str(field.as_str(), resolver, out);
    }
}

impl<S: Fallible + ?Sized> SerializeWith<SmolStr, S> for AsArchivedString
where
    S::Error: Source,
    str: SerializeUnsized<S>,
{
    fn serialize_with(field: &SmolStr, serializer: &mut S) -> Result<StringResolver, S::Error> {
        ArchivedString::serialize_from_str(field.as_str(), serializer)
    }
}

impl<D: Fallible + ?Sized> DeserializeWith<ArchivedString, SmolStr, D> for AsArchivedString {
    fn deserialize_with(field: &ArchivedString, _: &mut D) -> Result<SmolStr, D::Error> {
        Ok(SmolStr::new(field.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use rkyv::{Archive, Deserialize, Serialize};

    use super::*;

    #[derive(Archive, Serialize, Deserialize, Debug, PartialEq)]
    struct WithString {
        name: String,
    }

    #[derive(Archive, Serialize, Deserialize, Debug, PartialEq)]
    struct WithSmolStr {
        #[rkyv(with = AsArchivedString)]
        name: SmolStr,
    }

    #[test]
    fn a_smol_str_field_is_stored_as_a_string_field_is() {
        // Short (inline) and long (heap) names, both sides of the archive's own inline cut.
        for name in ["", "c", "bigint", "decimal(10,2)", &"n".repeat(100)] {
            let as_string = WithString {
                name: name.to_string(),
            };
            let as_smol = WithSmolStr {
                name: SmolStr::new(name),
            };
            let string_bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&as_string).unwrap();
            let smol_bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&as_smol).unwrap();
            assert_eq!(string_bytes.as_slice(), smol_bytes.as_slice(), "{name:?}");
            let back: WithSmolStr =
                rkyv::from_bytes::<WithSmolStr, rkyv::rancor::Error>(&string_bytes).unwrap();
            assert_eq!(back, as_smol);
        }
    }
}
