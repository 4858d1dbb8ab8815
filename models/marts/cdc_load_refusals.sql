{#- What the loads refused before anything reached the inputs (see _marts__models.yml). -#}
{{ config(materialized='view') }}
with

refusals as (

    {% if cdc_relation_exists(source('cdc_input', 'load_refusals')) -%}
        select * from {{ source('cdc_input', 'load_refusals') }}
    {%- else -%}
        select
            cast(null as bigint) as refused_at_us,
            cast(null as string) as command,
            cast(null as string) as file_name,
            cast(null as int) as line_number,
            cast(null as int) as column_number,
            cast(null as string) as statement_text,
            cast(null as string) as reason
        where false
    {%- endif %}

)

select
    cast(refused_at_us as bigint) as refused_at_us,
    cast(command as string) as command,
    cast(file_name as string) as file_name,
    cast(line_number as int) as line_number,
    cast(column_number as int) as column_number,
    cast(statement_text as string) as statement_text,
    cast(reason as string) as reason
from refusals
