"""Resource bounds held by the engine on every guarded connection (documented in docs/security.md)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class EngineLimits(BaseModel):
    """Memory and size bounds the engine enforces, so one statement cannot exhaust the machine."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_mb: int = Field(2048, gt=0, description="DuckDB memory_limit for the whole database, in MiB.")
    threads: int = Field(4, gt=0, description="DuckDB worker threads.")
    max_value_mb: int = Field(64, gt=0, description="Largest string or blob one SQLite value may hold, in MiB.")
    work_mem_mb: int = Field(64, gt=0, description="PostgreSQL work_mem per sort or hash, in MiB.")
    temp_file_mb: int = Field(1024, gt=0, description="PostgreSQL temp_file_limit per statement, in MiB "
                                                       "(applied where the account may set it).")
    tmp_table_mb: int = Field(64, gt=0, description="MariaDB/MySQL in-memory temporary table size, in MiB.")
