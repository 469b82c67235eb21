"""Fixtures of the fault suite: an oracle model server that answers Spider questions with their gold SQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.fault_server import FaultServer

REPO = Path(__file__).resolve().parents[2]


def gold_by_question(spider_dir: Path) -> dict[str, str]:
    return {q["question"].strip(): q["query"] for q in json.loads((spider_dir / "dev.json").read_text())}


def oracle_reply(gold: dict[str, str]):
    """A responder that finds the question in the prompt and replies with its gold SQL."""

    def respond(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"].split("Question:", 1)[1].split("\n", 1)[0].strip()
        return f"```sql\n{gold[text]}\n```"

    return respond


@pytest.fixture()
def oracle_server(spider_dir: Path):
    """A running `FaultServer` answering every Spider question with its gold SQL (0.05 s per reply)."""
    pytest.importorskip("openai")
    with FaultServer(respond=oracle_reply(gold_by_question(spider_dir)), delay_s=0.05) as server:
        yield server


def groundsql(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the CLI in a child process (a crash there cannot take the test run with it)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "groundsql.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)
