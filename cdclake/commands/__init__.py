"""Every ``cdclake`` command: its group, its one-line help and the function that runs it (a
``main(argv) -> exit status`` of its module, imported when the command runs). ``cdclake --help``
lists them from here; each command's own ``--help`` says the rest."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    name: str
    group: str
    usage: str
    help: str
    target: str          # "module:function", called with the arguments after the command's name


COMMANDS = [
    Command("load", "your keyspace", "load schema|cql|snapshot|log|example ...",
            "your schemas, writes, table exports, a cluster's logs, or the example, into cdc_input",
            "cdclake.load_cli:main"),
    Command("generations", "your keyspace", "generations build HISTORY.yml | import --descriptions V2.csv ...",
            "the CDC generations of a cluster history or of a real cluster's exports", "cdclake.generations_cli:main"),
    Command("status", "your keyspace", "status", "what the warehouse holds: tables, writes, generations, builds",
            "cdclake.status:main"),
    Command("build", "building", "build|run|test|seed|compile|docs generate|... [dbt flags]",
            "the dbt command on embedded Spark (log models written first, a summary after a build)",
            "cdclake.commands.dbt_command:run_dbt"),
    Command("generate", "building", "generate",
            "the log and consumer table models and the UDF macros in target/generated/ (plain dbt: run it first)",
            "cdclake.commands.dbt_command:generate_main"),
    Command("replay", "building", "replay SCRIPT.cql [--schema-from-warehouse] [--now US] [--format jsonl|table] ...",
            "a CQL script's CDC log, built in a scratch warehouse", "cdclake.commands.replay_command:replay_main"),
    Command("sql", "using the outputs", 'sql ["QUERY" | KS.TABLE] [--format table|jsonl] [--limit N]',
            "Spark SQL on the warehouse (no argument: a shell)", "cdclake.sql_shell:main"),
    Command("check", "using the outputs", "check [--docs-dir DIR] [--only DATASET]",
            "the Great Expectations suite on the last build's outputs", "cdclake.check:main"),
    Command("report", "using the outputs", "report [--out PATH]",
            "a static HTML page with pictures of the last build", "cdclake.report:main"),
    Command("docs serve", "using the outputs", "docs generate | docs serve [--port N] [--no-browser]",
            "the lineage site (dbt docs) of the last build", "cdclake.commands.dbt_command:run_dbt"),
    Command("serve", "using the outputs", "serve [--host 127.0.0.1] [--port 10000]",
            "a Spark Thrift server on the warehouse, UDFs registered", "cdclake.serve:serve_main"),
]
BY_NAME = {command.name: command for command in COMMANDS if command.name != "docs serve"}
GLOBAL_OPTIONS = """\
options before the command:
  --master URL     a Spark cluster's master (default CDCLAKE_SPARK_MASTER, else local[*])
  --verbose, -v    Spark's own log lines and cdclake's choices (table format, planning) too"""


def command_for(argv: list[str]) -> tuple[Command, list[str]]:
    """The command of a command line and the arguments it gets: any word that is not a cdclake
    command is a dbt command (with its own arguments)."""
    command = BY_NAME.get(argv[0]) if argv else None
    if command is None:
        return BY_NAME["build"], argv
    return command, (argv if command.name == "build" else argv[1:])


def run(command: Command, argv: list[str]) -> int:
    import importlib

    module, function = command.target.split(":")
    return getattr(importlib.import_module(module), function)(argv)


def help_text() -> str:
    lines = ["usage: cdclake [--master URL] [--verbose] COMMAND ...", ""]
    for group in dict.fromkeys(c.group for c in COMMANDS):
        lines.append(f"{group}:")
        lines += [f"  {c.usage}\n      {c.help}" for c in COMMANDS if c.group == group]
        lines.append("")
    return "\n".join(lines + [GLOBAL_OPTIONS, "", "COMMAND --help says more about each."])
