{% macro scylla_format_timestamp(micros) -%}
    {#- format_timestamp() of cdc/metadata.cc: UTC `YYYY/MM/DD HH:MM:SS` (scylla-math.md §6.3) -#}
    date_format(timestamp_micros({{ micros }}), 'yyyy/MM/dd HH:mm:ss')
{%- endmacro %}


{% macro cdc_admission_error_text(verdict, ts, now, gen) -%}
    {#- The exact error text ScyllaDB returns for a rejected write (scylla-math.md §6.3). -#}
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
        when {{ verdict }} in ('not_found', 'not_found_old', 'unretrieved') then 'ServerError'
    end
{%- endmacro %}
