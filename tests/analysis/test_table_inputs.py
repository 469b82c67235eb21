"""The Python stage's table inputs (`python_inputs=tables`) on a real SQLite shop: which tables are fetched, the
files and the key pairs the code is told, and the `prospy` preset end to end with a scripted model."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest

from groundsql.analysis.fetching import ViewStore
from groundsql.analysis.table_inputs import fetch_tables, input_tables, tables_read
from groundsql.api import ask, connect
from groundsql.context import Context
from groundsql.generation.tree_repair import declared_join_graph
from groundsql.models.scripted import ScriptedModel

pytestmark = pytest.mark.integration
pytest.importorskip("pandas", reason="the Python stage needs pandas (pip install 'groundsql[analysis]')")

QUESTION = "What share of revenue does each product category have, as a percentage?"
DRAFT = ("SELECT p.category, SUM(l.quantity * l.unit_price) FROM order_lines l "
         "JOIN products p ON p.product_id = l.product_id GROUP BY p.category")
SHARE_CODE = ("```python\nimport pandas as pd\nlines = pd.read_csv('order_lines.csv')\n"
              "products = pd.read_csv('products.csv')[['product_id', 'category']]\n"
              "df = lines.merge(products, on='product_id')\ndf['revenue'] = df.quantity * df.unit_price\n"
              "out = df.groupby('category', as_index=False).revenue.sum()\n"
              "out['pct'] = (100 * out.revenue / out.revenue.sum()).round(1)\n"
              "out.sort_values('pct', ascending=False)[['category', 'pct']].to_csv('result.csv', index=False)\n```")


@pytest.fixture(autouse=True)
def private_catalog_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROUNDSQL_CACHE_DIR", str(tmp_path / "catalogs"))


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    path = tmp_path / "shop.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE products (product_id INTEGER PRIMARY KEY, category TEXT, unit_price REAL);
        CREATE TABLE orders (order_id INTEGER PRIMARY KEY,
                             customer_id INTEGER REFERENCES customers(customer_id), order_date TEXT);
        CREATE TABLE order_lines (order_id INTEGER REFERENCES orders(order_id),
                                  product_id INTEGER REFERENCES products(product_id),
                                  quantity INTEGER, unit_price REAL);
        INSERT INTO customers VALUES (1, 'Ann'), (2, 'Bob');
        INSERT INTO products VALUES (1, 'Tea', 5.0), (2, 'Coffee', 10.0);
        INSERT INTO orders VALUES (1, 1, '2024-01-02'), (2, 2, '2024-02-03');
        INSERT INTO order_lines VALUES (1, 1, 2, 4.0), (1, 2, 1, 10.0), (2, 2, 3, 10.0);
    """)
    con.commit()
    con.close()
    return path


def context(db_path: Path, question: str = QUESTION) -> Context:
    return Context(question=question, db=connect(str(db_path)), models={})


def test_tables_read_leaves_out_ctes_and_unparsable_sql() -> None:
    sql = "WITH r AS (SELECT * FROM order_lines) SELECT * FROM r JOIN products ON 1 = 1"
    assert tables_read(sql, "sqlite") == ["order_lines", "products"]
    assert tables_read("SELEC nonsense (", "sqlite") == []


def test_the_drafts_tables_are_joined_along_the_graph(shop: Path) -> None:
    ctx = context(shop)
    graph = declared_join_graph(ctx.schema)
    assert input_tables(ctx, graph, 6, DRAFT) == ["order_lines", "products"]
    # customers and order_lines meet only through orders, which the join graph adds
    far = "SELECT c.name, SUM(l.quantity) FROM customers c, order_lines l GROUP BY c.name"
    assert input_tables(ctx, graph, 6, far) == ["customers", "order_lines", "orders"]
    assert input_tables(ctx, graph, 2, far) == ["customers", "order_lines"]
    # a draft naming no real table falls back to the caller's linker (only its real tables are kept)
    found = input_tables(ctx, graph, 6, "SELECT * FROM sales", linked=lambda: ["products", "sales"])
    assert found == ["products"]


def test_fetched_tables_are_whole_files_with_their_key_pairs(shop: Path) -> None:
    ctx = context(shop)
    with ViewStore() as store:
        fetch = fetch_tables(ctx, declared_join_graph(ctx.schema), store, sql=DRAFT)
        names = [v.path.name for v in fetch.views]
        assert names == ["order_lines.csv", "products.csv"]
        with open(fetch.views[0].path, newline="") as handle:
            rows = list(csv.reader(handle))
        assert rows[0] == ["order_id", "product_id", "quantity", "unit_price"] and len(rows) == 4
    assert "order_lines.csv product_id = products.csv product_id" in fetch.joins
    shared = [line for line in fetch.joins if line.startswith("(not a key)")]
    assert len(shared) == 1 and "unit_price is in order_lines.csv and products.csv" in shared[0]
    assert not any("product_id is in" in line for line in fetch.joins)  # a key column is not warned about


def test_prospy_answers_from_the_python_table_over_whole_tables(shop: Path) -> None:
    model = ScriptedModel([DRAFT, SHARE_CODE])
    answer = ask(QUESTION, str(shop), model=model, preset="prospy", options={"python_inputs": "tables"})
    assert answer.error is None and answer.result_source == "python"
    assert answer.result.columns == ["category", "pct"]
    assert answer.result.rows == [("Coffee", 83.3), ("Tea", 16.7)]
    prompt = model.calls[-1]["messages"][-1]["content"]
    assert "order_lines.csv: 3 rows" in prompt and "products.csv: 2 rows" in prompt
    assert "order_lines.csv product_id = products.csv product_id" in prompt
    assert "customers.csv" not in prompt  # only the tables the draft reads
    assert answer.stages["draft"] == DRAFT and [v["name"] for v in answer.views] == ["order_lines", "products"]
    assert not any(e.step == "prospy.plan" for e in answer.trace.events)  # no plan and no view rounds


def test_a_failed_analysis_answers_with_the_draft(shop: Path) -> None:
    boom = "```python\nraise ValueError('nope')\n```"
    model = ScriptedModel([DRAFT, boom, boom, boom])
    answer = ask(QUESTION, str(shop), model=model, preset="prospy", options={"python_inputs": "tables"})
    assert answer.error is None and answer.result_source == "sql"
    assert sorted(answer.result.rows) == [("Coffee", 40.0), ("Tea", 8.0)]
    assert any("the Python stage failed" in n and "nope" in n for n in answer.notes)
    assert answer.python_code.startswith("raise ValueError") and len(model.calls) == 4
