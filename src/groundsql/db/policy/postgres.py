"""PostgreSQL: string, math, date/time, aggregate, window, array, JSON and text-search functions.

Refused by omission: `pg_*` administration functions, settings (`current_setting`, `set_config`), sequences,
large objects, `dblink`, advisory locks, file readers and `*_to_xml` (which run a query given as text).
"""

from groundsql.db.policy.base import DialectPolicy, register
from groundsql.db.policy.common import names

POLICY = register(DialectPolicy(
    dialect="postgres",
    functions=names("""
        ascii bit_length btrim char_length character_length chr concat concat_ws format initcap left length lower
        lpad ltrim md5 normalize octet_length overlay position quote_literal regexp_count regexp_instr regexp_like
        regexp_match regexp_matches regexp_replace regexp_split_to_array regexp_split_to_table regexp_substr repeat
        replace reverse right rpad rtrim split_part starts_with string_to_array string_to_table strpos substr
        substring to_ascii to_hex translate trim upper unistr sha224 sha256 sha384 sha512 encode decode
        convert_from convert_to
        abs acos acosd asin asind atan atan2 atan2d atand cbrt ceil ceiling cos cosd cosh cot cotd degrees div exp
        factorial floor gcd lcm ln log log10 min_scale mod pi power radians random round scale sign sin sind sinh
        sqrt tan tand tanh trim_scale trunc width_bucket erf erfc random_normal
        age clock_timestamp current_date date_add date_bin date_part date_subtract date_trunc extract isfinite
        justify_days justify_hours justify_interval localtime localtimestamp make_date make_interval make_time
        make_timestamp make_timestamptz now statement_timestamp timeofday to_char to_date to_number to_timestamp
        transaction_timestamp timezone
        array_agg avg bit_and bit_or bit_xor bool_and bool_or count every json_agg jsonb_agg json_object_agg
        jsonb_object_agg max min string_agg sum corr covar_pop covar_samp regr_avgx regr_avgy regr_count
        regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy stddev stddev_pop stddev_samp variance
        var_pop var_samp mode percentile_cont percentile_disc any_value range_agg xmlagg
        row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
        array_append array_cat array_dims array_fill array_length array_lower array_ndims array_position
        array_positions array_prepend array_remove array_replace array_to_string array_upper cardinality
        trim_array unnest generate_series generate_subscripts array_sample array_shuffle
        to_json to_jsonb array_to_json row_to_json json_build_array jsonb_build_array json_build_object
        jsonb_build_object json_object jsonb_object json_array_length jsonb_array_length json_extract_path
        jsonb_extract_path json_extract_path_text jsonb_extract_path_text json_object_keys jsonb_object_keys
        json_typeof jsonb_typeof json_strip_nulls jsonb_strip_nulls jsonb_set jsonb_set_lax jsonb_insert
        jsonb_pretty jsonb_path_exists jsonb_path_match jsonb_path_query_array jsonb_path_query_first
        json_scalar json_serialize
        coalesce nullif greatest least num_nonnulls num_nulls gen_random_uuid
        to_tsvector to_tsquery plainto_tsquery phraseto_tsquery websearch_to_tsquery ts_rank ts_rank_cd
        ts_headline setweight
        lower_inc upper_inc lower_inf upper_inf isempty range_merge
    """),
    table_functions=names("""
        generate_series generate_subscripts unnest json_each jsonb_each json_each_text jsonb_each_text
        json_array_elements jsonb_array_elements json_array_elements_text jsonb_array_elements_text
        json_to_record jsonb_to_record json_to_recordset jsonb_to_recordset json_populate_record
        jsonb_populate_record json_populate_recordset jsonb_populate_recordset jsonb_path_query
        regexp_matches regexp_split_to_table string_to_table explodinggenerateseries
    """),
    system_schemas=frozenset({"pg_catalog", "information_schema", "pg_toast"}),
    system_prefixes=("pg_",),
    catalog_functions=frozenset({"current_setting", "version", "pg_get_viewdef", "pg_table_size"}),
))
