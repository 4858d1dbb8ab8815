{#- Each token range cut into the token bins of the range join (see _streams__models.yml). -#}
{{ config(materialized='table') }}
with

token_ranges as (

    select * from {{ ref('int_token_ranges') }}

),

generations as (

    select * from {{ ref('int_generations_described') }}

),

pieces as (

    select
        token_ranges.*,
        generations.bin_bits,
        range_pieces.piece
    from token_ranges
    inner join generations
        on token_ranges.generation_ts_ms = generations.generation_ts_ms
        lateral view explode(
            case
                when not token_ranges.is_wrapping
                    then array(named_struct('lo', token_ranges.range_start + 1, 'hi', token_ranges.range_end))
                when token_ranges.range_start = {{ max_token() }}
                    then array(named_struct('lo', {{ min_token() }}, 'hi', token_ranges.range_end))
                else array(
                    named_struct('lo', token_ranges.range_start + 1, 'hi', {{ max_token() }}),
                    named_struct('lo', {{ min_token() }}, 'hi', token_ranges.range_end)
                )
            end
        ) range_pieces as piece

),

binned as (

    select
        pieces.generation_ts_ms,
        pieces.vnode_index,
        pieces.range_start,
        pieces.range_end,
        pieces.shard_count,
        pieces.ignore_msb,
        pieces.streams,
        piece.lo as piece_lo,
        piece.hi as piece_hi,
        piece_bins.token_bin
    from pieces
        lateral view explode(
            sequence({{ token_bin('piece.lo', 'bin_bits') }}, {{ token_bin('piece.hi', 'bin_bits') }})
        ) piece_bins as token_bin

)

select * from binned
