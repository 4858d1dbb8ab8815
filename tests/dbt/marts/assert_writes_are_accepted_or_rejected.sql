-- Every input write is accepted or rejected: input writes = accepted + rejected.
select *
from {{ ref('cdc_write_audit') }}
where input_writes != accepted_writes + rejected_writes
