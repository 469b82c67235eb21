"""Process-wide knowledge caches stay bounded on a server that runs for days: an edited folder replaces its
entry instead of adding one per edit."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from groundsql.knowledge import loader, retrieval
from groundsql.knowledge.store import add_rule

pytestmark = pytest.mark.unit


def test_an_edited_folder_replaces_its_cached_knowledge(tmp_path: Path) -> None:
    folder = tmp_path / "shop.knowledge"
    add_rule(folder, "Revenue means quantity times unit price.")
    first = loader.cached_knowledge(folder)
    assert loader.cached_knowledge(folder) is first
    for number in range(5):  # five edits, as a user adding rules from the web UI
        add_rule(folder, f"Rule number {number} about orders.")
        stamp = (folder / "rules.yaml").stat().st_mtime_ns + number + 1
        os.utime(folder / "rules.yaml", ns=(stamp, stamp))
        latest = loader.cached_knowledge(folder)
    assert latest is not first and len(latest.rules) == 6
    assert [key for key in loader._CACHE if key[0] == str(folder.resolve())] == [next(
        key for key in loader._CACHE if key[0] == str(folder.resolve()))]


def test_retrievers_are_bounded(tmp_path: Path) -> None:
    folder = tmp_path / "shop.knowledge"
    add_rule(folder, "Revenue means quantity times unit price.")
    knowledge = loader.cached_knowledge(folder)
    for _ in range(retrieval.MAX_RETRIEVERS + 5):
        retrieval.retriever_for(dataclasses.replace(knowledge))  # a reload: an equal, new object
    assert len(retrieval._RETRIEVERS) <= retrieval.MAX_RETRIEVERS
