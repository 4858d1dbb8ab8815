"""Batch functions over JSON key values: the partition key's token (docs/scylla/math.md §1.1-1.4) and
the clustering key's sort key (clustering.py), each bound to a registry of user types.

A key that cannot be read gives a null sort key, or a token with its ``error``: never an
exception (the validation model reports the key's problem)."""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from python_udfs.clustering import clustering_sort_key
from python_udfs.columns import nullable, per_distinct_row
from python_udfs.cql_types import UdtRegistry
from python_udfs.sql_signature import String, StringArray, returns
from python_udfs.tokens import tokens_of_partition_keys


def make_clustering_sort_key_udf(udts: UdtRegistry | None = None) -> Callable:
    """``cdc_clustering_sort_key`` bound to a UDT registry (``{name: [(field, type), ...]}``)."""

    @returns("binary")
    def cdc_clustering_sort_key(ck: String, names: StringArray, types: StringArray, orders: StringArray,
                                bound: String) -> pd.Series:
        return per_distinct_row(sort_key_or_none, ck, names, types, orders, bound)

    def sort_key_or_none(ck_json, row_names, row_types, row_orders, row_bound) -> bytes | None:
        if row_names is None or row_types is None or row_orders is None or row_bound is None:
            return None
        try:
            return clustering_sort_key(ck_json, list(row_names), list(row_types), list(row_orders), row_bound, udts)
        except Exception:  # noqa: BLE001 -- a bad key is its row's problem (cdc_key_error says which)
            return None

    return cdc_clustering_sort_key


def make_token_of_partition_key_udf(udts: UdtRegistry | None = None) -> Callable:
    """``cdc_token_of_partition_key`` bound to a UDT registry (for frozen UDT key columns)."""

    @returns("struct<token: bigint, error: string>")
    def cdc_token_of_partition_key(partition_key: String, names: StringArray, types: StringArray) -> pd.DataFrame:
        tokens, errors = tokens_of_partition_keys(partition_key.tolist(), names.tolist(), types.tolist(), udts)
        valid = np.array([error is None for error in errors], dtype=bool)
        return pd.DataFrame({"token": nullable(tokens, valid, "Int64"), "error": pd.Series(errors, dtype=object)})

    return cdc_token_of_partition_key


cdc_token_of_partition_key = make_token_of_partition_key_udf()
cdc_clustering_sort_key = make_clustering_sort_key_udf()
