{{ config(alias='inventory_changes', schema='shop') }}
{{ scylla_cdc_changes_table('shop', 'inventory') }}
