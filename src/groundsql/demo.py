"""Generate the demo shop database: realistic, deterministic, and as messy as real data.

Everything here is synthesised from a seed; no external data is used.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import date, timedelta
from pathlib import Path

from groundsql.errors import ConfigError

REGIONS = [("North", "Norway"), ("South", "Spain"), ("East", "Poland"), ("West", "Portugal"),
           ("Central", "Germany"), ("Nordic", "Sweden")]
FIRST = ["Ana", "Ben", "Chloe", "Dmitri", "Eva", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kaja", "Luis",
         "Mira", "Nils", "Olga", "Pablo", "Rosa", "Sven", "Tara", "Ugo", "Vera", "Wim", "Yara", "Zoe"]
LAST = ["Berg", "Costa", "Dahl", "Engel", "Fischer", "Garcia", "Holm", "Ivanova", "Jensen", "Kowalski",
        "Lind", "Moreau", "Novak", "Olsen", "Pereira", "Quist", "Rossi", "Silva", "Tamm", "Weber"]
CATEGORIES = {
    "Coffee": [("Espresso beans 1kg", 24.5), ("Filter roast 500g", 11.9), ("Decaf blend 250g", 7.5),
               ("Cold brew pack", 14.0)],
    "Tea": [("Green sencha 100g", 8.9), ("Earl grey 200g", 9.5), ("Rooibos 150g", 6.75)],
    "Equipment": [("Pour-over kettle", 49.0), ("Burr grinder", 129.0), ("French press", 34.0),
                  ("Milk frother", 59.9), ("Scale 0.1g", 27.5)],
    "Accessories": [("Paper filters x100", 4.5), ("Travel mug", 19.0), ("Cleaning tablets", 9.9),
                    ("Tamper", 22.0)],
}
TAGS = ["organic", "fair-trade", "bestseller", "gift", "new", "limited", "eco"]
PLANS = [("basic", 9.0), ("plus", 19.0), ("pro", 39.0)]
ORDER_STATUS = ["D", "D", "D", "D", "S", "P", "X"]  # delivered, shipped, pending, cancelled

SCHEMA = """
CREATE TABLE regions (
    region_id INTEGER PRIMARY KEY,
    region_name TEXT NOT NULL,
    country TEXT NOT NULL
);
CREATE TABLE customers (
    customer_id INTEGER PRIMARY KEY,
    full_name TEXT NOT NULL,
    email TEXT,
    region_id INTEGER REFERENCES regions(region_id),
    status TEXT NOT NULL,            -- 'A' active, 'C' closed
    signup_date TEXT,                -- text dates in mixed formats
    phone TEXT,                      -- mostly NULL
    segment TEXT                     -- some values carry trailing spaces
);
CREATE TABLE products (
    product_id INTEGER PRIMARY KEY,
    product_name TEXT NOT NULL,
    category TEXT NOT NULL,
    unit_price REAL NOT NULL,
    discontinued INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE orders (
    order_id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
    order_date TEXT NOT NULL,        -- 'YYYY-MM-DD' or 'DD/MM/YYYY'
    status TEXT NOT NULL,            -- D delivered, S shipped, P pending, X cancelled
    shipping_fee REAL,
    coupon_code TEXT                 -- mostly NULL
);
CREATE TABLE order_lines (
    order_id INTEGER NOT NULL REFERENCES orders(order_id),
    line_no INTEGER NOT NULL,
    product_id INTEGER NOT NULL REFERENCES products(product_id),
    quantity INTEGER NOT NULL,
    unit_price REAL NOT NULL,
    PRIMARY KEY (order_id, line_no)
);
CREATE TABLE subscriptions (
    subscription_id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
    plan TEXT NOT NULL,
    monthly_fee REAL NOT NULL,
    start_date TEXT NOT NULL,
    end_date TEXT                    -- NULL while the subscription runs
);
CREATE TABLE tags (
    tag_id INTEGER PRIMARY KEY,
    tag_name TEXT NOT NULL
);
CREATE TABLE product_tags (          -- bridge table: no declared keys
    product_id INTEGER,
    tag_id INTEGER
);
"""


def generate_demo_database(path: str | Path, *, seed: int = 7, overwrite: bool = False,
                           customers: int = 240, orders: int = 1200) -> dict[str, int]:
    """Write the demo database to `path` and return row counts per table.

    Args:
        path: the SQLite file to create.
        seed: random seed; the same seed gives the same file contents.
        overwrite: replace an existing file instead of refusing.
        customers: number of customers.
        orders: number of orders.
    """
    path = Path(path)
    if path.exists() and not overwrite:
        raise ConfigError(f"{path} exists; pass --force to overwrite it")
    if path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    try:
        conn.executescript(SCHEMA)
        _fill(conn, rng, customers, orders)
        conn.commit()
        return {name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in _tables(conn)}
    finally:
        conn.close()


def _tables(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY rowid")]


def _text_date(rng: random.Random, day: date) -> str:
    return day.isoformat() if rng.random() < 0.7 else day.strftime("%d/%m/%Y")


def _fill(conn: sqlite3.Connection, rng: random.Random, n_customers: int, n_orders: int) -> None:
    conn.executemany("INSERT INTO regions VALUES (?, ?, ?)",
                     [(i + 1, name, country) for i, (name, country) in enumerate(REGIONS)])
    start = date(2022, 1, 1)
    customer_rows = []
    for cid in range(1, n_customers + 1):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        segment = rng.choice(["consumer", "business", "consumer", "education"])
        if rng.random() < 0.15:
            segment += " "  # the trailing space real exports leave behind
        customer_rows.append((
            cid, f"{first} {last}",
            f"{first.lower()}.{last.lower()}{cid}@example.com" if rng.random() < 0.9 else None,
            rng.randint(1, len(REGIONS)),
            "A" if rng.random() < 0.78 else "C",
            _text_date(rng, start + timedelta(days=rng.randint(0, 900))),
            f"+47 {rng.randint(10000000, 99999999)}" if rng.random() < 0.2 else None,
            segment,
        ))
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?, ?)", customer_rows)

    products = []
    for category, items in CATEGORIES.items():
        for name, price in items:
            products.append((len(products) + 1, name, category, price, 1 if rng.random() < 0.1 else 0))
    conn.executemany("INSERT INTO products VALUES (?, ?, ?, ?, ?)", products)

    conn.executemany("INSERT INTO tags VALUES (?, ?)", [(i + 1, t) for i, t in enumerate(TAGS)])
    bridge = {(p[0], rng.randint(1, len(TAGS))) for p in products for _ in range(rng.randint(1, 3))}
    conn.executemany("INSERT INTO product_tags VALUES (?, ?)", sorted(bridge))

    order_rows, line_rows = [], []
    for oid in range(1, n_orders + 1):
        day = start + timedelta(days=rng.randint(0, 1050))
        order_rows.append((
            oid, rng.randint(1, n_customers), _text_date(rng, day), rng.choice(ORDER_STATUS),
            rng.choice([0.0, 4.9, 4.9, 9.9]) if rng.random() < 0.95 else None,
            rng.choice(["WELCOME10", "SPRING", "VIP"]) if rng.random() < 0.12 else None,
        ))
        for line_no in range(1, rng.randint(1, 4) + 1):
            product = rng.choice(products)
            line_rows.append((oid, line_no, product[0], rng.randint(1, 5), product[3]))
    conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)", order_rows)
    conn.executemany("INSERT INTO order_lines VALUES (?, ?, ?, ?, ?)", line_rows)

    subs = []
    for cid in rng.sample(range(1, n_customers + 1), n_customers // 3):
        plan, fee = rng.choice(PLANS)
        begin = start + timedelta(days=rng.randint(0, 700))
        end = begin + timedelta(days=rng.randint(30, 400)) if rng.random() < 0.4 else None
        subs.append((len(subs) + 1, cid, plan, fee, begin.isoformat(), end.isoformat() if end else None))
    conn.executemany("INSERT INTO subscriptions VALUES (?, ?, ?, ?, ?, ?)", subs)
