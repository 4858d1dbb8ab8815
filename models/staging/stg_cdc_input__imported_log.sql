{#- A real cluster's CDC log loaded with `cdclake load log` (see _staging__models.yml). -#}
with

source as (

    {% if cdc_relation_exists(source('cdc_input', 'imported_log')) -%}
        select * from {{ source('cdc_input', 'imported_log') }}
    {%- else -%}
        select
            cast(null as string) as keyspace_name,
            cast(null as string) as table_name,
            cast(null as binary) as `cdc$stream_id`,
            cast(null as string) as `cdc$time`,
            cast(null as int) as `cdc$batch_seq_no`,
            cast(null as tinyint) as `cdc$operation`,
            cast(null as bigint) as `cdc$ttl`,
            cast(null as boolean) as `cdc$end_of_batch`,
            cast(null as string) as column_name,
            cast(null as string) as value,
            cast(null as string) as source_line
        where false
    {%- endif %}

),

renamed as (

    select
        cast(keyspace_name as string) as keyspace_name,
        cast(table_name as string) as table_name,
        cast(`cdc$stream_id` as binary) as `cdc$stream_id`,
        lower(cast(`cdc$time` as string)) as `cdc$time`,
        cast(`cdc$batch_seq_no` as int) as `cdc$batch_seq_no`,
        cast(`cdc$operation` as tinyint) as `cdc$operation`,
        cast(`cdc$ttl` as bigint) as `cdc$ttl`,
        cast(`cdc$end_of_batch` as boolean) as `cdc$end_of_batch`,
        cast(column_name as string) as column_name,
        cast(value as string) as value,
        cast(source_line as string) as source_line
    from source

)

select * from renamed
