"""pandas columns in and out of the batch functions: exact integers, nullable results, bytes.

Integer exactness across Arrow: Spark hands a ``bigint`` column that contains a null to pandas as
``float64``. Such a batch is accepted only when every value is below 2^53 in magnitude (so
nothing was rounded); otherwise the function fails and says so.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

EXACT_FLOAT_LIMIT = 1 << 53


def integer_column(series: pd.Series, function: str, argument: str) -> tuple[np.ndarray, np.ndarray]:
    """(int64 values with nulls as 0, validity mask) of an integer input column, refusing any
    value that Arrow's null handling may have rounded through float64."""
    if series.dtype.kind in "iu":
        return series.to_numpy(dtype=np.int64), np.ones(len(series), dtype=bool)
    valid = series.notna().to_numpy()
    values = np.zeros(len(series), dtype=np.int64)
    if series.dtype.kind == "f":
        present = series.to_numpy()[valid]
        if present.size and np.abs(present).max() >= EXACT_FLOAT_LIMIT:
            raise ValueError(
                f"{function}: argument {argument} has nulls in a batch with values >= 2^53, which Spark's "
                f"Arrow conversion passed as float64 and may have rounded; call {function} on non-null "
                f"values only (filter nulls first, or coalesce({argument}, 0) and null the result)")
        values[valid] = present.astype(np.int64)
    else:
        values[valid] = np.array([int(v) for v in series[valid]], dtype=np.int64)
    return values, valid


def nullable(values: np.ndarray, valid: np.ndarray, dtype: str) -> pd.Series:
    """A nullable integer Series (``Int64``/``Int32``): exact through Arrow, nulls where invalid."""
    return pd.Series(pd.arrays.IntegerArray(values.astype(dtype.lower()), ~valid))


def objects(values: list, valid: np.ndarray) -> pd.Series:
    return pd.Series([value if ok else None for value, ok in zip(values, valid)], dtype=object)


def binary_column(series: pd.Series) -> tuple[list[bytes], np.ndarray]:
    valid = series.notna().to_numpy()
    return [bytes(v) if ok else b"" for v, ok in zip(series, valid)], valid
