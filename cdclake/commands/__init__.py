"""Every ``cdclake`` command and the one parser of its command line.

A command is a module of this package with ``configure(parser)`` (its options, on its
sub-parser) and ``run(args) -> exit status``. The dbt commands (``build``, ``run``, ``test``,
``docs`` ...) go to dbt whole: dbt parses their options. ``cdclake --help`` lists the commands
grouped as a user meets them; ``cdclake COMMAND --help`` says the rest. Only the module of the
command that runs is imported (and configured), so that no command waits for another's imports."""
from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    name: str
    group: str
    usage: str
    help: str
    module: str          # the command's module under cdclake.commands


COMMANDS = [
    Command("load", "your keyspace", "load schema|cql|snapshot|log|example ...",
            "your schemas, writes, table exports, a cluster's logs, or the example, into cdc_input", "load"),
    Command("generations", "your keyspace", "generations build HISTORY.yml | import --descriptions V2.csv ...",
            "the CDC generations of a cluster history or of a real cluster's exports", "generations"),
    Command("status", "your keyspace", "status", "what the warehouse holds: tables, writes, generations, builds",
            "status"),
    Command("build", "building", "build|run|test|seed|compile|docs generate|... [dbt flags]",
            "the dbt command on embedded Spark (log models written first, a summary after a build)", "dbt_command"),
    Command("generate", "building", "generate",
            "the log and consumer table models and the UDF macros in target/generated/ (plain dbt: run it first)",
            "generate"),
    Command("replay", "building", "replay SCRIPT.cql [--schema-from-warehouse] [--now US] [--format jsonl|table] ...",
            "a CQL script's CDC log, built in a scratch warehouse", "replay"),
    Command("sql", "using the outputs", 'sql ["QUERY" | KS.TABLE] [--format table|jsonl] [--limit N]',
            "Spark SQL on the warehouse (no argument: a shell)", "sql"),
    Command("check", "using the outputs", "check [--docs-dir DIR] [--only DATASET]",
            "the Great Expectations suite on the last build's outputs", "check"),
    Command("report", "using the outputs", "report [--out PATH]",
            "a static HTML page with pictures of the last build", "report"),
    Command("docs", "using the outputs", "docs generate | docs serve [--port N] [--no-browser]",
            "the lineage site (dbt docs) of the last build", "dbt_command"),
    Command("serve", "using the outputs", "serve [--host 127.0.0.1] [--port 10000]",
            "a Spark Thrift server on the warehouse, UDFs registered", "serve"),
]
# dbt's own commands, run by dbt with their arguments as given (cdclake/commands/dbt_command.py)
DBT_COMMANDS = ("build", "run", "test", "seed", "compile", "docs", "snapshot", "source", "run-operation",
                "show", "ls", "list", "parse", "debug", "clean", "deps", "init", "retry", "clone")
GLOBAL_OPTIONS = """\
options before the command:
  --master URL     a Spark cluster's master (default CDCLAKE_SPARK_MASTER, else local[*])
  --verbose, -v    Spark's own log lines and cdclake's choices (table format, planning) too"""


def command_module(name: str):
    """The module of a command (``cdclake.commands.<module>``), imported now."""
    module = next((c.module for c in COMMANDS if c.name == name), "dbt_command")
    return importlib.import_module(f"{__name__}.{module}")


def chosen_command(argv: list[str]) -> str | None:
    """The command word of a command line: the first word after the global options."""
    i = 0
    while i < len(argv):
        if argv[i] == "--master":
            i += 2
        elif argv[i].startswith("--master=") or argv[i] in ("--verbose", "-v"):
            i += 1
        else:
            return argv[i]
    return None


def parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """cdclake's parser: the global options and a sub-parser per command, that of the command
    ``argv`` names configured by its module."""
    parser = argparse.ArgumentParser(prog="cdclake", add_help=False, usage="cdclake [--master URL] [--verbose] COMMAND ...")
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("--master", metavar="URL")
    parser.add_argument("--verbose", "-v", action="store_true")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = chosen_command(argv)
    for name in dict.fromkeys([c.name for c in COMMANDS if c.module != "dbt_command"] + list(DBT_COMMANDS)):
        if name in DBT_COMMANDS:
            # dbt parses these: nothing here reads their options ('\0' is never an option's prefix)
            sub = commands.add_parser(name, add_help=False, prefix_chars="\0")
            sub.add_argument("dbt_args", nargs=argparse.REMAINDER)
            sub.set_defaults(module="dbt_command")
            continue
        command = next(c for c in COMMANDS if c.name == name)
        sub = commands.add_parser(name, prog=f"cdclake {name}", help=command.help)
        sub.set_defaults(module=command.module)
        if name == chosen:
            command_module(name).configure(sub)
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line ``argv`` parsed by cdclake's parser (argparse exits on an error or --help)."""
    return parser_for(argv).parse_args(argv)


def run(args: argparse.Namespace) -> int:
    """Run the command ``args`` names."""
    return importlib.import_module(f"{__name__}.{args.module}").run(args)


def help_text() -> str:
    lines = ["usage: cdclake [--master URL] [--verbose] COMMAND ...", ""]
    for group in dict.fromkeys(c.group for c in COMMANDS):
        lines.append(f"{group}:")
        lines += [f"  {c.usage}\n      {c.help}" for c in COMMANDS if c.group == group]
        lines.append("")
    return "\n".join(lines + [GLOBAL_OPTIONS, "", "COMMAND --help says more about each."])
