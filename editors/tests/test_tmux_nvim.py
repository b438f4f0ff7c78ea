"""What a student sees: Neovim in a real terminal (tmux), with the shipped lsp/mend.lua and the
diagnostic display editors/README.md recommends. The screen text is read with capture-pane
before and after the student applies the fix through Neovim's code-action menu (`gra`, then
`1`), and the wording on screen is asserted as a person reads it: one message per bug, no
solver vocabulary, the fix offered from whichever line shows the bug.
"""

import os
import re
import pathlib
import shutil
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MEND = os.environ.get("MEND_BIN") or shutil.which("mend") or "mend"
NVIM = os.environ.get("NVIM_BIN") or str(pathlib.Path(sys.executable).parent / "nvim")
WIDTH, HEIGHT = 200, 30

INIT = """
vim.opt.runtimepath:prepend(%(rtp)r)
vim.lsp.config('mend', { cmd = { %(mend)r, 'lsp' } })
vim.lsp.enable('mend')
vim.diagnostic.config({ virtual_text = true, severity_sort = true })
vim.opt.shortmess:append('I')
vim.opt.swapfile = false
"""


class Tmux:
    def __init__(self, socket: str):
        self.socket = socket

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], check=True, capture_output=True, text=True, timeout=10
        ).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "mend")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "mend", *keys)

    def wait_screen(self, what: str, cond, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if cond(screen):
                return screen
            if time.monotonic() > deadline:
                pytest.fail(f"timed out after {timeout} s waiting for {what}; the screen:\n{screen}")
            time.sleep(0.1)


def line_with(screen: str, text: str) -> str:
    lines = [line for line in screen.splitlines() if text in line]
    assert lines, f"no line with {text!r} on the screen:\n{screen}"
    return lines[0]


def apply_first_fix(tmux: Tmux, line: int, title: str, rechecked, timeout: float, keep: pathlib.Path) -> str:
    """On `line`, Neovim 0.11's code-action menu (`gra`) must list `title` first; choose it and
    wait until the screen shows the re-checked program (`rechecked`). The screen after is
    kept in `keep` and returned."""
    tmux.keys(f":{line}", "Enter")
    tmux.keys("g", "r", "a")
    menu = tmux.wait_screen("the code-action menu", lambda s: "Code actions:" in s, 15)
    assert f"1: {title}" in menu, menu
    tmux.keys("1", "Enter")
    after = tmux.wait_screen("the re-checked program", rechecked, timeout)
    keep.write_text(after)
    return after


@pytest.fixture
def tmux(tmp_path):
    if not shutil.which("tmux"):
        pytest.fail("tmux is not installed")
    t = Tmux(f"mend-editors-{os.getpid()}")
    yield t
    subprocess.run(["tmux", "-L", t.socket, "kill-server"], capture_output=True, timeout=10)


def test_student_sees_the_fix_and_applies_it(tmux: Tmux, tmp_path: pathlib.Path):
    init = tmp_path / "init.lua"
    init.write_text(INIT % {"rtp": str(ROOT / "editors/neovim"), "mend": MEND})
    src = tmp_path / "sum.c"
    shutil.copy(ROOT / "fixtures/mutation/sum.c", src)
    tmux.run(
        "new-session", "-d", "-s", "mend", "-x", str(WIDTH), "-y", str(HEIGHT),
        "-e", "TERM=xterm-256color",
        f"{NVIM} --clean -u {init} {src}",
    )

    # Before: the changed place on the loop, the failing assertion with its input.
    before = tmux.wait_screen(
        "mend's diagnostics", lambda s: "possible bug here" in s and "assertion can fail" in s, 60
    )
    loop = line_with(before, "for (i = 0; i < n; i++)")
    assert "possible bug here: `i < n` → `i <= n` fixes it (proved for runs of up to 5 loop iterations)" in loop, loop
    assertion = line_with(before, "assert(sum == n * (n + 1) / 2);")
    # The input the solver picks may change with the encoding; the wording may not.
    assert re.search(r"assertion can fail for n = (-?\d+) \(input `\1`\)", assertion), assertion
    # An error is marked in the sign column of the assertion's line.
    assert assertion.lstrip().startswith("E"), assertion

    # The student goes to the loop and chooses the fix from the code-action menu. After: the
    # loop reads `i <= n`, the assertion error is gone and mend says what it proved.
    after = apply_first_fix(
        tmux,
        10,
        "Fix (verified up to 5 loop iterations): `i < n` → `i <= n`",
        lambda s: "i <= n" in s and "every assertion holds" in s and "assertion can fail" not in s,
        60,
        tmp_path / "screen-after.txt",
    )
    assert "for (i = 0; i <= n; i++)" in after, after
    assert "possible bug" not in after, after
    holds = line_with(after, "every assertion holds")
    assert "every assertion holds on runs with at most 5 loop iterations; longer runs were not checked" in holds, holds

    # The buffer is written as the student would, and the file on disk is the fixed program.
    tmux.keys(":w", "Enter")
    deadline = time.monotonic() + 10
    expected = (ROOT / "editors/tests/expected/sum_fixed.c").read_text()
    while src.read_text() != expected:
        if time.monotonic() > deadline:
            pytest.fail(f"saved file differs from the expected fix:\n{src.read_text()}")
        time.sleep(0.1)
    tmux.keys(":qa!", "Enter")


def diagnostic_count(tmux: Tmux) -> int:
    """The number of diagnostics in the buffer, as Neovim counts them (printed on the command line)."""
    tmux.keys(":lua print('count=' .. #vim.diagnostic.get(0))", "Enter")
    screen = tmux.wait_screen("the diagnostic count", lambda s: re.search(r"count=\d+", s), 10)
    return int(re.search(r"count=(\d+)", screen).group(1))


def test_two_bugs_read_as_two_bugs_and_the_fix_comes_from_the_failing_test(tmux: Tmux, tmp_path: pathlib.Path):
    """examples/prime has two bugs (1 is called prime; so are squares). The student sees one
    warning per changed place and one for the failing tests, with a test's own input; `gra` on
    the failing test's line offers the verified fix, and after it mend says the program is
    right."""
    init = tmp_path / "init.lua"
    init.write_text(INIT % {"rtp": str(ROOT / "editors/neovim"), "mend": MEND})
    work = tmp_path / "prime"
    shutil.copytree(ROOT / "examples/prime", work)
    src = work / "prime.c"
    tmux.run(
        "new-session", "-d", "-s", "mend", "-x", str(WIDTH), "-y", str(HEIGHT),
        "-e", "TERM=xterm-256color",
        f"cd {work} && {NVIM} --clean -u {init} {src}",
    )
    tmux.wait_screen("mend's report", lambda s: "4 of 8 tests fail" in s and "differs from the reference" in s, 90)
    # Three diagnostics once the report is final: one per changed place, one for the tests.
    deadline = time.monotonic() + 30
    while (count := diagnostic_count(tmux)) != 3:
        if time.monotonic() > deadline:
            pytest.fail(f"{count} diagnostics, expected 3 (two changed places, the failing tests):\n{tmux.screen()}")
        time.sleep(0.5)
    tmux.keys("Escape")
    before = tmux.screen()
    (tmp_path / "screen-before.txt").write_text(before)
    # Both changed places are on the loop's line: Neovim marks two (■■) and shows the last.
    loop = line_with(before, "for (i = 2; i * i < n; i++)")
    assert "■■ differs from the reference in each iteration of the loop on line 8: `i * i < n` → `i * i <= n`" in loop, loop
    tests = line_with(before, 'printf("%d is prime\\n", n);')
    assert "■ 4 of 8 tests fail — e.g. input `1`: expected `1 is not prime`, got `1 is prime`" in tests, tests
    for jargon in ("bounded", "mutation level", "cost", "edge by edge", "patch size", "b="):
        assert jargon not in before, f"{jargon!r} on the screen:\n{before}"

    # The fix from the failing test's line: that is where the student looks.
    after = apply_first_fix(
        tmux,
        12,
        "Fix (verified): add `if (n < 2) prime = 0;`; `i * i < n` → `i * i <= n`",
        lambda s: "i * i <= n" in s and "for every input (verified)" in s and "tests fail" not in s,
        90,
        tmp_path / "screen-after.txt",
    )
    assert "if (n < 2) prime = 0;" in after, after
    verdict = line_with(after, "for every input (verified)")
    assert "your program prints the same values as the reference for every input (verified)" in verdict, verdict
    assert diagnostic_count(tmux) == 1
    tmux.keys(":qa!", "Enter")
