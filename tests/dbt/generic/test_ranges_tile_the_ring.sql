{% test ranges_tile_the_ring(model, column_name, range_start, group_by) %}
{#- Per group (a generation), the ranges `(range_start, column_name]` cover the whole token ring
    exactly once: each range starts where the previous one (by end) ends, exactly one range
    wraps around, and their lengths add up to 2^64. -#}
with

ordered as (

    select
        {{ group_by }} as ring,
        {{ range_start }} as range_start,
        {{ column_name }} as range_end,
        lag({{ column_name }}) over (partition by {{ group_by }} order by {{ column_name }}) as previous_end,
        max({{ column_name }}) over (partition by {{ group_by }}) as last_end
    from {{ model }}

),

measured as (

    select
        ring,
        count(*) as ranges,
        count_if(range_start >= range_end) as wrapping_ranges,
        count_if(range_start != coalesce(previous_end, last_end)) as misplaced_starts,
        sum(
            case
                when range_start < range_end
                    then cast(range_end as decimal(38, 0)) - cast(range_start as decimal(38, 0))
                else cast(18446744073709551616 as decimal(38, 0))
                    - (cast(range_start as decimal(38, 0)) - cast(range_end as decimal(38, 0)))
            end
        ) as covered_tokens
    from ordered
    group by ring

)

select * from measured
where
    wrapping_ranges != 1
    or misplaced_starts != 0
    or covered_tokens != cast(18446744073709551616 as decimal(38, 0))
{% endtest %}
