"""The sqlfluff templater of `make lint` (``templater = cdclake_jinja`` in .sqlfluff): sqlfluff's
jinja templater, each Jinja source compiled once per process.

sqlfluff's own templater loads every macro file again for each file it lints (twice: a pass for
the macros' names, one for the macros), compiling each one every time: 87 of the lint's 178 CPU
seconds went to templating, most of it that compiling (sqlfluff 4.4, 72 files). Jinja compiles
a source to Python code that takes its environment at run time, and every environment this
templater makes in a process is configured alike (one .sqlfluff), so the code of a source is
compiled once and reused: the templates, macros and lint results are sqlfluff's own.
Registered with sqlfluff as a plugin (the ``sqlfluff`` entry point in pyproject.toml).
"""
from __future__ import annotations

from typing import Any, Optional

from sqlfluff.core.plugin import hookimpl
from sqlfluff.core.templaters.jinja import JinjaTemplater

_COMPILED: dict[tuple, Any] = {}


class CompileOnceJinjaTemplater(JinjaTemplater):
    name = "cdclake_jinja"

    def _get_jinja_env(self, config: Optional[Any] = None):
        env = super()._get_jinja_env(config)
        compile_source = env.compile
        # what else the generated code depends on, should two configurations meet in a process
        settings = (env.block_start_string, env.block_end_string, env.variable_start_string,
                    env.variable_end_string, env.comment_start_string, env.comment_end_string,
                    tuple(sorted(env.extensions)), env.autoescape, env.finalize is None)

        def compile_once(source, name=None, filename=None, raw=False, defer_init=False):
            key = (source, name, filename, raw, defer_init, settings)
            if key not in _COMPILED:
                _COMPILED[key] = compile_source(source, name, filename, raw, defer_init)
            return _COMPILED[key]

        env.compile = compile_once
        return env


@hookimpl
def get_templaters() -> list[type[JinjaTemplater]]:
    return [CompileOnceJinjaTemplater]
