"""Schema linking: question → the smallest sufficient, connected schema subset.

`link(ctx, spec)` runs one linker or a comma chain of them ('vector,apex'); each stage narrows the previous
stage's subset. Importing this package registers every built-in linker.
"""

from groundsql.linking import apex, full, presql, progressive, vector  # noqa: F401  (register the linkers)
from groundsql.linking.options import DEFAULT_FULL_BUDGET, LinkerChoice, LinkOptions
from groundsql.linking.registry import (
    DEFAULT_LINKER,
    DESCRIPTIONS,
    LINKERS,
    OPTIONS,
    get_linker,
    link,
    linker,
    linker_options,
    linker_spec,
    parse_spec,
)
from groundsql.linking.subset import LinkedColumn, LinkedTable, SchemaSubset

__all__ = ["DEFAULT_FULL_BUDGET", "DEFAULT_LINKER", "DESCRIPTIONS", "LINKERS", "OPTIONS", "LinkOptions",
           "LinkedColumn", "LinkedTable", "LinkerChoice", "SchemaSubset", "get_linker", "link", "linker",
           "linker_options", "linker_spec", "parse_spec"]
