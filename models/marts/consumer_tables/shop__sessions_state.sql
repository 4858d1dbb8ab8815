{{ config(alias='sessions_state', schema='shop') }}
{{ scylla_cdc_state_table('shop', 'sessions') }}
