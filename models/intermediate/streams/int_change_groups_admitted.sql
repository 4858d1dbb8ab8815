{#- The batch's pieces with their change group's admission verdict (see _streams__models.yml). -#}
with

pieces as (

    select * from {{ ref('int_mutation_atoms_keyed') }}

),

generations as (

    select * from {{ cdc_known_generations(ref('int_generations_described')) }} as known

),

judged as (

    select
        pieces.*,
        case
            when pieces.write_problem is null and pieces.cdc_enabled then {{ cdc_admission_verdict(
                'pieces.change_ts', 'pieces.write_coordinator_now_us', 'generations') }}
        end as verdict,
        case when pieces.write_problem is null and pieces.cdc_enabled then {{ cdc_generation_at(
            'generations.generation_timestamps', 'pieces.change_ts') }} end as operating_generation_us,
        case when pieces.write_problem is null and pieces.cdc_enabled then {{ cdc_generation_at(
            'generations.generation_timestamps', 'pieces.write_coordinator_now_us') }} end as now_generation_us
    from pieces
    cross join generations

)

select
    *,
    if(verdict = 'ok', operating_generation_us, null) as generation_ts_us,
    {{ cdc_admission_error_class('verdict') }} as error_class,
    {{ cdc_admission_error_text(
        'verdict', 'change_ts', 'write_coordinator_now_us',
        "if(verdict = 'earlier', now_generation_us, operating_generation_us)"
    ) }} as error_text
from judged
