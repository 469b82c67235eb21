"""Checks a database file must pass before it is opened: not empty, the right format, a regular CSV."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from groundsql.errors import ConfigError

SQLITE_MAGIC = b"SQLite format 3\x00"
#: A CSV is checked over its first rows only (DuckDB's sniffer also reads a sample); later damage is reported
#: by DuckDB when it loads the file.
CSV_CHECK_ROWS = 50_000
_SNIFF_BYTES = 64 * 1024
_SHOWN_ROWS = 5


def check_not_empty(path: Path) -> None:
    """An empty file would open as a database with no tables; refuse it up front."""
    if path.stat().st_size == 0:
        raise ConfigError(f"{path} is empty (0 bytes): there are no tables to ask about")


def check_sqlite_file(path: Path) -> None:
    """Refuse a file that does not start with SQLite's header. A 0-byte file is a valid, empty SQLite database
    (`ask` refuses it as a database with no tables)."""
    if path.stat().st_size == 0:
        return
    with path.open("rb") as handle:
        if handle.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise ConfigError(f"{path} is not a SQLite database (its first bytes are not a SQLite header)")


def check_csv_file(path: Path) -> int:
    """Check that a CSV file has a header and rows of the header's width; return the number of columns.

    Raises:
        ConfigError: the file is empty, has no header, is not text, or has irregular rows (named by line).
    """
    check_not_empty(path)
    try:
        with path.open("r", encoding="utf-8-sig", newline="") as handle:
            sample = handle.read(_SNIFF_BYTES)
            if not sample.strip():
                raise ConfigError(f"{path} holds no data: there are no tables to ask about")
            dialect = _sniff(sample)
            handle.seek(0)
            reader = csv.reader(handle, dialect)
            header = next((row for row in reader if any(cell.strip() for cell in row)), None)
            if header is None:
                raise ConfigError(f"{path} holds no data: there are no tables to ask about")
            irregular: list[tuple[int, int]] = []
            widths: Counter[int] = Counter()
            for count, row in enumerate(reader):
                if count >= CSV_CHECK_ROWS:
                    break
                if not row or not any(cell.strip() for cell in row):
                    continue
                widths[len(row)] += 1
                if len(row) != len(header):
                    irregular.append((reader.line_num, len(row)))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text (bad byte at position {exc.start}); save it as UTF-8") from None
    except csv.Error as exc:
        raise ConfigError(f"{path} cannot be read as CSV: {exc}") from None
    if irregular:
        shown = ", ".join(f"line {line} has {width}" for line, width in irregular[:_SHOWN_ROWS])
        more = f" and {len(irregular) - _SHOWN_ROWS} more" if len(irregular) > _SHOWN_ROWS else ""
        raise ConfigError(
            f"{path}: the header has {len(header)} fields but {len(irregular)} row(s) do not ({shown}{more}); "
            "fix those rows (quote fields that hold the delimiter) and try again"
        )
    return len(header)


def _sniff(sample: str) -> csv.Dialect | type[csv.Dialect]:
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        return csv.excel
