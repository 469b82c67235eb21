"""What groundsql knows about a database before the first question."""

from groundsql.catalog.introspect import introspect
from groundsql.catalog.render import quote_name, render_schema_ddl, render_table_ddl, sample_rows
from groundsql.catalog.schema import Column, ForeignKey, Schema, Table

__all__ = ["Column", "ForeignKey", "Schema", "Table", "introspect", "quote_name", "render_schema_ddl",
           "render_table_ddl", "sample_rows"]
