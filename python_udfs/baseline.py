"""Row-at-a-time (plain Python UDF) version of ``cdc_token_of_partition_key``: the benchmark
baseline for the vectorized pandas UDF in ``spark_udfs.py``. Same results, same errors."""
from __future__ import annotations

from typing import Sequence

from pyspark.sql.functions import udf
from pyspark.sql.types import LongType, StringType, StructField, StructType

from python_udfs.cql_values import CqlValueError
from python_udfs.tokens import token_of_partition_key

TOKEN_RESULT_TYPE = StructType([StructField("token", LongType()), StructField("error", StringType())])
BASELINE_SQL_NAME = "cdc_token_of_partition_key_plain"


def token_or_error(partition_key: str | None, names: Sequence[str] | None,
                   types: Sequence[str] | None) -> tuple[int | None, str | None]:
    """``(token, None)`` or ``(None, message)`` for one row."""
    if partition_key is None:
        return None, "partition key is null"
    if names is None or types is None:
        return None, "partition key column names or types are null"
    try:
        return token_of_partition_key(partition_key, list(names), list(types)), None
    except CqlValueError as error:
        return None, str(error)


token_plain_udf = udf(token_or_error, TOKEN_RESULT_TYPE)


def register_baseline_udf(spark, name: str = BASELINE_SQL_NAME) -> str:
    """Register the plain-UDF token function under ``name`` (for benchmarks)."""
    spark.udf.register(name, token_plain_udf)
    return name
