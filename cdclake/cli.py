"""``cdclake``: ScyllaDB's CDC logs, built by dbt on embedded Spark. ``cdclake --help`` lists the
commands (cdclake/commands/: one parser, a module per command); each runs in this process: dbt
itself for the dbt commands."""
from __future__ import annotations

import logging
import os
import sys

log = logging.getLogger("cdclake")


def _setup_logging() -> None:
    """cdclake's own messages on stderr (its choices too when --verbose); other libraries'
    loggers (py4j, ...) stay quiet. Output that is not a terminal gets no colour codes from dbt."""
    from cdclake import settings

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("cdclake: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG if settings.current().verbose else logging.INFO)
    log.propagate = False
    if not sys.stdout.isatty():
        os.environ.setdefault("DBT_USE_COLORS", "false")


def main(argv: list[str] | None = None) -> int:
    from cdclake import commands, settings

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = commands.parse(argv)
    except SystemExit as done:                 # argparse: --help of a command, or a usage error
        return int(done.code or 0)
    settings.set_command_line_options(master=args.master, verbose=args.verbose)
    _setup_logging()
    if args.help or args.command is None:
        print(commands.help_text())
        return 0 if args.help or not argv else 2
    from cdclake.session.spark import JavaMissingError
    from cdclake.session.target_lock import TargetInUseError

    from cdclake.session.target_lock import finished

    try:
        status = commands.run(args)
        if status == 0:
            finished()          # the next session on its warehouse need not tidy after it
        return status
    except JavaMissingError as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    except TargetInUseError as e:
        print(f"error: {e}", file=sys.stderr)
        return 4

if __name__ == "__main__":
    sys.exit(main())
