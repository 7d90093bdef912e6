//! Partitions: how they are stored (records with shared descriptors), added, altered,
//! renamed, exchanged and dropped, and read: by values, names, Hive's filter language and
//! listings, keeping listings and their encodings while a table is
//! unchanged.

pub(crate) mod batch;
pub(crate) mod descriptors;
pub(crate) mod encoded;
pub(crate) mod encoding;
pub(crate) mod event_marks;
pub(crate) mod exchange;
pub(crate) mod expr;
pub(crate) mod filter;
pub(crate) mod filter_eval;
pub(crate) mod kept_encodings;
pub(crate) mod kept_selection;
pub(crate) mod list;
pub(crate) mod listed_columns;
pub(crate) mod name_listing;
pub(crate) mod partitioned;
pub(crate) mod stored;
pub(crate) mod views;
pub(crate) mod write;
