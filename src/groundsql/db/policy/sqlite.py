"""SQLite: core, date, math, aggregate, window and JSON functions (https://sqlite.org/lang_corefunc.html)."""

from groundsql.db.policy.base import DialectPolicy, register
from groundsql.db.policy.common import names

POLICY = register(DialectPolicy(
    dialect="sqlite",
    functions=names("""
        abs char coalesce concat concat_ws format glob hex ifnull iif instr length like likelihood likely lower
        ltrim max min nullif octet_length printf quote random replace round rtrim sign soundex substr substring
        trim typeof unhex unicode unlikely upper date time datetime julianday unixepoch strftime timediff avg count
        group_concat string_agg sum total row_number rank dense_rank percent_rank cume_dist ntile lag lead
        first_value last_value nth_value acos acosh asin asinh atan atan2 atanh ceil ceiling cos cosh degrees exp
        floor ln log log10 log2 mod pi pow power radians sin sinh sqrt tan tanh trunc json json_array
        json_array_length json_error_position json_extract json_insert json_object json_patch json_remove
        json_replace json_set json_type json_valid json_quote json_group_array json_group_object jsonb
        jsonb_array jsonb_extract jsonb_insert jsonb_object jsonb_patch jsonb_remove jsonb_replace jsonb_set
        jsonb_group_array jsonb_group_object median
    """),
    table_functions=frozenset({"json_each", "json_tree", "generate_series"}),
    system_schemas=frozenset({"temp", "sqlite_temp_master"}),
    system_prefixes=("sqlite_", "pragma_"),
    catalog_functions=names("""
        pragma_table_info pragma_table_xinfo pragma_index_list pragma_index_info pragma_foreign_key_list
        pragma_table_list sqlite_version
    """),
    default_schemas=frozenset({"main"}),
))
