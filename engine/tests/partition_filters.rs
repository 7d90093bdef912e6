//! Hive's partition filter language through the store. The goal: a
//! filtered listing (which plans key ranges from the filter) returns exactly
//! what a naive evaluation over every partition returns. Method: random
//! partition sets of a table partitioned by `a string, b int, c string`,
//! random filters rendered as text, and a reference evaluator written here
//! from Hive's rules independently of the engine's.

use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{
    AddPartitionsOptions, Database, Durability, Error, FieldSchema, Partition, PartitionFilter,
    PartitionSelection, PartitionSink, PartitionView, Store, StoreOptions, Table, FILTER_DEPTH_MAX,
};
use proptest::prelude::*;

const A_VALUES: &[&str] = &[
    "a",
    "ab",
    "a-",
    "a/b",
    "b",
    "__HIVE_DEFAULT_PARTITION__",
    "é",
];
const B_VALUES: &[&str] = &[
    "0",
    "1",
    "7",
    "007",
    "10",
    "-3",
    "x",
    "__HIVE_DEFAULT_PARTITION__",
];
const C_VALUES: &[&str] = &["x", "xy", "y", "z"];
const B_LITERALS: &[i64] = &[-3, 0, 1, 7, 10];
const LIKE_PATTERNS: &[&str] = &["a%", ".*b", "a_", "%", "x.*", "_", "é"];

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn store_with(partitions: &[[&str; 3]]) -> Store {
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    store
        .create_database(Database {
            name: "db".into(),
            ..Database::default()
        })
        .unwrap();
    let keys = vec![
        column("a", "string"),
        column("b", "int"),
        column("c", "varchar(5)"),
    ];
    store
        .create_table(Table {
            table_name: "t".into(),
            db_name: "db".into(),
            partition_keys: keys,
            ..Table::default()
        })
        .unwrap();
    let unique: std::collections::BTreeSet<&[&str; 3]> = partitions.iter().collect();
    let partitions = unique
        .into_iter()
        .map(|values| Partition {
            values: values.iter().map(|value| value.to_string()).collect(),
            ..Partition::default()
        })
        .collect();
    let options = AddPartitionsOptions {
        if_not_exists: true,
        ..AddPartitionsOptions::default()
    };
    store
        .add_partitions("hive", "db", "t", partitions, &options)
        .unwrap();
    store
}

/// Writes each partition's values, through the encodings the store keeps.
#[derive(Default)]
struct ValuesSink {
    values: Vec<Vec<String>>,
}

impl PartitionSink for ValuesSink {
    fn encoding_kind(&self) -> u32 {
        0
    }

    fn begin(&mut self, _: &Table, _: usize) -> hivestore_engine::Result<()> {
        Ok(())
    }

    fn encode(
        &mut self,
        partition: &PartitionView<'_>,
        out: hivestore_engine::EncodingOut<'_>,
    ) -> hivestore_engine::Result<()> {
        let (bytes, _) = out.parts();
        bytes.extend_from_slice(partition.values().join("\u{1}").as_bytes());
        Ok(())
    }

    fn append(&mut self, encoded: &hivestore_engine::EncodedPartition<'_>) {
        let encoded = encoded.to_vec();
        let text = std::str::from_utf8(&encoded).unwrap();
        self.values
            .push(text.split('\u{1}').map(str::to_string).collect());
    }
}

/// A filter as the test sees it.
#[derive(Debug, Clone)]
enum Filter {
    Text {
        key: usize,
        operator: &'static str,
        literal: String,
        reversed: bool,
    },
    Number {
        operator: &'static str,
        literal: i64,
        reversed: bool,
    },
    Like {
        key: usize,
        pattern: String,
    },
    Between {
        low: i64,
        high: i64,
        negated: bool,
    },
    In {
        key: usize,
        literals: Vec<String>,
        negated: bool,
    },
    And(Box<Filter>, Box<Filter>),
    Or(Box<Filter>, Box<Filter>),
}

const OPERATORS: &[&str] = &["=", "!=", "<>", "<", "<=", ">", ">="];

fn reverse(operator: &str) -> &str {
    match operator {
        "<" => ">",
        "<=" => ">=",
        ">" => "<",
        ">=" => "<=",
        other => other,
    }
}

fn quote(text: &str, double: bool) -> String {
    if double {
        format!("\"{text}\"")
    } else {
        format!("'{text}'")
    }
}

fn render(filter: &Filter) -> String {
    let key_name = |key: usize| ["a", "B", "c"][key];
    match filter {
        Filter::Text {
            key,
            operator,
            literal,
            reversed,
        } => {
            let literal = quote(literal, literal.len() % 2 == 0);
            if *reversed {
                format!("{literal} {} {}", reverse(operator), key_name(*key))
            } else {
                format!("{} {operator} {literal}", key_name(*key))
            }
        }
        Filter::Number {
            operator,
            literal,
            reversed,
        } if *reversed => {
            format!("{literal} {} b", reverse(operator))
        }
        Filter::Number {
            operator, literal, ..
        } => format!("b {operator} {literal}"),
        Filter::Like { key, pattern } => {
            format!("{} LIKE {}", key_name(*key), quote(pattern, true))
        }
        Filter::Between { low, high, negated } => {
            let not = if *negated { "not " } else { "" };
            format!("b {not}between {low} and {high}")
        }
        Filter::In {
            key,
            literals,
            negated,
        } => {
            let not = if *negated { " NOT" } else { "" };
            let list: Vec<String> = literals.iter().map(|l| quote(l, true)).collect();
            format!("({}){not} in ({})", key_name(*key), list.join(", "))
        }
        Filter::And(left, right) => format!("({}) and ({})", render(left), render(right)),
        Filter::Or(left, right) => format!("{} or {}", render(left), render(right)),
    }
}

fn compare(operator: &str, ordering: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match operator {
        "=" => ordering == Equal,
        "!=" | "<>" => ordering != Equal,
        "<" => ordering == Less,
        "<=" => ordering != Greater,
        ">" => ordering == Greater,
        _ => ordering != Less,
    }
}

/// Hive's rule for an int key: numeric, and `=` needs the canonical text.
fn number_holds(value: &str, operator: &str, literal: i64) -> bool {
    let digits = value.strip_prefix('-').unwrap_or(value);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let number: i128 = value.parse().unwrap();
    (operator != "=" || value == literal.to_string())
        && compare(operator, number.cmp(&i128::from(literal)))
}

fn like_holds(value: &str, pattern: &str) -> bool {
    let regex: String = pattern
        .chars()
        .map(|c| match c {
            '%' => ".*".to_string(),
            '_' => ".".to_string(),
            other => other.to_string(),
        })
        .collect();
    regex::Regex::new(&format!("^(?:{regex})$"))
        .unwrap()
        .is_match(value)
}

fn holds(filter: &Filter, values: &[String]) -> bool {
    match filter {
        Filter::Text {
            key,
            operator,
            literal,
            ..
        } => compare(operator, values[*key].as_str().cmp(literal.as_str())),
        Filter::Number {
            operator, literal, ..
        } => number_holds(&values[1], operator, *literal),
        Filter::Like { key, pattern } => like_holds(&values[*key], pattern),
        Filter::Between {
            low,
            high,
            negated: false,
        } => number_holds(&values[1], ">=", *low) && number_holds(&values[1], "<=", *high),
        Filter::Between {
            low,
            high,
            negated: true,
        } => number_holds(&values[1], "<", *low) || number_holds(&values[1], ">", *high),
        Filter::In {
            key,
            literals,
            negated: false,
        } => literals.iter().any(|l| values[*key] == *l),
        Filter::In {
            key,
            literals,
            negated: true,
        } => literals.iter().all(|l| values[*key] != *l),
        Filter::And(left, right) => holds(left, values) && holds(right, values),
        Filter::Or(left, right) => holds(left, values) || holds(right, values),
    }
}

fn text_key() -> impl Strategy<Value = (usize, String)> {
    prop_oneof![
        proptest::sample::select(A_VALUES).prop_map(|v| (0usize, v.to_string())),
        proptest::sample::select(C_VALUES).prop_map(|v| (2usize, v.to_string())),
    ]
}

fn leaf() -> impl Strategy<Value = Filter> {
    let operator = proptest::sample::select(OPERATORS);
    prop_oneof![
        (text_key(), operator.clone(), any::<bool>()).prop_map(
            |((key, literal), operator, reversed)| {
                Filter::Text {
                    key,
                    operator,
                    literal,
                    reversed,
                }
            }
        ),
        (
            operator,
            proptest::sample::select(B_LITERALS),
            any::<bool>()
        )
            .prop_map(|(operator, literal, reversed)| Filter::Number {
                operator,
                literal,
                reversed
            }),
        (
            prop_oneof![Just(0usize), Just(2usize)],
            proptest::sample::select(LIKE_PATTERNS)
        )
            .prop_map(|(key, pattern)| Filter::Like {
                key,
                pattern: pattern.to_string()
            }),
        (
            proptest::sample::select(B_LITERALS),
            proptest::sample::select(B_LITERALS),
            any::<bool>()
        )
            .prop_map(|(low, high, negated)| Filter::Between { low, high, negated }),
        (proptest::collection::vec(text_key(), 1..4), any::<bool>()).prop_map(
            |(pairs, negated)| {
                let key = pairs[0].0;
                let literals = pairs
                    .into_iter()
                    .filter(|(k, _)| *k == key)
                    .map(|(_, v)| v)
                    .collect();
                Filter::In {
                    key,
                    literals,
                    negated,
                }
            }
        ),
    ]
}

fn filter() -> impl Strategy<Value = Filter> {
    leaf().prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(l, r)| Filter::And(Box::new(l), Box::new(r))),
            (inner.clone(), inner).prop_map(|(l, r)| Filter::Or(Box::new(l), Box::new(r))),
        ]
    })
}

fn partition_set() -> impl Strategy<Value = Vec<[&'static str; 3]>> {
    let tuple = (
        proptest::sample::select(A_VALUES),
        proptest::sample::select(B_VALUES),
        proptest::sample::select(C_VALUES),
    );
    proptest::collection::vec(tuple.prop_map(|(a, b, c)| [a, b, c]), 0..30)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn filtered_listing_equals_naive_evaluation(partitions in partition_set(), filter in filter(), limit in -1i32..6) {
        let store = store_with(&partitions);
        let text = render(&filter);
        let all = store.list_partitions("hive", "db", "t", -1).unwrap();
        let expected: Vec<Vec<String>> = all
            .into_iter()
            .map(|partition| partition.values)
            .filter(|values| holds(&filter, values))
            .collect();
        let found: Vec<Vec<String>> = store
            .list_partitions_by_filter("hive", "db", "t", &text, -1)
            .unwrap()
            .into_iter()
            .map(|partition| partition.values)
            .collect();
        prop_assert_eq!(&found, &expected, "filter {}", text);
        let count = store.get_num_partitions_by_filter("hive", "db", "t", &text).unwrap();
        prop_assert_eq!(count as usize, expected.len());
        let limited = store.list_partition_names_by_filter("hive", "db", "t", &text, limit).unwrap();
        let wanted = if limit < 0 { expected.len() } else { expected.len().min(limit as usize) };
        prop_assert_eq!(limited.len(), wanted);
    }

    /// A filter answered from the kept names and encodings (`Store::write_partitions`, with
    /// the names kept as a planner's name listing leaves them; twice, a miss then hits)
    /// selects what the scan of the store selects.
    #[test]
    fn kept_listing_equals_the_scan(partitions in partition_set(), filter in filter(), limit in -1i32..6) {
        let store = store_with(&partitions);
        let text = render(&filter);
        let selection = PartitionSelection::Filter(&text);
        let expected: Vec<Vec<String>> = store
            .list_partitions_by_filter("hive", "db", "t", &text, limit)
            .unwrap()
            .into_iter()
            .map(|partition| partition.values)
            .collect();
        store.list_partition_names("hive", "db", "t", -1).unwrap();
        for _ in 0..2 {
            let mut sink = ValuesSink::default();
            store.write_partitions("hive", "db", "t", selection, limit, &mut sink).unwrap();
            prop_assert_eq!(&sink.values, &expected, "filter {}", text);
        }
    }

    /// Partial values (an empty one matches any value; answered from the names kept, as a
    /// planner's name listing leaves them) keep what comparing each partition's values keeps.
    #[test]
    fn partial_values_equal_naive_comparison(
        partitions in partition_set(),
        wanted in (
            proptest::sample::select(A_VALUES),
            proptest::sample::select(B_VALUES),
            proptest::sample::select(C_VALUES),
            proptest::bits::u8::masked(0b111),
        ),
    ) {
        let store = store_with(&partitions);
        let (a, b, c, blank) = wanted;
        let partial: Vec<String> = [a, b, c]
            .iter()
            .enumerate()
            .map(|(index, value)| match blank & (1 << index) {
                0 => value.to_string(),
                _ => String::new(),
            })
            .collect();
        let all = store.list_partitions("hive", "db", "t", -1).unwrap();
        let expected: Vec<Vec<String>> = all
            .into_iter()
            .map(|partition| partition.values)
            .filter(|values| partial.iter().zip(values).all(|(p, v)| p.is_empty() || p == v))
            .collect();
        store.list_partition_names("hive", "db", "t", -1).unwrap();
        for _ in 0..2 {
            let found: Vec<Vec<String>> = store
                .list_partitions_selected("hive", "db", "t", PartitionSelection::PartialValues(&partial), -1, false)
                .unwrap()
                .into_iter()
                .map(|partition| partition.values)
                .collect();
            prop_assert_eq!(&found, &expected, "partial {:?}", partial);
            let mut sink = ValuesSink::default();
            store
                .write_partitions("hive", "db", "t", PartitionSelection::PartialValues(&partial), -1, &mut sink)
                .unwrap();
            prop_assert_eq!(&sink.values, &expected, "partial {:?}", partial);
        }
    }

    #[test]
    fn parsing_garbage_never_panics(text in "[ab=<>!()'\"`,0-9 \\-_.%a-zA-Z]{0,40}") {
        let _ = PartitionFilter::parse(&text);
    }
}

fn parse_error(filter: &str) -> String {
    match PartitionFilter::parse(filter) {
        Err(Error::Refused(message)) => message,
        other => panic!("{filter}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn hive_grammar_forms_parse() {
    let accepted = [
        "ds = \"2024-01-01\"",
        "DS >= '2024-01-01' AND ds < '2024-02-01'",
        "\"2024-01-01\" <= ds",
        "hr between 0 and 11",
        "hr not between 0 and 11",
        "(ds) in ('a', 'b')",
        "(hr) not in (1, 2)",
        "(struct(ds, hr)) in (const struct('a', 1), const struct('b', 2))",
        "ds like '2024-01%'",
        "dt = 2024-01-01 or dt = DATE '2024-01-02' or ts = TIMESTAMP '2024-01-01 10:00:00'",
        "`p_a` = 'a0' and ds == 'x'",
        "ds = 'it\\'s' 'joined'",
        "",
        "  ",
    ];
    for filter in accepted {
        assert!(PartitionFilter::parse(filter).is_ok(), "{filter}");
    }
}

#[test]
fn bad_filters_are_refused_quoting_them() {
    for filter in [
        "ds = 'a' and",
        "ds = 1.5",
        "ds is null",
        "ds <=> 1",
        "ds = 'open",
        "'a' like ds",
        "dt = 2020-13-45",
    ] {
        let message = parse_error(filter);
        assert!(message.contains(&format!("\"{filter}\"")), "{message}");
    }
    assert!(parse_error("ds <=> 1").contains("Unsupported comparison operator"));
    assert!(parse_error("'a' like ds").contains("Value should be on the RHS for LIKE operator"));
    let deep = format!(
        "{}ds = 'a'{}",
        "(".repeat(FILTER_DEPTH_MAX + 1),
        ")".repeat(FILTER_DEPTH_MAX + 1)
    );
    assert!(parse_error(&deep).contains("nested deeper"));
    let long_in = format!("(ds) in ({})", vec!["'x'"; 5000].join(","));
    assert!(
        PartitionFilter::parse(&long_in).is_ok(),
        "long IN lists are not deep"
    );
}

#[test]
fn keys_and_types_resolve_as_hive_does() {
    let keys = vec![
        column("ds", "string"),
        column("hr", "int"),
        column("dt", "date"),
        column("d", "double"),
    ];
    let compile = |filter: &str| PartitionFilter::parse(filter).unwrap().compile(&keys);
    assert!(compile("DS = 'a'").is_ok(), "keys are case-insensitive");
    assert!(compile("hr = '__HIVE_DEFAULT_PARTITION__'").is_ok());
    for refused in ["hr > '5'", "ds = 2024", "d = 1", "hr like '1%'"] {
        let error = compile(refused).unwrap_err().to_string();
        assert!(
            error.contains("Filtering is supported only on partition keys of type string"),
            "{error}"
        );
        assert!(error.contains(refused), "{error}");
    }
    let dates = compile("dt >= '2024-01-02' and dt < DATE '2024-02-01'").unwrap();
    assert!(dates.matches(&["x", "1", "2024-01-10", "1"]));
    assert!(!dates.matches(&["x", "1", "2024-02-01", "1"]));
    assert!(!dates.matches(&["x", "1", "__HIVE_DEFAULT_PARTITION__", "1"]));
    let default = compile("hr = '__HIVE_DEFAULT_PARTITION__'").unwrap();
    assert!(default.matches(&["x", "__HIVE_DEFAULT_PARTITION__", "2024-01-01", "1"]));
    let not_equal = compile("hr != 3").unwrap();
    assert!(!not_equal.matches(&["x", "__HIVE_DEFAULT_PARTITION__", "2024-01-01", "1"]));
}
