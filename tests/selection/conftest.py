"""A tiny real SQLite database shared by the generation, selection and pipeline tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest


def make_music_db(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
        CREATE TABLE song (song_id INTEGER PRIMARY KEY, singer_id INTEGER REFERENCES singer(singer_id),
                           title TEXT, sales REAL);
        INSERT INTO singer VALUES (1, 'Joe', 'France', 52), (2, 'Ann', 'France', 29), (3, 'Bo', 'Netherlands', 41),
                                  (4, 'Cy', 'United States', 33);
        INSERT INTO song VALUES (1, 1, 'Hey', 10.5), (2, 1, 'You', 3.0), (3, 3, 'Dance', 7.25), (4, 4, 'Go', 1.0);
    """)
    conn.commit()
    conn.close()
    return path


@pytest.fixture()
def music_db(tmp_path: Path) -> Path:
    return make_music_db(tmp_path / "music.sqlite")


@pytest.fixture(autouse=True)
def _state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Expert weights go to a temporary directory, never to the user's."""
    monkeypatch.setenv("GROUNDSQL_STATE_DIR", str(tmp_path / "state"))
