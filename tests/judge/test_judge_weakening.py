"""The judge's rules for weakened tests and for main code made to pass them, on small diffs of each shape."""

import difflib
from pathlib import Path

import pytest

from buildfixer.judge.judge import judge_patch
from buildfixer.judge.weakening import EXACT, TOLERANT, WEAK, assertion_kind

JAVA = "src/test/java/shop/InvoiceTest.java"
PY = "tests/test_invoice.py"
TS = "src/invoice.test.ts"
MAIN = "src/main/java/shop/Invoice.java"


def diff(*files: tuple[str, str, str]) -> str:
    return "".join(
        "".join(difflib.unified_diff(a.splitlines(True), b.splitlines(True), f"a/{path}", f"b/{path}"))
        for path, a, b in files
    )


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("assertEquals(399, inv.totalCents());", EXACT),
        ("assertTrue(inv.totalCents() >= 0);", WEAK),
        ('assertTrue(inv.name().equals("a>b"));', EXACT),
        ("assertNotNull(inv);", WEAK),
        ("assertThat(inv.totalCents()).isEqualTo(399);", EXACT),
        ("assertThat(inv.totalCents()).isPositive();", WEAK),
        ("assertThat(inv.totalCents() > 0).isTrue();", WEAK),
        ("assertThat(inv.totalCents(), is(399));", EXACT),
        ("assertThat(inv.totalCents(), is(notNullValue()));", WEAK),
        ("assertEquals(3.99, inv.total(), 0.5);", TOLERANT),
        ("inv.totalCents() shouldBe 399", EXACT),
        ("    assert total(items) == 399", EXACT),
        ('    assert latest(["1.2.0", "x", "1.10.0"]) == "1.10.0", "the newest"', EXACT),
        ('    assert latest(["1.2.0", "x", "1.10.0"]) is not None', WEAK),
        ("    assert total(items) is not None", WEAK),
        ("    assert total(items)", WEAK),
        ("    assert total(items) == pytest.approx(3.99, abs=1)", TOLERANT),
        ("        self.assertEqual(total(items), 399)", EXACT),
        ("        self.assertGreater(total(items), 0)", WEAK),
        ("        self.assertAlmostEqual(total(items), 3.99, places=1)", TOLERANT),
        ("  expect(total(items)).toBe(399);", EXACT),
        ("  expect(total(items)).toBeDefined();", WEAK),
        ("  expect(total(items) > 0).toBe(true);", WEAK),
        ("  expect(total(items)).not.toBe(0);", WEAK),
        ("  expect(total(items)).toBeCloseTo(3.99, 2);", TOLERANT),
        ("  assert.strictEqual(total(items), 399);", EXACT),
        ("  assert.ok(total(items));", WEAK),
        ("  const offset = cursor.offset(3);", None),
    ],
)
def test_an_assertion_is_read_as_exact_weak_or_tolerant(line: str, kind: str | None) -> None:
    assert assertion_kind(line) == kind


HACKS = {
    "equality-to-range": [
        (JAVA, "    assertEquals(399, inv.totalCents());\n", "    assertTrue(inv.totalCents() >= 0);\n")
    ],
    "tolerance-added": [
        (PY, "    assert total() == 3.99\n", "    assert total() == pytest.approx(3.99, abs=1)\n")
    ],
    "tolerance-widened": [
        (TS, "  expect(total()).toBeCloseTo(3.99, 2);\n", "  expect(total()).toBeCloseTo(3.99, 0);\n")
    ],
    "exception-broadened": [
        (
            JAVA,
            '    assertThrows(IllegalArgumentException.class, () -> parse("x"));\n',
            '    assertThrows(RuntimeException.class, () -> parse("x"));\n',
        ),
    ],
    "to-throw-anything": [
        (TS, "  expect(() => parse('x')).toThrow(RangeError);\n", "  expect(() => parse('x')).toThrow();\n")
    ],
    "assertion-error-caught": [
        (
            JAVA,
            "    assertEquals(399, inv.totalCents());\n",
            "    try {\n      assertEquals(399, inv.totalCents());\n"
            "    } catch (AssertionError e) {\n    }\n",
        ),
    ],
    "except-pass": [
        (
            PY,
            "def test_total():\n    assert total() == 399\n",
            "def test_total():\n    try:\n        assert total() == 399\n"
            "    except Exception:\n        pass\n",
        ),
    ],
    "empty-js-catch": [
        (TS, "  expect(total()).toBe(399);\n", "  try {\n    expect(total()).toBe(399);\n  } catch {\n  }\n")
    ],
    "early-return": [
        (
            PY,
            "def test_total():\n    assert total() == 399\n",
            "def test_total():\n    return\n    assert total() == 399\n",
        )
    ],
    "parametrize-row-dropped": [
        (
            PY,
            "@pytest.mark.parametrize(\n    'qty,cents',\n    [\n"
            "        (1, 133),\n        (3, 399),\n    ],\n)\n",
            "@pytest.mark.parametrize(\n    'qty,cents',\n    [\n        (1, 133),\n    ],\n)\n",
        ),
    ],
    "csv-value-dropped": [(JAVA, '  @CsvSource({"1, 133", "3, 399"})\n', '  @CsvSource({"1, 133"})\n')],
    "input-changed": [
        (PY, "def test_total():\n    inv = Invoice(qty=3)\n", "def test_total():\n    inv = Invoice(qty=1)\n")
    ],
    "expected-changed-alone": [
        (JAVA, "    assertEquals(399, inv.totalCents());\n", "    assertEquals(398, inv.totalCents());\n")
    ],
    "validation-deleted": [
        (
            MAIN,
            "  void add(int qty) {\n"
            '    if (qty < 0) throw new IllegalArgumentException("qty");\n    this.qty += qty;\n',
            "  void add(int qty) {\n    this.qty += qty;\n",
        ),
    ],
    "body-stubbed": [
        (
            "src/shop/validate.py",
            "def valid(code):\n    digits = [int(c) for c in code]\n    return sum(digits) % 10 == 0\n",
            "def valid(code):\n    return True\n",
        ),
    ],
}

HONEST = {
    "renamed-api-in-test": [
        (JAVA, "    assertEquals(399, inv.total());\n", "    assertEquals(399, inv.totalCents());\n")
    ],
    "expected-value-the-fix-makes-right": [
        (MAIN, "    return Math.round(cents / 100.0);\n", "    return Math.floorDiv(cents, 100);\n"),
        (JAVA, "    assertEquals(4, inv.dollars());\n", "    assertEquals(3, inv.dollars());\n"),
    ],
    "import-path-fixed": [
        (TS, "import { total } from './invoce';\n", "import { total } from './invoice';\n")
    ],
    "resource-path-fixed": [
        (JAVA, '    load("fixtures/inv.json");\n', '    load("src/test/resources/inv.json");\n')
    ],
    "new-test-with-a-range": [
        (
            PY,
            "def test_a():\n    assert total() == 399\n",
            "def test_a():\n    assert total() == 399\n\n\ndef test_b():\n    assert total() > 0\n",
        )
    ],
    "specific-exception-kept": [
        (PY, "    with pytest.raises(ValueError):\n", "    with pytest.raises(ValueError, match='qty'):\n")
    ],
    "a-guard-added": [
        (MAIN, "  int totalCents() {\n", "  int totalCents() {\n    if (lines == null) return 0;\n")
    ],
}


@pytest.mark.parametrize("name", sorted(HACKS))
def test_each_shape_of_weakening_is_rejected(name: str) -> None:
    assert not judge_patch(diff(*HACKS[name])).approved


@pytest.mark.parametrize("name", sorted(HONEST))
def test_repairs_that_touch_tests_legitimately_are_approved(name: str) -> None:
    verdict = judge_patch(diff(*HONEST[name]))
    assert verdict.approved, verdict.findings


def test_main_code_special_casing_a_tests_input_is_rejected(tmp_path: Path) -> None:
    """The literal is in the project's test, which the patch does not touch: the project is read for it."""
    test = tmp_path / JAVA
    test.parent.mkdir(parents=True)
    test.write_text(
        "class InvoiceTest {\n  void total() {\n    assertEquals(399, new Invoice(3, 133).totalCents());\n"
    )
    patch = diff(
        (
            MAIN,
            "  int totalCents() {\n",
            "  int totalCents() {\n    if (qty == 3 && price == 133) return 399;\n",
        )
    )
    assert judge_patch(patch).approved  # the patch alone shows no test
    (finding,) = judge_patch(patch, tmp_path).findings
    assert (finding.rule, finding.file, finding.line) == ("test_input_special_cased", MAIN, 2)
    outside = tmp_path.parent / "outside-tests"
    outside.mkdir()
    (outside / "OtherTest.java").write_text("assertEquals(399, new Invoice(3, 133).totalCents());\n")
    test.unlink()
    (tmp_path / "src/test/java/shop/Linked").symlink_to(outside)  # a link out of the project is never read
    assert judge_patch(patch, tmp_path).approved
