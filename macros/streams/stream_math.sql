{#- The integer math of a change group's stream and cdc$time as SQL expressions, equal to the
    Python functions (python_udfs: sharding.shards_of, timeuuids.timeuuids_from_micros) the
    session's cdc_shard_of and cdc_timeuuid UDFs run: tests/python/test_stream_math_sql.py
    checks both on random and edge inputs. Exact on every engine: no float, no overflow. -#}

{% macro cdc_shard_of(token, shard_count, ignore_msb) -%}
    {#- The shard of `token` on a node of `shard_count` shards with `ignore_msb` (docs/scylla/math.md §2.1):
        floor(((token + 2^63) << ignore_msb mod 2^64) * shard_count / 2^64); null outside
        1 <= shard_count < 2^31 (a shard is an int), 0 <= ignore_msb < 64. -#}
    case
        when {{ shard_count }} between 1 and 2147483647 and {{ ignore_msb }} between 0 and 63 then cast((
            (
                cast(shiftleft({{ token }} ^ {{ min_token() }}, {{ ignore_msb }}) as decimal(20, 0))
                + if(shiftleft({{ token }} ^ {{ min_token() }}, {{ ignore_msb }}) < 0, 18446744073709551616, 0)
            ) * {{ shard_count }}
        ) div 18446744073709551616 as int)
    end
{%- endmacro %}


{% macro cdc_timeuuid(ts_us, random64) -%}
    {#- A version-1 timeuuid of `ts_us` (µs since the epoch) whose clock-sequence and node bits are
        the low 62 bits of `random64` with the RFC 4122 variant (docs/scylla/log.md §6.1): its 60-bit
        time is ts_us * 10 + 0x01B21DD213814000 (100-ns ticks since 1582-10-15); null for a time
        a timeuuid cannot hold. -#}
    case
        when {{ ts_us }} between -12219292800000000 and 103072857660684697 then lower(concat(
            lpad(hex(({{ ts_us }} * 10 + 122192928000000000) & 4294967295), 8, '0'), '-',
            lpad(hex(shiftright({{ ts_us }} * 10 + 122192928000000000, 32) & 65535), 4, '0'), '-',
            lpad(hex(4096 | (shiftright({{ ts_us }} * 10 + 122192928000000000, 48) & 4095)), 4, '0'), '-',
            substr(hex(({{ random64 }} & 4611686018427387903) | {{ min_token() }}), 1, 4), '-',
            substr(hex(({{ random64 }} & 4611686018427387903) | {{ min_token() }}), 5, 12)
        ))
    end
{%- endmacro %}
