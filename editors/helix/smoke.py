#!/usr/bin/env python3
"""Smoke test of editors/helix/languages.toml (Helix itself is not packaged for Debian 12).

    python3 editors/helix/smoke.py [MEND_BIN]

Reads the TOML as Helix does, checks that C files get clangd and mend, then starts the
configured command the way Helix starts a language server: `initializationOptions` and the
`workspace/configuration` answers come from `config`, with Helix's client capabilities. It
asserts what the student sees: no syntax error from mend on a file with a missing `;` (clangd
reports it), and mend's repair with its quick fix on a file whose assertion can fail. If `hx`
is on PATH, `hx --health c` must list mend too. Exits 0 on success; every wait is bounded.
"""

import json
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import threading
import time
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TITLE = "Fix (verified up to 5 loop iterations): `i < n` → `i <= n`"
CHANGE = "possible bug here: `i < n` → `i <= n` fixes it (proved for runs of up to 5 loop iterations)"

# The capabilities Helix 25.x announces that matter to mend.
HELIX_CAPABILITIES = {
    "general": {"positionEncodings": ["utf-8", "utf-32", "utf-16"]},
    "window": {"workDoneProgress": True},
    "workspace": {"configuration": True, "applyEdit": True, "workspaceEdit": {"documentChanges": True}},
    "textDocument": {
        "publishDiagnostics": {"versionSupport": True},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}},
    },
}


def fail(msg: str) -> None:
    print(f"helix smoke: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


class Server:
    def __init__(self, cmd: list[str], config: dict):
        self.config = config
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                return
            self.inbox.put(json.loads(out.read(length)))

    def send(self, msg: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict, timeout: float = 10) -> dict:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == self.next_id and "method" not in m, timeout, method)
        if "error" in reply:
            fail(f"{method}: {reply['error']}")
        return reply["result"]

    def wait(self, pred, timeout: float, what: str | None) -> dict | None:
        """The first message satisfying `pred`; on timeout, fails (None if `what` is None)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                msg = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                if what is None:
                    return None
                fail(f"timed out after {timeout} s waiting for {what}")
            if "method" in msg and "id" in msg:
                self._answer(msg)
            if pred(msg):
                return msg

    def _answer(self, msg: dict) -> None:
        """Requests from the server, answered as Helix does."""
        if msg["method"] == "workspace/configuration":
            result = []
            for item in msg["params"]["items"]:
                value = self.config
                for part in (item.get("section") or "").split("."):
                    value = value.get(part) if part and isinstance(value, dict) else value
                result.append(value)
            self.send({"id": msg["id"], "result": result})
        else:
            self.send({"id": msg["id"], "result": None})

    def settled(self, uri: str, quiet: float, timeout: float) -> list:
        last = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri, timeout, f"diagnostics of {uri}")
        while (nxt := self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri, quiet, None)) is not None:
            last = nxt
        return last["params"]["diagnostics"]


def main() -> None:
    toml = tomllib.loads((HERE / "languages.toml").read_text())
    c = [lang for lang in toml.get("language", []) if lang.get("name") == "c"]
    if len(c) != 1:
        fail("languages.toml needs exactly one [[language]] named c")
    servers = c[0].get("language-servers", [])
    if not {"clangd", "mend"} <= set(servers):
        fail(f"C files should get clangd and mend, got {servers}")
    mend = toml["language-server"]["mend"]
    config = mend.get("config", {})
    if config.get("mend", {}).get("otherCServer") is not True:
        fail("beside clangd, mend's config must say otherCServer = true")
    if shutil.which("hx"):
        health = subprocess.run(["hx", "--health", "c"], capture_output=True, text=True, timeout=30).stdout
        if "mend" not in health:
            fail(f"hx --health c does not list mend:\n{health}")

    binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MEND_BIN", mend["command"])
    srv = Server([binary, *mend.get("args", [])], config)
    init = srv.request(
        "initialize",
        {"processId": os.getpid(), "rootUri": None, "capabilities": HELIX_CAPABILITIES,
         "initializationOptions": config, "clientInfo": {"name": "helix", "version": "25.07"}},
    )
    if init["capabilities"].get("positionEncoding") != "utf-8":
        fail(f"mend should pick Helix's utf-8: {init['capabilities'].get('positionEncoding')}")
    srv.send({"method": "initialized", "params": {}})

    semi = (ROOT / "fixtures/e2e/missing_semi.c").read_text()
    srv.send({"method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///tmp/helix-smoke/semi.c", "languageId": "c", "version": 0, "text": semi}}})
    diags = srv.settled("file:///tmp/helix-smoke/semi.c", 1.0, 10)
    if diags:
        fail(f"mend repeats what clangd reports: {diags}")

    sum_c = (ROOT / "fixtures/mutation/sum.c").read_text()
    uri = "file:///tmp/helix-smoke/sum.c"
    srv.send({"method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "c", "version": 0, "text": sum_c}}})
    diags = srv.settled(uri, 2.0, 60)
    messages = sorted(d["message"] for d in diags)
    if CHANGE not in messages or not any(m.startswith("assertion can fail for n = ") for m in messages):
        fail(f"expected the failing assertion and the changed place, got {messages}")
    hint = next(d for d in diags if d["message"] == CHANGE)
    actions = srv.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": hint["range"], "context": {"diagnostics": [hint]}})
    if [a["title"] for a in actions] != [TITLE]:
        fail(f"code actions: {actions}")
    edit = actions[0]["edit"]["documentChanges"][0]
    if edit["textDocument"]["version"] != 0 or [e["newText"] for e in edit["edits"]] != ["<="]:
        fail(f"unexpected edit: {edit}")
    srv.request("shutdown", None)
    srv.send({"method": "exit"})
    if srv.proc.wait(timeout=10) != 0:
        fail(f"mend exited with {srv.proc.returncode}")
    debugger(c[0], binary)
    print("helix smoke: ok (languages.toml parsed; mend beside clangd shows the repair, not the syntax error; the debugger starts)")


def debugger(language: dict, binary: str) -> None:
    """The `[language.debugger]` block: `mend dap` over stdio, started as Helix starts it,
    answers `initialize`, and its template's arguments are the launch's."""
    dbg = language.get("debugger") or fail("languages.toml has no [language.debugger] for C")
    if dbg.get("transport") != "stdio" or dbg.get("args") != ["dap"]:
        fail(f"the debugger must be `mend dap` over stdio: {dbg}")
    template = (dbg.get("templates") or [{}])[0]
    if template.get("request") != "launch" or set(template.get("args", {})) != {"program", "input"}:
        fail(f"the debugger's template should launch with program and input: {template}")
    proc = subprocess.Popen([binary, *dbg["args"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    body = json.dumps({"seq": 1, "type": "request", "command": "initialize", "arguments": {"adapterID": "mend", "clientID": "helix"}}).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()
    header = b""
    while not header.endswith(b"\r\n\r\n"):
        byte = proc.stdout.read(1)
        if not byte:
            fail("mend dap closed its output before answering initialize")
        header += byte
    reply = json.loads(proc.stdout.read(int(header.split(b":")[1].split(b"\r\n")[0])))
    if reply.get("type") != "response" or reply.get("command") != "initialize" or not reply.get("success"):
        fail(f"mend dap's answer to initialize: {reply}")
    proc.stdin.close()
    if proc.wait(timeout=10) != 0:
        fail(f"mend dap exited with {proc.returncode} at the end of its input")


if __name__ == "__main__":
    main()
