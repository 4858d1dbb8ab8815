"""Scratch projects (replays, the batch tests, the benchmark) start from dbt's partial-parse state
of the project without generated models, parsed once (cdclake/project/parse_state.py)."""
from __future__ import annotations

from cdclake.project import dbt, parse_state
from cdclake.project.project_files import PROJECT_PARTS, state_key
from cdclake.replay import prepare_scratch_project


def test_a_second_scratch_project_starts_from_the_first_ones_parsed_state(tmp_path, monkeypatch):
    monkeypatch.setenv("CDCLAKE_TARGET_DIR", str(tmp_path / "target"))
    first = prepare_scratch_project(tmp_path / "first")
    state = (first / parse_state.STATE_FILE).read_bytes()
    cached = list((tmp_path / "target" / parse_state.CACHE_SUBDIR).glob("*.msgpack"))
    assert [path.read_bytes() for path in cached] == [state]

    def no_parse(*args, **kwargs):
        raise AssertionError("the project was parsed again")

    monkeypatch.setattr(dbt, "invoke", no_parse)
    second = prepare_scratch_project(tmp_path / "second")
    assert (second / parse_state.STATE_FILE).read_bytes() == state
    assert (second / parse_state.MANIFEST_FILE).read_bytes() == (first / parse_state.MANIFEST_FILE).read_bytes()
    assert not any(second.glob("target/generated/models/marts/scylla_cdc_logs/*__*_scylla_cdc_log.sql"))


def test_the_key_follows_the_files_and_the_environment_not_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("CDCLAKE_TARGET_DIR", str(tmp_path / "target"))
    monkeypatch.setattr(parse_state, "restore_or_parse", lambda project, parts: None)
    one, two = prepare_scratch_project(tmp_path / "one"), prepare_scratch_project(tmp_path / "two")
    key = state_key(one, PROJECT_PARTS)
    assert state_key(two, PROJECT_PARTS) == key

    model = next((two / "models" / "marts").glob("*.sql"))
    model.write_text(model.read_text() + "\n")
    assert state_key(two, PROJECT_PARTS) != key

    monkeypatch.setenv("CDCLAKE_TABLE_FORMAT", "other")
    assert state_key(one, PROJECT_PARTS) != key
