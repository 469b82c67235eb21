"""The knowledge endpoints on a real demo database with its knowledge folder (as `groundsql demo-db` writes it)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from groundsql.knowledge.store import write_demo_knowledge
from groundsql.server.app import create_app

from .conftest import make_workspace

pytestmark = pytest.mark.integration


@pytest.fixture()
def shop(demo_db: Path, tmp_path: Path) -> Path:
    """A private copy of the demo database with the demo knowledge folder beside it."""
    path = tmp_path / "shop.sqlite"
    shutil.copy(demo_db, path)
    write_demo_knowledge(path)
    return path


def test_list_add_example_and_rule_then_list_again(shop: Path, tmp_path: Path) -> None:
    folder = shop.with_name("shop.sqlite.knowledge")
    with TestClient(create_app(make_workspace(shop, tmp_path), mcp=False)) as client:
        listed = client.get("/v1/databases/shop/knowledge")
        assert listed.status_code == 200
        data = listed.json()
        assert data["folder"] == str(folder) and data["found"] and data["problems"] == []
        assert data["counts"]["rules"] > 0 and data["counts"]["examples"] > 0
        assert len(data["items"]) == sum(data["counts"][k] for k in ("rules", "terms", "examples", "doc_chunks"))
        rules, examples = data["counts"]["rules"], data["counts"]["examples"]

        added = client.post("/v1/databases/shop/knowledge/examples", json={
            "question": "How many regions are there?", "sql": "SELECT count(*) FROM regions"})
        assert added.status_code == 201 and added.json()["added"]
        assert added.json()["path"] == str(folder / "examples.yaml")
        again = client.post("/v1/databases/shop/knowledge/examples", json={
            "question": "how many regions are there", "sql": "SELECT count(*) FROM regions"})
        assert again.status_code == 200 and not again.json()["added"] and "already" in again.json()["reason"]

        writing = client.post("/v1/databases/shop/knowledge/examples", json={
            "question": "Remove the regions", "sql": "DELETE FROM regions"})
        assert writing.status_code == 400
        assert writing.json()["error"]["type"] == "KnowledgeError"
        assert "refused" in writing.json()["error"]["message"]
        failing = client.post("/v1/databases/shop/knowledge/examples", json={
            "question": "Planets?", "sql": "SELECT name FROM planets"})
        assert failing.status_code == 400 and "no longer runs" in failing.json()["error"]["message"]

        rule = client.post("/v1/databases/shop/knowledge/rules", json={
            "text": "A large order has a total above 500", "tables": ["orders"]})
        assert rule.status_code == 201 and rule.json()["path"] == str(folder / "rules.yaml")

        after = client.get("/v1/databases/shop/knowledge").json()
        assert after["counts"]["rules"] == rules + 1 and after["counts"]["examples"] == examples + 1
        texts = {(i["kind"], i["text"]) for i in after["items"]}
        assert ("rule", "A large order has a total above 500") in texts
        assert ("example", "Question: How many regions are there?\nSQL: SELECT count(*) FROM regions") in texts
        assert "DELETE" not in (folder / "examples.yaml").read_text()

        found = client.get("/v1/databases/shop/knowledge/search", params={"q": "large order", "k": 3}).json()
        assert found["items"][0]["text"] == "A large order has a total above 500"
        assert set(found["items"][0]) == {"kind", "text", "score", "source"}


def test_adding_creates_the_folder_beside_the_database(demo_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "bare.sqlite"
    shutil.copy(demo_db, path)
    folder = path.with_name("bare.sqlite.knowledge")
    with TestClient(create_app(make_workspace(path, tmp_path), mcp=False)) as client:
        empty = client.get("/v1/databases/shop/knowledge").json()
        assert empty == {"database": "shop", "folder": str(folder), "found": False, "counts": {}, "items": [],
                         "problems": []}
        assert client.get("/v1/databases/shop/knowledge/search", params={"q": "orders"}).json()["items"] == []
        rule = client.post("/v1/databases/shop/knowledge/rules", json={"text": "Prices are in euros"})
        assert rule.status_code == 201
        assert yaml.safe_load((folder / "rules.yaml").read_text()) == {"rules": [{"text": "Prices are in euros"}]}
        assert client.get("/v1/databases/shop/knowledge").json()["counts"]["rules"] == 1


def test_a_broken_folder_is_listed_as_a_problem(shop: Path, tmp_path: Path) -> None:
    (shop.with_name("shop.sqlite.knowledge") / "rules.yaml").write_text("rules: [unclosed\n")
    with TestClient(create_app(make_workspace(shop, tmp_path), mcp=False)) as client:
        data = client.get("/v1/databases/shop/knowledge").json()
        assert data["found"] and data["items"] == [] and len(data["problems"]) == 1
        assert "rules.yaml" in data["problems"][0]


def test_knowledge_endpoints_follow_the_safety_rules(shop: Path, tmp_path: Path) -> None:
    workspace = make_workspace(shop, tmp_path, api_token="s3cret-token", max_body_bytes=2048)
    with TestClient(create_app(workspace, mcp=False)) as client:
        assert client.get("/v1/databases/shop/knowledge").status_code == 401
        refused = client.post("/v1/databases/shop/knowledge/rules", json={"text": "Sneaky rule"})
        assert refused.status_code == 401
        auth = {"Authorization": "Bearer s3cret-token"}
        assert client.get("/v1/databases/shop/knowledge", headers=auth).status_code == 200
        big = client.post("/v1/databases/shop/knowledge/rules", headers=auth, json={"text": "x " * 2000})
        assert big.status_code == 413
        unknown = client.post("/v1/databases/nope/knowledge/rules", headers=auth, json={"text": "A rule"})
        assert unknown.status_code == 404
        malformed = client.post("/v1/databases/shop/knowledge/examples", headers=auth, json={"question": "Q"})
        assert malformed.status_code == 422
    assert "Sneaky" not in (shop.with_name("shop.sqlite.knowledge") / "rules.yaml").read_text()
