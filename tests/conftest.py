"""Shared fixtures: paths to ../shared data, the demo database, real servers, the real local model."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GROUNDSQL_SHARED", REPO.parent / "shared"))
DATA = SHARED / "data"
SPIDER = DATA / "spider"
PG_ADMIN_URL = os.environ.get("GROUNDSQL_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
MYSQL_ADMIN_URL = os.environ.get("GROUNDSQL_TEST_MYSQL", "mysql://root@127.0.0.1:3306/")
TEST_MODEL = os.environ.get("GROUNDSQL_TEST_MODEL", "local:qwen2.5-coder-0.5b")


#: Top-level entries a test run may add to the repository (caches and the package's build metadata).
ALLOWED_NEW_ENTRIES = {".pytest_cache", ".ruff_cache", "__pycache__", ".coverage"}
_BEFORE = pytest.StashKey[set]()


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_BEFORE] = {p.name for p in REPO.iterdir()}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Tests leave no files in the repository: a new top-level entry (a `spark-warehouse/`, a `derby.log`) fails
    the run with its name."""
    before = session.config.stash.get(_BEFORE, None)
    if before is None:
        return
    new = sorted(name for name in {p.name for p in REPO.iterdir()} - before
                 if name not in ALLOWED_NEW_ENTRIES and not name.endswith(".egg-info"))
    if new:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"the tests left files in the repository: {', '.join(new)} (write them under tmp_path)"
        if reporter is not None:
            reporter.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _needs_spark(item: pytest.Item) -> bool:
    """Whether `item` uses the test run's Spark session: it asks for it, or a fixture of its own (not a plain
    parameter) is parametrized with the engine "spark" (an engine fixture that opens Spark on request)."""
    if "spark_session" in getattr(item, "fixturenames", ()):
        return True
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return False
    fixtures = item._fixtureinfo.name2fixturedefs  # pytest stands a plain parameter in by a pseudo-fixture
    return any(value == "spark" and name in fixtures
               and fixtures[name][-1].func.__name__ != "get_direct_param_fixture_func"
               for name, value in callspec.params.items())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that runs queries on the test run's Spark JVM is `slow` (starting it takes tens of seconds, each
    query on it a good part of a second), so `-m "not slow and not e2e"` needs no Java."""
    for item in items:
        if _needs_spark(item):
            item.add_marker(pytest.mark.slow)


def spider_db_path(db_id: str) -> Path:
    return SPIDER / "database" / db_id / f"{db_id}.sqlite"


@pytest.fixture(autouse=True)
def private_state_dir(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
                      monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run stores and expert weights written by a test go to its own temporary folder, and catalogs (profiled on
    first use, keyed by database path and structure) to the session's, never the user's."""
    state = tmp_path / "state"
    monkeypatch.setenv("GROUNDSQL_STATE_DIR", str(state))
    monkeypatch.setenv("GROUNDSQL_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "catalogs"))
    return state


def sqlite_from_script(path: Path, script: str) -> Path:
    """A real SQLite file at `path` made by running `script` (CREATE and INSERT statements)."""
    import sqlite3

    conn = sqlite3.connect(path)
    conn.executescript(script)
    conn.commit()
    conn.close()
    return path


def make_music_db(path: Path) -> Path:
    """A tiny real SQLite database (singers and songs) for generation, selection and preset tests."""
    return sqlite_from_script(path, """
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
        CREATE TABLE song (song_id INTEGER PRIMARY KEY, singer_id INTEGER REFERENCES singer(singer_id),
                           title TEXT, sales REAL);
        INSERT INTO singer VALUES (1, 'Joe', 'France', 52), (2, 'Ann', 'France', 29), (3, 'Bo', 'Netherlands', 41),
                                  (4, 'Cy', 'United States', 33);
        INSERT INTO song VALUES (1, 1, 'Hey', 10.5), (2, 1, 'You', 3.0), (3, 3, 'Dance', 7.25), (4, 4, 'Go', 1.0);
    """)


@pytest.fixture()
def music_db(tmp_path: Path) -> Path:
    return make_music_db(tmp_path / "music.sqlite")


@pytest.fixture(scope="session")
def spider_dir() -> Path:
    if not (SPIDER / "dev.json").exists():
        pytest.skip(f"Spider data not found at {SPIDER} (../shared/data is only present in the project checkout)")
    return SPIDER


@pytest.fixture(scope="session")
def concert_singer(spider_dir: Path) -> Path:
    return spider_db_path("concert_singer")


@pytest.fixture(scope="session")
def chinook_path() -> Path:
    path = DATA / "chinook" / "Chinook_Sqlite.sqlite"
    if not path.exists():
        pytest.skip(f"Chinook not found at {path}")
    return path


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory) -> Path:
    from groundsql.demo import generate_demo_database

    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    generate_demo_database(path, seed=7)
    return path


@pytest.fixture(scope="session")
def local_model():
    """The real embedded test model (0.5B); skips when its runtime or weights are not installed."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'groundsql[local]')")
    from groundsql.errors import ModelNotInstalled
    from groundsql.models import load_model

    try:
        model = load_model(TEST_MODEL)  # checks that the weights are installed
        model.path()
    except ModelNotInstalled as exc:
        pytest.skip(str(exc))
    return model


def _admin_engine(url: str):
    import sqlalchemy as sa

    driver = url.replace("postgresql://", "postgresql+psycopg://").replace("mysql://", "mysql+pymysql://")
    engine = sa.create_engine(driver, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3})
    try:
        with engine.connect():
            pass
    except Exception as exc:
        pytest.skip(f"no database server answers at {url}: {str(exc).splitlines()[0]}")
    return engine


@pytest.fixture()
def postgres_database():
    """A fresh, empty PostgreSQL database (dropped afterwards); yields (admin_url_of_db, load_rows helper)."""
    import sqlalchemy as sa

    admin = _admin_engine(PG_ADMIN_URL)
    name = f"groundsql_test_{uuid.uuid4().hex[:10]}"
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture()
def mysql_database():
    """A fresh, empty MariaDB/MySQL database (dropped afterwards)."""
    pytest.importorskip("pymysql")
    import sqlalchemy as sa

    admin = _admin_engine(MYSQL_ADMIN_URL)
    name = f"groundsql_test_{uuid.uuid4().hex[:10]}"
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE `{name}`"))
    try:
        yield f"{MYSQL_ADMIN_URL.rstrip('/')}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS `{name}`"))
        admin.dispose()


def copy_sqlite_to_server(sqlite_path: Path, server_url: str, tables: list[str] | None = None) -> None:
    """Load the tables of a SQLite file into an empty server database (types kept simple)."""
    import sqlite3

    import sqlalchemy as sa

    source = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
    driver = server_url.replace("postgresql://", "postgresql+psycopg://").replace("mysql://", "mysql+pymysql://")
    engine = sa.create_engine(driver)
    metadata = sa.MetaData()
    names = tables or [r[0] for r in source.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
    try:
        for name in names:
            info = source.execute(f'PRAGMA table_info("{name}")').fetchall()
            columns = []
            for _, col, decl, _, _, pk in info:
                decl = (decl or "").upper()
                kind = sa.Integer if "INT" in decl else sa.Float if any(
                    k in decl for k in ("REAL", "FLOA", "DOUB", "NUM", "DEC")) else sa.Text
                columns.append(sa.Column(col, kind, primary_key=bool(pk)))
            table = sa.Table(name, metadata, *columns)
            table.create(engine)
            rows = source.execute(f'SELECT * FROM "{name}"').fetchall()
            if rows:
                keys = [c[1] for c in info]
                with engine.begin() as conn:
                    conn.execute(table.insert(), [dict(zip(keys, row)) for row in rows])
    finally:
        source.close()
        engine.dispose()


def _checksums(root: Path) -> dict[str, str]:
    import hashlib

    sums = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in {".sqlite", ".db", ".duckdb", ".json"}:
            sums[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return sums


@pytest.fixture(scope="session", autouse=True)
def shared_data_unchanged():
    """Safety net for the whole suite: no test (and no model-written SQL) may change a shared database file."""
    if not DATA.exists():
        yield
        return
    before = _checksums(DATA)
    yield
    after = _checksums(DATA)
    changed = sorted(k for k in before if before[k] != after.get(k))
    assert not changed, f"shared data files changed during the test run: {changed}"


SCHOOL_DDL = """
CREATE TABLE teacher (teacher_id INTEGER PRIMARY KEY, full_name TEXT, department TEXT);
CREATE TABLE course (course_id INTEGER PRIMARY KEY, title TEXT, credits INTEGER,
                     teacher_id INTEGER REFERENCES teacher(teacher_id));
CREATE TABLE student (student_id INTEGER PRIMARY KEY, name TEXT, country TEXT, birth_year INTEGER);
CREATE TABLE enrollment (student_id INTEGER REFERENCES student(student_id),
                         course_id INTEGER REFERENCES course(course_id), grade REAL,
                         PRIMARY KEY (student_id, course_id));
CREATE TABLE audit_log (log_id INTEGER PRIMARY KEY, happened_at TEXT, message TEXT);
CREATE TABLE sales_2019 (sale_id INTEGER, amount REAL);
CREATE TABLE sales_2020 (sale_id INTEGER, amount REAL);
"""
SCHOOL_ROWS = [
    "INSERT INTO teacher VALUES (1, 'Ada Byron', 'Mathematics'), (2, 'Alan Turing', 'Computing')",
    "INSERT INTO course VALUES (10, 'Linear Algebra', 6, 1), (11, 'Compilers', 5, 2)",
    "INSERT INTO student VALUES (100, 'Marie', 'France', 2001), (101, 'Kenji', 'Japan', 2000),"
    " (102, 'Lucia', 'Argentina', 2002)",
    "INSERT INTO enrollment VALUES (100, 10, 17.5), (100, 11, 15.0), (101, 11, 12.0), (102, 10, 19.0)",
    "INSERT INTO audit_log VALUES (1, '2024-01-01', 'created')",
    "INSERT INTO sales_2019 VALUES (1, 9.5)",
    "INSERT INTO sales_2020 VALUES (1, 7.0)",
]


@pytest.fixture(scope="session")
def school_db(tmp_path_factory) -> Path:
    """A small school database: students and courses joined many-to-many through enrollment."""
    import sqlite3

    path = tmp_path_factory.mktemp("linking") / "school.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(SCHOOL_DDL)
    for statement in SCHOOL_ROWS:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="session")
def spark_session(tmp_path_factory):
    """One local Spark session for the whole test run (starting the JVM takes seconds); skips without
    pyspark or Java."""
    import shutil

    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'groundsql[spark]')")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java 17 or newer (apt-get install openjdk-17-jre-headless)")
    from pyspark.sql import SparkSession

    from groundsql.db.spark import LOCAL_CONF

    # Canaries only `${…}` substitution would reveal: the JVM's environment, a JVM property, a context setting.
    canary = uuid.uuid4().hex[:8]
    os.environ["GROUNDSQL_CANARY_JVM_ENV"] = f"GROUNDSQL_CANARY_JVM_ENV_{canary}"
    # Two task slots: a task that runs on past its job's cancel holds one of them, not every later query.
    builder = SparkSession.builder.master("local[2]").appName("groundsql-tests")
    for key, value in {**LOCAL_CONF, "spark.sql.shuffle.partitions": "1", "spark.driver.memory": "768m",
                       "spark.sql.warehouse.dir": str(tmp_path_factory.mktemp("spark-warehouse")),
                       "spark.driver.extraJavaOptions": f"-Dgroundsql.canary=GROUNDSQL_CANARY_JVM_PROPERTY_{canary}",
                       "spark.groundsql.canary_context": f"GROUNDSQL_CANARY_CONTEXT_{canary}"}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture()
def ledger_duckdb(tmp_path: Path) -> Path:
    """A DuckDB file with every kind of column and a row of NULLs."""
    import duckdb

    path = tmp_path / "ledger.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE entries (id BIGINT, booked DATE, amount DECIMAL(12, 2), memo VARCHAR, "
                "posted TIMESTAMP, ok BOOLEAN, rate DOUBLE)")
    con.execute("INSERT INTO entries VALUES (1, DATE '2024-01-31', 1234.50, 'rent', TIMESTAMP '2024-01-31 09:30:00', "
                "true, 0.25), (2, DATE '2024-02-29', -0.05, 'fee', TIMESTAMP '2024-02-29 23:59:59', false, 1e-9), "
                "(3, NULL, NULL, NULL, NULL, NULL, NULL)")
    con.close()
    return path
