-- The round trip CDC replicators are tested with: replaying each table's log deltas (the way a
-- replicator applies them, timestamps taken from cdc$time) rebuilds the base-table state computed
-- directly from the accepted mutations, cell by cell, with write timestamps and TTLs.
-- Checked batch by batch, on the partitions the batch writes: the log's write facts of every
-- batch (int_log_replay_facts, the facts the consumer state is built from) must give the state
-- the batch's mutations give on the state carried from earlier batches (int_base_state, before
-- this build merges the batch in). Tables with `delta: keys` are left out (their log carries
-- no values), and so are those with a log loaded by `cdclake load log` (their facts are its).
-- Returns the cells on which the two states differ.
with

replayable_tables as (

    select tables.*
    from {{ cdc_replayable_tables(ref('int_base_tables_described')) }} as tables
    left anti join {{ cdc_imported_log_tables(ref('stg_cdc_input__imported_log')) }} as imported_tables
        on tables.keyspace_name = imported_tables.keyspace_name and tables.table_name = imported_tables.table_name

),

base_columns as (

    select * from {{ cdc_newest_base_columns(ref('int_base_columns_described')) }} as base_columns

),

-- the state from the mutations ------------------------------------------------------------

batch_logged_atoms as (

    select * from {{ cdc_batch_state_atoms(ref('int_batch_atoms')) }} as batch
    where batch.cdc_enabled

),

logged_atoms as (

    -- the batch's accepted atoms of CDC-enabled schema versions, and the carried state's of
    -- the partitions they write (elsewhere the earlier batches' checks hold)
    select * from {{ cdc_batch_and_carried_atoms('batch_logged_atoms', ref('int_build_batch')) }} as atoms
    where atoms.cdc_enabled

),

logged_facts as (

    select
        atoms.is_carried,
        atoms.keyspace_name,
        atoms.table_name,
        {{ cdc_json_object(cdc_udf('cdc_json_members') ~ '(atoms.partition_key)') }} as partition_id,
        coalesce(atoms.column_kind = 'static', false) as is_static,
        if(coalesce(atoms.column_kind = 'static', false), X'', atoms.clustering_position) as row_position,
        atoms.atom_kind as fact_kind,
        atoms.column_name,
        {{ cdc_json_text('atoms.element_key') }} as element_key,
        coalesce(atoms.is_live, false) as is_live,
        {{ cdc_json_text('atoms.value') }} as value,
        atoms.write_timestamp as ts,
        if(atoms.is_live, nullif(atoms.ttl_seconds, 0), null) as ttl,
        atoms.clustering_position as start_position,
        atoms.range_end_position as end_position
    from logged_atoms as atoms
    inner join replayable_tables
        on
            atoms.keyspace_name = replayable_tables.keyspace_name
            and atoms.table_name = replayable_tables.table_name
    -- the log has no column for the hidden value column of a dense COMPACT STORAGE table
    left anti join base_columns as unlogged_columns
        on
            atoms.keyspace_name = unlogged_columns.keyspace_name
            and atoms.table_name = unlogged_columns.table_name
            and atoms.column_name = unlogged_columns.column_name
            and not unlogged_columns.is_logged

),

mutation_facts as (

    select
        keyspace_name, table_name, partition_id, is_static, row_position, fact_kind, column_name,
        element_key, is_live, value, ts, ttl, start_position, end_position
    from logged_facts

),

batch_partitions as (

    select distinct
        keyspace_name,
        table_name,
        partition_id
    from logged_facts
    where not is_carried

),

{{ cdc_live_cells('mutation_facts', 'mutation_state') }},

-- the state from the log ------------------------------------------------------------------

log_facts as (

    select facts.*
    from {{ ref('int_log_replay_facts') }} as facts
    left semi join batch_partitions
        on
            facts.keyspace_name = batch_partitions.keyspace_name
            and facts.table_name = batch_partitions.table_name
            and facts.partition_id = batch_partitions.partition_id

),

{{ cdc_live_cells('log_facts', 'log_state') }}

{{ cdc_cell_differences('mutation_state', 'log_state', 'from_mutations', 'from_log') }}
