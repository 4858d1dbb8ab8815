"""dbt's ``exceptions`` for sqlfluff's jinja templater (which has no dbt context).

sqlfluff also renders the branches a real run never takes, to lint their SQL; a compiler
error there must render as nothing instead of stopping the lint."""


def raise_compiler_error(message: str) -> str:
    return ""
