{{ config(alias='orders_state', schema='shop') }}
{{ scylla_cdc_state_table('shop', 'orders') }}
