import os
from pathlib import Path

import pytest

from buildfixer.buildsys.jdk import default_jdk, discover_jdks, find_jdk, major_version
from buildfixer.core.errors import BuildfixerError


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1.8.0_392", 8), ("17.0.15", 17), ("25", 25), ("21-ea", 21), ("11.0.2+9", 11), ("garbage", None)],
)
def test_major_version(text: str, expected: int | None) -> None:
    assert major_version(text) == expected


def test_machine_jdks_are_found_with_their_real_versions() -> None:
    jdks = discover_jdks()
    versions = {j.version for j in jdks}
    # The machine kind this project runs on ships OpenJDK 17 and a newer Temurin.
    assert 17 in versions
    assert any(v > 17 for v in versions), versions
    for jdk in jdks:
        assert (Path(jdk.path) / "bin" / "javac").is_file()
    assert len({j.path for j in jdks}) == len(jdks), "symlinked homes must be listed once"
    assert default_jdk() is not None


def test_configured_paths_are_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "jdks" / "zulu-11"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "javac").write_text("#!/bin/sh\n")
    (home / "release").write_text('IMPLEMENTOR="Azul"\nJAVA_VERSION="11.0.22"\n')
    monkeypatch.setenv("BUILDFIXER_JDK_PATHS", str(tmp_path / "jdks"))
    assert find_jdk(11).path == str(home.resolve())


def test_missing_version_names_what_is_installed() -> None:
    with pytest.raises(BuildfixerError) as info:
        find_jdk(3)
    assert "no JDK 3 installed" in str(info.value)
    assert "17" in str(info.value)
    assert "\n" not in str(info.value)


def test_java_home_jre_without_javac_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jre = tmp_path / "jre"
    (jre / "bin").mkdir(parents=True)
    (jre / "bin" / "java").write_text("")
    (jre / "release").write_text('JAVA_VERSION="8"\n')
    monkeypatch.setenv("JAVA_HOME", str(jre))
    assert all(j.path != str(jre) for j in discover_jdks())
    assert os.environ["JAVA_HOME"] == str(jre)
