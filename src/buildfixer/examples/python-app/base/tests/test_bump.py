import pytest

from semverkit import bump, is_allowed, latest


def test_latest_ignores_invalid_versions():
    assert latest(["1.2.0", "not-a-version", "1.10.0", "1.9.3"]) == "1.10.0"


def test_latest_of_nothing_is_none():
    assert latest([]) is None


@pytest.mark.parametrize(
    ("version", "part", "expected"),
    [("1.2.3", "patch", "1.2.4"), ("1.2.3", "minor", "1.3.0"), ("1.2.3", "major", "2.0.0"), ("2", "minor", "2.1.0")],
)
def test_bump(version, part, expected):
    assert bump(version, part) == expected


def test_bump_rejects_unknown_part():
    with pytest.raises(ValueError):
        bump("1.0.0", "build")


def test_policy_rejects_prereleases_and_old_versions():
    assert is_allowed("1.0.0")
    assert not is_allowed("1.0.0rc1")
    assert not is_allowed("0.0.9")
