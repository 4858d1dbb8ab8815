"""pandas columns in and out of the batch functions: exact integers, nullable results, bytes.

Integer exactness across Arrow: Spark hands a ``bigint`` column that contains a null to pandas as
``float64``. In such a batch only values below 2^53 in magnitude are known to be exact; a larger
one may have been rounded, so its row counts as invalid (a null result), never as a wrong value.
Call the bigint-taking functions on non-null values (filter nulls first, or ``coalesce(x, 0)``
and null the result) when values can be that large, e.g. tokens.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

EXACT_FLOAT_LIMIT = 1 << 53


def integer_column(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(int64 values with invalid rows as 0, validity mask) of an integer input column: nulls, and
    values that Arrow's null handling may have rounded through float64, are invalid."""
    if series.dtype.kind in "iu":
        return series.to_numpy(dtype=np.int64), np.ones(len(series), dtype=bool)
    valid = series.notna().to_numpy()
    values = np.zeros(len(series), dtype=np.int64)
    if series.dtype.kind == "f":
        floats = series.to_numpy(dtype=np.float64, na_value=0.0)
        valid &= np.abs(floats) < EXACT_FLOAT_LIMIT
        values[valid] = floats[valid].astype(np.int64)
    else:
        values[valid] = np.array([int(v) for v in series[valid]], dtype=np.int64)
    return values, valid


def in_range(values: np.ndarray, low: int, high: int) -> np.ndarray:
    """Mask of ``low <= values < high``."""
    return (values >= low) & (values < high)


def nullable(values: np.ndarray, valid: np.ndarray, dtype: str) -> pd.Series:
    """A nullable integer Series (``Int64``/``Int32``): exact through Arrow, nulls where invalid."""
    return pd.Series(pd.arrays.IntegerArray(values.astype(dtype.lower()), ~valid))


def objects(values: list, valid: np.ndarray) -> pd.Series:
    return pd.Series([value if ok else None for value, ok in zip(values, valid)], dtype=object)


def binary_column(series: pd.Series) -> tuple[list[bytes], np.ndarray]:
    valid = series.notna().to_numpy()
    return [bytes(v) if ok else b"" for v, ok in zip(series, valid)], valid


def per_distinct_row(function, *columns: pd.Series) -> pd.Series:
    """``function`` of each row of the argument columns, called once per distinct row of the
    batch (rows repeat: a clustering key for each cell of its row, a type for each value of its
    column). Array arguments come as tuples; ``function`` must be pure."""
    results: dict = {}
    out = []
    for row in zip(*(_hashable(column.tolist()) for column in columns)):
        try:
            out.append(results[row])
        except KeyError:
            out.append(results.setdefault(row, function(*row)))
    return pd.Series(out, dtype=object)


def _hashable(values: list) -> list:
    """The values of an array column (numpy arrays per row) as tuples; any other column as is."""
    if any(isinstance(value, np.ndarray) for value in values):
        return [None if value is None else tuple(value) for value in values]
    return values
