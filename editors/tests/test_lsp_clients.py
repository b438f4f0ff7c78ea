"""`mend lsp` driven by pytest-lsp once per recorded client capability set it ships (VS Code,
Neovim, Emacs): initialize, open, diagnostics, code action, completion, `$/cancelRequest`
in the middle of an analysis, shutdown.

The server is the binary in $MEND_BIN. Every wait is bounded.
"""

import asyncio
import os
import pathlib
import shutil

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

ROOT = pathlib.Path(__file__).resolve().parents[2]
MEND = os.environ.get("MEND_BIN") or shutil.which("mend") or "mend"
SUM = (ROOT / "fixtures/mutation/sum.c").read_text()
FIXED = (ROOT / "editors/tests/expected/sum_fixed.c").read_text()
# Characters of 1, 2 and 4 UTF-8 bytes (1, 1, 2 UTF-16 units) in front of the repair, on its
# line: a client/server disagreement on position encoding puts the edit in the wrong place.
LOOP = "    for (i = 0; i < n; i++)"
MARK = "    /* Σ 😀 */ for (i = 0; i < n; i++)"
assert LOOP in SUM
TITLE = "Fix (verified up to 5 loop iterations): `i < n` → `i <= n`"
CHANGE = "possible bug here: `i < n` → `i <= n` fixes it (proved for runs of up to 5 loop iterations)"
# pytest-lsp's recorded capability sets; `neovim` is its latest (0.11.0).
CLIENTS = ["visual-studio-code", "neovim", "emacs"]
# The analysis sleeps this long first (`mend lsp --test-hooks delay=MS`), so a request can be
# cancelled while an analysis is in progress.
DELAY_MS = 1500


@pytest_lsp.fixture(
    params=CLIENTS,
    config=ClientServerConfig(
        server_command=[MEND, "lsp", f"--test-hooks=delay={DELAY_MS}"],
    ),
)
async def client(lsp_client: LanguageClient, request):
    lsp_client.mend_client = request.param
    yield
    # A failed test leaves the server running; stop it so the teardown does not wait on it.
    server = lsp_client._server
    if server is not None and server.returncode is None:
        server.kill()


async def wait_until(client: LanguageClient, what: str, cond, timeout: float = 60.0):
    """Waits for a condition on what the client has received; fails after `timeout` s."""

    async def poll():
        while not cond():
            await asyncio.sleep(0.05)

    try:
        await asyncio.wait_for(poll(), timeout)
    except asyncio.TimeoutError:
        pytest.fail(f"timed out after {timeout} s waiting for {what}")


def offset(text: str, pos: types.Position, encoding: str) -> int:
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: pos.line])
    line = lines[pos.line]
    if encoding == "utf-8":
        return start + len(line.encode("utf-8")[: pos.character].decode("utf-8"))
    if encoding == "utf-32":
        return start + pos.character
    units = 0
    for i, ch in enumerate(line):
        if units >= pos.character:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(line)


def apply(text: str, edits, encoding: str) -> str:
    spans = [(offset(text, e.range.start, encoding), offset(text, e.range.end, encoding), e.new_text) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


async def test_session(client: LanguageClient, tmp_path: pathlib.Path):
    name = client.mend_client
    caps = client_capabilities(name)
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=tmp_path.as_uri(),
            initialization_options={"mend": {"debounceMs": 50, "progressDelayMs": 0, "hintLevel": "fix"}},
        )
    )
    server = result.capabilities
    assert result.server_info.name == "mend"
    offered = caps.general.position_encodings if caps.general else None
    expected_encoding = "utf-8" if offered and "utf-8" in offered else "utf-16"
    assert server.position_encoding == expected_encoding
    encoding = server.position_encoding
    assert list(server.code_action_provider.code_action_kinds) == [types.CodeActionKind.QuickFix]
    assert server.completion_provider is not None
    assert "mend.applyRepair" in server.execute_command_provider.commands

    # Open: a program whose assertion can fail, with multi-byte characters before the bug.
    text = SUM.replace(LOOP, MARK)
    path = tmp_path / "sum.c"
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="c", version=1, text=text))
    )

    # Diagnostics: the failing assertion (with the input that breaks it) and the repair.
    def by_code(code):
        return [d for d in client.diagnostics.get(uri, []) if d.code == code]

    await wait_until(client, "the repair diagnostic", lambda: by_code("repair") and by_code("assertion"))
    assertion, repair = by_code("assertion")[0], by_code("repair")[0]
    assert assertion.severity == types.DiagnosticSeverity.Error
    assert assertion.source == "mend"
    assert assertion.message.startswith("assertion can fail for n = "), assertion.message
    assert assertion.range.start.line == 11  # assert(sum == n * (n + 1) / 2);
    assert repair.message == CHANGE
    assert repair.severity == types.DiagnosticSeverity.Warning
    assert repair.range.start.line == 9
    assert text[offset(text, repair.range.start, encoding) :].startswith("i < n"), (encoding, repair.range)
    # The analysis reported work-done progress (the client said it supports it).
    if caps.window and caps.window.work_done_progress:
        # LSP does not order the progress end after the diagnostics: wait for it.
        def kinds():
            return [type(v).__name__ for values in client.progress_reports.values() for v in values]

        await wait_until(client, "the end of the analysis' progress", lambda: "WorkDoneProgressEnd" in kinds(), 10.0)
        assert "WorkDoneProgressBegin" in kinds(), kinds()

    # Code action: the repair, preferred, as an edit in the shape the client asked for.
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=repair.range,
            context=types.CodeActionContext(diagnostics=[repair]),
        )
    )
    assert [a.title for a in actions] == [TITLE]
    action = actions[0]
    assert action.kind == types.CodeActionKind.QuickFix and action.is_preferred
    versioned = bool(caps.workspace and caps.workspace.workspace_edit and caps.workspace.workspace_edit.document_changes)
    if versioned:
        [change] = action.edit.document_changes
        assert change.text_document.uri == uri and change.text_document.version == 1
        edits = change.edits
    else:
        edits = action.edit.changes[uri]
    assert apply(text, edits, encoding) == FIXED.replace(LOOP.replace("<", "<="), MARK.replace("<", "<="))

    # Completion: the server answers with a list, not an error or null.
    completion = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=10, character=8)
        )
    )
    items = completion.items if isinstance(completion, types.CompletionList) else completion
    assert items == []

    # $/cancelRequest in the middle of an analysis: re-check (the analysis sleeps DELAY_MS
    # first), then ask mend to apply the repair; mend asks the client to apply the edit, the
    # client holds its answer, and the request is cancelled while both are pending.
    apply_edit_asked = asyncio.Event()
    release = asyncio.Event()

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    async def on_apply_edit(params: types.ApplyWorkspaceEditParams):
        apply_edit_asked.set()
        await release.wait()
        return types.ApplyWorkspaceEditResult(applied=False)

    published_before = len(client.progress_reports)
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="mend.recheck", arguments=[uri])
    )
    await wait_until(client, "the re-check's progress", lambda: len(client.progress_reports) > published_before, 10)
    token = list(client.progress_reports)[-1]
    started = asyncio.get_running_loop().time()
    future = asyncio.ensure_future(
        client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command="mend.applyRepair", arguments=[{"uri": uri, "version": 1, "index": 0}]),
            msg_id="mend-cancel-me",
        )
    )
    if caps.workspace and caps.workspace.apply_edit:
        await asyncio.wait_for(apply_edit_asked.wait(), 10)
    in_progress = not any(isinstance(v, types.WorkDoneProgressEnd) for v in client.progress_reports[token])
    assert in_progress, "the analysis ended before the cancellation: raise DELAY_MS"
    client.protocol.notify("$/cancelRequest", types.CancelParams(id="mend-cancel-me"))
    try:
        reply = await asyncio.wait_for(future, 10)
    except JsonRpcRequestCancelled as err:
        cancelled = err
    else:
        cancelled = None
        # A client without applyEdit gets the edit back at once; it may win the race.
        assert not (caps.workspace and caps.workspace.apply_edit), f"not cancelled: {reply}"
    release.set()
    # The analysis in progress still finishes and re-publishes the same findings.
    await wait_until(
        client,
        "the end of the re-check",
        lambda: any(isinstance(v, types.WorkDoneProgressEnd) for v in client.progress_reports[token]),
        30,
    )
    assert asyncio.get_running_loop().time() - started < 30
    assert [d.message for d in by_code("repair")] == [CHANGE]

    # The server still answers, then shuts down cleanly.
    again = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=repair.range,
            context=types.CodeActionContext(diagnostics=[repair]),
        )
    )
    assert [a.title for a in again] == [TITLE]
    await client.shutdown_session()
    assert client._server.returncode == 0
