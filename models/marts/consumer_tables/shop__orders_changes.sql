{{ config(alias='orders_changes', schema='shop') }}
{{ scylla_cdc_changes_table('shop', 'orders') }}
