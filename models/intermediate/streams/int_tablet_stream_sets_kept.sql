{#- The stream sets of each tablets table that garbage collection keeps (see _streams__models.yml). -#}
with

streams as (

    select * from {{ ref('int_tablet_streams') }}

),

base_tables as (

    -- the tables of tablets keyspaces the schemas hold (an imported export may list others)
    select * from {{ ref('int_base_tables_described') }}
    where is_latest_version and uses_tablets

),

clock as (

    -- the warehouse's clock: its newest write's coordinator time (null without writes: no GC)
    select max(coordinator_now_us) as now_us
    from {{ ref('stg_cdc_input__base_mutations') }}

),

sets as (

    select distinct
        keyspace_name,
        table_name,
        set_ts_ms,
        next_set_ts_us
    from streams

),

kept as (

    -- a set goes once its successor started at or before now minus the base table's CDC TTL
    -- (cdc = {'ttl': N}; 0: never); the newest set always stays
    select sets.*
    from sets
    inner join base_tables
        on sets.keyspace_name = base_tables.keyspace_name and sets.table_name = base_tables.table_name
    cross join clock
    where
        base_tables.cdc_ttl_seconds = 0
        or sets.next_set_ts_us is null
        or clock.now_us is null
        or sets.next_set_ts_us > clock.now_us - base_tables.cdc_ttl_seconds * 1000000

)

select
    *,
    -- null for the oldest set kept: ScyllaDB lists all its streams as opened
    lag(set_ts_ms) over (partition by keyspace_name, table_name order by set_ts_ms) as previous_set_ts_ms
from kept
