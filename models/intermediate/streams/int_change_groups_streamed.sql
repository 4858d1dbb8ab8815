{#- The batch's pieces; accepted change groups in their stream (see _streams__models.yml). -#}
with

pieces as (

    select * from {{ ref('int_writes_admitted') }}

),

generations as (

    select * from {{ ref('int_generations_described') }}

),

range_bins as (

    select * from {{ ref('int_token_range_bins') }}

),

binned as (

    select
        pieces.*,
        generations.generation_ts_ms,
        {{ token_bin('pieces.token', 'generations.bin_bits') }} as token_bin
    from pieces
    left join generations
        on pieces.write_status = 'accepted' and pieces.generation_ts_us = generations.generation_ts_us

),

ranged as (

    select
        binned.*,
        range_bins.vnode_index,
        range_bins.range_start as token_range_start,
        range_bins.range_end as token_range_end,
        range_bins.shard_count,
        range_bins.ignore_msb,
        range_bins.streams
    from binned
    left join range_bins
        on
            binned.generation_ts_ms = range_bins.generation_ts_ms
            and binned.token_bin = range_bins.token_bin
            and binned.token between range_bins.piece_lo and range_bins.piece_hi

),

sharded as (

    select
        *,
        {{ cdc_shard_of('token', 'shard_count', 'ignore_msb') }} as shard
    from ranged

)

select
    *,
    element_at(streams, shard + 1) as stream_id,
    case when generation_ts_ms is not null then {{ cdc_timeuuid(
        'change_ts', 'xxhash64(keyspace_name, table_name, partition_key, write_id, change_ts)'
    ) }} end as cdc_time
from sharded
