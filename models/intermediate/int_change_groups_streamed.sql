{#- Each change group of an accepted write placed in its stream: the token range of the
    operating generation that holds the partition's token (a binned equi-join), the shard of
    the token within that range's node, and that shard's stream (cdc/metadata.cc get_stream,
    scylla-math.md §5). Also the group's `cdc$time`: a timeuuid of the change timestamp whose
    random bits are a hash of the group's identity (scylla-log.md §6.1). -#}
with

accepted_writes as (

    select write_id from {{ ref('int_writes_admitted') }}
    where status = 'accepted'

),

change_groups as (

    select change_groups.*
    from {{ ref('int_change_groups_admitted') }} as change_groups
    inner join accepted_writes
        on change_groups.write_id = accepted_writes.write_id

),

partitions as (

    select * from {{ ref('int_mutation_partitions_tokenized') }}

),

generations as (

    select * from {{ ref('int_generations_described') }}

),

range_bins as (

    select * from {{ ref('int_token_range_bins') }}

),

binned as (

    select
        change_groups.write_id,
        change_groups.keyspace_name,
        change_groups.table_name,
        change_groups.partition_key,
        change_groups.change_ts,
        change_groups.generation_ts_us,
        generations.generation_ts_ms,
        partitions.token,
        {{ token_bin('partitions.token', 'generations.bin_bits') }} as token_bin
    from change_groups
    inner join partitions
        on
            change_groups.write_id = partitions.write_id
            and change_groups.keyspace_name = partitions.keyspace_name
            and change_groups.table_name = partitions.table_name
            and change_groups.partition_key = partitions.partition_key
    inner join generations
        on change_groups.generation_ts_us = generations.generation_ts_us

),

ranged as (

    select
        binned.*,
        range_bins.vnode_index,
        range_bins.range_start,
        range_bins.range_end,
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
        {{ cdc_udf('cdc_shard_of') }}(token, cast(shard_count as int), ignore_msb) as shard
    from ranged

)

select
    write_id,
    keyspace_name,
    table_name,
    partition_key,
    change_ts,
    token,
    generation_ts_ms,
    vnode_index,
    range_start,
    range_end,
    shard_count,
    ignore_msb,
    shard,
    element_at(streams, shard + 1) as stream_id,
    {{ cdc_udf('cdc_timeuuid') }}(change_ts, xxhash64(keyspace_name, table_name, partition_key, write_id, change_ts))
        as cdc_time
from sharded
