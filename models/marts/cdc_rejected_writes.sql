{#- The writes that were not logged, with the reason and error text (see _marts__models.yml). -#}
{{ config(materialized='view') }}
with

writes as (

    select * from {{ ref('cdc_processed_writes') }}

),

last_batch as (

    select max(batch_id) as batch_id from writes

)

select
    writes.write_id,
    writes.keyspace_name,
    writes.table_name,
    writes.partition_key,
    writes.atom_kind,
    writes.column_name,
    writes.change_ts as write_timestamp,
    writes.coordinator_now_us,
    writes.reason,
    writes.error_class,
    writes.error_text
from writes
left semi join last_batch
    on writes.write_id is not null or writes.batch_id = last_batch.batch_id
where writes.status = 'rejected'
