//! Decoding blobs Hive 2.3.10's own `SerializationUtilities.serializeExpressionToKryo`
//! wrote (`hive23_blobs.txt`: label, hex), and fuzzing the decoder with
//! truncated, mutated and random bytes.

use proptest::prelude::*;

use super::*;

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
        let _ = PartitionExpression::decode(&bytes);
    }
}
