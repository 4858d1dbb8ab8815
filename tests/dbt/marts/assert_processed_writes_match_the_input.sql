-- Every input write is processed once, whole: a write id of the input is in the ledger with the
-- atoms the input has for it. Atoms appended later under a processed write id, or an input
-- replaced by other writes under the same ids, show here (rebuild with --full-refresh).
-- Writes processed earlier and since removed from the input (retention) are fine.
-- A whole-table check: `cdclake check` runs it (tag whole_table), builds do not.
{{ config(tags=['whole_table']) }}
with

input_writes as (

    select
        write_id,
        count(*) as input_atoms
    from {{ ref('stg_cdc_input__base_mutations') }}
    where write_id is not null
    group by write_id

)

select
    input_writes.write_id,
    input_writes.input_atoms,
    processed.atom_count as processed_atoms,
    processed.batch_id,
    case
        when processed.write_id is null then concat('write ', input_writes.write_id, ' was not processed')
        else concat(
            'write ', input_writes.write_id, ' has ', input_writes.input_atoms, ' atoms in the input but had ',
            processed.atom_count, ' when batch ', processed.batch_id,
            ' processed it: rebuild with --full-refresh'
        )
    end as problem
from input_writes
left join {{ ref('cdc_processed_writes') }} as processed
    on input_writes.write_id = processed.write_id
where not (input_writes.input_atoms <=> processed.atom_count)
