{{ config(alias='sessions_changes', schema='shop') }}
{{ scylla_cdc_changes_table('shop', 'sessions') }}
