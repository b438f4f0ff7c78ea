// mend for VS Code: starts `mend lsp` for C files through vscode-languageclient, passes the
// `mend.*` settings, tells mend whether the clangd extension is there (so a syntax error is
// not shown twice), and shows analysis progress in the status bar. The `mend` debug type
// starts `mend dap` (the program runs in mend's interpreter); `mend.showHeap` draws the
// paused program's heap in a panel, refreshed at every stop.
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
} from 'vscode-languageclient/node';

const CLANGD_EXTENSION = 'llvm-vs-code-extensions.vscode-clangd';

let client: LanguageClient | undefined;
let status: vscode.StatusBarItem;
let output: vscode.OutputChannel;
/** Progress tokens the server has begun and not yet ended. */
const running = new Set<string | number>();
/** The heap panel, while it is open. */
let heapPanel: vscode.WebviewPanel | undefined;

function serverPath(): string {
  return vscode.workspace.getConfiguration('mend').get<string>('server.path', 'mend') || 'mend';
}

/** The heap as mend draws it (the `mendHeap` answer's text) as the panel's page. */
export function heapHtml(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return (
    '<!DOCTYPE html><html><head><meta charset="utf-8">' +
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\';">' +
    '<style>pre { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }</style>' +
    `</head><body><pre>${escaped || '(no variables here)'}</pre></body></html>`
  );
}

/** Shows (or refreshes) the heap of the active mend debugging session's innermost frame. */
async function showHeap(quiet = false): Promise<void> {
  const session = vscode.debug.activeDebugSession;
  if (!session || session.type !== 'mend') {
    if (!quiet) {
      void vscode.window.showInformationMessage('mend: start debugging a C file with "mend: run this file" first.');
    }
    return;
  }
  let answer: { text?: string };
  try {
    answer = await session.customRequest('mendHeap', { frameId: 1 });
  } catch (err) {
    if (!quiet) {
      void vscode.window.showInformationMessage(`mend: ${err instanceof Error ? err.message : String(err)}`);
    }
    return;
  }
  if (!heapPanel) {
    heapPanel = vscode.window.createWebviewPanel('mend.heap', 'mend: heap', vscode.ViewColumn.Beside, {});
    heapPanel.onDidDispose(() => {
      heapPanel = undefined;
    });
  }
  heapPanel.webview.html = heapHtml(answer.text ?? '');
}

/** `mend dap` for the `mend` debug type, and the heap panel kept up to date at each stop. */
function registerDebugger(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory('mend', {
      createDebugAdapterDescriptor: () => new vscode.DebugAdapterExecutable(serverPath(), ['dap']),
    }),
    vscode.debug.registerDebugAdapterTrackerFactory('mend', {
      createDebugAdapterTracker: () => ({
        onDidSendMessage: (m: { type?: string; event?: string }) => {
          if (m.type === 'event' && m.event === 'stopped' && heapPanel) {
            void showHeap(true);
          }
        },
      }),
    }),
    vscode.commands.registerCommand('mend.showHeap', () => showHeap()),
  );
}

/** Is the clangd extension installed and enabled (it then reports C syntax errors)? */
function clangdPresent(): boolean {
  return vscode.extensions.getExtension(CLANGD_EXTENSION) !== undefined;
}

/**
 * The settings object mend reads (`initializationOptions`, `workspace/configuration`,
 * `workspace/didChangeConfiguration`). Empty values are sent as `null`: mend then uses the
 * assignment's mend.toml or its default.
 */
export function serverSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('mend');
  return {
    bound: c.get<number | null>('bound', null),
    timeout: c.get<number | null>('timeout', null),
    mutationLevel: c.get<number>('mutationLevel', 1),
    maxRepairSize: c.get<number>('maxRepairSize', 2),
    hintLevel: c.get<string>('hintLevel', 'fix'),
    syntaxDiagnostics: c.get<string>('syntaxDiagnostics', 'auto'),
    otherCServer: clangdPresent(),
    runTests: c.get<boolean>('runTests', true),
    repairAssertions: c.get<boolean>('repairAssertions', true),
    repairTests: c.get<boolean>('repairTests', true),
    repairReference: c.get<boolean>('repairReference', true),
  };
}

function setStatus(state: 'starting' | 'idle' | 'checking' | 'stopped'): void {
  const texts = {
    starting: ['$(loading~spin) mend', 'mend is starting'],
    idle: ['$(check) mend', 'mend is ready; click to check this file again'],
    checking: ['$(sync~spin) mend: checking…', 'mend is checking your program'],
    stopped: ['$(error) mend', 'mend stopped; click to see its output, or run "mend: Restart the server"'],
  } as const;
  const [text, tooltip] = texts[state];
  status.text = text;
  status.tooltip = tooltip;
  status.command = state === 'stopped' ? 'mend.showOutput' : 'mend.checkFile';
  status.show();
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const command = serverPath();
  const serverOptions: ServerOptions = {
    run: { command, args: ['lsp'], transport: TransportKind.stdio },
    debug: { command, args: ['lsp'], transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: 'c' }],
    initializationOptions: { mend: serverSettings() },
    outputChannel: output,
    middleware: {
      workspace: {
        // mend pulls the "mend" section; answer with the processed settings (clangd flag,
        // nulls) rather than VS Code's raw view of the section.
        configuration: async (params, token, next) => {
          const raw = await next(params, token);
          if (!Array.isArray(raw)) {
            return raw;
          }
          return params.items.map((item, i) => (item.section === 'mend' ? serverSettings() : raw[i]));
        },
      },
    },
  };
  client = new LanguageClient('mend', 'mend', serverOptions, clientOptions);
  client.onDidChangeState((e) => {
    if (e.newState === State.Stopped) {
      running.clear();
      setStatus('stopped');
    } else if (e.newState === State.Starting) {
      setStatus('starting');
    }
  });
  setStatus('starting');
  await client.start();
  setStatus('idle');

  // Work-done progress (mend creates one for analyses longer than 200 ms): a status bar item
  // rather than a notification, which would pop up on every keystroke pause.
  const c = client;
  context.subscriptions.push(
    c.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      const sub = c.onProgress(WorkDoneProgress.type, token, (value) => {
        if (value.kind === 'begin') {
          running.add(token);
        } else if (value.kind === 'end') {
          running.delete(token);
          sub.dispose();
        }
        setStatus(running.size > 0 ? 'checking' : 'idle');
      });
      return null;
    }),
  );
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  running.clear();
  if (c) {
    await c.stop().catch(() => undefined);
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('mend');
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  status.name = 'mend';
  context.subscriptions.push(output, status);

  context.subscriptions.push(
    vscode.commands.registerCommand('mend.restart', async () => {
      await stopClient();
      await startClient(context);
    }),
    // (`mend.recheck` itself is the server's command, registered by the language client.)
    vscode.commands.registerCommand('mend.checkFile', async () => {
      const uri = vscode.window.activeTextEditor?.document.uri.toString();
      await client?.sendRequest('workspace/executeCommand', {
        command: 'mend.recheck',
        arguments: uri ? [uri] : [],
      });
    }),
    vscode.commands.registerCommand('mend.showOutput', () => output.show()),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('mend.server.path')) {
        await vscode.commands.executeCommand('mend.restart');
      } else if (e.affectsConfiguration('mend') && client) {
        await client.sendNotification('workspace/didChangeConfiguration', { settings: { mend: serverSettings() } });
      }
    }),
    // Installing or removing clangd changes what mend should report.
    vscode.extensions.onDidChange(async () => {
      await client?.sendNotification('workspace/didChangeConfiguration', { settings: { mend: serverSettings() } });
    }),
  );

  registerDebugger(context);

  try {
    await startClient(context);
  } catch (err) {
    setStatus('stopped');
    void vscode.window.showErrorMessage(
      `mend could not start "${vscode.workspace.getConfiguration('mend').get('server.path')} lsp": ${err}. ` +
        'Set "mend.server.path" to the mend program.',
    );
  }
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
