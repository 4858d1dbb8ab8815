{{ config(alias='inventory_history', schema='shop') }}
{{ scylla_cdc_history_table('shop', 'inventory') }}
