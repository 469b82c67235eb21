"""A result written as CSV, Parquet, Excel or JSON, with the question, the SQL and the row cap carried where the
format has room for them (Parquet: the schema's metadata; Excel: the workbook's properties and a `query` sheet;
JSON: fields beside the rows; CSV has none: the HTTP API sends them as headers).

Column types come from `groundsql.db.frames` (dates stay dates, decimals exact, NULLs empty), so a file read back
by pandas, pyarrow or openpyxl holds the rows the answer returned. Parquet needs pyarrow and Excel openpyxl
(``pip install 'groundsql[dataframes]'``).
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from groundsql.db.frames import BYTES, DECIMAL, column_kinds, column_values, to_arrow
from groundsql.db.result import Result
from groundsql.errors import ConfigError

FORMATS = ("csv", "parquet", "xlsx", "json")
MEDIA_TYPES = {"csv": "text/csv; charset=utf-8", "parquet": "application/vnd.apache.parquet",
               "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
               "json": "application/json"}
#: Rows per CSV chunk and per Parquet row group when streaming.
CHUNK_ROWS = 500


@dataclass(frozen=True)
class ExportInfo:
    """What a file says about its rows: the question, the SQL and the row cap they were cut at (if any)."""

    question: str = ""
    sql: str = ""
    row_cap: int | None = None
    truncated: bool = False
    row_count: int = 0

    def metadata(self) -> dict[str, str]:
        """The facts as ``groundsql.*`` text fields (Parquet schema metadata)."""
        return {"groundsql.question": self.question, "groundsql.sql": self.sql,
                "groundsql.row_cap": "" if self.row_cap is None else str(self.row_cap),
                "groundsql.truncated": "true" if self.truncated else "false",
                "groundsql.row_count": str(self.row_count)}

    def cap_note(self) -> str:
        cap = f"a row cap of {self.row_cap}" if self.row_cap is not None else "no stated row cap"
        return f"{self.row_count} row(s), {cap}; " + ("cut at the cap: more rows exist" if self.truncated
                                                      else "the whole result")


def format_of(path: str | Path) -> str:
    """The export format a file name asks for, from its suffix.

    Raises:
        ConfigError: a suffix other than .csv, .parquet, .xlsx or .json.
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise ConfigError(f"cannot export to {Path(path).name}: use a .csv, .parquet, .xlsx or .json file")
    return suffix


def info_for(result: Result, *, question: str = "", sql: str | None = None, row_cap: int | None = None
             ) -> ExportInfo:
    return ExportInfo(question=question, sql=sql if sql is not None else result.sql, row_cap=row_cap,
                      truncated=result.truncated, row_count=result.row_count)


def write_export(result: Result, path: str | Path, *, question: str = "", sql: str | None = None,
                 row_cap: int | None = None) -> Path:
    """Write `result` to `path` in the format its suffix names (see the module docstring).

    Args:
        result: the rows.
        path: a .csv, .parquet, .xlsx or .json file (overwritten).
        question: the question the rows answer (kept in the file's metadata).
        sql: the SQL that produced them (default: `result.sql`).
        row_cap: the row cap the result was run under (stated in the metadata).

    Returns:
        The path written.

    Raises:
        ConfigError: an unknown suffix, or the library the format needs is missing.
    """
    path = Path(path)
    kind = format_of(path)
    info = info_for(result, question=question, sql=sql, row_cap=row_cap)
    if kind == "parquet":
        write_parquet(result, path, info)
    elif kind == "xlsx":
        write_xlsx(result, path, info)
    else:
        with path.open("w", encoding="utf-8", newline="") as out:
            for chunk in (csv_chunks(result) if kind == "csv" else json_chunks(result, info)):
                out.write(chunk)
    return path


def csv_chunks(result: Result, rows_per_chunk: int = CHUNK_ROWS) -> Iterator[str]:
    """The CSV text (header first) in pieces of `rows_per_chunk` rows: NULL is an empty field, dates ISO 8601,
    decimals exact, bytes hexadecimal."""
    kinds = column_kinds(result)
    columns = [column_values(result, i, k) for i, k in enumerate(kinds)]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(result.columns)
    for start in range(0, result.row_count, rows_per_chunk):
        for index in range(start, min(start + rows_per_chunk, result.row_count)):
            writer.writerow([_text(column[index]) for column in columns])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    if buffer.getvalue():
        yield buffer.getvalue()


def json_chunks(result: Result, info: ExportInfo) -> Iterator[str]:
    """One JSON object: the facts of `info`, ``columns`` as {name, type} and ``rows`` as arrays (dates ISO 8601,
    decimals as exact strings, bytes hexadecimal), written a chunk of rows at a time."""
    kinds = column_kinds(result)
    columns = [column_values(result, i, k) for i, k in enumerate(kinds)]
    head = {"question": info.question, "sql": info.sql, "row_count": info.row_count, "row_cap": info.row_cap,
            "truncated": info.truncated,
            "columns": [{"name": n, "type": k.kind} for n, k in zip(result.columns, kinds)]}
    yield json.dumps(head)[:-1] + ', "rows": ['
    for start in range(0, result.row_count, CHUNK_ROWS):
        rows = [json.dumps([_json_value(column[i]) for column in columns])
                for i in range(start, min(start + CHUNK_ROWS, result.row_count))]
        yield ("," if start else "") + ",".join(rows)
    yield "]}\n"


def write_parquet(result: Result, sink: str | Path | IO[bytes], info: ExportInfo) -> None:
    """Parquet with the column types of `to_arrow` and the facts of `info` in the schema's metadata, written in
    row groups of `CHUNK_ROWS`."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError("Parquet export needs pyarrow: pip install 'groundsql[dataframes]'") from None
    table = to_arrow(result, metadata=info.metadata())
    pq.write_table(table, sink if not isinstance(sink, Path) else str(sink), row_group_size=CHUNK_ROWS)


def write_xlsx(result: Result, sink: str | Path | IO[bytes], info: ExportInfo) -> None:
    """An Excel workbook: the rows on a `result` sheet (typed cells: numbers, dates, text), the question, SQL
    and row cap on a `query` sheet and in the workbook's title and description. Written in streaming mode."""
    try:
        from openpyxl import Workbook
        from openpyxl.cell import WriteOnlyCell
        from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
    except ImportError:
        raise ConfigError("Excel export needs openpyxl: pip install 'groundsql[dataframes]'") from None
    book = Workbook(write_only=True)
    book.properties.title = info.question[:255]
    book.properties.description = info.sql
    book.properties.creator = "groundsql"
    sheet = book.create_sheet("result")
    kinds = column_kinds(result)
    columns = [column_values(result, i, k) for i, k in enumerate(kinds)]

    def cell(value: Any, kind: str = "") -> Any:
        if value is None:
            return None
        if kind == BYTES:
            value = bytes(value).hex()
        elif kind == DECIMAL and isinstance(value, decimal.Decimal) and not value.is_finite():
            value = str(value)
        elif isinstance(value, dt.datetime) and value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)  # Excel has no time zones
        if isinstance(value, str):
            text = WriteOnlyCell(sheet, value=ILLEGAL_CHARACTERS_RE.sub("", value))
            text.data_type = "s"  # text that starts with "=" stays text, never a formula
            return text
        return value

    sheet.append([cell(name) for name in result.columns])
    for index in range(result.row_count):
        sheet.append([cell(column[index], kind.kind) for column, kind in zip(columns, kinds)])
    about = book.create_sheet("query")
    for label, value in (("question", info.question), ("sql", info.sql), ("row_count", info.row_count),
                         ("row_cap", info.row_cap), ("truncated", info.truncated), ("note", info.cap_note())):
        about.append([cell(label), cell(value) if isinstance(value, str) else value])
    book.save(sink if not isinstance(sink, Path) else str(sink))


def export_bytes(result: Result, kind: str, info: ExportInfo) -> bytes:
    """The whole file of one format in memory (Parquet and Excel are not written row by row)."""
    buffer = io.BytesIO()
    if kind == "parquet":
        write_parquet(result, buffer, info)
    elif kind == "xlsx":
        write_xlsx(result, buffer, info)
    else:
        chunks = csv_chunks(result) if kind == "csv" else json_chunks(result, info)
        return "".join(chunks).encode("utf-8")
    return buffer.getvalue()


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _json_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    return _text(value)
