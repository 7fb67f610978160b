"""A real browser: Jupyter Notebook with the Eager kernel, driven in headless Chromium.

Starts the venv's Jupyter Notebook server on 127.0.0.1 with token auth (the Eager kernelspec
as ``make setup`` installed it, in the venv's data path), writes a two-cell notebook into a
temporary root, opens it in Debian's Chromium through Playwright's Python package (its own
browser download is not used: ``executable_path=/usr/bin/chromium``, with the flags that keep
Chromium off the network), runs a ``%%tape`` cell and a ``%grad`` cell with Shift+Enter, and
checks that the tape's HTML table, the ``%grad`` table and the graph picture appear in the
page. A screenshot is saved to ``build/browser/tape.png``.

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
SCREENSHOT = ROOT / "build" / "browser" / "tape.png"
VENV_BIN = Path(sys.executable).parent
KERNELSPEC = Path(sys.prefix) / "share" / "jupyter" / "kernels" / "eager" / "kernel.json"

TAPE_CELL = """%%tape
w = ek.Variable([1.0, -2.0])
x = ek.constant([3.0, 4.0])
y = ek.reduce_sum(ek.tanh(w * x))"""
GRAD_CELL = "%grad y wrt w x"

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
    nb.cells = [nbformat.v4.new_code_cell(TAPE_CELL), nbformat.v4.new_code_cell(GRAD_CELL)]
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


def test_tape_and_grad_render_in_chromium(server, tmp_path):
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is not installed"
    )
    base, token = server
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as pw:
        # A new, empty user-data-dir (Playwright passes it as --user-data-dir).
        browser = pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium"),
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 1600},
        )
        try:
            page = browser.new_page()
            page.set_default_timeout(45_000)
            page.goto(f"{base}/notebooks/tape.ipynb?token={token}")
            # The kernel is up when the toolbar's kernel indicator says idle.
            cells = page.locator(".jp-Notebook .jp-CodeCell")
            cells.nth(1).wait_for()
            page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()

            # The indicator can read idle before the kernel's channels are up, and a run sent
            # then is dropped: run the cell again until its output appears.
            tape_table = cells.nth(0).locator(".jp-OutputArea-output table", has_text="Tanh")
            for attempt in range(4):
                cells.nth(0).locator(".cm-content").click()
                page.keyboard.press("Shift+Enter")
                try:
                    tape_table.first.wait_for(timeout=15_000)
                    break
                except sync_api.TimeoutError:
                    if attempt == 3:
                        raise

            cells.nth(1).locator(".cm-content").click()
            page.keyboard.press("Shift+Enter")
            grad_out = cells.nth(1).locator(".jp-OutputArea-output", has_text="Gradients of")
            grad_out.first.wait_for()
            grad_out.locator("table").first.wait_for()

            tape_html = tape_table.first.inner_html()
            assert "Mul" in tape_html and "Tanh" in tape_html
            grad_text = grad_out.first.inner_text()
            assert "Tanh" in grad_text and "Mul" in grad_text
            errors = page.locator(".jp-OutputArea-output[data-mime-type*='error']")
            assert errors.count() == 0, errors.first.inner_text()

            # The recorded graph, drawn with matplotlib, is an image/png output of %%tape.
            img = cells.nth(0).locator(".jp-OutputArea-output img")
            img.first.wait_for()
            assert img.first.evaluate("el => el.naturalWidth > 0")

            page.screenshot(path=str(SCREENSHOT), full_page=True)
        except Exception:
            # What the page showed when it failed, for the reader of the CI log.
            page.screenshot(path=str(SCREENSHOT.with_name("failure.png")), full_page=True)
            raise
        finally:
            browser.close()
