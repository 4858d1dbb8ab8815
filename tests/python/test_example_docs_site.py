"""The lineage site: `dbt docs generate` on the example build, served by `cdclake docs serve`,
opened in headless Chromium.

Artifact: target/test-artifacts/docs_lineage.png, the expanded lineage graph of
shop.orders_scylla_cdc_log (from the cdc_input sources to the log table).
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections import deque

import pytest
from browser import REPO, artifact_path, chromium_page
from conftest import free_port

SOURCE = "source.scylla_cdc_lake.cdc_input.base_mutations"
LOG_TABLE = "model.scylla_cdc_lake.shop__orders_scylla_cdc_log"
LOG_WRITTEN = "model.scylla_cdc_lake.int_log_written"
SERVE_START_LIMIT_S = 180

# The lineage graph as cytoscape holds it (dbt-docs draws it with cytoscape; cytoscape keeps its
# instance on the container element), and how many canvas pixels it painted.
READ_GRAPH_JS = """() => {
  const container = Array.from(document.querySelectorAll('#cy')).find(e => e._cyreg && e._cyreg.cy);
  if (!container) return null;
  const cy = container._cyreg.cy;
  let painted = 0;
  for (const canvas of container.querySelectorAll('canvas')) {
    if (!canvas.width || !canvas.height) continue;
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
  }
  return {
    nodes: cy.nodes().map(n => ({id: n.id(), visible: n.visible()})),
    edges: cy.edges().map(e => [e.source().id(), e.target().id()]),
    painted_pixels: painted,
  };
}"""


def wait_until_serving(url: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + SERVE_START_LIMIT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"cdclake docs serve exited with {server.returncode}:\n{server.stdout.read()}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"cdclake docs serve did not answer on {url} within {SERVE_START_LIMIT_S} s")


@pytest.fixture(scope="module")
def docs_site(example_build):
    """`docs generate` in this process (the catalog reads the build's tables through its Spark
    session), then `cdclake docs serve` in a subprocess; yields the site's URL."""
    from cdclake.project import dbt

    # --no-compile: the lineage needs the parsed graph, not compiled SQL (saves a full compile)
    assert dbt.invoke(["docs", "generate", "--no-compile"]), "dbt docs generate failed"
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "cdclake.cli", "docs", "serve", "--port", str(port), "--no-browser"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(url, server)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def directed_path(edges: list[list[str]], start: str, goal: str) -> list[str] | None:
    """A shortest path start -> goal along the edges' direction, or None."""
    children: dict[str, list[str]] = {}
    for parent, child in edges:
        children.setdefault(parent, []).append(child)
    came_from = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = [node]
            while came_from[path[-1]] is not None:
                path.append(came_from[path[-1]])
            return path[::-1]
        for child in children.get(node, []):
            if child not in came_from:
                came_from[child] = node
                queue.append(child)
    return None


def test_lineage_graph_shows_the_path_from_the_mutations_source_to_a_log_table(docs_site):
    with chromium_page(1600, 1000, scale=2) as (page, log):  # scale 2: legible labels
        page.goto(f"{docs_site}/#!/model/{LOG_TABLE}")
        page.click("a[ng-click='onLauncherClick()']")  # the model's lineage graph
        page.click("a[ng-click='showExpanded()']")  # full size, selection +model+
        page.wait_for_function(f"() => document.querySelector('#cy')?._cyreg?.cy?.getElementById('{SOURCE}').length === 1")
        page.mouse.move(800, 600)  # off the buttons: no tooltip over the graph
        page.wait_for_timeout(1000)  # let the layout's last frame paint before the screenshot
        graph = page.evaluate(READ_GRAPH_JS)
        page.screenshot(path=artifact_path("docs_lineage.png"))

    visible = {node["id"] for node in graph["nodes"] if node["visible"]}
    edges = [edge for edge in graph["edges"] if edge[0] in visible and edge[1] in visible]
    # the writes' way to the log table: through the CDC steps to the log as written
    # (int_log_written, the table behind the mart cdc_log), which the log table reads
    path = directed_path(edges, SOURCE, LOG_TABLE)
    assert path, f"no path {SOURCE} -> {LOG_TABLE} among the graph's {len(edges)} visible edges"
    names = [node.rsplit(".", 1)[-1] for node in path]
    assert names[1] == "stg_cdc_input__base_mutations", names
    assert any(name.startswith("int_") for name in names), names
    assert [LOG_WRITTEN, LOG_TABLE] in [list(edge) for edge in edges]

    # the graph is the project's lineage: every edge drawn is a dependency in the manifest
    parents = json.loads((REPO / "target" / "manifest.json").read_text())["parent_map"]
    assert [edge for edge in graph["edges"] if edge[0] not in parents.get(edge[1], [])] == []
    assert graph["painted_pixels"] > 1000, "the lineage canvas is (nearly) blank"

    assert log.page_errors == []
    assert log.requests_outside("127.0.0.1") == []  # no tracker, fonts or CDN
    # dbt-docs itself requests two of its icons by unrendered template URLs ({{ ... }}): 404
    assert [e for e in log.console_errors if "%7B" not in e] == []
