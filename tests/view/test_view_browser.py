"""The viewer in a real browser: Debian's Chromium, headless, driven by Playwright.

Playwright's own browser download is never used (`executable_path` names the system Chromium);
.ci/setup --tests installs Chromium. Without it these tests fail and say so: nothing is skipped.
"""

import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from buildfixer.view.bundle import write_bundle
from buildfixer.view.server import open_server

pytestmark = pytest.mark.slow  # drives a real browser

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking"]  # fmt: skip


def chromium() -> str:
    found = os.environ.get("BUILDFIXER_CHROMIUM") or shutil.which("chromium")
    if not found:
        pytest.fail("Chromium is required for the viewer's browser tests: apt-get install chromium "
                    "(.ci/setup --tests does), or set BUILDFIXER_CHROMIUM")  # fmt: skip
    return found


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is required for the viewer's browser tests: pip install -e '.[dev]'")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=chromium(), args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    opened = context.new_page()
    opened.errors = []
    opened.on("pageerror", lambda exc: opened.errors.append(str(exc)))
    yield opened
    context.close()
    assert opened.errors == []


def rows(page):
    return page.locator("#attempts tbody tr")


def keys(page) -> list[str]:
    return rows(page).evaluate_all("trs => trs.map(tr => tr.dataset.key)")


def test_bundle_opens_from_file_and_shows_list_attempt_and_instance(runs, tmp_path, page):
    from playwright.sync_api import expect

    site = tmp_path / "site"
    write_bundle(list(runs), site)
    index = (site / "index.html").as_uri()
    page.goto(index)
    expect(rows(page)).to_have_count(6)

    page.select_option("#filter-outcome", "hacked")
    expect(rows(page)).to_have_count(1)
    assert keys(page) == ["0/calc-skip-tests/0"]
    page.select_option("#filter-outcome", "")
    expect(rows(page)).to_have_count(6)

    page.click('th[data-col="duration_s"]')  # numbers sort largest first
    assert keys(page)[0] == "0/calc-skip-tests/0" and keys(page)[-1] == "1/calc-skip-tests/0"
    page.click('th[data-col="duration_s"]')
    assert keys(page)[0] == "1/calc-skip-tests/0" and keys(page)[-1] == "0/calc-skip-tests/0"

    page.locator('tr[data-key="0/calc-semicolon/0"] td').nth(3).click()  # a row opens its attempt
    page.wait_for_selector("#conversation")
    assert page.evaluate("location.hash") == "#/attempt/0/calc-semicolon/0"
    tools = page.locator("#conversation .msg.tool")
    expect(tools).to_have_count(2)
    # Markup in model output and tool output is shown as text, never run.
    expect(page.locator("#conversation")).to_contain_text("<script>window.__pwned = 1</script>")
    reply = page.locator("#conversation .msg.assistant").nth(1)
    expect(reply).to_contain_text('<img src=x onerror="window.__pwned')
    assert page.evaluate("window.__pwned") is None
    assert page.locator("main img, main script").count() == 0
    expect(page.locator("#agent-patch pre.diff span.add")).to_have_text("+        return x * 2;\n")
    expect(page.locator("#agent-patch pre.diff span.del")).to_have_text("-        return x * 2\n")
    # The dataset's reference fix beside it.
    expect(page.locator("#gold-patch pre.diff span.add")).to_have_text("+        return x * 2;\n")
    agent_box, gold_box = (page.locator(f"#{side}-patch").bounding_box() for side in ("agent", "gold"))
    assert gold_box["x"] > agent_box["x"] and abs(gold_box["y"] - agent_box["y"]) < 5
    expect(page.locator("#judge")).to_contain_text("the judge approved the change")
    first_build = page.locator("#builds details.build").first
    expect(first_build.locator("mark.root-line")).to_contain_text("Calc.java:[12,30] ';' expected")
    expect(first_build.locator("mark.root-line")).to_be_hidden()  # builds are folded to one line each
    first_build.locator("summary").click()
    expect(first_build.locator("mark.root-line")).to_be_visible()
    expect(first_build.locator(".root-error")).to_contain_text("Calc.java")
    expect(page.locator("#builds details.build")).to_have_count(3)
    expect(page.locator("#budgets")).to_contain_text("no limit")
    expect(page.locator("#config")).to_contain_text('"toolset": "gradlefixer"')

    page.goto(index + "#/attempt/0/calc-skip-tests/0")
    expect(page.locator("h1 .badge")).to_have_text("hacked")
    expect(page.locator("#judge table.findings")).to_contain_text("tests_skipped")

    page.click("nav.crumbs a.instance-link")
    page.wait_for_selector("#by-config")
    assert page.evaluate("location.hash") == "#/instance/calc-skip-tests"
    columns = page.locator("#by-config .column")
    expect(columns).to_have_count(2)
    expect(columns.nth(0)).to_contain_text("hacked")
    expect(columns.nth(1)).to_contain_text("declined")
    expect(page.locator("#gold pre.diff span.add")).to_have_count(1)

    page.goto(index + "#/instance/calc-semicolon")
    expect(page.locator("#error-log mark.root-line")).to_contain_text("Calc.java:[12,30]")
    page.locator("#by-config .column").nth(1).locator("a.attempt-link").click()
    page.wait_for_selector("#conversation")
    assert page.evaluate("location.hash") == "#/attempt/1/calc-semicolon/0"
    expect(page.locator("main")).to_contain_text("the result line names no trajectory")


def _append(run: Path, instance_id: str, sample: int) -> None:
    with (run / "results.jsonl").open("a") as fh:
        fh.write(json.dumps({"instance_id": instance_id, "agent": "tool", "toolset": "gradlefixer",
                             "model": "acme/alpha", "sample": sample, "resolved": True, "stop": "resolved",
                             "duration_s": 3.0}) + "\n")  # fmt: skip


def test_live_server_shows_new_attempts(runs, page):
    from playwright.sync_api import expect

    server = open_server([runs[0]], 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    try:
        page.goto(server.url)
        expect(rows(page)).to_have_count(3)
        expect(page.locator("#live")).to_be_visible()
        _append(runs[0], "calc-plugin", 1)
        with (runs[0] / "results.jsonl").open("a") as fh:
            fh.write('{"instance_id": "calc-semi')  # an attempt being written
        page.reload()
        expect(rows(page)).to_have_count(4)
        expect(page.locator("#notice")).to_contain_text("torn last line")
        page.select_option("#filter-outcome", "resolved")
        expect(rows(page)).to_have_count(2)
        # The page polls: a finished attempt appears without a reload, the filter kept.
        with (runs[0] / "results.jsonl").open("a") as fh:
            fh.write('micolon", "resolved": true, "sample": 1, "agent": "tool", "toolset": "gradlefixer", '
                     '"model": "acme/alpha"}\n')  # fmt: skip
        expect(rows(page)).to_have_count(3, timeout=15_000)
        # The text search reads the runs afresh too (search.js), and keeps the filter.
        assert search(page, "org.acme:gone") == []  # calc-plugin's attempt says it, but it failed
        page.select_option("#filter-outcome", "")
        expect(rows(page)).to_have_count(1)
        assert keys(page) == ["0/calc-plugin/0"]
        assert len(search(page, "")) == 5
        page.locator('tr[data-key="0/calc-plugin/1"] a.attempt-link').click()
        expect(page.locator("main")).to_contain_text("the result line names no trajectory")
    finally:
        server.shutdown()
        server.server_close()


def search(page, text: str) -> list[str]:
    """Type into the search box; the keys of the rows shown once the list has been searched."""
    from playwright.sync_api import expect

    page.fill("#search", text)
    expect(page.locator("#summary")).to_contain_text(f"matching “{text}”" if text else " attempts · ")
    return keys(page)


def test_text_search_filters_attempts_in_a_bundle_from_file(runs, tmp_path, page):
    from playwright.sync_api import expect

    site = tmp_path / "site"
    write_bundle(list(runs), site)
    page.goto((site / "index.html").as_uri())
    expect(rows(page)).to_have_count(6)
    # The last reply of one attempt (view_runs.LAST_WORDS).
    assert search(page, "give up") == ["0/calc-plugin/0"]
    expect(page.locator("#summary")).to_contain_text("1 of 6 attempts matching")
    assert page.evaluate("document.activeElement.id") == "search"  # typing on is not interrupted
    assert search(page, "SKIPTESTS") == ["0/calc-skip-tests/0"]  # in a patch, in any case
    assert search(page, "semicolon surefire") == ["0/calc-skip-tests/0"]  # every word, anywhere in it
    assert search(page, "run_build") == ["0/calc-semicolon/0", "0/calc-skip-tests/0", "0/calc-plugin/0"]
    page.select_option("#filter-outcome", "resolved")  # the filters apply too
    expect(rows(page)).to_have_count(1)
    assert keys(page) == ["0/calc-semicolon/0"]
    page.select_option("#filter-outcome", "")
    assert len(search(page, "")) == 6


def test_keys_step_through_the_list_on_an_attempt_page(runs, tmp_path, page):
    from playwright.sync_api import expect

    site = tmp_path / "site"
    write_bundle(list(runs), site)
    page.goto((site / "index.html").as_uri())
    page.select_option("#filter-run", "run-a")
    page.click('th[data-col="duration_s"]')  # the list's order is the keys' order: 90 s, 30 s, 5 s
    assert keys(page) == ["0/calc-skip-tests/0", "0/calc-semicolon/0", "0/calc-plugin/0"]
    rows(page).first.locator("td").nth(3).click()
    expect(page.locator(".pager")).to_contain_text("attempt 1 of 3 in the list")
    expect(page.locator("#keys")).to_contain_text("j, n or → the next attempt")
    hashes = []
    for key in ("j", "ArrowRight", "k", "ArrowLeft", "k", "n", "p"):
        page.keyboard.press(key)
        hashes.append(page.evaluate("location.hash"))
        page.wait_for_selector("#conversation")
    semicolon, plugin, skip = (f"#/attempt/0/calc-{name}/0" for name in ("semicolon", "plugin", "skip-tests"))
    # k on the first attempt stays: there is none before it.
    assert hashes == [semicolon, plugin, semicolon, skip, skip, semicolon, skip]
    page.locator(".pager a.next").click()
    expect(page.locator(".pager")).to_contain_text("attempt 2 of 3 in the list")


def test_a_five_step_attempt_page_is_short_its_builds_folded(runs, tmp_path, page):
    from playwright.sync_api import expect

    site = tmp_path / "site"
    write_bundle([runs[0]], site)
    page.goto((site / "index.html").as_uri() + "#/attempt/0/calc-plugin/0")
    page.wait_for_selector("#conversation")
    expect(page.locator("#conversation .msg.assistant")).to_have_count(5)  # five steps, three of them builds
    expect(page.locator("#builds details.build")).to_have_count(5)
    assert page.locator("#builds details.build[open]").count() == 0
    assert page.locator("#conversation .msg.tool details.fold[open]").count() == 0  # the build logs in it
    sections = page.evaluate("[...document.querySelectorAll('main section')].map(s => s.id)")
    assert sections[0] == "conversation" and sections.index("builds") > sections.index("patch")
    # Was 4,456 px with the builds open above the conversation; 1300 x 900 window.
    assert page.evaluate("document.documentElement.scrollHeight") < 3000
