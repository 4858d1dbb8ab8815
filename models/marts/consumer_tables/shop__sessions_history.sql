{{ config(alias='sessions_history', schema='shop') }}
{{ scylla_cdc_history_table('shop', 'sessions') }}
