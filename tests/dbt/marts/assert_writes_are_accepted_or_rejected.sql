-- Every input write is logged, needs no log (CDC off), or is rejected, and every accepted write
-- is one of the first two: input = logged + not logged + rejected, accepted = logged + not logged.
select *
from {{ ref('cdc_write_audit') }}
where
    input_writes != logged_writes + unlogged_writes + rejected_writes
    or accepted_writes != logged_writes + unlogged_writes
