//! Decoding blobs Hive 2.3.10's own `SerializationUtilities.serializeExpressionToKryo`
//! wrote (`hive23_blobs.txt`: label, hex), evaluating them, and fuzzing the decoder with
//! truncated, mutated and random bytes.

use proptest::prelude::*;

use super::*;
use crate::model::table::FieldSchema;

const DEFAULT: &str = "__HIVE_DEFAULT_PARTITION__";

fn blob(label: &str) -> Vec<u8> {
    let line = include_str!("hive23_blobs.txt")
        .lines()
        .find(|line| line.split(' ').next() == Some(label))
        .unwrap_or_else(|| panic!("no blob {label}"));
    let hex = line.split(' ').nth(1).expect("label then hex");
    (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).expect("hex"))
        .collect()
}

fn key(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.into(),
        type_name: type_name.into(),
        comment: None,
    }
}

fn keys() -> Vec<FieldSchema> {
    vec![
        key("ds", "string"),
        key("hr", "int"),
        key("b", "bigint"),
        key("dt", "date"),
        key("p", "decimal(10,2)"),
    ]
}

/// The verdict of blob `label` on one partition's values (ds, hr, b, dt, p).
fn verdict(label: &str, values: [&str; 5]) -> Option<bool> {
    let expression = PartitionExpression::decode(&blob(label)).expect("decodes");
    expression
        .compile(&keys(), DEFAULT)
        .expect("compiles")
        .evaluate(&values)
}

const ROW: [&str; 5] = ["2024-01-01", "7", "6", "2024-01-01", "1.5"];

#[test]
fn hive23_comparison_reads_column_constant_and_function() {
    let expression = PartitionExpression::decode(&blob("eq_str")).expect("decodes");
    let ExprNode::Function {
        function,
        children,
        type_name,
    } = expression.root()
    else {
        panic!("not a function: {:?}", expression.root());
    };
    assert_eq!(*function, ExprFunction::Compare(Operator::Equals));
    assert_eq!(type_name, "boolean");
    assert_eq!(
        children[0],
        ExprNode::Column {
            name: "ds".into(),
            type_name: "string".into()
        }
    );
    assert_eq!(
        children[1],
        ExprNode::Constant {
            value: ExprConstant::Text("2024-01-01".into()),
            type_name: "string".into()
        }
    );
}

#[test]
fn hive23_typed_comparisons_select_by_value() {
    assert_eq!(verdict("eq_str", ROW), Some(true));
    assert_eq!(
        verdict("eq_str", ["2024-01-02", "7", "6", "2024-01-01", "1.5"]),
        Some(false)
    );
    assert_eq!(verdict("eq_int", ROW), Some(true));
    // An int key compares as a number: "07" is 7.
    assert_eq!(
        verdict("eq_int", ["x", "07", "6", "2024-01-01", "1"]),
        Some(true)
    );
    assert_eq!(verdict("lt_bigint", ROW), Some(true));
    assert_eq!(
        verdict("lt_bigint", ["x", "7", "10", "2024-01-01", "1"]),
        Some(false)
    );
    assert_eq!(verdict("eq_date", ROW), Some(true));
    assert_eq!(
        verdict("eq_date", ["x", "7", "6", "2024-1-1", "1"]),
        Some(true)
    );
    assert_eq!(
        verdict("eq_date", ["x", "7", "6", "2024-01-02", "1"]),
        Some(false)
    );
    assert_eq!(verdict("dec", ROW), Some(true));
    assert_eq!(
        verdict("dec", ["x", "7", "6", "2024-01-01", "1.50"]),
        Some(true)
    );
    assert_eq!(
        verdict("dec", ["x", "7", "6", "2024-01-01", "1.51"]),
        Some(false)
    );
}

#[test]
fn hive23_logic_in_between_like_and_nulls() {
    assert_eq!(
        verdict("and", ["x", "4", "0", "2024-01-01", "1"]),
        Some(true)
    );
    assert_eq!(
        verdict("and", ["x", "3", "0", "2024-01-01", "1"]),
        Some(false)
    );
    assert_eq!(
        verdict("in", ["x", "2", "0", "2024-01-01", "1"]),
        Some(true)
    );
    assert_eq!(
        verdict("in", ["x", "3", "0", "2024-01-01", "1"]),
        Some(false)
    );
    assert_eq!(
        verdict("between", ["x", "1", "0", "2024-01-01", "1"]),
        Some(true)
    );
    assert_eq!(
        verdict("between", ["x", "3", "0", "2024-01-01", "1"]),
        Some(false)
    );
    assert_eq!(
        verdict("like", ["2024-05", "1", "0", "2024-01-01", "1"]),
        Some(true)
    );
    assert_eq!(
        verdict("like", ["2023-05", "1", "0", "2024-01-01", "1"]),
        Some(false)
    );
    assert_eq!(
        verdict("isnull", [DEFAULT, "1", "0", "2024-01-01", "1"]),
        Some(true)
    );
    assert_eq!(
        verdict("isnull", ["a", "1", "0", "2024-01-01", "1"]),
        Some(false)
    );
    assert_eq!(
        verdict("not", [DEFAULT, "1", "0", "2024-01-01", "1"]),
        Some(true)
    );
    // `ds = 'x' and null`: unknown where ds is x, pruned elsewhere.
    assert_eq!(
        verdict("nullconst", ["x", "1", "0", "2024-01-01", "1"]),
        None
    );
    assert_eq!(
        verdict("nullconst", ["y", "1", "0", "2024-01-01", "1"]),
        Some(false)
    );
    // The default partition is null for every type: comparisons are unknown, and so false
    // under NOT only where Hive's three-valued logic says.
    assert_eq!(
        verdict("eq_int", ["x", DEFAULT, "0", "2024-01-01", "1"]),
        None
    );
}

#[test]
fn a_key_the_table_lacks_is_hive_s_error() {
    let expression = PartitionExpression::decode(&blob("eq_str")).expect("decodes");
    let error = expression
        .compile(&[key("hr", "int")], DEFAULT)
        .unwrap_err();
    assert_eq!(error.to_string(), "cannot find field ds from [0:hr]");
}

#[test]
fn like_matches_the_whole_value() {
    use super::eval::like;
    assert!(like("abc", "a%"));
    assert!(like("abc", "_b_"));
    assert!(!like("abc", "b%"));
    assert!(like("a%c", "a\\%c"));
    assert!(!like("abc", "a\\%c"));
    assert!(like("", "%"));
    assert!(like("aaa", "%a%a%a%"));
}

#[test]
fn every_hive23_blob_decodes_to_a_boolean_function() {
    for line in include_str!("hive23_blobs.txt").lines() {
        let label = line.split(' ').next().expect("a label");
        let expression = PartitionExpression::decode(&blob(label))
            .unwrap_or_else(|error| panic!("{label}: {error}"));
        let ExprNode::Function { type_name, .. } = expression.root() else {
            panic!("{label} is not a function: {:?}", expression.root());
        };
        assert_eq!(type_name, "boolean", "{label}");
    }
}

#[test]
fn bad_blobs_are_refused_with_a_reason() {
    let whole = blob("and");
    for cut in [1, 2, 10, whole.len() / 2, whole.len() - 1] {
        let error = PartitionExpression::decode(&whole[..cut])
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("Failed to deserialize the expression"),
            "{error}"
        );
        assert!(error.contains("ends at byte"), "{error}");
    }
    let mut trailing = whole.clone();
    trailing.push(0);
    let error = PartitionExpression::decode(&trailing)
        .unwrap_err()
        .to_string();
    assert!(error.contains("follow the expression's end"), "{error}");
    let empty = PartitionExpression::decode(&[]).unwrap_err().to_string();
    assert!(empty.contains("empty"), "{empty}");
    // A class no expression holds is named, and nothing of it is read.
    let mut hostile = vec![0x01, 0x01, 0x00];
    hostile.extend_from_slice(b"java.lang.ProcessBuilde");
    hostile.push(b'r' | 0x80);
    let error = PartitionExpression::decode(&hostile)
        .unwrap_err()
        .to_string();
    assert!(error.contains("java.lang.ProcessBuilder"), "{error}");
}

#[test]
fn a_huge_count_is_refused_before_allocating() {
    // The root's children list claims 2^31 elements.
    let mut bytes = vec![0x01, 0x01, 0x00];
    bytes.extend_from_slice(b"java.util.ArrayLis");
    bytes.push(b't' | 0x80);
    bytes.extend_from_slice(&[0x01, 0xff, 0xff, 0xff, 0xff, 0x07]);
    let error = PartitionExpression::decode(&bytes).unwrap_err().to_string();
    assert!(error.contains("claims"), "{error}");
}

#[test]
fn deep_nesting_is_refused_at_the_depth_bound() {
    // NOT of NOT of ... built by repeating one function's bytes: each level opens a new
    // ExprNodeGenericFuncDesc inside the children list of the one before.
    let mut bytes = vec![0x01];
    for level in 0..EXPRESSION_DEPTH_MAX {
        // children: ArrayList (by name the first time), new, one element.
        if level == 0 {
            bytes.extend_from_slice(&[0x01, 0x00]);
            bytes.extend_from_slice(b"java.util.ArrayLis");
            bytes.push(b't' | 0x80);
        } else {
            bytes.extend_from_slice(&[0x01, 0x00]);
        }
        bytes.extend_from_slice(&[0x01, 0x01]);
        if level == 0 {
            bytes.extend_from_slice(&[0x01, 0x01]);
            bytes.extend_from_slice(b"org.apache.hadoop.hive.ql.plan.ExprNodeGenericFuncDes");
            bytes.push(b'c' | 0x80);
        } else {
            bytes.extend_from_slice(&[0x01, 0x01]);
        }
        bytes.push(0x01);
    }
    let error = PartitionExpression::decode(&bytes).unwrap_err().to_string();
    assert!(error.contains("deeper than"), "{error}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = PartitionExpression::decode(&bytes);
    }

    #[test]
    fn mutated_hive_blobs_never_panic(
        label in proptest::sample::select(vec![
            "eq_str", "eq_int", "lt_bigint", "eq_date", "and", "in", "between", "like",
            "isnull", "not", "dec", "nullconst",
        ]),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        cut in any::<usize>(),
    ) {
        let mut bytes = blob(label);
        for (at, byte) in edits {
            let at = at % bytes.len();
            bytes[at] = byte;
        }
        let keep = bytes.len() - cut % (bytes.len() / 4 + 1);
        bytes.truncate(keep);
        if let Ok(expression) = PartitionExpression::decode(&bytes) {
            if let Ok(compiled) = expression.compile(&keys(), DEFAULT) {
                let _ = compiled.evaluate(&ROW);
            }
        }
    }
}

#[test]
fn string_comparisons_map_to_a_candidate_filter() {
    let names: Vec<String> = keys().iter().map(|key| key.name.clone()).collect();
    let compiled = |label: &str| {
        PartitionExpression::decode(&blob(label))
            .expect("decodes")
            .compile(&keys(), DEFAULT)
            .expect("compiles")
    };
    assert_eq!(
        compiled("eq_str").candidate_filter(&names).as_deref(),
        Some("(ds = '2024-01-01') or ds = '__HIVE_DEFAULT_PARTITION__'")
    );
    // `ds = 'x' and hr > 3`: the string part maps, the int part is left to the evaluation.
    assert_eq!(
        compiled("and").candidate_filter(&names).as_deref(),
        Some("((ds = 'x')) or ds = '__HIVE_DEFAULT_PARTITION__'")
    );
    assert_eq!(compiled("eq_int").candidate_filter(&names), None);
    assert_eq!(compiled("like").candidate_filter(&names), None);
}

#[test]
fn expressions_hive_pushes_down_map_to_an_exact_filter() {
    let names: Vec<String> = keys().iter().map(|key| key.name.clone()).collect();
    let exact = |label: &str| {
        PartitionExpression::decode(&blob(label))
            .expect("decodes")
            .compile(&keys(), DEFAULT)
            .expect("compiles")
            .exact_filter(&names)
    };
    assert_eq!(exact("eq_str").as_deref(), Some("ds = '2024-01-01'"));
    assert_eq!(exact("eq_int").as_deref(), Some("hr = 7"));
    assert_eq!(exact("eq_date").as_deref(), Some("dt = DATE '2024-01-01'"));
    assert_eq!(exact("and").as_deref(), Some("(ds = 'x') and (hr > 3)"));
    assert_eq!(exact("in").as_deref(), Some("(hr = 1) or (hr = 2)"));
    assert_eq!(exact("between").as_deref(), Some("(hr >= 1 and hr <= 2)"));
    assert_eq!(
        exact("isnull").as_deref(),
        Some("ds = '__HIVE_DEFAULT_PARTITION__'")
    );
    // Hive's display of a bigint literal (7L) and of decimals is no filter; nor are NOT,
    // LIKE and a null literal: those are pruned by the expression.
    for label in ["lt_bigint", "dec", "not", "like", "nullconst"] {
        assert_eq!(exact(label), None, "{label}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, .. ProptestConfig::default() })]

    /// Whatever the expression does not prune, its candidate filter selects.
    #[test]
    fn candidate_filters_select_every_partition_not_pruned(
        label in proptest::sample::select(vec!["eq_str", "and", "nullconst", "not"]),
        ds in proptest::sample::select(vec!["x", "y", "2024-01-01", "2024-01-02", DEFAULT]),
        hr in proptest::sample::select(vec!["1", "4", "07", DEFAULT]),
    ) {
        let names: Vec<String> = keys().iter().map(|key| key.name.clone()).collect();
        let expression = PartitionExpression::decode(&blob(label)).expect("decodes");
        let compiled = expression.compile(&keys(), DEFAULT).expect("compiles");
        let values = [ds, hr, "0", "2024-01-01", "1"];
        if let Some(filter) = compiled.candidate_filter(&names) {
            let candidates = crate::partitions::filter::PartitionFilter::parse(&filter)
                .expect("parses")
                .compile(&keys())
                .expect("compiles");
            if compiled.evaluate(&values) != Some(false) {
                prop_assert!(candidates.matches(&values), "{filter} drops {values:?}");
            }
        }
    }
}
