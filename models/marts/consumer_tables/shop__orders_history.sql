{{ config(alias='orders_history', schema='shop') }}
{{ scylla_cdc_history_table('shop', 'orders') }}
