{#- The ledger: every write a build processed, with its verdict (see _marts__models.yml). -#}
-- depends_on: {{ ref('int_base_state') }}
-- depends_on: {{ ref('cdc_write_audit') }}
{{ config(materialized='incremental', incremental_strategy='append') }}

select
    batch.batch_id,
    writes.write_id,
    writes.coordinator_now_us,
    writes.atom_count,
    writes.status,
    writes.reason,
    writes.error_class,
    writes.error_text,
    writes.keyspace_name,
    writes.table_name,
    writes.partition_key,
    writes.atom_kind,
    writes.column_name,
    writes.change_ts,
    writes.change_groups
from {{ cdc_batch_writes(ref('int_batch_atoms')) }} as writes
cross join {{ ref('int_build_batch') }} as batch
{% if is_incremental() %}
    -- a build that stopped after this table: nothing to add for the writes already here
    left anti join {{ this }} as processed
        on writes.write_id = processed.write_id
{% endif %}
