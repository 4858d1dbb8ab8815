{#- The batch this build processes and the last processed write id (see _writes__models.yml). -#}
{{ config(materialized='table') }}
{%- do cdc_refuse_switched_log_sources(ref('stg_cdc_input__imported_log')) -%}
select
    coalesce(max(processed.batch_id), 0) + 1 as batch_id,
    max(processed.write_id) as last_processed_write_id
from {{ cdc_writes_processed_before() }} as processed
