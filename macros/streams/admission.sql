{% macro scylla_format_timestamp(micros) -%}
    {#- format_timestamp() of cdc/metadata.cc: UTC `YYYY/MM/DD HH:MM:SS` (docs/scylla/math.md §6.3) -#}
    date_format(timestamp_micros({{ micros }}), 'yyyy/MM/dd HH:mm:ss')
{%- endmacro %}


{% macro cdc_admission_error_text(verdict, ts, now, gen, log_table_id='null') -%}
    {#- The exact error text ScyllaDB returns for a rejected write (docs/scylla/math.md §6.3;
        `no_streams`, a tablets table's: docs/scylla/tablets.md §3). -#}
    case {{ verdict }}
        when 'future' then concat(
            'cdc: attempted to get a stream "from the future" (', {{ scylla_format_timestamp(ts) }},
            '; current server time: ', {{ scylla_format_timestamp(now) }},
            '). With CDC you cannot send writes with timestamps arbitrarily into the future, because we don\'t know what streams will be used at that time.\n',
            'We *do* allow sending writes into the near future, but our ability to do that is limited. If you really must use your own timestamps, then make sure your clocks are well-synchronized  with the database\'s clocks.'
        )
        when 'past' then concat(
            'cdc: attempted to get a stream "from the past" (', {{ scylla_format_timestamp(ts) }},
            '; current server time: ', {{ scylla_format_timestamp(now) }},
            '). With CDC you cannot send writes with timestamps too far into the past, because that would break consistency properties.\n',
            'We *do* allow sending writes into the near past, but our ability to do that is limited. Are you using client-side timestamps? Make sure your clocks are well-synchronized with the database\'s clocks.'
        )
        when 'earlier' then concat(
            'cdc: attempted to get a stream from an earlier generation than the currently used one. With CDC you cannot send writes with timestamps too far into the past, because that would break consistency properties (write timestamp: ',
            {{ scylla_format_timestamp(ts) }}, ', current generation started at: ', {{ scylla_format_timestamp(gen) }}, ')'
        )
        when 'not_found' then concat(
            'cdc::metadata::get_stream: could not find any CDC stream for timestamp ',
            {{ scylla_format_timestamp(ts) }}, '. Are we in the middle of a cluster upgrade?'
        )
        when 'unretrieved' then concat(
            'cdc: attempted to get a stream from a generation that we know about, but weren\'t able to retrieve (generation timestamp: ',
            {{ scylla_format_timestamp(gen) }}, ', write timestamp: ', {{ scylla_format_timestamp(ts) }},
            '). Make sure that the replicas which contain this generation\'s data are alive and reachable from this node.'
        )
        when 'no_streams' then concat(
            'cdc::metadata::get_stream: could not find any CDC streams for table ', {{ log_table_id }},
            ' for timestamp ', {{ ts }}, '.'
        )
        when 'not_found_old' then concat(
            'cdc::metadata::get_stream: could not find any CDC stream (current time: ',
            {{ scylla_format_timestamp(now) }}, '). Are we in the middle of a cluster upgrade?'
        )
    end
{%- endmacro %}


{% macro cdc_admission_error_class(verdict) -%}
    {#- What a client sees: InvalidRequest, or ServerError for the runtime_error cases. -#}
    case
        when {{ verdict }} in ('future', 'past', 'earlier') then 'InvalidRequest'
        when {{ verdict }} in ('not_found', 'not_found_old', 'unretrieved', 'no_streams') then 'ServerError'
    end
{%- endmacro %}


{% macro cdc_admission_verdict(change_ts, now_us, generations) -%}
    {#- ScyllaDB's admission verdict for a change timestamp `change_ts` written at the coordinator's
        clock `now_us` (cdc::metadata::get_stream, docs/scylla/math.md §6.1; §6.2 with var
        cdc_admission_rule = 'pre_2024'): ok, future, past, not_found, unretrieved (current rule),
        or future, not_found_old, earlier, unretrieved (pre-2024). `generations`: an alias of a
        row with `generation_timestamps` (sorted µs) and `unretrieved_timestamps` (those without
        streams in the input), see int_change_groups_admitted. -#}
    {%- set leeway = var('cdc_generation_leeway_us') -%}
    {%- set rule = var('cdc_admission_rule') -%}
    {%- if rule not in ('current', 'pre_2024') -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_admission_rule must be 'current' or 'pre_2024', got '" ~ rule ~ "'"
        ) }}
    {%- endif -%}
    {%- set gens = generations ~ '.generation_timestamps' -%}
    {%- set operating = cdc_generation_at(gens, change_ts) -%}
    {%- if rule == 'pre_2024' -%}
        case
            when {{ change_ts }} > {{ now_us }} + {{ leeway }} then 'future'
            when {{ cdc_generation_at(gens, now_us) }} is null then 'not_found_old'
            when {{ cdc_generation_at(gens, now_us) }} > {{ change_ts }} then 'earlier'
            when array_contains({{ generations }}.unretrieved_timestamps, {{ operating }}) then 'unretrieved'
            else 'ok'
        end
    {%- else -%}
        {%- set leeway_generation = cdc_generation_at(gens, now_us ~ ' - ' ~ leeway) -%}
        case
            when {{ change_ts }} > {{ now_us }} + {{ leeway }} then 'future'
            when
                {{ change_ts }} <= {{ now_us }} - {{ leeway }}
                and (
                    {{ leeway_generation }} is null
                    or {{ change_ts }} < {{ leeway_generation }}
                    -- the generation of now - leeway was already succeeded by now
                    or array_min(filter({{ gens }}, later -> later > {{ leeway_generation }})) <= {{ now_us }}
                )
                then 'past'
            when
                coalesce({{ leeway_generation }}, {{ gens }}[0]) is null
                or {{ change_ts }} < coalesce({{ leeway_generation }}, {{ gens }}[0])
                then 'not_found'
            when array_contains({{ generations }}.unretrieved_timestamps, {{ operating }}) then 'unretrieved'
            else 'ok'
        end
    {%- endif -%}
{%- endmacro %}


{% macro cdc_tablet_admission_verdict(change_ts, now_us, tablet_table) -%}
    {#- ScyllaDB's verdict for a write to a table of a tablets keyspace (cdc::metadata::get_stream
        with a table id, docs/scylla/tablets.md §3, §8): `future` as for vnodes; no rule for the
        past; `no_streams` when no stream set still kept is old enough. `tablet_table`: an alias of
        a row with `set_timestamps` (sorted µs) and `cdc_ttl_seconds`: garbage collection has
        dropped every set whose successor started at or before the write's now minus that TTL
        (0: none). -#}
    {%- set sets = tablet_table ~ '.set_timestamps' -%}
    {%- set ttl_us = tablet_table ~ '.cdc_ttl_seconds * 1000000' -%}
    {%- set oldest_kept -%}
        if({{ tablet_table }}.cdc_ttl_seconds = 0, {{ sets }}[0],
            coalesce({{ cdc_generation_at(sets, now_us ~ ' - ' ~ ttl_us) }}, {{ sets }}[0]))
    {%- endset -%}
    case
        when {{ change_ts }} > {{ now_us }} + {{ var('cdc_generation_leeway_us') }} then 'future'
        when
            coalesce({{ cdc_generation_at(sets, change_ts) }} < {{ oldest_kept }}, true)
            then 'no_streams'
        else 'ok'
    end
{%- endmacro %}


{% macro cdc_generation_at(generation_timestamps, ts) -%}
    {#- The last of the sorted generation timestamps at or before `ts` (null: none). -#}
    array_max(filter({{ generation_timestamps }}, generation -> generation <= {{ ts }}))
{%- endmacro %}


{% macro cdc_known_generations(generations) -%}
    {#- A one-row subquery of the generations the admission verdict knows, from a relation with
        `generation_ts_us` and `range_count` (int_generations_described): `generation_timestamps`
        (sorted) and `unretrieved_timestamps`, those whose streams are not in the input ("known but
        not retrieved"). -#}
    (
        select
            coalesce(sort_array(collect_list(generation_ts_us)), array()) as generation_timestamps,
            coalesce(collect_list(if(range_count = 0, generation_ts_us, null)), array()) as unretrieved_timestamps
        from {{ generations }}
    )
{%- endmacro %}
