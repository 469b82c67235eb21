"""The long fuzz runs (`fuzz` marker) stay out of every test run that does not ask for them by name
(`-m fuzz`), whatever other `-m` expression a script passes; the short seeded slice runs by default."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "fuzz" in (config.getoption("markexpr") or ""):
        return
    deselected = [item for item in items if item.get_closest_marker("fuzz")]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not item.get_closest_marker("fuzz")]
