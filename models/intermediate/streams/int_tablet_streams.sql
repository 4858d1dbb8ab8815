{#- One row per stream of every tablets table's stream set: the tokens it owns (see _streams__models.yml). -#}
with

streams as (

    select * from {{ ref('stg_cdc_input__tablet_streams') }}

),

sets as (

    select
        keyspace_name,
        table_name,
        set_ts_ms,
        count(*) as stream_count,
        lead(set_ts_ms * 1000) over (partition by keyspace_name, table_name order by set_ts_ms) as next_set_ts_us
    from streams
    group by keyspace_name, table_name, set_ts_ms

),

ranged as (

    select
        streams.*,
        sets.stream_count,
        sets.next_set_ts_us,
        row_number() over set_streams - 1 as stream_position,
        -- a tablet owns (the previous tablet's last token, its own]; the first starts at the ring's start
        coalesce(lag(streams.last_token) over set_streams + 1, {{ min_token() }}) as first_token,
        -- about two bins per tablet, as for the vnode ranges (int_generations_described)
        least(24, greatest(1, cast(ceil(log2(sets.stream_count)) as int) + 1)) as bin_bits
    from streams
    inner join sets
        on
            streams.keyspace_name = sets.keyspace_name
            and streams.table_name = sets.table_name
            and streams.set_ts_ms = sets.set_ts_ms
    window set_streams as (
        partition by streams.keyspace_name, streams.table_name, streams.set_ts_ms
        order by streams.last_token
    )

)

select
    *,
    sequence({{ token_bin('first_token', 'bin_bits') }}, {{ token_bin('last_token', 'bin_bits') }}) as token_bins
from ranged
