"""The root click group and the error handling every command shares."""

from __future__ import annotations

import logging
import os
import sys
import traceback

import click

from groundsql.errors import GroundsqlError


class GroundsqlGroup(click.Group):
    """Turns library errors into one clear line and a non-zero exit, never a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except GroundsqlError as exc:
            _fail(str(exc), code=2)
        except KeyboardInterrupt:
            _fail("interrupted", code=130)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as exc:
            if os.environ.get("GROUNDSQL_DEBUG"):
                traceback.print_exc()
            _fail(f"unexpected {type(exc).__name__}: {exc} (set GROUNDSQL_DEBUG=1 for the traceback)", code=1)


def _fail(message: str, code: int) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


@click.group(cls=GroundsqlGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("-v", "--verbose", count=True, help="Log progress to stderr (-vv for debug detail).")
@click.version_option(package_name="groundsql")
def cli(verbose: int) -> None:
    """Answer natural-language questions over your databases with SQL you can check.

    \b
    Quick start:
      groundsql demo-db demo.sqlite
      groundsql ask "How many customers are in each region?" --db demo.sqlite
      groundsql sql "SELECT count(*) FROM orders" --db demo.sqlite

    Every statement runs read-only, checked by a SQL guard, with time and row limits.
    """
    configure_logging(verbose)


def configure_logging(verbose: int) -> None:
    """Warnings only by default; -v logs progress (exploration steps, profiling), -vv debug detail."""
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(message)s", stream=sys.stderr)
    logging.getLogger("groundsql").setLevel(level)


def main() -> int:
    cli(prog_name="groundsql")
    return 0
