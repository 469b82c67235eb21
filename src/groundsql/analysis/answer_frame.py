"""What a pandas object written to result.csv must keep: the group keys pandas holds in its index, one header row.

The 1.5B model's code computes a grouped answer and then loses it on the way to the file: it writes a frame whose
group key sits in the index with `index=False` (the country column gone, only the medians left), or a frame whose
columns are two levels deep (`agg({"Total": ["sum"]})`), which CSV writes as two header rows, so the second is read
back as an answer row (`benchmarks/results/analytics/`). Neither is a wrong computation; both are a wrong file.

This module's source runs inside the sandbox before the model's code (`sandbox.run_python(prelude=...)`): it wraps
pandas' `to_csv` for the one file named result.csv only, so what the code computed is what is written:
- an index whose levels are named (a groupby key, a pivot's rows) is written as columns, unless a column already
  holds it; an unnamed integer index (row numbers) is never written;
- columns of several levels are flattened to one header row (the non-empty parts joined with `_`).
Each change is printed on stdout with the `NOTE` prefix, so the stage can state it beside the answer.
It needs nothing but pandas and is a no-op where pandas is missing.
"""

from __future__ import annotations

import os

RESULT_NAME = "result.csv"
NOTE = "[groundsql] "


def answer_frame(obj, index: bool = True):
    """`obj` (a DataFrame or Series) as the frame to write with `index=False`, and what was changed (notes)."""
    import pandas as pd

    frame = obj.to_frame() if isinstance(obj, pd.Series) else obj
    notes: list[str] = []
    if isinstance(frame.columns, pd.MultiIndex):
        flat = ["_".join(str(part) for part in parts if str(part) != "") or "value" for parts in frame.columns]
        frame = frame.set_axis(flat, axis=1)
        notes.append("flattened the columns' several header levels into one")
    names = [name for name in frame.index.names if name is not None]
    if names and len(names) == frame.index.nlevels and _index_is_new(frame):
        frame = frame.reset_index()
        notes.append(f"wrote the index ({', '.join(map(str, names))}) as columns")
    elif index and not names and not pd.api.types.is_integer_dtype(frame.index.dtype):
        frame = frame.reset_index()
        notes.append("wrote the unnamed index as a column, as to_csv would")
    return frame, notes


def _index_is_new(frame) -> bool:
    """Whether the index holds values no column holds already (by name or, level by level, by values)."""
    for level, name in enumerate(frame.index.names):
        if name in frame.columns:
            return False
        values = frame.index.get_level_values(level)
        for column in frame.columns:
            series = frame[column]
            if getattr(series, "ndim", 1) == 1 and list(series) == list(values):
                return False
    return True


def install() -> None:
    """Wrap pandas' `to_csv` so writing result.csv goes through `answer_frame` (other files are untouched)."""
    try:
        from pandas.core.generic import NDFrame
    except ImportError:
        return
    original = NDFrame.to_csv

    def to_csv(self, path_or_buf=None, *args, **kwargs):
        if args or isinstance(kwargs.get("header"), (list, tuple)) \
                or not isinstance(path_or_buf, (str, os.PathLike)) \
                or os.path.basename(os.fspath(path_or_buf)) != RESULT_NAME:
            return original(self, path_or_buf, *args, **kwargs)
        frame, notes = answer_frame(self, bool(kwargs.get("index", True)))
        for note in notes:
            print(NOTE + f"result.csv: {note}")
        kwargs["index"] = False
        kwargs.pop("index_label", None)
        return original(frame, path_or_buf, **kwargs)

    NDFrame.to_csv = to_csv


def prelude() -> str:
    """This module's source and the call that installs it: the code the sandbox runs before the model's."""
    with open(__file__, encoding="utf-8") as handle:
        return handle.read() + "\ninstall()\n"
