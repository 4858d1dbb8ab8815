"""The example inputs in seeds/ are what `make seeds` builds."""
from __future__ import annotations

import importlib.util

from conftest import REPO


def test_seeds_are_up_to_date(tmp_path):
    spec = importlib.util.spec_from_file_location("build_example_seeds", REPO / "scripts" / "build_example_seeds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build(tmp_path)
    built = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert built, "nothing was built"
    for relative in built:
        assert (REPO / relative).read_text() == (tmp_path / relative).read_text(), (
            f"{relative} is stale: run `make seeds`"
        )
