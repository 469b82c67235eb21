"""`groundsql serve` (HTTP API + web UI) and `groundsql mcp` (MCP server): thin shells over `groundsql.server`."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any

import click

from groundsql.cli.app import cli
from groundsql.cli.options import parse_preset_options, preset_options
from groundsql.db import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S
from groundsql.errors import ConfigError
from groundsql.models import DEFAULT_MODEL, SPEC_HELP
from groundsql.pipelines import DEFAULT_PRESET, DESCRIPTIONS

TOKEN_ENV = "GROUNDSQL_API_TOKEN"

dbs_option = click.option("--db", "db_args", multiple=True, metavar="[NAME=]URL",
                          help="A database to serve (repeatable): a URL or file path, optionally named NAME=URL. "
                               "The first is the default.")
knowledge_option = click.option(
    "--knowledge", "knowledge_args", multiple=True, metavar="[NAME=]DIR",
    help="The knowledge folder of a served database (repeatable; without NAME: the default database). Needed "
         "for a server database (PostgreSQL, MySQL, Spark); a database file's folder is found beside it.")
config_option = click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                             default=None, help="YAML file with `databases` ({name: url}, or {name: {url, "
                                                "knowledge}}), `model`, `preset`, `host`, `port` and `options`; "
                                                "command-line flags win.")
model_option = click.option("--model", "model_spec", default=None, metavar="SPEC",
                            help=f"Model to use (default {DEFAULT_MODEL}): {SPEC_HELP}.")
preset_option = click.option("--preset", default=None, type=click.Choice(sorted(DESCRIPTIONS)),
                             help=f"Pipeline used for asks (default {DEFAULT_PRESET}).")
host_option = click.option("--host", default=None, help="Address to bind (default 127.0.0.1). Any address "
                                                         f"other than loopback requires {TOKEN_ENV}.")


def _server_modules() -> None:
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ConfigError("the server needs its extra: pip install 'groundsql[server]'") from None


def load_config(path: Path | None) -> dict[str, Any]:
    """The YAML config file as a dict (empty without one)."""
    if path is None:
        return {}
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    unknown = set(data) - {"databases", "model", "preset", "host", "port", "options"}
    if unknown:
        raise ConfigError(f"{path}: unknown keys {', '.join(sorted(unknown))}")
    return data


def is_loopback(host: str) -> bool:
    if host in {"localhost", "ip6-localhost"}:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback without an API token."""
    if not is_loopback(host) and not token:
        raise ConfigError(f"binding {host} exposes your databases to the network: set {TOKEN_ENV} to a long random "
                          "token first (clients send it as `Authorization: Bearer TOKEN`)")


def build_workspace(db_args: tuple[str, ...], config: dict[str, Any], model_spec: str | None, preset: str | None,
                    extra: dict[str, Any], knowledge_args: tuple[str, ...] = ()):
    from groundsql.models import load_model
    from groundsql.server import ServerOptions, Workspace
    from groundsql.server.workspace import parse_database_args

    named = parse_database_args(list(db_args)) if db_args else {}
    configured, folders = configured_databases(config.get("databases") or {})
    databases = named or configured
    if not databases:
        raise ConfigError("give at least one database: --db URL (or NAME=URL), or `databases` in --config")
    folders = {name: folder for name, folder in folders.items() if name in databases}
    folders.update(parse_knowledge_args(knowledge_args, next(iter(databases))))
    settings = {**(config.get("options") or {}), **{k: v for k, v in extra.items() if v is not None}}
    settings["preset"] = preset or config.get("preset") or DEFAULT_PRESET
    options = ServerOptions(**settings)
    return Workspace(databases, load_model(model_spec or config.get("model") or None), options, knowledge=folders)


def configured_databases(value: Any) -> tuple[dict[str, str], dict[str, str]]:
    """The config file's `databases` as ({name: url}, {name: knowledge folder}): a list of ``[NAME=]URL``, or a
    mapping of names to a URL or to ``{url: URL, knowledge: DIR}``."""
    from groundsql.server.workspace import parse_database_args

    if isinstance(value, list):
        return parse_database_args([str(v) for v in value]), {}
    if not isinstance(value, dict):
        raise ConfigError("`databases` in the config file: expected a mapping of names to URLs, or a list")
    urls, folders = {}, {}
    for name, entry in value.items():
        if isinstance(entry, dict):
            unknown = set(entry) - {"url", "knowledge"}
            if unknown or not entry.get("url"):
                raise ConfigError(f"database {name!r} in the config file: give `url` (and optionally `knowledge`)"
                                  + (f"; unknown keys {', '.join(sorted(unknown))}" if unknown else ""))
            urls[str(name)] = str(entry["url"])
            if entry.get("knowledge"):
                folders[str(name)] = str(entry["knowledge"])
        else:
            urls[str(name)] = str(entry)
    return urls, folders


def parse_knowledge_args(values: tuple[str, ...], default: str) -> dict[str, str]:
    """``NAME=DIR`` or ``DIR`` (the `default` database's) arguments as {name: folder}."""
    folders: dict[str, str] = {}
    for value in values:
        name, sep, folder = value.partition("=")
        if not sep or not name.strip() or "/" in name:
            name, folder = default, value
        folders[name.strip()] = folder.strip()
    return folders


@cli.command()
@dbs_option
@knowledge_option
@config_option
@host_option
@click.option("--port", type=int, default=None, help="Port to listen on (default 8000).")
@model_option
@preset_option
@preset_options
@click.option("--queue-size", type=int, default=None, help="Asks that may wait for the model (default 16); "
                                                            "more get 429 with Retry-After.")
@click.option("--model-concurrency", type=int, default=None,
              help="Asks answered at once (default: 1 for the embedded model, 4 for API models).")
@click.option("--ask-timeout", "ask_timeout_s", type=float, default=None,
              help="Seconds one ask may take before it is cancelled (default 600).")
@click.option("--timeout", "statement_timeout_s", type=float, default=None,
              help=f"Statement time limit in seconds (default {DEFAULT_TIMEOUT_S:g}).")
@click.option("--max-rows", type=int, default=None, help=f"Row cap per statement (default {DEFAULT_MAX_ROWS}).")
@click.option("--record/--no-record", default=None, help="Log answers to the run store (default on).")
@click.option("--runs-max-age-days", type=float, default=None,
              help="Prune runs older than this from the run store (default 90; 0: no limit).")
@click.option("--runs-max-runs", type=int, default=None, help="Keep at most this many runs (default 100000).")
@click.option("--runs-max-mb", type=float, default=None,
              help="Keep the run store's data under this many MB (default 500). Marked runs and those in "
                   "conversations are always kept.")
@click.option("--conversations-max-age-days", type=float, default=None,
              help="Delete conversations not used for this many days (default 90; 0: no limit).")
@click.option("--conversations-max", type=int, default=None,
              help="Keep at most this many conversations, the most recently used (default 10000). One used in "
                   "the last hour is always kept.")
def serve(db_args, knowledge_args, config_path, host, port, model_spec, preset, preset_options, queue_size,
          model_concurrency, ask_timeout_s, statement_timeout_s, max_rows, record, runs_max_age_days, runs_max_runs,
          runs_max_mb, conversations_max_age_days, conversations_max):
    """Serve the web UI (/), the HTTP API (/v1), API docs (/docs, offline) and the MCP server (/mcp) for one or
    more databases.

    \b
    Examples:
      groundsql serve --db demo.sqlite
      groundsql serve --db shop=demo.sqlite --db pg=postgresql://me@localhost/sales --port 9000
      GROUNDSQL_API_TOKEN=$(openssl rand -hex 24) groundsql serve --db demo.sqlite --host 0.0.0.0

    Asks run one at a time on the embedded model, behind a bounded queue (a full queue answers 429).
    Every statement runs read-only through the SQL guard with time and row limits.
    """
    _server_modules()
    import uvicorn

    from groundsql.server.app import create_app
    from groundsql.server.memory import fix_mmap_threshold, limit_arenas

    limit_arenas()  # before any pool thread starts: a server's memory stays flat (see groundsql.server.memory)
    fix_mmap_threshold()
    config = load_config(config_path)
    host = host or config.get("host") or "127.0.0.1"
    port = port or int(config.get("port") or 8000)
    token = os.environ.get(TOKEN_ENV) or None
    check_bind(host, token)
    extra = {"queue_size": queue_size, "model_concurrency": model_concurrency, "ask_timeout_s": ask_timeout_s,
             "statement_timeout_s": statement_timeout_s, "max_rows": max_rows, "record": record, "api_token": token,
             "runs_max_age_days": runs_max_age_days, "runs_max_runs": runs_max_runs, "runs_max_mb": runs_max_mb,
             "conversations_max_age_days": conversations_max_age_days, "conversations_max": conversations_max}
    if preset_options:
        extra["preset_options"] = parse_preset_options(preset_options)
    workspace = build_workspace(db_args, config, model_spec, preset, extra, knowledge_args)
    app = create_app(workspace, host=host)
    names = ", ".join(workspace.databases)
    click.echo(f"groundsql: serving {names} at http://{host}:{port}/ (API docs at /docs, MCP at /mcp) with "
               f"{workspace.model.spec}, preset {workspace.options.preset}", err=True)
    try:
        uvicorn.run(app, host=host, port=port, log_level="info", access_log=False,
                    timeout_graceful_shutdown=workspace.options.shutdown_grace_s)
    finally:
        workspace.close()


@cli.command()
@dbs_option
@knowledge_option
@config_option
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio for desktop clients that start the server; http for streamable HTTP at /mcp.")
@host_option
@click.option("--port", type=int, default=None, help="Port for --transport http (default 8001).")
@model_option
@preset_option
def mcp(db_args, knowledge_args, config_path, transport, host, port, model_spec, preset):
    """Run an MCP server: list_databases, list_tables, describe_table, search_values, search_knowledge, run_sql,
    ask and mark_answer as tools, each database's schema as a resource.

    \b
    Examples:
      groundsql mcp --db demo.sqlite
      groundsql mcp --db demo.sqlite --transport http --port 8001
    \b
    Claude Desktop (claude_desktop_config.json):
      {"mcpServers": {"groundsql": {"command": "groundsql", "args": ["mcp", "--db", "/path/demo.sqlite"]}}}
    """
    try:
        from groundsql.server.mcp_server import build_mcp_server
    except ImportError:
        raise ConfigError("the MCP server needs its extra: pip install 'groundsql[server]'") from None
    config = load_config(config_path)
    token = os.environ.get(TOKEN_ENV) or None
    workspace = build_workspace(db_args, config, model_spec, preset, {}, knowledge_args)
    server = build_mcp_server(workspace)
    try:
        if transport == "stdio":
            server.run("stdio")
            return
        import uvicorn

        from groundsql.server.auth import require_token

        host = host or config.get("host") or "127.0.0.1"
        port = port or int(config.get("port") or 8001)
        check_bind(host, token)
        app = server.streamable_http_app(host=host)
        click.echo(f"groundsql: MCP over streamable HTTP at http://{host}:{port}/mcp", err=True)
        uvicorn.run(require_token(app, token) if token else app, host=host, port=port, log_level="info",
                    access_log=False, timeout_graceful_shutdown=workspace.options.shutdown_grace_s)
    finally:
        workspace.close()
