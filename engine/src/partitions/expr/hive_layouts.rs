//! The field layouts Kryo's `FieldSerializer` writes for the classes of Hive 2.3.10's
//! partition expressions (`hive-exec`, `hive-serde`, `hive-common` 2.3.10 and
//! `hive-storage-api` 2.8.1, the pyspark 4.3.0 jars): for each class, its fields and its
//! superclasses' that are neither static nor transient nor synthetic, sorted by name, as
//! Kryo orders them. Written by `tests/java/KryoLayouts.java` from the classes themselves;
//! sorted by class name.

use super::kryo_graph::FieldKind::{self, *};

/// Class name, then its fields in the order they are written.
pub(crate) const FIELD_LAYOUTS: &[(&str, &[(&str, FieldKind)])] = &[
    ("org.apache.hadoop.hive.common.type.HiveChar", &[
        ("value", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.common.type.HiveDecimal", &[
        ("fast0", Long),
        ("fast1", Long),
        ("fast2", Long),
        ("fastIntegerDigitCount", Int),
        ("fastScale", Int),
        ("fastSerializationScale", Int),
        ("fastSignum", Int),
    ]),
    ("org.apache.hadoop.hive.common.type.HiveVarchar", &[
        ("value", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.ql.plan.ExprNodeColumnDesc", &[
        ("column", Final("java.lang.String")),
        ("isPartitionColOrVirtualCol", Bool),
        ("isSkewedCol", Bool),
        ("tabAlias", Final("java.lang.String")),
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.ql.plan.ExprNodeConstantDesc", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.ql.plan.ExprNodeGenericFuncDesc", &[
        ("chidren", Any),
        ("genericUDF", Any),
        ("isSortedExpr", Bool),
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFBetween", &[
        ("argumentOIs", Any),
        ("egt", Any),
        ("elt", Any),
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFBridge", &[
        ("isOperator", Bool),
        ("udfClassName", Final("java.lang.String")),
        ("udfName", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFIn", &[
        ("bw", Any),
        ("isInSetConstant", Bool),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPAnd", &[
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPDTIMinus", &[
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPDTIPlus", &[
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPDivide", &[
        ("ansiSqlArithmetic", Bool),
        ("byteWritable", Any),
        ("confLookupNeeded", Bool),
        ("decimalWritable", Final("org.apache.hadoop.hive.serde2.io.HiveDecimalWritable")),
        ("doubleWritable", Any),
        ("floatWritable", Any),
        ("intWritable", Any),
        ("longWritable", Any),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("shortWritable", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPEqual", &[
        ("compareOI", Any),
        ("compareType", Final("org.apache.hadoop.hive.ql.udf.generic.GenericUDFBaseCompare$CompareType")),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPEqualNS", &[
        ("compareOI", Any),
        ("compareType", Final("org.apache.hadoop.hive.ql.udf.generic.GenericUDFBaseCompare$CompareType")),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPEqualOrGreaterThan", &[
        ("compareOI", Any),
        ("compareType", Final("org.apache.hadoop.hive.ql.udf.generic.GenericUDFBaseCompare$CompareType")),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPEqualOrLessThan", &[
        ("compareOI", Any),
        ("compareType", Final("org.apache.hadoop.hive.ql.udf.generic.GenericUDFBaseCompare$CompareType")),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPGreaterThan", &[
        ("compareOI", Any),
        ("compareType", Final("org.apache.hadoop.hive.ql.udf.generic.GenericUDFBaseCompare$CompareType")),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPLessThan", &[
        ("compareOI", Any),
        ("compareType", Final("org.apache.hadoop.hive.ql.udf.generic.GenericUDFBaseCompare$CompareType")),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPMinus", &[
        ("ansiSqlArithmetic", Bool),
        ("arithmeticOperation", Any),
        ("confLookupNeeded", Bool),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPMod", &[
        ("ansiSqlArithmetic", Bool),
        ("byteWritable", Any),
        ("confLookupNeeded", Bool),
        ("decimalWritable", Final("org.apache.hadoop.hive.serde2.io.HiveDecimalWritable")),
        ("doubleWritable", Any),
        ("floatWritable", Any),
        ("intWritable", Any),
        ("longWritable", Any),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("shortWritable", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPMultiply", &[
        ("ansiSqlArithmetic", Bool),
        ("byteWritable", Any),
        ("confLookupNeeded", Bool),
        ("decimalWritable", Final("org.apache.hadoop.hive.serde2.io.HiveDecimalWritable")),
        ("doubleWritable", Any),
        ("floatWritable", Any),
        ("intWritable", Any),
        ("longWritable", Any),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("shortWritable", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNegative", &[
        ("byteWritable", Any),
        ("decimalWritable", Final("org.apache.hadoop.hive.serde2.io.HiveDecimalWritable")),
        ("doubleWritable", Any),
        ("floatWritable", Any),
        ("intWritable", Any),
        ("intervalDayTimeWritable", Any),
        ("intervalYearMonthWritable", Any),
        ("longWritable", Any),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("shortWritable", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNot", &[
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNotEqual", &[
        ("compareOI", Any),
        ("compareType", Final("org.apache.hadoop.hive.ql.udf.generic.GenericUDFBaseCompare$CompareType")),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNotEqualNS", &[
        ("compareOI", Any),
        ("compareType", Final("org.apache.hadoop.hive.ql.udf.generic.GenericUDFBaseCompare$CompareType")),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNotNull", &[
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNull", &[
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNumericMinus", &[
        ("ansiSqlArithmetic", Bool),
        ("byteWritable", Any),
        ("confLookupNeeded", Bool),
        ("decimalWritable", Final("org.apache.hadoop.hive.serde2.io.HiveDecimalWritable")),
        ("doubleWritable", Any),
        ("floatWritable", Any),
        ("intWritable", Any),
        ("longWritable", Any),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("shortWritable", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNumericPlus", &[
        ("ansiSqlArithmetic", Bool),
        ("byteWritable", Any),
        ("confLookupNeeded", Bool),
        ("decimalWritable", Final("org.apache.hadoop.hive.serde2.io.HiveDecimalWritable")),
        ("doubleWritable", Any),
        ("floatWritable", Any),
        ("intWritable", Any),
        ("longWritable", Any),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("shortWritable", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPOr", &[
        ("result", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPPlus", &[
        ("ansiSqlArithmetic", Bool),
        ("arithmeticOperation", Any),
        ("confLookupNeeded", Bool),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPPositive", &[
        ("byteWritable", Any),
        ("decimalWritable", Final("org.apache.hadoop.hive.serde2.io.HiveDecimalWritable")),
        ("doubleWritable", Any),
        ("floatWritable", Any),
        ("intWritable", Any),
        ("intervalDayTimeWritable", Any),
        ("intervalYearMonthWritable", Any),
        ("longWritable", Any),
        ("opDisplayName", Final("java.lang.String")),
        ("opName", Final("java.lang.String")),
        ("shortWritable", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFTimestamp", &[
        ("intToTimestampInSeconds", Bool),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFToBinary", &[
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFToChar", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFToDate", &[
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFToDecimal", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFToIntervalDayTime", &[
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFToIntervalYearMonth", &[
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFToUnixTimeStamp", &[
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFToUtcTimestamp", &[
    ]),
    ("org.apache.hadoop.hive.ql.udf.generic.GenericUDFToVarchar", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.io.ByteWritable", &[
        ("value", Byte),
    ]),
    ("org.apache.hadoop.hive.serde2.io.DateWritable", &[
        ("daysSinceEpoch", Int),
    ]),
    ("org.apache.hadoop.hive.serde2.io.DoubleWritable", &[
        ("value", Double),
    ]),
    ("org.apache.hadoop.hive.serde2.io.HiveCharWritable", &[
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.io.HiveDecimalWritable", &[
        ("fast0", Long),
        ("fast1", Long),
        ("fast2", Long),
        ("fastIntegerDigitCount", Int),
        ("fastScale", Int),
        ("fastSerializationScale", Int),
        ("fastSignum", Int),
        ("internalScratchBuffer", Final("[B")),
        ("internalScratchLongs", Final("[J")),
        ("isSet", Bool),
    ]),
    ("org.apache.hadoop.hive.serde2.io.HiveVarcharWritable", &[
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.io.ShortWritable", &[
        ("value", Short),
    ]),
    ("org.apache.hadoop.hive.serde2.io.TimestampWritable", &[
        ("bytesEmpty", Bool),
        ("currentBytes", Final("[B")),
        ("externalBytes", Final("[B")),
        ("internalBytes", Final("[B")),
        ("offset", Int),
        ("timestamp", Any),
        ("timestampEmpty", Bool),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaBinaryObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaBooleanObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaByteObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantBinaryObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("[B")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantBooleanObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("java.lang.Boolean")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantByteObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("java.lang.Byte")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantDateObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantDoubleObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("java.lang.Double")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantFloatObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("java.lang.Float")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantHiveCharObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantHiveDecimalObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("org.apache.hadoop.hive.common.type.HiveDecimal")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantHiveVarcharObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantIntObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("java.lang.Integer")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantLongObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("java.lang.Long")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantShortObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("java.lang.Short")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantStringObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaConstantTimestampObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaDateObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaDoubleObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaFloatObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaHiveCharObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaHiveDecimalObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaHiveIntervalDayTimeObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaHiveIntervalYearMonthObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaHiveVarcharObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaIntObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaLongObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaShortObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaStringObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaTimestampObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.JavaVoidObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableBinaryObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableBooleanObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableByteObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantBinaryObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantBooleanObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantByteObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantDateObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantDoubleObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantFloatObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantHiveCharObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantHiveDecimalObjectInspector", &[
        ("typeInfo", Any),
        ("value", Final("org.apache.hadoop.hive.serde2.io.HiveDecimalWritable")),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantHiveIntervalDayTimeObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantHiveIntervalYearMonthObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantHiveVarcharObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantIntObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantLongObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantShortObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantStringObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableConstantTimestampObjectInspector", &[
        ("typeInfo", Any),
        ("value", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableDateObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableDoubleObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableFloatObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableHiveCharObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableHiveDecimalObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableHiveIntervalDayTimeObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableHiveIntervalYearMonthObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableHiveVarcharObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableIntObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableLongObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableShortObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableStringObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableTimestampObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.objectinspector.primitive.WritableVoidObjectInspector", &[
        ("typeInfo", Any),
    ]),
    ("org.apache.hadoop.hive.serde2.typeinfo.CharTypeInfo", &[
        ("length", Int),
        ("typeName", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.serde2.typeinfo.DecimalTypeInfo", &[
        ("precision", Int),
        ("scale", Int),
        ("typeName", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.serde2.typeinfo.PrimitiveTypeInfo", &[
        ("typeName", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.hive.serde2.typeinfo.VarcharTypeInfo", &[
        ("length", Int),
        ("typeName", Final("java.lang.String")),
    ]),
    ("org.apache.hadoop.io.BooleanWritable", &[
        ("value", Bool),
    ]),
    ("org.apache.hadoop.io.FloatWritable", &[
        ("value", Float),
    ]),
    ("org.apache.hadoop.io.IntWritable", &[
        ("value", Int),
    ]),
    ("org.apache.hadoop.io.LongWritable", &[
        ("value", Long),
    ]),
    ("org.apache.hadoop.io.Text", &[
        ("bytes", Final("[B")),
        ("length", Int),
        ("textLength", Int),
    ]),
];

/// The enums those fields hold: Kryo writes an enum as its ordinal plus one.
pub(crate) const ENUMS: &[&str] =
    &["org.apache.hadoop.hive.ql.udf.generic.GenericUDFBaseCompare$CompareType"];
