{% test changes_are_logged(model, keyspace_name, table_name) %}
    {#- Every change of a change feed, but a TTL's expiry, names a log row of its table
        (`cdc$time`, `cdc$batch_seq_no`) with its operation (the TTL service's -3, -4 as 3, 4),
        in the log the table's consumer tables replay (an imported one, if loaded). -#}
with

log_rows as (

    select distinct
        `cdc$time`,
        `cdc$batch_seq_no`,
        abs(`cdc$operation`) as operation
    from {{ cdc_replayed_log(ref('int_log_written'), ref('stg_cdc_input__imported_log')) }} as replayed
    where keyspace_name = '{{ keyspace_name }}' and table_name = '{{ table_name }}'

)

select changes.*
from (select * from {{ model }}) as changes
left anti join log_rows
    on
        changes.`cdc$time` = log_rows.`cdc$time`
        and changes.`cdc$batch_seq_no` = log_rows.`cdc$batch_seq_no`
        and changes.`cdc$operation` = log_rows.operation
where not changes.`cdc$is_expiry`
{% endtest %}
