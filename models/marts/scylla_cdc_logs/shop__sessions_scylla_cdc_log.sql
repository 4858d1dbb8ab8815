{{ config(alias='sessions_scylla_cdc_log', schema='shop') }}
{{ scylla_cdc_log_table('shop', 'sessions') }}
