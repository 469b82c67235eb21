"""Per-expert weights for WMA and RWMA voting (SSEV §3.1.2), persisted on disk across questions.

Every expert starts at weight 1. After each answer the experts that made a mistake (judged against the gold
result during evaluation, or by execution failure in use) are multiplied by (1 - ε). The paper sets ε to
minimise the mistake bound; with N experts and T rounds that optimum is ε = sqrt(ln N / T), which we apply
with T the number of rounds seen so far (an anytime schedule), clipped to [0.01, 0.5].
"""

from __future__ import annotations

import json
import math
import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundsql.errors import ConfigError

FILE_NAME = "expert_weights.json"
HISTORY_LIMIT = 1000
EPSILON_MIN, EPSILON_MAX = 0.01, 0.5
_LOCK = threading.Lock()


def state_dir() -> Path:
    """GROUNDSQL_STATE_DIR, else ~/.local/share/groundsql."""
    return Path(os.environ.get("GROUNDSQL_STATE_DIR") or Path.home() / ".local" / "share" / "groundsql")


def paper_epsilon(experts: int, rounds: int) -> float:
    """ε = sqrt(ln N / T), clipped; with one expert the weights never matter and ε is the minimum."""
    if experts < 2:
        return EPSILON_MIN
    value = math.sqrt(math.log(experts) / max(rounds, 1))
    return min(EPSILON_MAX, max(EPSILON_MIN, value))


@dataclass
class WeightPool:
    """The weights of one set of experts, with their update history."""

    experts: dict[str, float]
    rounds: int = 0
    mistakes: dict[str, int] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)

    def weight(self, expert: str) -> float:
        return self.experts.get(expert, 1.0)

    def update(self, wrong: dict[str, bool], *, epsilon: float | None = None, label: str = "") -> float:
        """Penalise every expert with `wrong[expert]` True by (1 - ε); returns the ε used."""
        self.rounds += 1
        eps = epsilon if epsilon is not None else paper_epsilon(len(self.experts), self.rounds)
        if not 0 < eps < 1:
            raise ConfigError(f"epsilon must be between 0 and 1, got {eps}")
        for expert, mistake in wrong.items():
            self.experts.setdefault(expert, 1.0)
            if mistake:
                self.experts[expert] *= 1 - eps
                self.mistakes[expert] = self.mistakes.get(expert, 0) + 1
        top = max(self.experts.values(), default=1.0)
        if 0 < top < 1e-6:  # rescaling keeps the ratios, which are all voting uses
            self.experts = {k: v / top for k, v in self.experts.items()}
        self.history.append({"round": self.rounds, "epsilon": round(eps, 5), "label": label,
                             "wrong": sorted(k for k, v in wrong.items() if v),
                             "weights": {k: round(v, 6) for k, v in self.experts.items()}})
        del self.history[:-HISTORY_LIMIT]
        return eps


def pool_key(experts: list[str]) -> str:
    return " | ".join(sorted(set(experts)))


class WeightStore:
    """A JSON file of weight pools keyed by the sorted expert names; safe across threads and processes."""

    def __init__(self, path: Path | None = None):
        self.path = path or state_dir() / FILE_NAME

    def load(self, experts: list[str]) -> WeightPool:
        data = self._read().get("pools", {}).get(pool_key(experts))
        pool = WeightPool(experts={e: 1.0 for e in experts})
        if data:
            pool.experts.update({k: float(v) for k, v in data.get("experts", {}).items()})
            pool.rounds = int(data.get("rounds", 0))
            pool.mistakes = {k: int(v) for k, v in data.get("mistakes", {}).items()}
            pool.history = list(data.get("history", []))
        return pool

    def record(self, experts: list[str], wrong: dict[str, bool], *, epsilon: float | None = None,
               label: str = "") -> WeightPool:
        """Load, update and save atomically; returns the updated pool."""
        with self._locked():
            pool = self.load(experts)
            pool.update(wrong, epsilon=epsilon, label=label)
            data = self._read()
            data.setdefault("pools", {})[pool_key(experts)] = {
                "experts": pool.experts, "rounds": pool.rounds, "mistakes": pool.mistakes, "history": pool.history}
            data["version"] = 1
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(data, indent=1), encoding="utf-8")
            os.replace(temporary, self.path)
        return pool

    def _read(self) -> dict[str, Any]:
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read expert weights at {self.path}: {exc}; delete the file to reset") from None

    @contextmanager
    def _locked(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _LOCK, open(self.path.with_suffix(".lock"), "w") as handle:
            try:
                import fcntl

                fcntl.flock(handle, fcntl.LOCK_EX)
            except ImportError:  # no advisory locks on this platform; the thread lock still holds
                pass
            yield
