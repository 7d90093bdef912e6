//! Which locks exclude which: Hive's compatibility matrix and component overlap.

use super::model::{LockComponent, LockType};

/// Whether a lock of type `requested` may be held while `held` is held on an overlapping
/// component. The relation is symmetric. Hive 4's matrix: `EXCLUSIVE` excludes everything,
/// `EXCL_WRITE` excludes every write, `SHARED_WRITE`s coexist, reads coexist with all but
/// `EXCLUSIVE`. (Hive 2.3, which lacks `EXCL_WRITE`, also lets no two `SHARED_WRITE`s
/// coexist.)
pub(crate) fn compatible(requested: LockType, held: LockType) -> bool {
    use LockType::*;
    match (requested, held) {
        (Exclusive, _) | (_, Exclusive) => false,
        (SharedRead, _) | (_, SharedRead) => true,
        (SharedWrite, SharedWrite) => true,
        (ExclusiveWrite, _) | (_, ExclusiveWrite) => false,
    }
}

/// Whether two components lock something in common: a database lock covers its tables,
/// a table lock covers its partitions.
pub(crate) fn overlap(left: &LockComponent, right: &LockComponent) -> bool {
    if left.database != right.database {
        return false;
    }
    let (Some(left_table), Some(right_table)) = (&left.table, &right.table) else {
        return true;
    };
    if left_table != right_table {
        return false;
    }
    match (&left.partition, &right.partition) {
        (Some(left_partition), Some(right_partition)) => left_partition == right_partition,
        _ => true,
    }
}

/// Whether `requested` must wait for `held`. One exception to the matrix, as in Hive 4: a
/// shared read of a whole database (it only keeps the database from being dropped) and an
/// exclusive lock of a table in it do not exclude each other.
pub(crate) fn conflict(requested: &LockComponent, held: &LockComponent) -> bool {
    overlap(requested, held)
        && !compatible(requested.lock_type, held.lock_type)
        && !database_read_beside_table_exclusive(requested, held)
        && !database_read_beside_table_exclusive(held, requested)
}

fn database_read_beside_table_exclusive(read: &LockComponent, exclusive: &LockComponent) -> bool {
    read.lock_type == LockType::SharedRead
        && read.table.is_none()
        && exclusive.lock_type == LockType::Exclusive
        && exclusive.table.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::txns::locks::model::LockLevel;
    use LockType::*;

    const TYPES: [LockType; 4] = [SharedRead, SharedWrite, ExclusiveWrite, Exclusive];

    #[test]
    fn the_matrix_is_hives_and_symmetric() {
        let expected = [
            // SharedRead, SharedWrite, ExclusiveWrite, Exclusive (held)
            [true, true, true, false],    // SharedRead requested
            [true, true, false, false],   // SharedWrite
            [true, false, false, false],  // ExclusiveWrite
            [false, false, false, false], // Exclusive
        ];
        for (row, requested) in TYPES.iter().enumerate() {
            for (column, held) in TYPES.iter().enumerate() {
                assert_eq!(compatible(*requested, *held), expected[row][column]);
                assert_eq!(compatible(*requested, *held), compatible(*held, *requested));
            }
        }
    }

    fn component(table: Option<&str>, partition: Option<&str>) -> LockComponent {
        LockComponent {
            lock_type: Exclusive,
            level: LockLevel::Table,
            database: "db".into(),
            table: table.map(Into::into),
            partition: partition.map(Into::into),
            operation: None,
            is_transactional: false,
            is_dynamic_partition_write: false,
        }
    }

    #[test]
    fn a_database_lock_covers_its_tables_and_a_table_lock_its_partitions() {
        let database = component(None, None);
        let table = component(Some("t"), None);
        let partition = component(Some("t"), Some("ds=1"));
        assert!(overlap(&database, &partition));
        assert!(overlap(&table, &partition));
        assert!(!overlap(&partition, &component(Some("t"), Some("ds=2"))));
        assert!(!overlap(&table, &component(Some("u"), None)));
        let mut elsewhere = database.clone();
        elsewhere.database = "other".into();
        assert!(!overlap(&elsewhere, &table));
    }

    #[test]
    fn a_database_read_and_a_table_exclusive_coexist_but_not_a_database_exclusive() {
        let mut database_read = component(None, None);
        database_read.lock_type = SharedRead;
        let table_exclusive = component(Some("t"), None);
        assert!(!conflict(&database_read, &table_exclusive));
        assert!(!conflict(&table_exclusive, &database_read));
        let mut table_read = component(Some("t"), None);
        table_read.lock_type = SharedRead;
        let database_exclusive = component(None, None);
        assert!(conflict(&table_read, &database_exclusive));
        assert!(conflict(&table_read, &table_exclusive));
    }
}
