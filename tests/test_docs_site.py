"""The documentation site, built as CI and the README build it (warnings are errors),
then read back: every internal link and anchor resolves, nothing is loaded from another
host, and headless Chromium shows the pages with their figures and equations, at 1280 px
with section navigation and nothing running out of its container."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Building the site takes ~30-60 s: XRR_SKIP_BUILD_TESTS=1 skips it locally (never in CI).
pytestmark = [
    pytest.mark.build,
    # one worker, the site built once (-n auto), where pytest-xdist's loadgroup mode
    # works: with pytest 9.2 and pytest-xdist 3.8 it does not (xdist renames the tests'
    # node ids, which pytest 9.2 no longer reads), so the tests must bear two workers
    pytest.mark.xdist_group("docs_site"),
    pytest.mark.skipif(bool(os.environ.get("XRR_SKIP_BUILD_TESTS")),
                       reason="XRR_SKIP_BUILD_TESTS is set"),
]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built from the checkout with ``-W`` (any warning fails the build); or,
    where ``XRR_DOCS_SITE`` names it, the site the README's docs command has just built
    from this checkout (.ci/run builds it first, then runs the suite on it)."""
    built = os.environ.get("XRR_DOCS_SITE")
    if built:
        site = Path(built)
        assert (site / "index.html").is_file(), f"XRR_DOCS_SITE={built} holds no site"
        return site
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(out / "doctrees"), str(ROOT / "docs"), str(out / "html")],
        capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert build.returncode == 0, build.stderr[-3000:]
    assert "WARNING" not in build.stderr and "ERROR" not in build.stderr, build.stderr
    return out / "html"


class Links(HTMLParser):
    """The ids of a page and every URL it links to or loads, by tag and attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.urls: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name"):
                self.ids.add(value)
            elif name in ("href", "src"):
                self.urls.append((tag, name, value))


#: Prefixes of the measuring copies :func:`probe` and :func:`layout` put beside a page for
#: the time a browser reads them: not pages of the site. pytest-xdist may run this
#: module's tests on two workers at once (its ``xdist_group`` keeps them together only
#: where its loadgroup mode works), so a listing can meet a copy about to be removed.
COPIES = ("_probe_", "_layout_")


def html_pages(site: Path) -> list[Path]:
    """The site's pages (not the theme's template fragments under _static, nor the
    measuring copies of :data:`COPIES`)."""
    return [p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts
            and not p.name.startswith(COPIES)]


def parse(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


def test_site_has_the_pages(site):
    for page in ["index.html", "getting_started.html", "definitions.html",
                 "guides/llm_annotators.html", "gallery/index.html", "api/index.html",
                 "api/generated/xrr_accessor.irr.html",
                 "api/generated/xrr_accessor.XRRAccessor.html",
                 "api/generated/xrr_accessor.report.html",
                 "api/generated/xrr_accessor.Report-class.html",
                 "notebooks/04_llm_as_annotator.html"]:
        assert (site / page).is_file(), page
    accessor = (site / "api/generated/xrr_accessor.XRRAccessor.html").read_text("utf-8")
    assert "cross_kappa" in accessor and "item_disagreement" in accessor


def test_every_internal_link_and_anchor_resolves(site):
    pages = {p: parse(p) for p in html_pages(site)}
    broken = []
    for page, links in pages.items():
        for _tag, _attr, url in links.urls:
            parts = urlsplit(url)
            if parts.scheme or url.startswith(("//", "mailto:", "javascript:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {url}")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)} -> {url} (no anchor)")
    assert not broken, broken[:20]
    assert sum(len(v.urls) for v in pages.values()) > 1000  # the check saw the links


def test_nothing_is_loaded_from_another_host(site):
    """Scripts, styles, images and fonts all come from the site: it works offline."""
    loaded = []
    for page in html_pages(site):
        for tag, attr, url in parse(page).urls:
            if (tag, attr) == ("a", "href"):
                continue  # a link the reader may follow, not a load
            if urlsplit(url).scheme in ("http", "https") or url.startswith("//"):
                loaded.append(f"{page.relative_to(site)}: <{tag} {attr}={url}>")
    for asset in [*site.rglob("*.css"), *site.rglob("*.js")]:
        text = asset.read_text(encoding="utf-8", errors="replace")
        for url in re.findall(r"""(?:url\(|@import\s+)["']?((?:https?:)?//[^"')\s]+)""", text):
            loaded.append(f"{asset.relative_to(site)}: {url}")
    assert not loaded, loaded[:20]


PROBE = """<script>
window.addEventListener("load", () => setTimeout(() => {
  const imgs = Array.from(document.images);
  const sheets = Array.from(document.querySelectorAll('link[rel="stylesheet"]'));
  const loads = [...imgs.map(i => i.src), ...sheets.map(l => l.href),
                 ...Array.from(document.scripts).filter(s => s.src).map(s => s.src)];
  document.body.setAttribute("data-probe", JSON.stringify({
    images: imgs.length,
    decoded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
    sheets: sheets.length,
    sheetsLoaded: sheets.filter(l => l.sheet !== null).length,
    math: document.querySelectorAll("mjx-container").length,
    resources: loads.length,
    external: loads.filter(u => !u.startsWith("file:")),
  }));
}, 3000));
</script>"""


def _chromium(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--hide-scrollbars",
             "--allow-file-access-from-files", f"--user-data-dir={tmp / 'profile'}",
             # no host resolves: a page that needed the network would show it
             "--host-resolver-rules=MAP * ~NOTFOUND"]
    return subprocess.run([CHROMIUM, *flags, *args], capture_output=True, text=True,
                          timeout=120, check=True)


def probe(site: Path, page: str, tmp: Path) -> dict:
    """Open a copy of ``page`` (beside it, so its links work) with a measuring script."""
    source = site / page
    copy = source.with_name("_probe_" + source.name)
    copy.write_text(source.read_text("utf-8").replace("</body>", PROBE + "\n</body>"),
                    encoding="utf-8")
    try:
        dom = _chromium("--virtual-time-budget=15000", "--dump-dom", copy.as_uri(),
                        tmp=tmp).stdout
    finally:
        copy.unlink()
    found = re.search(r'data-probe="([^"]*)"', dom)
    assert found is not None, dom[:500]
    return json.loads(found.group(1).replace("&quot;", '"'))


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("XRR_REQUIRE_BROWSER"),
                    reason="no chromium on this machine (.ci/run installs Debian's)")
def test_pages_render_in_headless_chromium(site, tmp_path):
    assert CHROMIUM is not None, "XRR_REQUIRE_BROWSER is set but chromium is missing"
    index = probe(site, "index.html", tmp_path)
    assert index["resources"] > 5 and index["external"] == []
    assert index["sheets"] >= 3 and index["sheetsLoaded"] == index["sheets"]
    gallery = probe(site, "gallery/index.html", tmp_path)
    assert gallery["images"] >= 10 and gallery["decoded"] == gallery["images"]
    assert gallery["external"] == []
    definitions = probe(site, "definitions.html", tmp_path)
    assert definitions["math"] >= 20 and definitions["external"] == []  # MathJax, offline
    notebook = probe(site, "notebooks/04_llm_as_annotator.html", tmp_path)
    assert notebook["images"] >= 2 and notebook["decoded"] == notebook["images"]
    shot = tmp_path / "index.png"
    _chromium("--window-size=1280,1000", f"--screenshot={shot}",
              (site / "index.html").as_uri(), tmp=tmp_path)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


LAYOUT = """<script>
window.addEventListener("load", () => setTimeout(() => {
  const name = e => e.tagName.toLowerCase() + (typeof e.className === "string" &&
    e.className.trim() ? "." + e.className.trim().split(/\\s+/).join(".") : "");
  const scrolls = e => ["auto", "scroll"].includes(getComputedStyle(e).overflowX);
  const hidden = e => e.closest("mjx-assistive-mml, .sr-only, .visually-hidden") !== null;
  const out = [];
  for (const box of document.querySelectorAll(
      ".bd-article-container, .bd-sidebar-primary, .bd-sidebar-secondary")) {
    const edge = box.getBoundingClientRect();
    for (const e of box.querySelectorAll("*")) {
      const r = e.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1 || hidden(e)) continue;
      const style = getComputedStyle(e);
      if (["hidden", "clip"].includes(style.overflowX) && e.scrollWidth > e.clientWidth + 1)
        out.push("cut: " + name(e) + " " + e.scrollWidth + " > " + e.clientWidth + " px");
      let a = e.parentElement;
      while (a && a !== box && !scrolls(a)) a = a.parentElement;
      if ((!a || a === box) && (r.right > edge.right + 1 || r.left < edge.left - 1))
        out.push("outside " + name(box) + ": " + name(e) + " " + Math.round(r.left) + "-" +
                 Math.round(r.right) + " px in " + Math.round(edge.left) + "-" +
                 Math.round(edge.right));
    }
  }
  const visible = sel => Array.from(document.querySelectorAll(sel)).filter(
    a => a.getBoundingClientRect().width > 0).map(a => a.textContent.trim());
  const wide = Array.from(document.querySelectorAll("div.math mjx-container")).filter(
    m => m.scrollWidth > m.clientWidth + 1);
  document.body.setAttribute("data-layout", JSON.stringify({
    width: window.innerWidth, overflow: out,
    nav: visible(".bd-sidebar-primary nav.bd-docs-nav a"),
    current: visible(".bd-sidebar-primary nav.bd-docs-nav a.current, " +
                     ".bd-sidebar-primary nav.bd-docs-nav li.current > a"),
    toc: visible(".bd-sidebar-secondary nav a"),
    math: document.querySelectorAll("mjx-container").length,
    wide: wide.length,
    wideScroll: wide.filter(m => scrolls(m)).length,
  }));
}, 1000));
</script>"""


def layout(site: Path, page: str, tmp: Path) -> dict:
    """``page`` at 1280 x 900 px: what runs out of its container, the section navigation."""
    source = site / page
    copy = source.with_name("_layout_" + source.name)
    copy.write_text(source.read_text("utf-8").replace("</body>", LAYOUT + "\n</body>"),
                    encoding="utf-8")
    try:
        dom = _chromium("--window-size=1280,900", "--virtual-time-budget=10000",
                        "--dump-dom", copy.as_uri(), tmp=tmp).stdout
    finally:
        copy.unlink()
    found = re.search(r'data-layout="([^"]*)"', dom)
    assert found is not None, dom[:500]
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("XRR_REQUIRE_BROWSER"),
                    reason="no chromium on this machine (.ci/run installs Debian's)")
@pytest.mark.parametrize("page", ["index.html", "guides/replication.html",
                                  "definitions.html", "api/index.html"])
def test_pages_fit_1280_px_with_section_navigation(site, tmp_path, page):
    """At 1280 px no element of the article or the sidebars runs past its column or is
    cut by an ``overflow: hidden`` (wide equations scroll inside their own box), and the
    sidebar lists the site's pages with this one marked."""
    assert CHROMIUM is not None, "XRR_REQUIRE_BROWSER is set but chromium is missing"
    seen = layout(site, page, tmp_path)
    assert seen["width"] == 1280
    assert seen["overflow"] == [], seen["overflow"][:10]
    assert {"Getting started", "The replication study", "API reference"} <= set(seen["nav"])
    assert len(seen["nav"]) >= 10, seen["nav"]
    if page != "index.html":
        assert seen["current"], seen["nav"]  # the page is marked in the navigation
    # an equation wider than its column (none at 1280 px since the definitions stack
    # theirs one per line) scrolls inside its own box
    assert seen["wideScroll"] == seen["wide"]
    if page == "definitions.html":
        assert seen["math"] >= 20  # typeset: D_ratio, MASI, both d_e, Gwet's p_e among them
        assert len(seen["toc"]) >= 10  # "On this page": the page's own headings
    if page.startswith("guides/"):
        assert seen["math"] >= 3  # the guide's maths is typeset, not plain text
