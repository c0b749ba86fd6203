"""The grid reads without an emoji font and scales (issue 27 items 1 and 3): words with colour and an
accessible name in every cell, a legend, permalinks, filters and sorting that only enhance.

Checked twice: on the HTML text (anywhere), and in headless Chromium (``--dump-dom`` of the page
after the query string drove the filters and sort; skipped where Chromium is missing).
"""

from __future__ import annotations

import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pytest_rocmcompat.cli.main import main
from pytest_rocmcompat.outcomes import Outcome

from .test_report_html import CHROMIUM

# Codepoints that need an emoji font (or a symbol font most systems lack): the report's old symbols
# (✅ ❌ ⚠️ ➖ ♻️ ⏭️ 💥 ⏳ ⬜ ⁉️) and their neighbours, and the emoji variation selector.
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff\ufe0f\u2049\u203c]")
WORDS = "|".join(re.escape(w) for w in [*(o.value for o in Outcome), "conflict"])
ENTRY = re.compile(rf"^\d+ ({WORDS})( · \d+ ({WORDS}))*$|^not run$")


class Grid(HTMLParser):
    """The grid of a page: rows (attributes, cells with their attributes and text), tool bar."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.rows: list[tuple[dict, list[tuple[dict, str]]]] = []
        self.tools: dict | None = None
        self.heads: list[dict] = []
        self._in_grid = self._cell = False
        self._text: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "table" and a.get("id") == "grid":
            self._in_grid = True
        elif tag == "form" and a.get("id") == "grid-tools":
            self.tools = a
        elif self._in_grid and tag == "th":
            self.heads.append(a)
        elif self._in_grid and tag == "tr" and "id" in a:
            self.rows.append((a, []))
        elif self._in_grid and tag == "td" and self.rows:
            self._cell, self._text = True, []
            self.rows[-1][1].append((a, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_grid = False
        elif tag == "td" and self._cell:
            attrs, _ = self.rows[-1][1][-1]
            self.rows[-1][1][-1] = (attrs, "".join(self._text).strip())
            self._cell = False

    def handle_data(self, data: str) -> None:
        if self._cell:
            self._text.append(data)


@pytest.fixture(scope="module")
def site(cell_runs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three real cells and the two planned cells that did not run (one line), published."""
    out = tmp_path_factory.mktemp("gridsite")
    args = ["report", str(cell_runs), "--matrix", str(cell_runs / "matrix.yaml"), "-o", str(out / "c.md")]
    assert main([*args, "--html", str(out / "c.html"), "--site", str(out / "site")]) == 0
    return out


def check_cells(grid: Grid) -> None:
    """Every outcome cell: words matching its outcome, an accessible name, no emoji."""
    assert grid.rows
    for _, cells in grid.rows:
        for attrs, text in cells:
            assert not EMOJI.search(text), text
            if "o" in (attrs.get("class") or "").split():
                assert ENTRY.match(text.partition("likely cause: ")[0]), text
                assert text.split(" · ")[0].endswith(attrs["data-outcome"]), (text, attrs)  # the colour's word leads
                label = attrs.get("aria-label") or ""
                label, _, cause = label.partition(" — likely cause: ")  # a failure's cause follows its words
                words, _, shown = text.partition("likely cause: ")
                assert shown == cause, (shown, cause)
                assert label.endswith(words.replace(" · ", ", ")) and attrs.get("title", "").startswith(label)


def test_cells_are_words_with_colour_legend_and_names(site: Path) -> None:
    pages = [site / "c.html", *sorted((site / "site").rglob("*.html"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not EMOJI.search(text), (page.name, EMOJI.findall(text))
    for page in (site / "c.html", site / "site" / "index.html"):
        text = page.read_text(encoding="utf-8")
        grid = Grid(text)
        check_cells(grid)
        shown = {a["data-outcome"] for _, cells in grid.rows for a, _ in cells if "data-outcome" in a}
        assert {"pass", "fail", "crashed", "not run"} <= shown
        legend = text.split('class="note legend"', 1)[1].split("</p>", 1)[0]
        for word in (*(o.value for o in Outcome), "not run", "conflict"):
            assert f'class="sw {word.replace(" ", "-")}"' in legend and f"</span>{word}</span>" in legend, word
    stack = next(p for p in (site / "site" / "stacks").iterdir() if "gfx942" in p.read_text(encoding="utf-8"))
    suites = stack.read_text(encoding="utf-8").split("<h2>Suites</h2>", 1)[1].split("</table>", 1)[0]
    assert re.search(r'data-outcome="fail"[^>]*><span class="e">1 fail</span> · ', suites)


def test_rows_have_permalinks_and_facets_and_show_everything_without_script(site: Path) -> None:
    index = (site / "site" / "index.html").read_text(encoding="utf-8")
    grid = Grid(index)
    assert len(grid.rows) == 4  # three stacks, one line of the two planned cells
    for attrs, _ in grid.rows:
        assert (
            re.fullmatch(r"s-[0-9a-f]{12}|s-planned", attrs["id"]) and "hidden" not in attrs
        )  # all visible without JS
        assert f'href="#{attrs["id"]}"' in index
    facets = sorted((a["data-arch"], a["data-runtime"], a["data-torch"]) for a, _ in grid.rows)
    assert facets == [
        ("gfx906", "ROCm 6.2", "2.5"),
        ("gfx942", "ROCm 6.2", "2.5"),
        ("no GPU", "CPU", "2.13"),
        ("several", "ROCm", "2.4"),  # the planned cells span two archs
    ]
    assert grid.tools is not None and "hidden" in grid.tools  # the filters show only where the script runs
    for key in ("arch", "runtime", "torch"):
        options = re.search(rf'<select data-filter="{key}">(.*?)</select>', index).group(1)
        values = re.findall(r'<option value="([^"]*)"', options)
        wanted = {f[("arch", "runtime", "torch").index(key)] for f in facets} - {"several"}
        assert values[0] == "" and set(values[1:]) == wanted
    assert [h["data-kind"] for h in grid.heads[:5]] == ["label"] * 5 and grid.heads[5]["data-kind"] == "outcome"
    assert index.count("<script>") == 1 and not re.search(r"<script[^>]*src=|https?://[^\"' ]*\.js", index)
    report = (site / "c.html").read_text(encoding="utf-8")
    assert "<script" not in report and 'id="grid-tools"' not in report  # the standalone report stays script-free
    # sort keys: the worse an entry, the higher
    order = {a["data-outcome"]: int(a["data-sort"]) for _, c in grid.rows for a, _ in c if "data-outcome" in a}
    assert order["not run"] < order["pass"] < order["fail"] < order["crashed"]


def dump_dom(page: Path, query: str) -> str:
    result = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=5000",
            "--dump-dom",
            page.as_uri() + query,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "<table" in result.stdout, result.stderr[-2000:]
    return result.stdout


def visible(grid: Grid) -> list[dict]:
    return [a for a, _ in grid.rows if "hidden" not in a]


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install -y chromium)")
def test_filters_and_sort_work_in_chromium(site: Path) -> None:
    index = site / "site" / "index.html"
    everything = Grid(dump_dom(index, ""))
    assert len(visible(everything)) == 4 and everything.tools is not None and "hidden" not in everything.tools
    check_cells(everything)  # the cells as the browser holds them: words, names, no emoji
    gfx906 = Grid(dump_dom(index, "?arch=gfx906"))
    assert [a["data-arch"] for a in visible(gfx906)] == ["gfx906"]
    assert len(gfx906.rows) == 4  # the others are hidden, not removed
    both = Grid(dump_dom(index, "?arch=gfx942&torch=2.5&runtime=ROCm+6.2"))
    assert [(a["data-arch"], a["data-torch"]) for a in visible(both)] == [("gfx942", "2.5")]
    text = dump_dom(index, "?arch=gfx942&torch=2.5&runtime=ROCm+6.2")
    assert re.search(r'<output id="grid-count"[^>]*>1 of 4 stacks shown</output>', text)
    column = next(i for i, h in enumerate(everything.heads) if h["data-key"] == "gpu")
    for query, descending in (("?sort=gpu&desc=1", True), ("?sort=gpu", False)):
        ranked = Grid(dump_dom(index, query))
        keys = [int(cells[column][0]["data-sort"]) for _, cells in ranked.rows]
        assert keys == sorted(keys, reverse=descending) and len(set(keys)) > 1, keys
        assert ranked.heads[column].get("aria-sort") == ("descending" if descending else "ascending")
