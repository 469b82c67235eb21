"""Spark SQL: the built-in functions sqlglot reads as `Anonymous` that compute on values only.

Reviewed from `spark.catalog.listFunctions()` of Spark 4.3 (591 functions, 237 parsed as `Anonymous`). Left out:
Java calls (`reflect`, `java_method`, `try_reflect`), file and descriptor readers (`input_file_*`,
`from_protobuf`/`to_protobuf`, `from_avro`/`to_avro`), XML parsers (`xpath*`, `from_xml`), session and server
facts (`user`, `version`, `current_path`, `collations`, `sql_keywords`, `python_worker_logs`), streaming windows,
and the assertion functions (`assert_true`, `raise_error`). `db/spark_guard.py` adds Spark's own statement checks.
"""

from groundsql.db.policy.base import DialectPolicy, register
from groundsql.db.policy.common import names

POLICY = register(DialectPolicy(
    dialect="spark",
    functions=names("""
        array_repeat array_union arrays_overlap bigint bin binary bitmap_and_agg bround btrim cardinality conv
        count_min_sketch crc32 date_part datepart decimal e every expm1 find_in_set forall format_number from_csv
        get hash histogram_numeric hll_sketch_agg hll_sketch_estimate hll_union hll_union_agg hmac hypot
        inline_outer is_valid_utf8 is_valid_variant is_variant_null isnotnull isnull jaro_winkler_similarity
        json_array_length json_tuple log1p luhn_check make_date make_dt_interval make_time make_timestamp_ltz
        make_timestamp_ntz make_valid_utf8 make_ym_interval map_concat map_entries map_filter map_values
        map_zip_with mask mean monotonically_increasing_id now nullifzero octet_length pmod positive printf quote
        regexp sentences shiftrightunsigned smallint some spark_partition_id std time_bucket time_from_micros
        time_from_millis time_from_seconds time_to_micros time_to_millis time_to_seconds timestamp_micros
        timestamp_millis timestamp_nanos timestamp_seconds tinyint to_csv to_time to_timestamp_ltz
        to_timestamp_ntz to_varchar to_variant_object transform_keys transform_values try_avg try_make_interval
        try_make_timestamp try_make_timestamp_ltz try_make_timestamp_ntz try_mod try_parse_json try_parse_url
        try_sum try_to_binary try_to_date try_to_number try_to_time try_to_timestamp try_url_decode
        try_validate_utf8 try_variant_get unix_nanos url_decode url_encode validate_utf8 variant_get weekday
        xxhash64 zeroifnull zip_with explode_outer
        kll_merge_agg_bigint kll_merge_agg_double kll_merge_agg_float kll_sketch_agg_bigint kll_sketch_agg_double
        kll_sketch_agg_float kll_sketch_get_n_bigint kll_sketch_get_n_double kll_sketch_get_n_float
        kll_sketch_get_quantile_bigint kll_sketch_get_quantile_double kll_sketch_get_quantile_float
        kll_sketch_get_rank_bigint kll_sketch_get_rank_double kll_sketch_get_rank_float
        theta_difference theta_intersection theta_intersection_agg theta_sketch_agg theta_sketch_estimate
        theta_union theta_union_agg
    """),
    table_functions=names("range explode explode_outer inline inline_outer posexplode posexplode_outer stack "
                          "json_tuple"),
    system_schemas=frozenset({"global_temp", "information_schema", "system"}),
))
