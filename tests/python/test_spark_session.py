"""The embedded session's set-up checks (no Spark started here)."""
from __future__ import annotations

import pytest

from cdclake.session import spark as spark_module


def test_missing_java_says_how_to_install_it(monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(spark_module.JavaMissingError, match="apt-get install -y openjdk-17-jre-headless"):
        spark_module.require_java()


def test_delta_is_detected_only_from_a_jar_that_holds_its_extension(tmp_path, monkeypatch):
    import zipfile

    fake = tmp_path / "delta-spark_2.12-3.2.0.jar"
    with zipfile.ZipFile(fake, "w") as jar:
        jar.writestr("io/delta/other/Thing.class", b"")
    monkeypatch.setattr(spark_module, "JARS_DIR", tmp_path / "no-jars")
    monkeypatch.setenv("CDCLAKE_SPARK_JARS", str(fake))
    assert spark_module.delta_jar() is None
    with zipfile.ZipFile(fake, "w") as jar:
        jar.writestr(spark_module.DELTA_EXTENSION_CLASS, b"")
    assert spark_module.delta_jar() == fake
