"""Every SQL function of the embedded session, in one place: what cdclake/session/spark.py registers
and what cdclake/project/databricks_udfs.py turns into Unity Catalog functions."""
from __future__ import annotations

from typing import Callable

from python_udfs import collection_udfs, input_checks, spark_udfs
from python_udfs.cql_types import UdtRegistry
from python_udfs.spark_registration import register


def session_sql_functions(udts: UdtRegistry | None = None) -> dict[str, Callable]:
    """The batch function of every session SQL function, by SQL name, in registration order."""
    return {**spark_udfs.sql_functions(udts), **input_checks.sql_functions(), **collection_udfs.sql_functions()}


def register_session_udfs(spark, udts: UdtRegistry | None = None) -> list[str]:
    """Register every session SQL function in ``spark``; returns their names."""
    return register(spark, session_sql_functions(udts))
