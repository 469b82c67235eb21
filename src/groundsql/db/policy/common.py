"""The sqlglot function classes that compute on values only (reviewed), shared by every dialect.

A class missing here is refused: a new sqlglot release adds classes, and each is reviewed before it is
allowed (`python scripts/gen_function_allowlist.py` lists them). Engine-specific names that sqlglot parses as
`Anonymous` are listed per dialect in this package.
"""

from __future__ import annotations


def names(text: str) -> frozenset[str]:
    """The whitespace-separated names of a data block."""
    return frozenset(text.split())

#: Pure scalar, aggregate, window, date/time, string, math, JSON and array functions.
COMMON_FUNCTION_CLASSES: frozenset[str] = names(
    """
    Abs Acos Acosh AddMonths And AnyValue Apply ApproxDistinct ApproxPercentileAccumulate
    ApproxPercentileCombine ApproxPercentileEstimate ApproxQuantile ApproxQuantiles ApproxTopK
    ApproxTopKAccumulate ApproxTopKCombine ApproxTopKEstimate ApproxTopSum ApproximateSimilarity ArgMax ArgMin
    Array ArrayAgg ArrayAll ArrayAny ArrayAppend ArrayCompact ArrayConcat ArrayConcatAgg ArrayConstructCompact
    ArrayContainedBy ArrayContains ArrayContainsAll ArrayDistinct ArrayExcept ArrayFilter ArrayFirst ArrayInsert
    ArrayIntersect ArrayLast ArrayMax ArrayMin ArrayOverlaps ArrayPosition ArrayPrepend ArrayRemove
    ArrayRemoveAt ArrayReverse ArraySize ArraySlice ArraySort ArraySum ArrayToString ArrayUnionAgg
    ArrayUniqueAgg ArraysZip Ascii Asin Asinh Atan Atan2 Atanh Avg Base64DecodeBinary Base64DecodeString
    Base64Encode BitLength BitmapBitPosition BitmapBucketNumber BitmapConstructAgg BitmapCount BitmapOrAgg
    BitwiseAndAgg BitwiseCount BitwiseOrAgg BitwiseXorAgg Booland Boolnot Boolor BoolxorAgg ByteLength Case Cast
    CastToStrType Cbrt Ceil CheckJson CheckXml Chr CityHash64 Coalesce CodePointsToBytes CodePointsToString
    Collate Collation Columns CombinedAggFunc CombinedParameterizedAgg Compress Concat ConcatWs ConnectByRoot
    Contains Convert ConvertTimezone ConvertToCharset Corr Cos Cosh CosineDistance Cot Coth Count CountIf
    CovarPop CovarSamp Csc Csch CumeDist CurrentCatalog CurrentDatabase CurrentDate CurrentDatetime
    CurrentSchema CurrentSchemas CurrentTime CurrentTimestamp CurrentTimestampLTZ CurrentTimezone Date DateAdd
    DateBin DateDiff DateFromParts DateFromUnixDate DateStrToDate DateSub DateToDateStr DateToDi DateTrunc
    Datetime DatetimeAdd DatetimeDiff DatetimeSub DatetimeTrunc Day DayOfMonth DayOfWeek DayOfWeekIso DayOfYear
    Dayname Decode DecodeCase DecompressBinary DecompressString Decrypt DecryptRaw Degrees DenseRank DiToDate
    DotProduct Elt Encode Encrypt EncryptRaw EndsWith EqualNull EuclideanDistance Exists Exp Explode
    ExplodingGenerateSeries Extract Factorial FarmFingerprint First FirstValue Flatten Float64 Floor Format
    FromBase FromBase32 FromBase64 FromISO8601Date FromISO8601Timestamp FromISO8601TimestampNanos FromJson
    GapFill GenerateBool GenerateDateArray GenerateDouble GenerateInt GenerateSeries GenerateTimestampArray
    Generator GetExtract GetIgnoreCase Getbit Greatest GroupConcat Grouping GroupingId HashAgg Hex
    HexDecodeString Hll Host Hour If Initcap Inline Int64 IsArray IsAscii IsInf IsNan IsNullValue JSONArray
    JSONArrayAgg JSONArrayAppend JSONArrayContains JSONArrayInsert JSONBContains JSONBContainsAllTopKeys
    JSONBContainsAnyTopKeys JSONBContainsTopKey JSONBDeleteAtPath JSONBExists JSONBExtract JSONBExtractScalar
    JSONBObjectAgg JSONBPathExists JSONBool JSONCast JSONExists JSONExtract JSONExtractArray JSONExtractScalar
    JSONFormat JSONKeys JSONKeysAtDepth JSONObject JSONObjectAgg JSONRemove JSONSet JSONStripNulls JSONTable
    JSONType JSONValueArray JarowinklerSimilarity JustifyDays JustifyHours JustifyInterval Kurtosis Lag Last
    LastDay LastValue LaxBool LaxFloat64 LaxInt64 LaxString Lead Least Left Length Levenshtein List Ln Localtime
    Localtimestamp Log LogicalAnd LogicalOr Lower LowerHex MD5 MD5Digest MD5NumberLower64 MD5NumberUpper64
    MakeInterval ManhattanDistance Map MapCat MapContainsKey MapDelete MapFromEntries MapInsert MapKeys MapPick
    MapSize MatchAgainst Max Median Min Minhash MinhashCombine Minute Mode Month Monthname MonthsBetween Nanvl
    Negative NetFunc NextDay Normal Normalize NthValue Ntile Nullif NumberToStr Nvl2 ObjectAgg ObjectId
    ObjectInsert ObjectTransform OpenJSON Or Overlay Pad ParameterizedAgg ParseBignumeric ParseDatetime ParseIp
    ParseJSON ParseNumeric ParseTime ParseUrl PercentRank PercentileCont PercentileDisc Pi Posexplode
    PosexplodeOuter Pow PreviousDay Quantile Quarter Radians Rand Randn Randstr RangeBucket RangeN Rank Reduce
    RegDomain RegexpCount RegexpExtract RegexpExtractAll RegexpFullMatch RegexpILike RegexpInstr RegexpLike
    RegexpReplace RegexpSplit RegexpSubstr RegrAvgx RegrAvgy RegrCount RegrIntercept RegrR2 RegrSlope RegrSxx
    RegrSxy RegrSyy RegrValx RegrValy Repeat Replace Reverse Right Rint Round RowNumber RtrimmedLength SHA
    SHA1Digest SHA2 SHA2Digest SafeAdd SafeConvertBytesToString SafeDivide SafeMultiply SafeNegate SafeSubtract
    Search SearchIp Sec Sech Second Seq1 Seq2 Seq4 Seq8 Shuffle Sign Sin Sinh Skewness Soundex SoundexP123 Space
    Split SplitPart SplitToTable Sqrt StDistance StPoint Stack StandardHash StarMap StartsWith Stddev StddevPop
    StddevSamp StrPosition StrToDate StrToMap StrToTime StrToUnix String StringToArray StripNullValue Strtok
    StrtokSplitToTable StrtokToArray Struct StructExtract Stuff Substring SubstringIndex Sum Systimestamp Tan
    Tanh Time TimeAdd TimeDiff TimeFromParts TimeSlice TimeStrToDate TimeStrToTime TimeStrToUnix TimeSub
    TimeToStr TimeToTimeStr TimeToUnix TimeTrunc Timestamp TimestampAdd TimestampDiff TimestampFromParts
    TimestampLtzFromParts TimestampSub TimestampTrunc TimestampTzFromParts ToArray ToBase32 ToBase64 ToBinary
    ToBoolean ToChar ToCodePoints ToDays ToDecfloat ToDouble ToMap ToNumber ToVariant Transform Translate Trim
    Trunc Try TryBase64DecodeBinary TryBase64DecodeString TryCast TryHexDecodeBinary TryHexDecodeString
    TryToDecfloat TsOrDiToDi TsOrDsAdd TsOrDsDiff TsOrDsToDate TsOrDsToDateStr TsOrDsToDatetime TsOrDsToTime
    TsOrDsToTimestamp Typeof Unhex Unicode Uniform UnixDate UnixMicros UnixMillis UnixSeconds UnixToStr
    UnixToTime UnixToTimeStr Unnest Upper UtcDate UtcTime UtcTimestamp Uuid VarMap Variance VariancePop Week
    WeekOfYear WeekStart WeightString WidthBucket XMLElement XMLGet XMLTable Xor Year YearOfWeek YearOfWeekIso
    Zipf
    """
)

#: Classes reviewed and refused: they read files or secrets, touch sequences or sessions, name relations
#: dynamically, report who and where the server is, or call a hosted model. `Anonymous` is checked by name.
REVIEWED_REFUSED: frozenset[str] = names(
    """
    AIAgg AIClassify AIEmbed AIForecast AIGenerate AISimilarity AISummarizeAgg MLForecast MLTranslate Predict
    GenerateEmbedding GenerateText GenerateTable VectorSearch FeaturesAtTime ReadCSV ReadParquet ToFile Secret
    NextValueFor CurrentAccount CurrentAccountName CurrentAvailableRoles CurrentClient CurrentIpAddress
    CurrentOrganizationName CurrentOrganizationUser CurrentRegion CurrentRole CurrentRoleType
    CurrentSecondaryRoles CurrentSession CurrentStatement CurrentTransaction CurrentUser CurrentUserId
    CurrentVersion CurrentWarehouse SessionUser DynamicIdentifier Anonymous AnonymousAggFunc Func Agg AggFunc
    SafeFunc _ExplodeOuter
    """
)
