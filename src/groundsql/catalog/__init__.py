"""What groundsql knows about a database before the first question.

Public API (other packages code against these names only)::

    from groundsql.catalog import build_catalog, render

    catalog = build_catalog(db)                      # cached on disk, keyed by a schema fingerprint
    catalog.schema                                   # Schema: tables, columns, declared + inferred keys
    catalog.tables                                   # [TableProfile]: row_count, columns → ColumnProfile
    catalog.table("city").column("ID").semantic_type # identifier | dimension | metric | time | other
    catalog.join_graph.shortest_join_path("a", "b")  # [Relationship] (None when not connected)
    catalog.join_graph.connect(["a", "b", "c"])      # tables plus the bridges that connect them
    catalog.value_index.lookup("Frence")             # [ValueMatch(table, column, value, score, exact)]
    catalog.value_index.lookup_question(question)    # literals of a question → stored values
    render(catalog, tables=None, budget_tokens=2000, style="ddl" | "compact", linked={"city": ["Name"]})
"""

from groundsql.catalog.build import build_catalog, cached_catalog
from groundsql.catalog.catalog import Catalog
from groundsql.catalog.descriptions import Descriptions, apply_descriptions, load_descriptions
from groundsql.catalog.introspect import introspect
from groundsql.catalog.joins import JoinGraph, Relationship
from groundsql.catalog.keys import KeyOptions
from groundsql.catalog.profile import ProfileOptions, profile_table
from groundsql.catalog.profiles import ColumnProfile, TableProfile, ValueCount
from groundsql.catalog.prompt_text import estimate_tokens, render
from groundsql.catalog.render import quote_name, render_schema_ddl, render_table_ddl, sample_rows
from groundsql.catalog.schema import Column, ForeignKey, Schema, Table
from groundsql.catalog.types import SEMANTIC_TYPES
from groundsql.catalog.values import ValueIndex, ValueMatch

__all__ = [
    "Catalog", "Column", "ColumnProfile", "Descriptions", "ForeignKey", "JoinGraph", "KeyOptions",
    "ProfileOptions", "Relationship", "SEMANTIC_TYPES", "Schema", "Table", "TableProfile", "ValueCount",
    "ValueIndex", "ValueMatch", "apply_descriptions", "build_catalog", "cached_catalog", "estimate_tokens", "introspect",
    "load_descriptions", "profile_table", "quote_name", "render", "render_schema_ddl", "render_table_ddl",
    "sample_rows",
]
