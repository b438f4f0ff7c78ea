"""The extension in a real VS Code: code-server (VS Code in the browser; run.sh installs it under
the cargo target dir) with the packaged editors/vscode/mend.vsix installed into a throw-away
extensions dir, driven by Playwright through Debian's Chromium.

Each case copies a buggy program into a temporary folder, opens it from the explorer as a
student would, waits for mend's diagnostic in the Problems panel (its text and source `mend`),
puts the cursor on it, opens the quick-fix menu with Ctrl+. , picks mend's fix, saves with
Ctrl+S and compares the file (and the lines the editor shows) with the fixed program; then the
Problems panel must no longer show the diagnostic. What mend says is read from
`mend check --format json` at test time (the same analysis the server publishes), so a change
of wording changes the expectation with it; only stable facts are written here (the missing `;`
is inserted; the prime fix is the one mend's check proposes).

Screenshots before and after each fix go to <target>/editors-artifacts/vscode-*.png (a CI
artifact). A failure prints what the page shows (Problems panel, notifications, the status bar
item), mend's output channel and the end of code-server's log, and saves
vscode-<case>-failure.png.

Skipped, with the reason, only when playwright, code-server or Chromium is missing (run.sh
installs all three; the reason names its install log)."""

import contextlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
MEND = os.environ.get("MEND_BIN", str(REPO / "target/debug/mend"))
TARGET = pathlib.Path(os.environ.get("MEND_TARGET_DIR", str(REPO / "target")))
VSIX = pathlib.Path(os.environ.get("MEND_VSIX", str(REPO / "editors/vscode/mend.vsix")))
ARTIFACTS = TARGET / "editors-artifacts"
STEP = 60_000  # ms: the longest wait of one UI step (the prime repair needs a few seconds)

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - run.sh installs it
    sync_playwright = None


def _code_server() -> tuple[str | None, str]:
    """code-server's launcher, or None and why not."""
    for candidate in (os.environ.get("CODE_SERVER_BIN"), str(TARGET / "code-server/node_modules/.bin/code-server")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate, ""
    found = shutil.which("code-server")
    if found:
        return found, ""
    log = TARGET / "code-server/install.log"
    why = "code-server is not installed (editors/tests/run.sh installs it under <target>/code-server)"
    if log.exists():
        tail = [line for line in log.read_text(errors="replace").splitlines() if line.strip()][-3:]
        why += f"; its install failed, the end of {log}: " + " | ".join(tail)
    return None, why


def _chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM_BIN"), "/usr/lib/chromium/chromium"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("chromium")


def mend_check(path: pathlib.Path) -> dict:
    """`mend check FILE --format json`: the diagnostics and repairs the server publishes too."""
    run = subprocess.run([MEND, "check", str(path), "--format", "json"], cwd=path.parent,
                         capture_output=True, text=True, timeout=120)
    try:
        return json.loads(run.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"`mend check {path} --format json` printed no JSON (exit {run.returncode}): {run.stdout}{run.stderr}")


def apply_edits(text: str, edits: list[dict]) -> str:
    """Applies LSP text edits (ASCII programs: characters are UTF-16 units)."""
    lines = text.split("\n")

    def offset(pos: dict) -> int:
        return sum(len(line) + 1 for line in lines[: pos["line"]]) + pos["character"]

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text


def touches(a: dict, b: dict) -> bool:
    key = lambda p: (p["line"], p["character"])  # noqa: E731
    return key(a["start"]) <= key(b["end"]) and key(b["start"]) <= key(a["end"])


def squash(s: str) -> str:
    return " ".join(s.split())


class CodeServer:
    """One code-server for the module: fresh user-data and extensions dirs, mend.vsix installed
    with `code-server --install-extension`, `mend.server.path` set in the user settings."""

    def __init__(self, exe: str, root: pathlib.Path):
        self.root = root
        self.user = root / "user-data"
        extensions = root / "extensions"
        (self.user / "User").mkdir(parents=True)
        settings = {
            "mend.server.path": MEND,
            "security.workspace.trust.enabled": False,
            "telemetry.telemetryLevel": "off",
            "update.mode": "none",
            "extensions.autoCheckUpdates": False,
            "extensions.autoUpdate": False,
            "extensions.ignoreRecommendations": True,
            "workbench.enableExperiments": False,
            "workbench.startupEditor": "none",
            "workbench.tips.enabled": False,
            "git.enabled": False,
            "files.autoSave": "off",
            "editor.minimap.enabled": False,
        }
        (self.user / "User/settings.json").write_text(json.dumps(settings, indent=2))
        env = dict(os.environ, XDG_CONFIG_HOME=str(root / "config"), XDG_DATA_HOME=str(root / "data"),
                   XDG_CACHE_HOME=str(root / "cache"))
        common = ["--user-data-dir", str(self.user), "--extensions-dir", str(extensions),
                  "--config", str(root / "config.yaml")]
        install = subprocess.run([exe, *common, "--install-extension", str(VSIX)], capture_output=True,
                                 text=True, timeout=120, env=env)
        assert install.returncode == 0 and "successfully installed" in install.stdout, \
            f"code-server --install-extension {VSIX} failed:\n{install.stdout}{install.stderr}"
        self.log = root / "code-server.log"
        self.proc = subprocess.Popen(
            [exe, *common, "--bind-addr", "127.0.0.1:0", "--auth", "none", "--disable-telemetry",
             "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override",
             "--ignore-last-opened"],
            stdout=self.log.open("w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True)  # its own process group: the extension host and mend end with it
        deadline = time.monotonic() + 60
        while True:
            found = re.search(r"HTTP server listening on (http://127\.0\.0\.1:\d+)/", self.log.read_text())
            if found:
                self.url = found.group(1)
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"code-server did not start:\n{self.log.read_text()}")
            time.sleep(0.1)

    def mend_output(self) -> str:
        """mend's output channel of the latest window (the server's stderr, the client's errors)."""
        logs = sorted(self.user.glob("logs/*/exthost*/output_logging_*/*mend*.log"), key=lambda p: p.stat().st_mtime)
        return logs[-1].read_text(errors="replace") if logs else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=15)


class Workbench:
    """A VS Code window on one folder, with the steps a student takes."""

    def __init__(self, server: CodeServer, page, folder: pathlib.Path, name: str):
        self.server, self.page, self.folder, self.name = server, page, folder, name
        page.set_default_timeout(STEP)
        page.goto(f"{server.url}/?folder={folder}")
        page.locator(".monaco-workbench").wait_for()

    def screenshot(self, what: str) -> pathlib.Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"vscode-{self.name}-{what}.png"
        self.page.screenshot(path=str(path))
        return path

    def open(self, file: str) -> None:
        """Opens `file` from the explorer and waits for its editor and for mend to be ready."""
        self.page.get_by_role("treeitem", name=file).click()
        self.page.locator(".tab.active", has_text=file).wait_for()
        self.page.locator(".monaco-editor .view-lines").first.wait_for()
        # The extension activates on C files: its status bar item says when mend runs.
        item = self.page.locator("[id='mend.mend']")
        item.wait_for()
        self.page.wait_for_function(
            """() => { const i = document.getElementById('mend.mend');
                       return i && (i.querySelector('.codicon-check, .codicon-sync, .codicon-error')); }""")
        self.assert_mend_running()

    def assert_mend_running(self) -> None:
        if self.page.locator("[id='mend.mend'] .codicon-error").count():
            deadline = time.monotonic() + 5  # the output channel's log is written a little later
            while "Error" not in self.server.mend_output() and time.monotonic() < deadline:
                time.sleep(0.2)
            lines = self.server.mend_output().splitlines()
            # The server's own complaints (its stderr) first: they say why, then the client's.
            said = list(dict.fromkeys(line for line in lines if line.startswith(("error", "Error:", "thread"))))
            pytest.fail("mend's status bar item shows that the server stopped; mend said:\n"
                        + "\n".join(said[:5]) + "\n... its output channel begins:\n" + "\n".join(lines[:8]))

    def show_problems(self) -> None:
        """View: Toggle Problems (Ctrl+Shift+M)."""
        if not self.page.locator(".markers-panel").is_visible():
            self.page.keyboard.press("Control+Shift+M")
        self.page.locator(".markers-panel").wait_for(state="visible")

    def problems(self) -> list[dict]:
        """The Problems panel's rows: message, source, code, position and severity."""
        return self.page.evaluate("""() => [...document.querySelectorAll(
                '.markers-panel .monaco-list-row .marker-message-details-container')].map(row => {
            const t = sel => [...row.querySelectorAll(sel)].map(e => e.textContent).join('\\n');
            const icon = row.closest('.monaco-list-row').querySelector('.marker-icon');
            return { message: t('.marker-message'), source: t('.marker-source'), code: t('.marker-code'),
                     line: t('.marker-line'),
                     severity: icon ? [...icon.classList].filter(c => c !== 'marker-icon').join(' ') : '' };
        })""")

    def wait_problems(self, present: list[str], absent: list[str] = (), exact: bool = False,
                      timeout_ms: int = STEP) -> list[dict]:
        """Polls the Problems panel until every message of `present` is shown and none of
        `absent` (with `exact`, nothing but `present`); whitespace-insensitive. Returns the rows."""
        want = sorted(squash(m) for m in present)
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            rows = self.problems()
            shown = sorted(squash(r["message"]) for r in rows)
            if exact and shown == want or not exact and all(m in shown for m in want) and \
                    not any(squash(m) in shown for m in absent):
                return rows
            self.assert_mend_running()
            if time.monotonic() > deadline:
                pytest.fail(f"after {timeout_ms / 1000:.0f} s the Problems panel shows {shown}, expected "
                            + (f"exactly {want}" if exact else f"{want} and not {absent}"))
            self.page.wait_for_timeout(200)

    def quick_fix(self, line: int, character: int, title: str) -> None:
        """Go to Line (Ctrl+G, `line:column`), Ctrl+. , and the menu item `title`."""
        self.page.locator(".monaco-editor .view-lines").first.click()
        self.page.keyboard.press("Control+G")
        self.page.locator(".quick-input-widget input").wait_for(state="visible")
        self.page.keyboard.type(f"{line + 1}:{character + 1}")
        self.page.keyboard.press("Enter")
        self.page.locator(".quick-input-widget").wait_for(state="hidden")
        self.page.wait_for_function(
            "s => [...document.querySelectorAll('.statusbar-item')].some(e => e.textContent.includes(s))",
            arg=f"Ln {line + 1}, Col {character + 1}")
        self.page.keyboard.press("Control+.")
        menu = self.page.locator(".action-widget")
        menu.wait_for(state="visible")
        item = menu.get_by_role("option", name=title, exact=True)
        try:
            item.wait_for(timeout=10_000)
        except PlaywrightError:
            pytest.fail(f"the quick-fix menu lists {menu.inner_text()!r}, not {title!r}")
        self.screenshot("before")
        # The keyboard, as with Ctrl+. (the open menu blocks pointer events outside itself):
        # the first fix is focused; Down to mend's, Enter.
        focused = menu.locator(".monaco-list-row.action.focused")
        for _ in range(menu.locator(".monaco-list-row.action").count()):
            if focused.get_attribute("aria-label") == title:
                break
            self.page.keyboard.press("ArrowDown")
        assert focused.get_attribute("aria-label") == title, menu.inner_text()
        self.page.keyboard.press("Enter")
        menu.wait_for(state="hidden")

    def save_and_read(self, file: str, expected: str) -> str:
        """Ctrl+S, then the file once it is written (or what it holds after the wait)."""
        self.page.keyboard.press("Control+S")
        path = self.folder / file
        deadline = time.monotonic() + STEP / 1000
        while path.read_text() != expected and time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
        self.page.locator(".tab.active.dirty").wait_for(state="detached")
        return path.read_text()

    def editor_lines(self) -> list[str]:
        """The lines the editor shows, top to bottom."""
        return self.page.evaluate("""() => [...document.querySelectorAll('.monaco-editor .view-lines .view-line')]
            .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
            .map(e => e.textContent.replace(/\\u00a0/g, ' '))""")

    def report(self) -> str:
        """What the page shows, for a failure."""
        page = self.page
        parts = []
        for title, selector in (("Problems panel", ".markers-panel"), ("notifications", ".notifications-toasts"),
                                ("notification centre", ".notifications-center"),
                                ("mend status bar item", "[id='mend.mend']")):
            try:
                loc = page.locator(selector)
                text = loc.first.get_attribute("aria-label") if "mend.mend" in selector and loc.count() else \
                    "\n".join(loc.all_inner_texts())
            except PlaywrightError as e:
                text = f"({e})"
            parts.append(f"--- {title}:\n{text}")
        parts.append(f"--- mend's output channel:\n{self.server.mend_output()}")
        parts.append("--- code-server log (end):\n" + "\n".join(self.server.log.read_text().splitlines()[-20:]))
        try:
            parts.append(f"--- screenshot: {self.screenshot('failure')}")
        except PlaywrightError as e:
            parts.append(f"--- no screenshot: {e}")
        return "\n".join(parts)


@pytest.fixture(scope="module")
def code_server(tmp_path_factory):
    if sync_playwright is None:
        pytest.fail("playwright is not installed (editors/tests/requirements.txt; run.sh installs it)")
    exe, why = _code_server()
    if exe is None:
        pytest.fail(why)
    if _chromium() is None:
        pytest.fail("Chromium is not installed (Debian's `chromium`; scripts/install-deps.sh --editors installs it)")
    if not os.access(MEND, os.X_OK):
        pytest.fail(f"MEND_BIN {MEND} is not built")
    if not VSIX.exists():
        pytest.fail(f"{VSIX} is missing: run.sh packages it")
    for stale in ARTIFACTS.glob("vscode-*.png"):
        stale.unlink()
    server = CodeServer(exe, tmp_path_factory.mktemp("code-server"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(code_server, tmp_path_factory):
    # Chromium's crash reports and settings go to XDG_CONFIG_HOME: a throw-away one.
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path_factory.mktemp("chromium-config")))
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=_chromium(), headless=True, env=env)
        yield b
        b.close()


@contextlib.contextmanager
def workbench(code_server, browser, folder: pathlib.Path, name: str):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    wb = None
    try:
        wb = Workbench(code_server, page, folder, name)
        yield wb
    except BaseException as e:
        if not isinstance(e, pytest.skip.Exception):
            if wb is None:  # the workbench did not load
                wb = Workbench.__new__(Workbench)
                wb.server, wb.page, wb.folder, wb.name = code_server, page, folder, name
            print(wb.report())
        raise
    finally:
        context.close()


def test_missing_semicolon_quick_fix(code_server, browser, tmp_path):
    """A syntax error: mend's diagnostic in the Problems panel, its `;` quick fix applied."""
    program = "int main(void) {\n    int x = 1\n    return x;\n}\n"
    fixed = "int main(void) {\n    int x = 1;\n    return x;\n}\n"
    folder = tmp_path / "semicolon"
    folder.mkdir()
    (folder / "main.c").write_text(program)
    check = mend_check(folder / "main.c")
    errors = [d for d in check["diagnostics"] if d["severity"] == "error"]
    assert errors and ";" in errors[0]["message"], check["diagnostics"]
    error = errors[0]
    repair = check["repairs"][0]
    assert apply_edits(program, repair["edits"]) == fixed, repair
    (tmp_path / "main.c").write_text(fixed)
    after = mend_check(tmp_path / "main.c")
    assert not any(d["severity"] == "error" for d in after["diagnostics"]), after

    with workbench(code_server, browser, folder, "semicolon") as wb:
        wb.open("main.c")
        wb.show_problems()
        rows = wb.wait_problems([error["message"]])
        row = next(r for r in rows if squash(r["message"]) == squash(error["message"]))
        assert row["source"] == "mend" and "error" in row["severity"], row
        assert f"Ln {error['range']['start']['line'] + 1}," in row["line"], row
        start = error["range"]["start"]
        wb.quick_fix(start["line"], start["character"], repair["title"])
        assert wb.save_and_read("main.c", fixed) == fixed
        assert wb.editor_lines() == fixed.split("\n")
        # Nothing left but what mend says of the fixed program: only the hint that nothing but
        # syntax and types was checked (no spec), which the Problems panel does not list.
        assert [d["code"] for d in after["diagnostics"]] == ["nothing-checked"], after
        wb.wait_problems([d["message"] for d in after["diagnostics"] if d["severity"] != "hint"], exact=True)
        wb.screenshot("after")


def test_prime_verified_fix(code_server, browser, tmp_path):
    """examples/prime (two bugs): the assignment's reference and tests; the Problems panel shows
    one row per bug place and one for the failing tests, nothing more; mend's verified repair is
    applied from the quick-fix menu at the failing tests' row (where a student looks first), and
    the fixed program's diagnostics replace the old ones."""
    folder = tmp_path / "prime"
    shutil.copytree(REPO / "examples/prime", folder)
    program = (folder / "prime.c").read_text()
    check = mend_check(folder / "prime.c")
    assert check["repairs"], check
    repair = check["repairs"][0]
    fixed = apply_edits(program, repair["edits"])
    # One row per changed place and one for the failing tests.
    tests = [d for d in check["diagnostics"] if d["code"] == "test-failed"]
    assert len(tests) == 1 and tests[0]["message"].startswith("4 of 8 tests fail"), check["diagnostics"]
    assert len(check["diagnostics"]) == 3, check["diagnostics"]
    # What mend says of the fixed program (in a copy of the assignment beside it).
    shutil.copytree(folder, tmp_path / "prime-fixed")
    (tmp_path / "prime-fixed/prime.c").write_text(fixed)
    after = mend_check(tmp_path / "prime-fixed/prime.c")
    assert not after["repairs"], after

    with workbench(code_server, browser, folder, "prime") as wb:
        wb.open("prime.c")
        wb.show_problems()
        rows = wb.wait_problems([d["message"] for d in check["diagnostics"]], exact=True)
        assert all(r["source"] == "mend" for r in rows), rows
        start = tests[0]["range"]["start"]
        wb.quick_fix(start["line"], start["character"], repair["title"])
        assert wb.save_and_read("prime.c", fixed) == fixed
        assert wb.editor_lines() == fixed.split("\n")
        wb.wait_problems([d["message"] for d in after["diagnostics"]], exact=True)
        wb.screenshot("after")
