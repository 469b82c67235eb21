"""DuckDB: scalar, aggregate, window, list, struct, date and JSON functions; no file, secret or catalog reader."""

from groundsql.db.policy.base import DialectPolicy, register
from groundsql.db.policy.common import names

POLICY = register(DialectPolicy(
    dialect="duckdb",
    functions=names("""
        abs acos asin atan atan2 bit_count cbrt ceil ceiling cos cot degrees even exp factorial floor gamma gcd
        greatest isfinite isinf isnan lcm least lgamma ln log log10 log2 nextafter pi pow power radians random
        round round_even setseed sign signbit sin sqrt tan trunc xor fdiv fmod
        array_to_string ascii bar bit_length chr concat concat_ws contains ends_with format formatreadablesize
        format_bytes hamming editdist3 instr jaccard jaro_similarity jaro_winkler_similarity left length
        length_grapheme levenshtein like_escape lcase lower lpad ltrim md5 md5_number mismatches nfc_normalize
        not_like_escape ord parse_dirname parse_dirpath parse_filename parse_path position prefix printf
        regexp_escape regexp_extract regexp_extract_all regexp_full_match regexp_matches regexp_replace
        regexp_split_to_array repeat replace reverse right rpad rtrim sha1 sha256 split split_part starts_with
        str_split str_split_regex string_split string_split_regex string_to_array strip_accents strlen strpos
        substr substring substring_grapheme suffix translate trim ucase unicode upper url_decode url_encode
        to_base64 from_base64 hex unhex bin to_hex to_binary
        age century current_date current_localtime current_localtimestamp date_add date_diff date_part date_sub
        date_trunc datediff datepart datesub datetrunc day dayname dayofmonth dayofweek dayofyear decade epoch
        epoch_ms epoch_us epoch_ns era extract get_current_time get_current_timestamp hour isodow isoyear
        julian last_day make_date make_time make_timestamp make_timestamptz microsecond millennium millisecond
        minute month monthname nanosecond now quarter second strftime strptime time_bucket timezone
        timezone_hour timezone_minute to_centuries to_days to_decades to_hours to_microseconds to_millennia
        to_milliseconds to_minutes to_months to_seconds to_timestamp to_weeks to_years today transaction_timestamp
        try_strptime week weekday weekofyear year yearweek
        any_value approx_count_distinct approx_quantile arbitrary arg_max arg_max_null arg_min arg_min_null argmax
        argmin avg bit_and bit_or bit_xor bitstring_agg bool_and bool_or corr count count_if count_star countif
        covar_pop covar_samp entropy favg first fsum geomean geometric_mean histogram kahan_sum kurtosis
        kurtosis_pop last list mad max max_by mean median min min_by mode product quantile quantile_cont
        quantile_disc regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy
        reservoir_quantile sem skewness stddev stddev_pop stddev_samp string_agg group_concat listagg sum
        sum_no_overflow sumkahan var_pop var_samp variance array_agg
        row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
        array_append array_concat array_contains array_distinct array_extract array_filter array_has
        array_has_all array_has_any array_length array_position array_prepend array_reverse array_slice
        array_sort array_transform array_value flatten generate_subscripts len list_aggregate list_aggr
        list_any_value list_append list_apply list_avg list_cat list_concat list_contains list_count
        list_distinct list_element list_extract list_filter list_first list_grade_up list_has list_has_all
        list_has_any list_indexof list_intersect list_last list_max list_min list_position list_prepend
        list_reduce list_resize list_reverse list_reverse_sort list_select list_slice list_sort list_string_agg
        list_sum list_transform list_unique list_value list_where list_zip range generate_series unnest
        struct_extract struct_insert struct_pack row map map_entries map_extract map_from_entries map_keys
        map_values cardinality element_at
        json json_array json_array_length json_contains json_extract json_extract_path json_extract_path_text
        json_extract_string json_group_array json_group_object json_group_structure json_keys json_merge_patch
        json_object json_quote json_structure json_transform json_transform_strict json_type json_valid
        json_value from_json from_json_strict to_json array_to_json row_to_json json_serialize_sql
        coalesce ifnull nullif typeof try_cast cast_to_type isodate hash uuid gen_random_uuid
        columns alias constant_or_null
    """),
    table_functions=frozenset({"range", "generate_series", "unnest", "json_each", "json_tree"}),
    refused_classes=frozenset(),
    system_schemas=frozenset({"information_schema", "pg_catalog", "system", "temp"}),
    system_prefixes=("duckdb_", "pragma_", "pg_", "sqlite_"),
    catalog_functions=names("""
        duckdb_tables duckdb_views duckdb_columns duckdb_constraints duckdb_schemas duckdb_databases
        duckdb_indexes duckdb_types duckdb_functions duckdb_settings pragma_table_info pragma_storage_info
        current_setting
        current_database current_schema current_schemas
    """),
    default_schemas=frozenset({"main"}),
))
