{#- The CDC generations describe what a cluster could have built (docs/scylla/math.md §4): distinct
    timestamps, streams for each generation, one stream per (vnode, shard) with shards 0..n-1,
    vnodes whose ranges tile the token ring. Each problem row names the input table and row; any
    row fails the build before a log is written (cdclake prints them). With
    `cdc_generations_without_streams: unretrieved` a generation without streams is modelled as
    ScyllaDB's "known but not retrieved" generation instead (its writes are refused). -#}
with

generations as (

    select * from {{ ref('stg_cdc_input__generations') }}

),

streams as (

    select * from {{ ref('stg_cdc_input__generation_streams') }}

),

streams_per_generation as (

    select
        generation_ts_ms,
        count(*) as streams
    from streams
    group by generation_ts_ms

),

vnodes as (

    select
        generation_ts_ms,
        vnode_index,
        count(*) as streams,
        count(distinct shard) as shards,
        min(shard) as first_shard,
        max(shard) as last_shard,
        min(token_range_end) as range_end,
        max(token_range_end) as other_range_end,
        min(ignore_msb) as ignore_msb,
        max(ignore_msb) as other_ignore_msb
    from streams
    where vnode_index is not null and shard is not null and token_range_end is not null
    group by generation_ts_ms, vnode_index

),

vnodes_in_ring_order as (

    select
        *,
        row_number() over (partition by generation_ts_ms order by range_end, vnode_index) - 1 as ring_position,
        count(*) over (partition by generation_ts_ms, range_end) > 1 as shares_its_end,
        max(vnode_index) over (partition by generation_ts_ms, range_end) as other_vnode_index
    from vnodes

),

generations_with_shared_ends as (

    select distinct generation_ts_ms
    from vnodes_in_ring_order
    where shares_its_end

),

problems as (

    select 'cdc_input.cdc_generations: a row without generation_ts_ms' as problem
    from generations
    where generation_ts_ms is null

    union all

    select concat(
        'cdc_input.cdc_generations: generation ', generation_ts_ms, ' ms appears ', count(*),
        ' times (one row per generation)'
    ) as problem
    from generations
    where generation_ts_ms is not null
    group by generation_ts_ms
    having count(*) > 1

    {% if var('cdc_generations_without_streams') != 'unretrieved' %}
        union all

        select concat(
            'cdc_input.cdc_generation_streams: generation ', generations.generation_ts_ms,
            ' ms has no streams (load them, or set var cdc_generations_without_streams: unretrieved)'
        ) as problem
        from generations
        left anti join streams_per_generation
            on generations.generation_ts_ms = streams_per_generation.generation_ts_ms
    {% endif %}

    union all

    select concat(
        'cdc_input.cdc_generation_streams: ', count(*), ' streams of generation ',
        coalesce(streams.generation_ts_ms, 'null'), ' ms, which cdc_generations does not list'
    ) as problem
    from streams
    left anti join generations
        on streams.generation_ts_ms = generations.generation_ts_ms
    group by streams.generation_ts_ms

    union all

    select concat(
        'cdc_input.cdc_generation_streams: generation ', coalesce(generation_ts_ms, 'null'),
        ' ms vnode ', coalesce(vnode_index, 'null'), ' shard ', coalesce(shard, 'null'), ': ',
        case
            when vnode_index is null or shard is null or token_range_end is null or ignore_msb is null
                then 'vnode_index, shard, token_range_end and ignore_msb are all needed'
            when stream_id is null then 'stream_id is missing or not hexadecimal'
            when length(stream_id) != 16
                then concat('stream_id ', lower(hex(stream_id)), ' is not 16 bytes')
            when vnode_index < 0 or vnode_index >= 4194304 then 'vnode_index must be in [0, 2^22)'
            when ignore_msb < 0 or ignore_msb >= 64 then 'ignore_msb must be in [0, 64)'
        end
    ) as problem
    from streams
    where
        vnode_index is null or shard is null or token_range_end is null or ignore_msb is null
        or stream_id is null or length(stream_id) != 16
        or vnode_index < 0 or vnode_index >= 4194304
        or ignore_msb < 0 or ignore_msb >= 64

    union all

    select concat(
        'cdc_input.cdc_generation_streams: generation ', generation_ts_ms, ' ms: stream ',
        lower(hex(stream_id)), ' appears ', count(*), ' times'
    ) as problem
    from streams
    where stream_id is not null
    group by generation_ts_ms, stream_id
    having count(*) > 1

    union all

    select concat(
        'cdc_input.cdc_generation_streams: generation ', generation_ts_ms, ' ms vnode ', vnode_index, ': ',
        case
            when streams != shards or first_shard != 0 or last_shard != shards - 1
                then concat('its ', streams, ' streams are not one per shard 0..', streams - 1)
            when range_end != other_range_end
                then concat('its streams give two token_range_end values, ', range_end, ' and ', other_range_end)
            else concat('its streams give two ignore_msb values, ', ignore_msb, ' and ', other_ignore_msb)
        end
    ) as problem
    from vnodes
    where
        streams != shards or first_shard != 0 or last_shard != shards - 1
        or range_end != other_range_end or ignore_msb != other_ignore_msb

    union all

    select concat(
        'cdc_input.cdc_generation_streams: generation ', generation_ts_ms, ' ms vnodes ', vnode_index, ' and ',
        other_vnode_index, ' both end at token ', range_end, ': the ranges do not tile the token ring'
    ) as problem
    from vnodes_in_ring_order
    where shares_its_end and vnode_index != other_vnode_index

    union all

    select concat(
        'cdc_input.cdc_generation_streams: generation ', vnodes.generation_ts_ms, ' ms vnode ', vnodes.vnode_index,
        ': vnode indexes follow the ring (by token_range_end), this range is at position ', vnodes.ring_position
    ) as problem
    from vnodes_in_ring_order as vnodes
    left anti join generations_with_shared_ends
        on vnodes.generation_ts_ms = generations_with_shared_ends.generation_ts_ms
    where vnodes.vnode_index != vnodes.ring_position

)

select * from problems
