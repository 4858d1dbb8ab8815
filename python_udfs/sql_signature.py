"""SQL signatures of the batch functions behind the SQL UDFs, without importing PySpark.

A SQL function is a plain pandas batch function: each argument is a ``pd.Series`` annotated
with its SQL type (``token: Bigint``), and ``@returns("int")`` gives the SQL result type. The
local session wraps it as an Arrow pandas UDF (spark_registration.py); the Databricks generator
(cdclake/project/databricks_udfs.py) reads the same signature to write a Unity Catalog function.
"""
from __future__ import annotations

import inspect
import typing
from typing import Annotated, Callable

import pandas as pd

Bigint = Annotated[pd.Series, "bigint"]
Int = Annotated[pd.Series, "int"]
Boolean = Annotated[pd.Series, "boolean"]
Binary = Annotated[pd.Series, "binary"]
String = Annotated[pd.Series, "string"]
StringArray = Annotated[pd.Series, "array<string>"]


def returns(sql_type: str) -> Callable[[Callable], Callable]:
    """Declare the SQL type (Spark DDL text, e.g. ``struct<token: bigint, error: string>``) of a
    batch function's result."""

    def declare(function: Callable) -> Callable:
        function.sql_return_type = sql_type
        return function

    return declare


def sql_arguments(function: Callable) -> list[tuple[str, str]]:
    """``[(name, sql_type), ...]`` of a batch function, from its annotated parameters."""
    hints = typing.get_type_hints(function, include_extras=True)
    arguments = []
    for name in inspect.signature(function).parameters:
        metadata = getattr(hints.get(name), "__metadata__", ())
        if not metadata:
            raise TypeError(f"{function.__qualname__}: parameter {name} has no SQL type "
                            f"(annotate it with a type of python_udfs.sql_signature, e.g. Bigint)")
        arguments.append((name, metadata[0]))
    return arguments


def sql_return_type(function: Callable) -> str:
    try:
        return function.sql_return_type
    except AttributeError:
        raise TypeError(f"{function.__qualname__}: no SQL result type (decorate it with @returns)") from None
