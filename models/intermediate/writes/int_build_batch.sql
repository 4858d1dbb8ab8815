{#- The batch this build processes: its number (1 for the first build and for --full-refresh)
    and the last write id earlier builds processed, which every new write must exceed. A build
    that would append a table's facts to those of another log stops here, before it writes
    anything of the batch (`cdc_refuse_switched_log_sources`). -#}
{{ config(materialized='table') }}
{%- do cdc_refuse_switched_log_sources() -%}
select
    coalesce(max(processed.batch_id), 0) + 1 as batch_id,
    max(processed.write_id) as last_processed_write_id
from {{ cdc_writes_processed_before() }} as processed
