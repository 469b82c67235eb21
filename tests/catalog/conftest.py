"""Crafted databases for catalog tests: every hidden type and key pattern the profiler must recognise."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

COUNTRIES = ["France", "Netherlands ", "Germany", "Spain", "Italy"]  # a stored trailing space, as in real data


def build_crafted(path: Path) -> Path:
    rng = random.Random(3)
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE events (
            id INTEGER PRIMARY KEY, iso_day TEXT, dmy_day TEXT, created_ts INTEGER, qty_text TEXT,
            status TEXT, payload TEXT, note TEXT, is_active TEXT, amount REAL);
        CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, segment TEXT);
        CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, order_date TEXT, total REAL);
        CREATE TABLE products (product_id INTEGER PRIMARY KEY, title TEXT);
        CREATE TABLE tags (tag_id INTEGER PRIMARY KEY, label TEXT);
        CREATE TABLE product_tags (product_id INTEGER, tag_id INTEGER);
    """)
    for i in range(1, 301):
        day, month, year = rng.randint(1, 28), rng.randint(1, 12), rng.randint(2019, 2023)
        payload = {"device": rng.choice(["ios", "android"]), "items": [{"sku": f"S{rng.randint(1, 9)}"}
                                                                         for _ in range(rng.randint(0, 3))]}
        conn.execute("INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?)", (
            i, f"{year}-{month:02d}-{day:02d}", f"{day:02d}/{month:02d}/{year}",
            1_600_000_000 + rng.randint(0, 90_000_000), str(rng.randint(1, 500)),
            rng.choice(["A", "C", "P"]), json.dumps(payload), f"free text note number {i} {rng.random():.6f}",
            rng.choice(["Y", "N"]), round(rng.uniform(1, 1000), 2),
        ))
    for i in range(1, 101):
        conn.execute("INSERT INTO customers VALUES (?,?,?,?)",
                     (i, f"Customer {i}", COUNTRIES[i % len(COUNTRIES)], rng.choice(["retail", "business"])))
    for i in range(1, 401):
        conn.execute("INSERT INTO orders VALUES (?,?,?,?)",
                     (i, rng.randint(1, 100), f"2022-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                      round(rng.uniform(5, 500), 2)))
    for i in range(1, 31):
        conn.execute("INSERT INTO products VALUES (?,?)", (i, f"Product {i}"))
    for i in range(1, 9):
        conn.execute("INSERT INTO tags VALUES (?,?)", (i, f"tag{i}"))
    pairs = {(rng.randint(1, 30), rng.randint(1, 8)) for _ in range(60)}
    conn.executemany("INSERT INTO product_tags VALUES (?,?)", sorted(pairs))
    for year in (2017, 2018, 2019, 2020):
        conn.execute(f"CREATE TABLE sales_{year} (sale_id INTEGER PRIMARY KEY, region TEXT, amount REAL)")
        conn.executemany(f"INSERT INTO sales_{year} VALUES (?,?,?)",
                         [(i, rng.choice(["north", "south"]), rng.uniform(1, 99)) for i in range(1, 21)])
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="session")
def crafted_db(tmp_path_factory) -> Path:
    return build_crafted(tmp_path_factory.mktemp("catalog") / "crafted.sqlite")


@pytest.fixture(scope="session")
def crafted_catalog(crafted_db: Path):
    from groundsql.catalog import build_catalog
    from groundsql.db import Database

    return build_catalog(Database(str(crafted_db)), use_cache=False)


@pytest.fixture(scope="session")
def world_catalog(spider_dir: Path):
    from groundsql.catalog import build_catalog
    from groundsql.db import Database

    return build_catalog(Database(str(spider_dir / "database" / "world_1" / "world_1.sqlite")), use_cache=False)
