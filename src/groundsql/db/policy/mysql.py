"""MySQL and MariaDB: string, math, date/time, aggregate, window and JSON functions.

Refused by omission: `sleep`, `benchmark`, locks, `load_file`, user and server identity, sequences,
`last_insert_id`/`found_rows`, replication waits. Variables (`@a`, `@@datadir`) are refused by the guard.
"""

from groundsql.db.policy.base import DialectPolicy, register
from groundsql.db.policy.common import names

POLICY = register(DialectPolicy(
    dialect="mysql",
    functions=names("""
        abs acos adddate addtime ascii asin atan atan2 avg bin bit_and bit_count bit_length bit_or bit_xor ceil
        ceiling char char_length character_length coalesce concat concat_ws conv convert convert_tz cos cot count
        crc32 curdate current_date current_time current_timestamp curtime date date_add date_format date_sub
        datediff day dayname dayofmonth dayofweek dayofyear degrees elt exp export_set extract field find_in_set
        floor format from_days from_unixtime get_format greatest group_concat hex hour if ifnull instr isnull
        last_day lcase least left length ln locate log log10 log2 lower lpad ltrim make_set makedate maketime max
        md5 microsecond mid min minute mod month monthname now nullif oct octet_length ord period_add period_diff
        pi position pow power quarter radians rand regexp_instr regexp_like regexp_replace regexp_substr repeat
        replace reverse right round rpad rtrim sec_to_time second sha sha1 sha2 sign sin soundex space sqrt std
        stddev stddev_pop stddev_samp str_to_date strcmp subdate substr substring substring_index subtime sum
        sysdate tan time time_format time_to_sec timediff timestamp timestampadd timestampdiff to_days to_seconds
        trim truncate ucase unhex unix_timestamp upper utc_date utc_time utc_timestamp uuid var_pop var_samp
        variance week weekday weekofyear year yearweek median percentile_cont percentile_disc
        row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
        json_array json_arrayagg json_contains json_contains_path json_depth json_extract json_keys json_length
        json_object json_objectagg json_quote json_search json_type json_unquote json_valid json_value
        json_merge_patch json_merge_preserve json_merge json_pretty json_overlaps json_query json_exists
        json_remove json_set json_insert json_replace json_array_append json_array_insert json_compact
        json_detailed json_loose json_equals json_normalize
        natural_sort_key to_char weight_string
    """),
    table_functions=frozenset({"jsontable", "json_table"}),
    system_schemas=frozenset({"mysql", "information_schema", "performance_schema", "sys"}),
    catalog_functions=frozenset({"database", "version", "user", "current_user"}),
    pseudo_tables=frozenset({"dual"}),
    mysql_family=True,
))
