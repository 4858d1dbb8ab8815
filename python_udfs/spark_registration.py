"""Batch functions into a Spark session as Arrow pandas UDFs (the only python_udfs module that
imports PySpark besides baseline.py: the modules the SQL functions need must not, see
cdclake/project/databricks_udfs.py)."""
from __future__ import annotations

from typing import Callable, Mapping

from pyspark.sql.functions import pandas_udf

from python_udfs.sql_signature import sql_return_type


def register(spark, functions: Mapping[str, Callable]) -> list[str]:
    """Register each batch function in ``spark`` as an Arrow pandas UDF under its SQL name."""
    for name, function in functions.items():
        spark.udf.register(name, pandas_udf(function, sql_return_type(function)))
    return list(functions)
