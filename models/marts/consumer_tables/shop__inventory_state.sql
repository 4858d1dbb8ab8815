{{ config(alias='inventory_state', schema='shop') }}
{{ scylla_cdc_state_table('shop', 'inventory') }}
