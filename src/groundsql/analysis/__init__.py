"""ProSPy analysis: a view DSL compiled to any dialect, iterative view fetching, and sandboxed Python."""

from groundsql.analysis.compile import CompiledView, ViewCompiler, compile_views
from groundsql.analysis.dsl import View, ViewBatch, view_json_schema

__all__ = ["CompiledView", "View", "ViewBatch", "ViewCompiler", "compile_views", "view_json_schema"]
