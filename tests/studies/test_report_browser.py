"""The report in a real browser: headless Chromium loads it offline, the text paints first and fast,
every figure draws its SVG and no JavaScript error occurs (issue 10, item 6). Skipped only when no
Chromium binary is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fakes import EVIL, synthetic

from shedding.studies.dgr.report import build_report

MAX_BYTES = 2_000_000     # the whole page, plotly.js included
MAX_FIRST_PAINT_MS = 1000  # first contentful paint (text), from navigation start
FALLBACK_MS = 1000  # the page starts plotly.js after this long when no paint was reported
# written into <html data-fcp> by the page under test: when the text first painted (the page itself
# writes data-plotly-start when it starts plotly.js)
PAINT_PROBE = ('<script>new PerformanceObserver(function (list) { list.getEntries().forEach(function (e) {'
               ' if (e.name === "first-contentful-paint") { document.documentElement.dataset.fcp = e.startTime; }'
               ' }); }).observe({type: "paint", buffered: true});</script>')

BROWSER = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = [pytest.mark.slow,  # a browser per test
              pytest.mark.skipif(BROWSER is None, reason="no chromium binary found; install it with "
                                 "apt-get install -y chromium to run the browser test")]


def dump_dom(page: Path, profile: Path) -> str:
    """The DOM after the page's scripts ran, from headless Chromium with no network."""
    command = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
               f"--user-data-dir={profile}", "--virtual-time-budget=10000", "--dump-dom", page.resolve().as_uri()]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


class Drawn(HTMLParser):
    """Which figure divs hold a rendered plotly SVG, and the text of the error box."""

    def __init__(self, text: str):
        super().__init__()
        self.figures: dict[str, bool] = {}
        self.errors = ""
        self._open: list[tuple[str, int]] = []  # (figure id, div depth when it opened)
        self._depth = 0
        self._in_errors = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div":
            self._depth += 1
            if a.get("id", "").startswith("fig-"):
                self.figures[a["id"]] = False
                self._open.append((a["id"], self._depth))
        if tag == "svg" and "main-svg" in (a.get("class") or "") and self._open:
            self.figures[self._open[-1][0]] = True
        self._in_errors = tag == "pre" and a.get("id") == "js-errors"

    def handle_endtag(self, tag):
        if tag == "div":
            if self._open and self._open[-1][1] == self._depth:
                self._open.pop()
            self._depth -= 1
        if tag == "pre":
            self._in_errors = False

    def handle_data(self, data):
        if self._in_errors:
            self.errors += data


def with_probes(page: Path) -> Path:
    """A copy of ``page`` that records its first contentful paint."""
    copy = page.with_name("probed.html")
    copy.write_text(page.read_text(encoding="utf-8").replace("<head>", "<head>" + PAINT_PROBE, 1), encoding="utf-8")
    return copy


def test_text_paints_first_and_the_page_is_light(tmp_path):
    results, suite = synthetic("quick", seeds=2)
    page = build_report(results, suite, True, tmp_path / "report.html")
    assert page.stat().st_size < MAX_BYTES
    paints = []
    # up to three tries: when another process holds the 2 cores, headless Chromium's first frame can
    # come only after the page's 1 s fallback timer (on virtual time), which then starts plotly.js
    # just before the paint; a try counts when the text painted first and within the limit
    for attempt in range(3):
        dom = dump_dom(with_probes(page), tmp_path / f"profile-{attempt}")
        root = re.search(r"<html[^>]*>", dom).group(0)
        fcp, start = (float(re.search(rf'{name}="([0-9.]+)"', root).group(1)) for name in ("data-fcp",
                                                                                          "data-plotly-start"))
        paints.append((fcp, start))
        if fcp <= start and fcp < MAX_FIRST_PAINT_MS:  # the text painted first, and fast
            break
    else:
        if all(start >= FALLBACK_MS for _, start in paints):
            # no try had a frame within the page's fallback second: the cores were held by others,
            # and the order of paint and plotly start was not the page's to decide
            pytest.skip(f"no frame within {FALLBACK_MS} ms in any try (machine under load): {paints}")
        raise AssertionError(f"no try painted the text first within {MAX_FIRST_PAINT_MS} ms: (paint, plotly start) "
                             f"= {paints}")
    assert Drawn(dom).errors.strip() == ""


def test_every_plot_renders_without_javascript_errors(tmp_path):
    results, suite = synthetic("quick", seeds=2)
    suite["name"] = EVIL
    suite["experiments"][0]["title"] = EVIL
    results.loc[(results.experiment == "fig3") & (results.seed == 1), "dataset"] = EVIL  # a subplot title
    page = build_report(results, suite, False, tmp_path / "report.html")
    dom = dump_dom(page, tmp_path / "profile")
    drawn = Drawn(dom)
    assert drawn.errors.strip() == ""
    assert len(drawn.figures) == len(suite["experiments"])
    assert all(drawn.figures.values()), drawn.figures
    count = len(drawn.figures)
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert f'data-figures="{count}"' in body and f'data-rendered="{count}"' in body
    assert "<script>alert" not in dom and "data = &lt;script&gt;alert" in dom
