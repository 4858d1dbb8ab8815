"""Everything in the dbt project is documented in yml, exposed, and the marts have contracts.

Reads the manifest of an in-process `dbt parse` (no Spark work). Each failure lists the offenders.
"""
from __future__ import annotations

import csv
import json
import re

import pytest
from conftest import REPO

PACKAGE = "scylla_cdc_lake"
SIGNATURE = re.compile(r"\{%-?\s*(?:macro|test)\s+(\w+)\s*\((.*?)\)\s*-?%\}", re.S)


@pytest.fixture(scope="module")
def manifest(tmp_path_factory) -> dict:
    from cdclake.project import dbt
    from cdclake.project.log_models import write_log_models_for_inputs
    from cdclake.settings import PROJECT_DIR

    target = tmp_path_factory.mktemp("parse")
    write_log_models_for_inputs(None, PROJECT_DIR, example=True)     # as `cdclake load example` writes them
    assert dbt.invoke(["parse", "--target-path", str(target), "--log-path", str(target),
                       "--vars", "{cdc_example: true}"]), "dbt parse failed"
    return json.loads((target / "manifest.json").read_text())


def own(nodes: dict, resource_type: str) -> list[dict]:
    return [n for n in nodes.values() if n["resource_type"] == resource_type and n["package_name"] == PACKAGE]


def blank(text: str | None) -> bool:
    return not (text or "").strip()


def test_every_model_seed_source_macro_and_exposure_is_described(manifest):
    resources = (
        own(manifest["nodes"], "model") + own(manifest["nodes"], "seed") + own(manifest["sources"], "source")
        + own(manifest["macros"], "macro") + own(manifest["exposures"], "exposure")
    )
    undescribed = [f"{r['resource_type']} {r['name']} ({r['original_file_path']})"
                   for r in resources if blank(r.get("description"))]
    assert not undescribed, "no description in yml:\n" + "\n".join(undescribed)
    # the counts the project has at least, so an empty manifest cannot pass
    assert len(own(manifest["nodes"], "model")) >= 30 and len(own(manifest["exposures"], "exposure")) >= 4


def test_every_documented_column_has_a_description(manifest):
    nodes = own(manifest["nodes"], "model") + own(manifest["nodes"], "seed") + own(manifest["sources"], "source")
    undescribed = [f"{n['name']}.{c['name']}" for n in nodes for c in n["columns"].values() if blank(c.get("description"))]
    without_columns = [n["name"] for n in nodes if not n["columns"]]
    assert not without_columns, "no columns documented: " + ", ".join(without_columns)
    assert not undescribed, "columns without a description:\n" + "\n".join(undescribed)


def test_seed_and_source_columns_are_those_of_the_seed_files(manifest):
    """Seeds load the sources: the documented columns are the CSV headers, in order."""
    sources = {s["name"]: s for s in own(manifest["sources"], "source")}
    mismatches = []
    for seed in own(manifest["nodes"], "seed"):
        with open(REPO / seed["original_file_path"], newline="") as f:
            header = next(csv.reader(f))
        for kind, node in (("seed", seed), ("source", sources.get(seed["name"]))):
            documented = list(node["columns"]) if node else None
            if documented != header:
                mismatches.append(f"{kind} {seed['name']}: documented {documented}, file has {header}")
    assert not mismatches, "\n".join(mismatches)


def test_every_macro_argument_is_documented(manifest):
    problems = []
    for macro in own(manifest["macros"], "macro"):
        if macro["name"].startswith("materialization_"):
            continue   # a {% materialization %} block takes no arguments (its description is checked above)
        match = SIGNATURE.search(macro["macro_sql"])
        assert match, f"cannot read the signature of {macro['name']}"
        signature = [a.split("=")[0].strip() for a in match.group(2).split(",") if a.strip()]
        documented = {a["name"]: a for a in macro["arguments"]}
        missing = [a for a in signature if a not in documented or blank(documented[a].get("description"))]
        unknown = sorted(set(documented) - set(signature))
        if missing or unknown:
            problems.append(f"{macro['name']} ({macro['original_file_path']}): "
                            f"undocumented {missing}, documented but not in the signature {unknown}")
    assert not problems, "\n".join(problems)


def test_every_mart_has_an_enforced_contract_with_typed_columns(manifest):
    marts = [m for m in own(manifest["nodes"], "model") if m["fqn"][1] == "marts"]   # the generated ones too
    assert len(marts) >= 9
    uncontracted = [m["name"] for m in marts if not m["config"]["contract"]["enforced"]]
    untyped = [f"{m['name']}.{c['name']}" for m in marts for c in m["columns"].values() if blank(c.get("data_type"))]
    assert not uncontracted, "marts without an enforced contract: " + ", ".join(uncontracted)
    assert not untyped, "mart columns without data_type:\n" + "\n".join(untyped)


def test_every_mart_is_exposed_to_an_owner(manifest):
    exposures = own(manifest["exposures"], "exposure")
    incomplete = [e["name"] for e in exposures
                  if blank(e["owner"].get("name")) and blank(e["owner"].get("email"))
                  or not e["depends_on"]["nodes"]]
    assert not incomplete, "exposures without owner or dependencies: " + ", ".join(incomplete)
    exposed = {node for e in exposures for node in e["depends_on"]["nodes"]}
    marts = [m for m in own(manifest["nodes"], "model") if m["fqn"][1] == "marts"]   # the generated ones too
    unexposed = [m["name"] for m in marts if m["unique_id"] not in exposed]
    assert not unexposed, "marts no exposure depends on: " + ", ".join(unexposed)
