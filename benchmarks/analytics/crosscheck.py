"""Cross-check the gold SQL of questions 12-29 of questions.json against answers computed independently in pandas.

    python benchmarks/analytics/crosscheck.py [--chinook PATH]

Each check reads the raw tables with plain SELECTs and computes the answer with pandas (groupby, Series.median,
cumsum, rank, merges) instead of SQL window functions; the gold query's rows must equal it (numbers to 4
decimals, in order when the gold has ORDER BY). Questions 0-11 were checked the same way by hand when they were
written. Exits 1 when any check fails.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_CHINOOK = HERE.parents[2] / "shared" / "data" / "chinook" / "Chinook_Sqlite.sqlite"
Frames = dict[str, pd.DataFrame]
CHECKS: dict[int, Callable[[Frames], pd.DataFrame]] = {}


def check(index: int):
    def register(fn: Callable[[Frames], pd.DataFrame]) -> Callable[[Frames], pd.DataFrame]:
        CHECKS[index] = fn
        return fn
    return register


def iso(dates: pd.Series) -> pd.Series:
    """Demo dates (YYYY-MM-DD or DD/MM/YYYY) as timestamps."""
    return pd.to_datetime(dates.where(~dates.str.contains("/"), None), format="%Y-%m-%d").fillna(
        pd.to_datetime(dates.where(dates.str.contains("/"), None), format="%d/%m/%Y"))


def demo_lines(t: Frames) -> pd.DataFrame:
    """Order lines with revenue, order date, customer, region and category."""
    lines = t["order_lines"].assign(revenue=lambda d: d.quantity * d.unit_price)
    orders = t["orders"].assign(day=lambda d: iso(d.order_date))[["order_id", "customer_id", "day", "status"]]
    customers = t["customers"][["customer_id", "region_id", "full_name", "segment"]]
    return (lines.merge(orders, on="order_id").merge(customers, on="customer_id")
            .merge(t["regions"][["region_id", "region_name"]], on="region_id")
            .merge(t["products"][["product_id", "category"]], on="product_id"))


@check(12)
def median_order_value_by_region(t: Frames) -> pd.DataFrame:
    values = demo_lines(t).groupby(["order_id", "region_name"], as_index=False).revenue.sum()
    return values.groupby("region_name").revenue.median().reset_index()


@check(13)
def median_customer_spend_by_segment(t: Frames) -> pd.DataFrame:
    lines = demo_lines(t).assign(segment=lambda d: d.segment.str.rstrip())
    spend = lines.groupby(["customer_id", "segment"], as_index=False).revenue.sum()
    return spend.groupby("segment").revenue.median().reset_index()


@check(14)
def signup_cohort_next_year(t: Frames) -> pd.DataFrame:
    customers = t["customers"].assign(year=lambda d: iso(d.signup_date).dt.year)
    ordered = set(zip(t["orders"].customer_id, iso(t["orders"].order_date).dt.year))
    customers["next"] = [(c, y + 1) in ordered for c, y in zip(customers.customer_id, customers.year)]
    out = customers.groupby("year").agg(customers=("customer_id", "size"), next=("next", "sum")).reset_index()
    out["pct"] = (100 * out.next / out.customers).round(1)
    out["year"] = out.year.astype(str)
    return out


@check(15)
def ended_share_by_plan(t: Frames) -> pd.DataFrame:
    s = t["subscriptions"]
    out = s.groupby("plan").agg(n=("subscription_id", "size"), ended=("end_date", "count")).reset_index()
    out["pct"] = (100 * out.ended / out.n).round(2)
    return out.sort_values(["pct", "plan"], ascending=[False, True])


@check(16)
def delivered_orders_per_quarter_2023(t: Frames) -> pd.DataFrame:
    days = iso(t["orders"].loc[t["orders"].status == "D", "order_date"])
    days = days[days.dt.year == 2023]
    out = days.dt.quarter.value_counts().sort_index().rename_axis("quarter").reset_index(name="orders")
    out["change"] = out.orders.diff()
    return out


@check(17)
def top_three_customers_per_region(t: Frames) -> pd.DataFrame:
    spend = demo_lines(t).groupby(["customer_id", "region_name", "full_name"], as_index=False).revenue.sum()
    spend["rank"] = spend.groupby("region_name").revenue.rank(method="min", ascending=False).astype(int)
    out = spend[spend["rank"] <= 3].sort_values(["region_name", "rank", "full_name"])
    return out.assign(revenue=out.revenue.round(2))[["region_name", "full_name", "revenue", "rank"]]


@check(18)
def products_above_category_average(t: Frames) -> pd.DataFrame:
    p = t["products"].copy()
    p["avg"] = p.groupby("category").unit_price.transform("mean")
    out = p[p.unit_price > p.avg].sort_values(["category", "product_name"])
    return out.assign(avg=out.avg.round(2))[["category", "product_name", "unit_price", "avg"]]


@check(19)
def running_revenue_2023(t: Frames) -> pd.DataFrame:
    lines = demo_lines(t)
    lines = lines[lines.day.dt.year == 2023]
    out = lines.groupby(lines.day.dt.month).revenue.sum().rename_axis("month").reset_index()
    out["running"] = out.revenue.cumsum().round(2)
    return out.assign(revenue=out.revenue.round(2))


@check(20)
def category_share_within_region(t: Frames) -> pd.DataFrame:
    r = demo_lines(t).groupby(["region_name", "category"], as_index=False).revenue.sum()
    r["pct"] = (100 * r.revenue / r.groupby("region_name").revenue.transform("sum")).round(1)
    return r.sort_values(["region_name", "category"])[["region_name", "category", "pct"]]


@check(21)
def median_track_seconds_by_media_type(t: Frames) -> pd.DataFrame:
    tracks = t["Track"].merge(t["MediaType"], on="MediaTypeId", suffixes=("", "_media"))
    return (tracks.groupby("Name_media").Milliseconds.median() / 1000).round(1).reset_index()


@check(22)
def median_customer_spend_per_year(t: Frames) -> pd.DataFrame:
    inv = t["Invoice"].assign(year=lambda d: d.InvoiceDate.str[:4])
    spent = inv.groupby(["year", "CustomerId"], as_index=False).Total.sum()
    return spent.groupby("year").Total.median().round(2).reset_index()


@check(23)
def first_quarter_cohort_returns_in_90_days(t: Frames) -> pd.DataFrame:
    inv = t["Invoice"].assign(day=lambda d: pd.to_datetime(d.InvoiceDate))
    first = inv.groupby("CustomerId").day.min().rename("first").reset_index()
    later = inv.merge(first, on="CustomerId")
    later = later[(later.day > later["first"]) & ((later.day - later["first"]).dt.days <= 90)]
    first["returned"] = first.CustomerId.isin(later.CustomerId)
    first["quarter"] = first["first"].dt.year.astype(str) + "-Q" + first["first"].dt.quarter.astype(str)
    return first.groupby("quarter").agg(n=("CustomerId", "size"), back=("returned", "sum")).reset_index()


@check(24)
def country_change_2024_to_2025(t: Frames) -> pd.DataFrame:
    inv = t["Invoice"].assign(year=lambda d: d.InvoiceDate.str[:4])
    wide = inv[inv.year.isin(["2024", "2025"])].pivot_table(index="BillingCountry", columns="year", values="Total",
                                                            aggfunc="sum").dropna()
    wide["pct"] = (100 * (wide["2025"] - wide["2024"]) / wide["2024"]).round(1)
    wide = wide.reset_index().sort_values(["pct", "BillingCountry"], ascending=[False, True])
    return wide.assign(**{"2024": wide["2024"].round(2), "2025": wide["2025"].round(2)})


@check(25)
def monthly_change_2023(t: Frames) -> pd.DataFrame:
    month = t["Invoice"].groupby(t["Invoice"].InvoiceDate.str[:7]).Total.sum().rename_axis("month").reset_index()
    month["change"] = month.Total.diff()
    out = month[month.month.str.startswith("2023-")]
    return out.assign(Total=out.Total.round(2), change=out.change.round(2))


@check(26)
def top_three_countries_per_year(t: Frames) -> pd.DataFrame:
    inv = t["Invoice"].assign(year=lambda d: d.InvoiceDate.str[:4])
    totals = inv.groupby(["year", "BillingCountry"], as_index=False).Total.sum()
    totals["rank"] = totals.groupby("year").Total.rank(method="min", ascending=False).astype(int)
    out = totals[totals["rank"] <= 3].sort_values(["year", "rank", "BillingCountry"])
    return out.assign(Total=out.Total.round(2))


@check(27)
def customers_above_country_average(t: Frames) -> pd.DataFrame:
    spend = t["Invoice"].groupby("CustomerId").Total.sum().rename("spend").reset_index()
    c = t["Customer"].merge(spend, on="CustomerId")
    c["avg"] = c.groupby("Country").spend.transform("mean")
    c["n"] = c.groupby("Country").CustomerId.transform("size")
    out = c[(c.n >= 2) & (c.spend >= 1.05 * c.avg)].sort_values(["Country", "LastName"])
    return out.assign(spend=out.spend.round(2), avg=out.avg.round(2))[
        ["Country", "FirstName", "LastName", "spend", "avg"]]


@check(28)
def units_share_by_media_type(t: Frames) -> pd.DataFrame:
    lines = t["InvoiceLine"].merge(t["Track"][["TrackId", "MediaTypeId"]], on="TrackId").merge(
        t["MediaType"], on="MediaTypeId")
    units = lines.groupby("Name").Quantity.sum()
    out = (100 * units / units.sum()).round(2).rename("pct").reset_index()
    return out.sort_values(["pct", "Name"], ascending=[False, True])


@check(29)
def artists_for_half_of_sales(t: Frames) -> pd.DataFrame:
    lines = t["InvoiceLine"].merge(t["Track"][["TrackId", "AlbumId"]], on="TrackId").merge(
        t["Album"][["AlbumId", "ArtistId"]], on="AlbumId")
    sales = (lines.UnitPrice * lines.Quantity).groupby(lines.ArtistId).sum().sort_values(ascending=False)
    share = sales.cumsum() / sales.sum()
    return pd.DataFrame({"artists": [int((share < 0.5).sum()) + 1]})


def tables(path: Path) -> Frames:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: pd.read_sql_query(f'SELECT * FROM "{name}"', conn) for name in names}


def normal(rows: list[tuple]) -> list[tuple]:
    def cell(value: object) -> object:
        if value is None or (isinstance(value, float) and value != value):
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            rounded = round(float(value), 4)
            return int(rounded) if rounded == int(rounded) else rounded
        return str(value)
    return [tuple(cell(v) for v in row) for row in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chinook", type=Path, default=DEFAULT_CHINOOK)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parents[1] / "src"))
    from groundsql.demo import generate_demo_database

    questions = json.loads((HERE / "questions.json").read_text(encoding="utf-8"))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo.sqlite"
        generate_demo_database(demo, seed=7)
        paths = {"demo": demo, "chinook": args.chinook}
        frames = {db: tables(path) for db, path in paths.items()}
        for index, fn in sorted(CHECKS.items()):
            item = questions[index]
            with sqlite3.connect(f"file:{paths[item['db_id']]}?mode=ro", uri=True) as conn:
                gold = normal(conn.execute(item["query"]).fetchall())
            expected = normal(list(fn(frames[item["db_id"]]).itertuples(index=False, name=None)))
            ordered = "ORDER BY" in item["query"].upper()
            same = gold == expected if ordered else sorted(map(repr, gold)) == sorted(map(repr, expected))
            failed += not same
            print(f"{'ok  ' if same else 'FAIL'} q{index} {fn.__name__}: {len(gold)} rows")
            if not same:
                print(f"     gold:   {gold}\n     pandas: {expected}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
