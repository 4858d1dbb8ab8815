{#- The batch: the input atoms of the writes not yet processed (see _writes__models.yml). -#}
select input_atoms.*
from {{ ref('stg_cdc_input__base_mutations') }} as input_atoms
left anti join {{ cdc_writes_processed_before() }} as processed
    on input_atoms.write_id = processed.write_id
