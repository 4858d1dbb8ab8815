{% macro min_token() -%} shiftleft(1L, 63) {%- endmacro %}


{% macro max_token() -%} (shiftleft(1L, 63) - 1) {%- endmacro %}


{% macro token_bin(token, bin_bits) -%}
    {#- The token's coarse bin: the top `bin_bits` bits of the unbiased (unsigned, order-preserving)
        token. Bins turn the token range join into an equi-join whose cost does not grow
        with the number of ranges. -#}
    shiftrightunsigned({{ token }} ^ {{ min_token() }}, 64 - {{ bin_bits }})
{%- endmacro %}
