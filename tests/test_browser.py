"""A real browser: Jupyter Notebook 7 and JupyterLab with the Eager kernel, in headless Chromium.

Starts the venv's Jupyter server on 127.0.0.1 with token auth (the Eager kernelspec as ``make
setup`` installed it, in the venv's data path), writes a notebook into a temporary root, opens
it in Debian's Chromium through Playwright's Python package (its own browser download is not
used: ``executable_path=/usr/bin/chromium``, with the flags that keep Chromium off the
network), once in Notebook's interface and once in JupyterLab's, and runs with Shift+Enter:

1. a small CNN (two Conv2D/MaxPooling2D blocks, Flatten, two Dense), its loss and Adam;
2. ``%%tape step`` on one training step: forward, loss, ``tape.gradient``, Adam;
3. ``%grad`` of the loss with respect to the model's trainable variables.

It checks the tape's table (right-aligned times, no wrapping), the graph (inline SVG with one
cluster per layer and one for the backward pass, node tooltips naming op, shapes and time,
alt text, labels at least 9 px tall at the default width) and the ``%grad`` table (rows named
``conv2d/kernel:0``). Screenshots go to ``build/browser/``: the page
(``tape-notebook.png``, ``tape-lab.png``) and the graph alone (``graph-notebook.png``,
``graph-lab.png``).

Skipped, with the reason, when /usr/bin/chromium or the playwright package is missing.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "build" / "browser"
VENV_BIN = Path(sys.executable).parent
KERNELSPEC = Path(sys.prefix) / "share" / "jupyter" / "kernels" / "eager" / "kernel.json"

SETUP_CELL = """L = ek.keras.layers
ek.random.set_seed(0)
cnn = ek.keras.Sequential([
    L.Conv2D(8, 3, activation="relu", input_shape=(16, 16, 1)),
    L.MaxPooling2D(2),
    L.Conv2D(16, 3, activation="relu"),
    L.MaxPooling2D(2),
    L.Flatten(),
    L.Dense(32, activation="relu"),
    L.Dense(10),
])
loss_fn = ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opt = ek.keras.optimizers.Adam()
images = ek.random.uniform([16, 16, 16, 1])
labels = ek.constant(np.arange(16) % 10)"""
TAPE_CELL = """%%tape step
with ek.GradientTape() as g:
    loss = loss_fn(labels, cnn(images, training=True))
grads = g.gradient(loss, cnn.trainable_variables)
opt.apply_gradients(zip(grads, cnn.trainable_variables))"""
GRAD_CELL = "%grad loss wrt cnn.trainable_variables --tape step"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"no Chromium at {CHROMIUM}"),
    pytest.mark.skipif(
        not KERNELSPEC.is_file(),
        reason=f"no Eager kernelspec at {KERNELSPEC} (run `make setup`)",
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_notebook(path: Path) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "eager",
        "display_name": "Eager (Python 3)",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in (SETUP_CELL, TAPE_CELL, GRAD_CELL)]
    nbformat.write(nb, str(path))


@pytest.fixture
def server(tmp_path):
    """A Jupyter Notebook server on a free port: yields (base URL, token); stopped after."""
    root = tmp_path / "root"
    root.mkdir()
    _write_notebook(root / "tape.ipynb")
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ)
    env.pop("JUPYTER_PATH", None)  # another module's temporary kernelspec must not leak in
    env.pop("MPLBACKEND", None)  # the kernel draws inline, as in a real notebook
    env.update(
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
        JUPYTER_PREFER_ENV_PATH="1",
        JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        IPYTHONDIR=str(tmp_path / "ipython"),
        PYTHONUNBUFFERED="1",
    )
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed below
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        "notebook",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--allow-root",
    ]
    proc = subprocess.Popen(
        cmd, env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyter notebook exited ({proc.returncode}):\n{_tail(tmp_path)}")
            try:
                req = urllib.request.Request(
                    f"{base}/api/status", headers={"Authorization": f"token {token}"}
                )
                with urllib.request.urlopen(req, timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter notebook did not answer in 30 s:\n{_tail(tmp_path)}")
            time.sleep(0.25)
        yield base, token
    finally:
        _stop(proc)
        log.close()


def _tail(tmp_path: Path) -> str:
    text = (tmp_path / "server.log").read_text(errors="replace")
    return "\n".join(text.splitlines()[-30:])


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the server's process group (it shuts its kernels down), then SIGKILL."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=15)
    # Whatever is left of the group (a kernel the server did not stop) goes too.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=5)


def _run_cell(sync_api, page, cell, output):
    """Shift+Enter in ``cell`` until ``output`` (a locator inside it) appears: the kernel
    indicator can read idle before the kernel's channels are up, and a run sent then is
    dropped."""
    for attempt in range(4):
        cell.locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        try:
            output.first.wait_for(timeout=20_000)
            return
        except sync_api.TimeoutError:
            if attempt == 3:
                raise


@pytest.mark.parametrize("ui", ["notebook", "lab"])
def test_tape_graph_and_grad_render_in_chromium(server, tmp_path, ui):
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is not installed"
    )
    base, token = server
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page_png = SCREENSHOTS / f"tape-{ui}.png"
    with sync_api.sync_playwright() as pw:
        # A new, empty user-data-dir (Playwright passes it as --user-data-dir).
        browser = pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium"),
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 5000},
        )
        try:
            page = browser.new_page()
            page.set_default_timeout(60_000)
            path = "notebooks/tape.ipynb" if ui == "notebook" else "lab/tree/tape.ipynb"
            page.goto(f"{base}/{path}?token={token}")
            # The kernel is up when the toolbar's kernel indicator says idle.
            cells = page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-CodeCell")
            cells.nth(2).wait_for()
            page.locator(
                ".jp-NotebookPanel:visible .jp-Notebook-ExecutionIndicator[data-status='idle']"
            ).wait_for()

            # The setup cell prints nothing: its prompt number tells it ran.
            _run_cell(
                sync_api,
                page,
                cells.nth(0),
                cells.nth(0).locator(".jp-InputArea-prompt", has_text="[1]"),
            )
            tape_table = cells.nth(1).locator(".jp-OutputArea-output table", has_text="Conv2D")
            _run_cell(sync_api, page, cells.nth(1), tape_table)
            _run_cell(
                sync_api,
                page,
                cells.nth(2),
                cells.nth(2).locator(".jp-OutputArea-output table", has_text="kernel:0"),
            )
            errors = page.locator(".jp-OutputArea-output[data-mime-type*='error']")
            assert errors.count() == 0, errors.first.inner_text()

            # The record: op names left-aligned, times right-aligned, nothing wrapped.
            cell_style = tape_table.first.locator("td", has_text="Conv2D").first.evaluate(
                "el => [getComputedStyle(el).textAlign, getComputedStyle(el).whiteSpace]"
            )
            assert cell_style == ["left", "nowrap"]
            time_header = tape_table.first.locator("th", has_text="time").first
            assert time_header.evaluate("el => getComputedStyle(el).textAlign") == "right"
            row_heights = tape_table.first.locator("tbody tr").evaluate_all(
                "rows => rows.map(r => r.getBoundingClientRect().height)"
            )
            assert max(row_heights) < 1.6 * min(row_heights)  # no row wrapped to two lines

            # The graph: inline SVG with alt text, a cluster per layer and the backward pass.
            graph = cells.nth(1).locator(".eagerkernel-graph")
            graph.first.wait_for()
            assert "Graph of tape `step`" in graph.first.get_attribute("aria-label")
            clusters = graph.first.locator("svg g.cluster").evaluate_all(
                "gs => gs.map(g => g.querySelector('text') && g.querySelector('text').textContent)"
            )
            for name in ("conv2d", "conv2d_1", "dense", "dense_1", "backward (tape.gradient)"):
                assert name in clusters, clusters
            # A node's tooltip: op, shapes, device, time, source line.
            tips = graph.first.locator("svg g.node a").evaluate_all(
                "as => as.map(a => a.getAttribute('xlink:title') || a.getAttribute('title'))"
            )
            conv = next(t for t in tips if t and "Conv2D" in t.splitlines()[0])
            assert "output: float32[16,14,14,8]" in conv and "time:" in conv
            assert "source: line 3" in conv and "/cpu:0" in conv
            # Readable at the default width: node labels at least 9 px tall on screen.
            heights = graph.first.locator("svg g.node text").evaluate_all(
                "ts => ts.map(t => t.getBoundingClientRect().height)"
            )
            assert heights and min(heights) >= 9, heights
            width = graph.first.evaluate("el => el.getBoundingClientRect().width")
            area = (
                cells.nth(1)
                .locator(".jp-OutputArea")
                .first.evaluate("el => el.getBoundingClientRect().width")
            )
            assert width <= area + 1

            grad_text = cells.nth(2).locator(".jp-OutputArea-output").first.inner_text()
            assert "conv2d/kernel:0" in grad_text and "dense_1/bias:0" in grad_text

            # Long outputs are shown in a scrolled box; unfold it for the pictures.
            page.add_style_tag(
                content=".jp-mod-outputsScrolled .jp-OutputArea, .jp-Cell-outputArea "
                "{max-height: none !important; overflow: visible !important}"
            )
            graph.first.scroll_into_view_if_needed()
            graph.first.screenshot(path=str(SCREENSHOTS / f"graph-{ui}.png"))
            page.screenshot(path=str(page_png), full_page=True)
        except Exception:
            # What the page showed when it failed, for the reader of the CI log.
            page.screenshot(path=str(page_png.with_name(f"failure-{ui}.png")), full_page=True)
            raise
        finally:
            browser.close()
