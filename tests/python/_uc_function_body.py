"""Runs Unity Catalog function bodies the way a batch Python UDF runs on Databricks, in a process
where this project's packages and PySpark cannot be imported.

stdin: pickled ``{name: (body, handler_name, [batch, ...])}``, a batch being a tuple of argument
Series. stdout: pickled ``{name: [result, ...]}``, or ``{name: "error text"}`` when a body fails.
"""
from __future__ import annotations

import importlib.abc
import pickle
import sys
import traceback

NOT_IMPORTABLE = ("python_udfs", "cdclake", "pyspark")


class RefuseProjectImports(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in NOT_IMPORTABLE:
            raise ImportError(f"{name} cannot be imported by a Unity Catalog function")
        return None


def run(body: str, handler_name: str, batches: list) -> list:
    for loaded in [m for m in sys.modules if m.split(".")[0] in NOT_IMPORTABLE]:
        del sys.modules[loaded]  # each body loads its own modules
    namespace: dict = {}
    exec(compile(body, "<function body>", "exec"), namespace)
    # one argument arrives as a Series, several as a tuple (pandas iterator UDF convention)
    return list(namespace[handler_name](iter(b[0] if len(b) == 1 else b for b in batches)))


def main() -> None:
    sys.meta_path.insert(0, RefuseProjectImports())
    jobs = pickle.load(sys.stdin.buffer)
    results = {}
    for name, (body, handler_name, batches) in jobs.items():
        try:
            results[name] = run(body, handler_name, batches)
        except Exception:
            results[name] = traceback.format_exc()
    pickle.dump(results, sys.stdout.buffer)


if __name__ == "__main__":
    main()
