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

tablet_streams as (

    select * from {{ ref('int_tablet_streams') }}

),

tablet_sets as (

    select distinct
        keyspace_name,
        table_name,
        set_ts_ms,
        set_ts_us,
        bin_bits
    from tablet_streams

),

tablet_bins as (

    select
        tablet_streams.keyspace_name,
        tablet_streams.table_name,
        tablet_streams.set_ts_ms,
        tablet_streams.first_token,
        tablet_streams.last_token,
        tablet_streams.stream_id,
        bins.token_bin
    from tablet_streams
        lateral view explode(tablet_streams.token_bins) bins as token_bin

),

binned as (

    -- a vnode table's write in its generation, a tablets table's in its table's stream set
    select
        pieces.*,
        coalesce(generations.generation_ts_ms, tablet_sets.set_ts_ms) as generation_ts_ms,
        {{ token_bin('pieces.token', 'coalesce(generations.bin_bits, tablet_sets.bin_bits)') }} as token_bin
    from pieces
    left join generations
        on
            pieces.write_status = 'accepted' and not pieces.uses_tablets
            and pieces.generation_ts_us = generations.generation_ts_us
    left join tablet_sets
        on
            pieces.write_status = 'accepted' and pieces.uses_tablets
            and pieces.keyspace_name = tablet_sets.keyspace_name
            and pieces.table_name = tablet_sets.table_name
            and pieces.generation_ts_us = tablet_sets.set_ts_us

),

ranged as (

    select
        binned.*,
        range_bins.vnode_index,
        range_bins.range_start as token_range_start,
        range_bins.range_end as token_range_end,
        range_bins.shard_count,
        range_bins.ignore_msb,
        range_bins.streams,
        -- a tablets table's stream: the first of its set whose token is >= the write's
        tablet_bins.stream_id as tablet_stream_id
    from binned
    left join range_bins
        on
            not binned.uses_tablets
            and binned.generation_ts_ms = range_bins.generation_ts_ms
            and binned.token_bin = range_bins.token_bin
            and binned.token between range_bins.piece_lo and range_bins.piece_hi
    left join tablet_bins
        on
            binned.uses_tablets
            and binned.keyspace_name = tablet_bins.keyspace_name
            and binned.table_name = tablet_bins.table_name
            and binned.generation_ts_ms = tablet_bins.set_ts_ms
            and binned.token_bin = tablet_bins.token_bin
            and binned.token between tablet_bins.first_token and tablet_bins.last_token

),

sharded as (

    select
        *,
        -- no shard for a tablets table: its stream is the tablet's
        case when not uses_tablets then {{ cdc_shard_of('token', 'shard_count', 'ignore_msb') }} end as shard
    from ranged

)

select
    *,
    if(uses_tablets, tablet_stream_id, element_at(streams, shard + 1)) as stream_id,
    case when generation_ts_ms is not null then {{ cdc_timeuuid(
        'change_ts', 'xxhash64(keyspace_name, table_name, partition_key, write_id, change_ts)'
    ) }} end as cdc_time
from sharded
