{#- Writes ScyllaDB would have rejected, or that cannot be processed, with the reason and the
    exact error text a client would have seen. Nothing is dropped silently: every input write
    is either here or accepted (see cdc_write_audit). -#}
with

writes as (

    select * from {{ ref('int_writes_admitted') }}

)

select
    write_id,
    keyspace_name,
    table_name,
    partition_key,
    atom_kind,
    column_name,
    change_ts as write_timestamp,
    coordinator_now_us,
    reason,
    error_class,
    error_text
from writes
where status = 'rejected'
