"""Many threads querying one SQLite `Database` at once (the server does): no crash, every result right."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from groundsql.db import Database

pytestmark = pytest.mark.integration


def test_sixteen_threads_share_one_sqlite_database(demo_db: Path) -> None:
    db = Database(str(demo_db))
    expected = db.execute("SELECT status, COUNT(*) FROM orders GROUP BY status").rows
    with ThreadPoolExecutor(16) as pool:
        for _ in range(3):
            results = list(pool.map(lambda _: db.execute("SELECT status, COUNT(*) FROM orders GROUP BY status").rows,
                                    range(64)))
            assert all(rows == expected for rows in results)
    db.close()
