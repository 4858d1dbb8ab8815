"""Partition key (JSON) -> routing key -> Murmur3 token (``docs/scylla/math.md`` §1.1, §1.2, §1.4)."""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from python_udfs.cql_types import CqlType, UdtRegistry, parse_cql_type
from python_udfs.cql_values import CqlValueError, describe_json, loads_json, serialize_json_value
from python_udfs.errors import problem_text
from python_udfs.murmur3 import murmur3_token, murmur3_tokens
from python_udfs.token_fast_path import fast_routing_key

MAX_COMPONENT_BYTES = 0xFFFF
END_OF_COMPONENT = b"\x00"


def routing_key(serialized_components: Sequence[bytes]) -> bytes:
    """The "legacy form" routing key (§1.2): one column -> its bytes; several ->
    ``u16 length ‖ bytes ‖ 0x00`` per column."""
    if len(serialized_components) == 1:
        return bytes(serialized_components[0])
    parts = []
    for position, component in enumerate(serialized_components):
        if len(component) > MAX_COMPONENT_BYTES:
            raise CqlValueError(
                f"partition key component {position} is {len(component)} bytes; at most 65535 can be encoded")
        parts.append(len(component).to_bytes(2, "big") + bytes(component) + END_OF_COMPONENT)
    return b"".join(parts)


@lru_cache(maxsize=1024)
def _parsed_key_types(types: tuple[str, ...]) -> tuple[CqlType, ...]:
    return tuple(parse_cql_type(text) for text in types)


def routing_key_of_partition_key(partition_key_json: str, names: Sequence[str], types: Sequence[str],
                                 udts: UdtRegistry | None = None) -> bytes:
    """Routing key of a partition key given as a JSON object ``{column: value}``; raises
    ``CqlValueError`` naming the column on a missing, extra or malformed column."""
    if len(names) != len(types) or not names:
        raise CqlValueError(f"partition key needs one type per column, got names {list(names)} and types {list(types)}")
    try:
        cql_types = _parsed_key_types(tuple(types))
    except CqlValueError as error:
        raise CqlValueError(f"partition key types: {error}") from None
    values = loads_json(partition_key_json) if isinstance(partition_key_json, str) else partition_key_json
    if not isinstance(values, dict):
        raise CqlValueError(f"partition key must be a JSON object {{column: value}}, got {describe_json(values)}")
    extra = [column for column in values if column not in names]
    if extra:
        raise CqlValueError(f"partition key column {extra[0]!r} is not part of the partition key {list(names)}")
    components = []
    for name, cql_type in zip(names, cql_types):
        if name not in values:
            raise CqlValueError(f"partition key column {name!r} is missing")
        if values[name] is None:
            raise CqlValueError(f"partition key column {name!r} is null")
        try:
            components.append(serialize_json_value(values[name], cql_type, udts))
        except CqlValueError as error:
            raise CqlValueError(f"partition key column {name!r}: {error}") from None
        if len(names) > 1 and len(components[-1]) > MAX_COMPONENT_BYTES:
            raise CqlValueError(f"partition key column {name!r} is {len(components[-1])} bytes serialized; "
                                f"a composite key component holds at most 65535")
    return routing_key(components)


def token_of_partition_key(partition_key_json: str, names: Sequence[str], types: Sequence[str],
                           udts: UdtRegistry | None = None) -> int:
    """Murmur3 token of a base-table partition key (JSON object ``{column: value}``)."""
    return murmur3_token(routing_key_of_partition_key(partition_key_json, names, types, udts))


def tokens_of_partition_keys(partition_keys_json: Sequence[str | None], names_per_row: Sequence[Sequence[str]],
                             types_per_row: Sequence[Sequence[str]], udts: UdtRegistry | None = None,
                             ) -> tuple[np.ndarray, list[str | None]]:
    """Vectorized ``token_of_partition_key``: (int64 tokens, error message or None per row).

    Rows whose key is null or cannot be tokenised get token 0 and an error message (never an
    exception); hashing is batched by key length. Keys of the commonest types take a fast path (token_fast_path).
    """
    keys: list[bytes] = []
    hashed_rows: list[int] = []
    errors: list[str | None] = [None] * len(partition_keys_json)
    for row, (key_json, names, types) in enumerate(zip(partition_keys_json, names_per_row, types_per_row)):
        if key_json is None:
            errors[row] = "partition key is null"
            continue
        if names is None or types is None:
            errors[row] = "partition key column names or types are null"
            continue
        try:
            key = fast_routing_key(key_json, names, tuple(types))
            if key is None:
                key = routing_key_of_partition_key(key_json, list(names), list(types), udts)
        except Exception as error:  # noqa: BLE001 -- a bad key is its row's problem, never the build's
            errors[row] = problem_text(error)
            continue
        keys.append(key)
        hashed_rows.append(row)
    tokens = np.zeros(len(partition_keys_json), dtype=np.int64)
    tokens[hashed_rows] = murmur3_tokens(keys)
    return tokens, errors
