-- Every change group of an accepted write has its log rows: a write is accepted only if it
-- produced all its change groups (a group with no rows would be a silently lost change).
select change_groups.*
from (
    select distinct write_id, keyspace_name, table_name, partition_key, change_ts
    from {{ ref('int_batch_atoms') }}
    where write_status = 'accepted' and cdc_enabled
) as change_groups
left anti join {{ ref('int_log_rows') }} as log_rows
    on
        change_groups.write_id = log_rows.write_id
        and change_groups.keyspace_name = log_rows.keyspace_name
        and change_groups.table_name = log_rows.table_name
        and change_groups.partition_key = log_rows.partition_key
        and change_groups.change_ts = log_rows.change_ts
