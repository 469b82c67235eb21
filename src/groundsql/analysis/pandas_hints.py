"""The fix for pandas errors a small model makes again and again, said in the revision request.

The 1.5B model writes pandas as it was written before pandas 2 (a tuple of columns after `groupby`, string dates
used as dates) and does not recover from the traceback alone: on the analytics questions (`benchmarks/analytics`,
`python_inputs=tables`, 66f9cfd) 11 of the 22 Python stages that failed ended on one of these errors after every
revision. Each hint is a fact about the pandas API, matched on the error's own message; none reads the question.
"""

from __future__ import annotations

import re

#: (a pattern of pandas' error message, what to do instead)
HINTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Cannot subset columns with a tuple", re.I),
     "To take several columns after groupby, index with a list: df.groupby('k')[['a', 'b']], "
     "not df.groupby('k')['a', 'b']."),
    (re.compile(r"Can only use \.dt accessor with datetimelike values", re.I),
     "Convert the date column first: df['d'] = pd.to_datetime(df['d'], format='mixed') "
     "(format='mixed' reads dates stored in more than one format), then use .dt."),
    (re.compile(r"format='mixed'|doesn't match format|time data .* does not match", re.I),
     "The dates are not all in one format: parse them with pd.to_datetime(df['d'], format='mixed')."),
    (re.compile(r"datetime64.* does not support|unsupported operand type.*Timestamp", re.I),
     "A date cannot be summed or averaged: aggregate the number column, and group by the date (or by "
     "df['d'].dt.year, .dt.month) instead."),
    (re.compile(r"Length mismatch: Expected axis has", re.I),
     "Setting df.columns needs exactly one name per column the frame has; rename with "
     "df.rename(columns={'old': 'new'}) instead."),
    (re.compile(r"Can only compare identically-labeled", re.I),
     "To compare each row with its group's figure, compute it per row: "
     "df['avg'] = df.groupby('k')['x'].transform('mean'), then df[df['x'] > df['avg']]."),
)


def pandas_hint(error: str) -> str:
    """The fixes for the known pandas errors in `error` (a traceback or its last line), else ''."""
    fixes = [fix for pattern, fix in HINTS if pattern.search(error or "")]
    return "\nHow to fix it in pandas: " + " ".join(fixes) if fixes else ""
