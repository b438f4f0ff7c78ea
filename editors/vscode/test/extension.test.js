// The extension's own logic under node's test runner, without VS Code: `vscode` and
// `vscode-languageclient/node` are replaced by recording fakes, then out/extension.js is
// activated and driven. Checks the settings mend receives (clangd detection, empty values),
// the configuration middleware, the status bar through a work-done progress, and restart.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const Module = require('node:module');
const path = require('node:path');

// ---- fakes -------------------------------------------------------------------------------
const config = {};
let clangdInstalled = false;
const commands = new Map();
const statusItems = [];
const clients = [];
const disposable = { dispose() {} };
const debugFactories = new Map();
const debugTrackers = new Map();
const panels = [];

const vscode = {
  workspace: {
    getConfiguration: (section) => {
      assert.equal(section, 'mend');
      return { get: (key, dflt) => (key in config ? config[key] : dflt) };
    },
    onDidChangeConfiguration: () => disposable,
  },
  extensions: {
    getExtension: (id) => (clangdInstalled && id === 'llvm-vs-code-extensions.vscode-clangd' ? { id } : undefined),
    onDidChange: () => disposable,
  },
  window: {
    createOutputChannel: () => ({ show() {}, dispose() {} }),
    createStatusBarItem: () => {
      const item = { text: '', tooltip: '', command: undefined, shown: false, show() { this.shown = true; }, dispose() {} };
      statusItems.push(item);
      return item;
    },
    showErrorMessage: async () => undefined,
    activeTextEditor: { document: { uri: { toString: () => 'file:///tmp/a.c' } } },
  },
  commands: {
    registerCommand: (name, fn) => { commands.set(name, fn); return disposable; },
    executeCommand: async (name, ...args) => commands.get(name)(...args),
  },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ViewColumn: { Beside: -2 },
  DebugAdapterExecutable: class {
    constructor(command, args) { Object.assign(this, { command, args }); }
  },
  debug: {
    activeDebugSession: undefined,
    registerDebugAdapterDescriptorFactory: (type, f) => { debugFactories.set(type, f); return disposable; },
    registerDebugAdapterTrackerFactory: (type, f) => { debugTrackers.set(type, f); return disposable; },
  },
};
const infos = [];
vscode.window.showInformationMessage = async (message) => { infos.push(message); };
vscode.window.createWebviewPanel = (id, title) => {
  const panel = { id, title, webview: { html: '' }, onDidDispose(fn) { this.dispose = fn; return disposable; } };
  panels.push(panel);
  return panel;
};

class FakeLanguageClient {
  constructor(id, name, serverOptions, clientOptions) {
    Object.assign(this, { id, name, serverOptions, clientOptions, started: false, stopped: false });
    this.requestHandlers = new Map();
    this.progressHandlers = new Map();
    this.sent = [];
    clients.push(this);
  }
  onDidChangeState(fn) { this.stateListener = fn; return disposable; }
  async start() { this.started = true; }
  async stop() { this.stopped = true; }
  onRequest(type, fn) { this.requestHandlers.set(type, fn); return disposable; }
  onProgress(type, token, fn) { this.progressHandlers.set(token, fn); return disposable; }
  async sendNotification(method, params) { this.sent.push([method, params]); }
  async sendRequest(method, params) { this.sent.push([method, params]); }
}
const languageclient = {
  LanguageClient: FakeLanguageClient,
  State: { Stopped: 1, Starting: 3, Running: 2 },
  TransportKind: { stdio: 0 },
  WorkDoneProgress: { type: 'workDoneProgress' },
  WorkDoneProgressCreateRequest: { type: 'window/workDoneProgress/create' },
};

const fakes = { vscode, 'vscode-languageclient/node': languageclient };
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request in fakes ? request : resolve.call(this, request, ...rest);
};
for (const [name, exports] of Object.entries(fakes)) {
  require.cache[name] = { id: name, filename: name, loaded: true, exports };
}
const ext = require(path.join(__dirname, '..', 'out', 'extension.js'));
const context = { subscriptions: [] };

// ---- tests ---------------------------------------------------------------------------------
test('settings: defaults leave bound and timeout to mend.toml; clangd is detected', () => {
  clangdInstalled = false;
  assert.deepEqual(ext.serverSettings(), {
    bound: null, timeout: null, mutationLevel: 1, maxRepairSize: 2, hintLevel: 'fix',
    syntaxDiagnostics: 'auto', otherCServer: false, runTests: true, repairAssertions: true,
    repairTests: true, repairReference: true,
  });
  clangdInstalled = true;
  Object.assign(config, { bound: 7, mutationLevel: 2, hintLevel: 'location', syntaxDiagnostics: 'on' });
  const s = ext.serverSettings();
  assert.equal(s.otherCServer, true);
  assert.equal(s.bound, 7);
  assert.equal(s.mutationLevel, 2);
  assert.equal(s.hintLevel, 'location');
  assert.equal(s.syntaxDiagnostics, 'on');
  for (const k of Object.keys(config)) delete config[k];
  clangdInstalled = false;
});

test('activate starts `mend lsp` for C files with the settings as initializationOptions', async () => {
  config['server.path'] = '/opt/mend/bin/mend';
  clangdInstalled = true;
  await ext.activate(context);
  const c = clients.at(-1);
  assert.ok(c.started);
  assert.equal(c.serverOptions.run.command, '/opt/mend/bin/mend');
  assert.deepEqual(c.serverOptions.run.args, ['lsp']);
  assert.deepEqual(c.clientOptions.documentSelector, [{ language: 'c' }]);
  assert.equal(c.clientOptions.initializationOptions.mend.otherCServer, true);
  assert.ok(commands.has('mend.restart') && commands.has('mend.checkFile') && commands.has('mend.showOutput'));
  assert.ok(!commands.has('mend.recheck'), 'mend.recheck is the server command the client registers');
});

test('workspace/configuration for "mend" answers the processed settings, other sections untouched', async () => {
  const c = clients.at(-1);
  const middleware = c.clientOptions.middleware.workspace.configuration;
  const params = { items: [{ section: 'mend' }, { section: 'editor' }] };
  const reply = await middleware(params, undefined, async () => [{ 'server.path': 'x', bound: null }, { tabSize: 4 }]);
  assert.equal(reply.length, 2);
  assert.equal(reply[0].otherCServer, true);
  assert.equal(reply[0].syntaxDiagnostics, 'auto');
  assert.ok(!('server.path' in reply[0]));
  assert.deepEqual(reply[1], { tabSize: 4 });
});

test('status bar: ready, checking during a work-done progress, ready again, stopped', async () => {
  const c = clients.at(-1);
  const status = statusItems.at(-1);
  assert.ok(status.shown);
  assert.equal(status.text, '$(check) mend');
  const create = c.requestHandlers.get('window/workDoneProgress/create');
  assert.ok(create, 'the extension handles progress creation');
  assert.equal(create({ token: 'mend/analysis/1' }), null);
  const progress = c.progressHandlers.get('mend/analysis/1');
  progress({ kind: 'begin', title: 'mend', message: 'checking…' });
  assert.equal(status.text, '$(sync~spin) mend: checking…');
  create({ token: 'mend/analysis/2' });
  c.progressHandlers.get('mend/analysis/2')({ kind: 'begin', title: 'mend' });
  progress({ kind: 'end' });
  assert.equal(status.text, '$(sync~spin) mend: checking…', 'still one analysis running');
  c.progressHandlers.get('mend/analysis/2')({ kind: 'end' });
  assert.equal(status.text, '$(check) mend');
  assert.equal(status.command, 'mend.checkFile');
  c.stateListener({ oldState: 2, newState: 1 });
  assert.equal(status.text, '$(error) mend');
  assert.equal(status.command, 'mend.showOutput');
});

test('check this file again asks mend to re-check the active file; restart replaces the client', async () => {
  const first = clients.at(-1);
  await commands.get('mend.checkFile')();
  assert.deepEqual(first.sent.at(-1), ['workspace/executeCommand', { command: 'mend.recheck', arguments: ['file:///tmp/a.c'] }]);
  await commands.get('mend.restart')();
  assert.ok(first.stopped);
  assert.notEqual(clients.at(-1), first);
  assert.ok(clients.at(-1).started);
  await ext.deactivate();
  assert.ok(clients.at(-1).stopped);
});

test('the mend debug type starts `mend dap`; the heap panel shows mendHeap and refreshes at each stop', async () => {
  config['server.path'] = '/opt/mend/bin/mend';
  const exe = debugFactories.get('mend').createDebugAdapterDescriptor({ type: 'mend' });
  assert.equal(exe.command, '/opt/mend/bin/mend');
  assert.deepEqual(exe.args, ['dap']);
  assert.ok(commands.has('mend.showHeap'));
  await commands.get('mend.showHeap')();
  assert.equal(panels.length, 0, 'no panel without a mend session');
  assert.match(infos.at(-1), /start debugging/);
  const asked = [];
  let text = 'head → n1\nn1: data = 1 < 2, next = NULL\n';
  vscode.debug.activeDebugSession = {
    type: 'mend',
    customRequest: async (command, args) => { asked.push([command, args]); return { text }; },
  };
  await commands.get('mend.showHeap')();
  assert.deepEqual(asked, [['mendHeap', { frameId: 1 }]]);
  assert.equal(panels.length, 1);
  assert.match(panels[0].webview.html, /<pre>head → n1\nn1: data = 1 &lt; 2, next = NULL\n<\/pre>/);
  // A stop refreshes the open panel.
  text = 'head = NULL\n';
  const tracker = debugTrackers.get('mend').createDebugAdapterTracker({ type: 'mend' });
  tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'step' } });
  await new Promise((r) => setImmediate(r));
  assert.equal(asked.length, 2);
  assert.match(panels[0].webview.html, /<pre>head = NULL\n<\/pre>/);
  vscode.debug.activeDebugSession = undefined;
  delete config['server.path'];
});
