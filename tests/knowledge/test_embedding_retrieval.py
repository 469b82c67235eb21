"""Knowledge retrieval by embeddings: an OpenAI-compatible embeddings server on loopback (a real HTTP exchange
through the `openai` SDK) finds a rule that shares no word with the question, which BM25 cannot; the choice is
recorded on the trace and the rule reaches the prompt actually sent; a missing embedder is a clear error."""

from __future__ import annotations

import base64
import json
import re
import struct
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.errors import ConfigError
from groundsql.knowledge import Knowledge, Rule, embeddings, render_context, retriever_for
from groundsql.models import ScriptedModel
from groundsql.options import OptionsError
from groundsql.pipelines import preset_options, run

pytest.importorskip("openai", reason="the API extra is not installed (pip install 'groundsql[api]')")

pytestmark = pytest.mark.integration

#: The toy embedder's dimensions: words that mean the same thing share one.
CONCEPTS = [
    {"singer", "performer", "artist", "musician"},
    {"french", "france", "nationality", "country", "nation"},
    {"sales", "revenue", "euros", "income"},
    {"song", "track", "title"},
]
RULE = "A singer's nationality is stored as the country name, e.g. 'France'."
OTHER = "Sales are in euros."
QUESTION = "Which performers are French?"


def embed(text: str) -> list[float]:
    """Counts of concept words (a 'meaning' vector that shares nothing with the words' spelling)."""
    tokens = [re.sub(r"'s$", "", w.strip("'")) for w in re.findall(r"[a-z']+", text.lower())]
    tokens = [t[:-1] if t.endswith("s") and t[:-1] in set().union(*CONCEPTS) else t for t in tokens]
    return [float(sum(t in group for t in tokens)) for group in CONCEPTS]


class _Handler(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = []
        for index, text in enumerate(texts):
            vector = embed(text)
            if body.get("encoding_format") == "base64":  # what the openai SDK asks for by default
                encoded: object = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
            else:
                encoded = vector
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        payload = json.dumps({"object": "list", "data": data, "model": body["model"],
                              "usage": {"prompt_tokens": 0, "total_tokens": 0}}).encode()
        self.send_response(200 if self.path.endswith("/embeddings") else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def embedding_api() -> Iterator[str]:
    """The model spec of a toy OpenAI-compatible embeddings server on 127.0.0.1 (stopped afterwards)."""
    _Handler.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"openai:toy-embedder@http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def music_knowledge(music_db: Path) -> Path:
    folder = music_db.with_name("music.sqlite.knowledge")
    folder.mkdir()
    (folder / "rules.yaml").write_text(f'rules:\n  - text: "{RULE}"\n  - text: "{OTHER}"\n', encoding="utf-8")
    return folder


def test_embeddings_find_a_rule_that_shares_no_word_with_the_question(embedding_api: str) -> None:
    knowledge = Knowledge(rules=[Rule(RULE, "rules.yaml:2"), Rule(OTHER, "rules.yaml:3")])
    assert retriever_for(knowledge, "bm25").search(QUESTION) == []  # no word in common
    found = retriever_for(knowledge, "embeddings", embedding_api).search(QUESTION)
    assert [r.item.text for r in found] == [RULE]
    assert found[0].score == pytest.approx(4 / (2 ** 0.5 * 10 ** 0.5), abs=0.001)  # cosine of (1,1) and (1,3)
    hybrid = retriever_for(knowledge, "hybrid", embedding_api)
    assert [r.item.text for r in hybrid.search(QUESTION)] == [RULE]
    assert [r.item.text for r in hybrid.search("revenue in euros")][0] == OTHER  # words and meaning both count
    requests = len(_Handler.requests)
    assert retriever_for(knowledge, "embeddings", embedding_api) is retriever_for(knowledge, "embeddings",
                                                                                  embedding_api)
    assert len(_Handler.requests) == requests  # the items were embedded once, the retriever is reused


def test_the_rule_reaches_the_prompt_sent_and_the_trace_records_the_retriever(
        music_db: Path, music_knowledge: Path, embedding_api: str) -> None:
    def ask(**options) -> Context:
        model = ScriptedModel(default="```sql\nSELECT name FROM singer WHERE country = 'France'\n```")
        ctx = Context(question=QUESTION, db=Database(str(music_db)), models={"default": model},
                      options={"knowledge_retriever": options.pop("retriever"), **options})
        answer = run(ctx, "baseline")
        assert sorted(answer.result.rows) == [("Ann",), ("Joe",)]
        return ctx

    ctx = ask(retriever="embeddings", embedding_model=embedding_api)
    sent = [m["content"] for e in ctx.trace.events if e.kind == "model" for m in e.messages]
    assert any(RULE in content for content in sent)
    rendered = ctx.trace.notes("knowledge.render")[-1]
    assert rendered["retriever"] == "embeddings"
    assert rendered["items"][0]["source"] == "rules.yaml:2" and rendered["items"][0]["score"] > 0.8
    assert all(item["source"] != "rules.yaml:3" for item in rendered["items"])

    plain = ask(retriever="bm25")
    assert plain.trace.notes("knowledge.render")[-1]["retriever"] == "bm25"
    assert not any(RULE in m["content"] for e in plain.trace.events if e.kind == "model" for m in e.messages)


def test_search_knowledge_uses_the_configured_retriever(music_db: Path, music_knowledge: Path,
                                                        embedding_api: str) -> None:
    from groundsql.knowledge.listing import search_knowledge

    db = Database(str(music_db))
    assert search_knowledge(db, QUESTION) == []
    found = search_knowledge(db, QUESTION, retriever="embeddings", embedding_model=embedding_api)
    assert [i["text"] for i in found] == [RULE] and found[0]["source"] == "rules.yaml:2"


def test_the_vector_linker_embeds_through_the_same_model(music_db: Path, embedding_api: str) -> None:
    from groundsql.linking.vector import vector

    ctx = Context(question="Which performers are French?", db=Database(str(music_db)), models={},
                  options={"vector_backend": "embedding", "embedding_model": embedding_api, "vector_k": 2,
                           "vector_values": False})
    subset = vector(ctx, None)
    assert "singer" in subset.tables and any(n.startswith("embedding retrieval") for n in subset.notes)


def test_the_vector_linker_embeds_a_questions_phrases_in_one_request_once(music_db: Path,
                                                                         embedding_api: str) -> None:
    from groundsql.linking.vector import extract_entities, vector

    def link(question: str) -> set[str]:
        ctx = Context(question=question, db=Database(str(music_db)), models={},
                      options={"vector_backend": "embedding", "embedding_model": embedding_api, "vector_k": 2,
                               "vector_values": False})
        return set(vector(ctx, None).tables)

    assert "singer" in link("Which performers are French?")  # builds the column and table indexes: their requests come first
    before = len(_Handler.requests)
    question = "Which French performers sing tracks?"
    ctx = Context(question=question, db=Database(str(music_db)), models={})
    phrases = extract_entities(ctx) + [question]
    assert link(question) == {"song"}
    sent = _Handler.requests[before:]
    # the column and the table retrievers share the phrases' embeddings: one request, each phrase once, and
    # none the first question already had embedded ('French', 'performers')
    assert len(sent) == 1 and question in sent[0]["input"] and len(phrases) > 4
    assert sorted(sent[0]["input"]) == sorted(set(phrases) - {"French", "performers"})
    assert link(question) == {"song"}
    assert len(_Handler.requests) == before + 1  # asked again: the phrases' embeddings are remembered


def test_embeddings_asked_for_but_unavailable_is_a_clear_error(music_db: Path, music_knowledge: Path) -> None:
    if embeddings.available():
        pytest.skip("sentence-transformers is installed here: the local embedder may load")
    knowledge = Knowledge(rules=[Rule(RULE, "rules.yaml:2")])
    with pytest.raises(ConfigError) as raised:
        retriever_for(knowledge, "embeddings")
    message = str(raised.value)
    assert "pip install 'groundsql[vector]'" in message and "knowledge_retriever=bm25" in message
    assert "embedding_model=openai:" in message
    ctx = Context(question=QUESTION, db=Database(str(music_db)), models={"default": ScriptedModel(["x"])},
                  options={"knowledge_retriever": "hybrid"})
    with pytest.raises(ConfigError, match="embeddings are not available here"):
        render_context(ctx)


def test_an_unreachable_embeddings_api_is_a_clear_error() -> None:
    knowledge = Knowledge(rules=[Rule(RULE, "rules.yaml:2")])
    spec = "openai:toy@http://127.0.0.1:9/v1"  # the discard port: nothing listens
    with pytest.raises(ConfigError, match=r"the embedding model openai:toy@http://127\.0\.0\.1:9/v1 failed"):
        retriever_for(knowledge, "embeddings", spec)
    with pytest.raises(ConfigError, match="must start with http"):
        embeddings.embedder("openai:toy@localhost:9")


def test_the_option_is_typed() -> None:
    assert preset_options("baseline", {}).knowledge_retriever == "bm25"
    with pytest.raises(OptionsError):
        preset_options("baseline", {"knowledge_retriever": "dense"})
