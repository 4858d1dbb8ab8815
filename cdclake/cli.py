"""``cdclake``: ScyllaDB's CDC logs, built by dbt on embedded Spark. ``cdclake --help`` lists the
commands (cdclake/commands/); each runs in this process: dbt itself for the dbt commands."""
from __future__ import annotations

import logging
import os
import sys

log = logging.getLogger("cdclake")


def _setup_logging() -> None:
    """cdclake's own messages on stderr (its choices too when --verbose); other libraries'
    loggers (py4j, ...) stay quiet. Output that is not a terminal gets no colour codes from dbt."""
    from cdclake.spark import verbose

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("cdclake: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG if verbose() else logging.INFO)
    log.propagate = False
    if not sys.stdout.isatty():
        os.environ.setdefault("DBT_USE_COLORS", "false")


def main(argv: list[str] | None = None) -> int:
    from cdclake import commands

    argv = list(sys.argv[1:] if argv is None else argv)
    while argv and argv[0] in ("--verbose", "-v", "--master") or argv and argv[0].startswith("--master="):
        if argv[0] in ("--verbose", "-v"):
            os.environ["CDCLAKE_VERBOSE"] = "1"
            argv = argv[1:]
            continue
        if argv[0].startswith("--master="):      # cdclake --master spark://host:7077 build ...
            argv = ["--master", argv[0].split("=", 1)[1]] + argv[1:]
        if len(argv) < 3:
            print("error: cdclake --master URL COMMAND ...", file=sys.stderr)
            return 2
        os.environ["CDCLAKE_SPARK_MASTER"] = argv[1]
        argv = argv[2:]
    _setup_logging()
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(commands.help_text())
        return 0
    from cdclake.spark import JavaMissingError
    from cdclake.target_lock import TargetInUseError

    try:
        return commands.run(*commands.command_for(argv))
    except JavaMissingError as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    except TargetInUseError as e:
        print(f"error: {e}", file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main())
