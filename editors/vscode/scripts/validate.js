// Validates package.json (the extension manifest) and the compiled extension: fields VS Code
// and vsce require, the contributions issue 6 asks for, and that every setting the extension
// reads and every command it registers is contributed. Exits 1 listing every problem.
'use strict';
const fs = require('fs');
const path = require('path');

const dir = path.resolve(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
const problems = [];
const need = (cond, msg) => { if (!cond) problems.push(msg); };

for (const key of ['name', 'displayName', 'description', 'version', 'publisher', 'main', 'license']) {
  need(typeof pkg[key] === 'string' && pkg[key].length > 0, `"${key}" is missing`);
}
need(/^[a-z0-9][a-z0-9-]*$/.test(pkg.name || ''), 'name must be lower-case letters, digits and dashes');
need(/^\d+\.\d+\.\d+$/.test(pkg.version || ''), 'version must be semver x.y.z');
need(/^\^\d+\.\d+\.\d+$/.test((pkg.engines || {}).vscode || ''), 'engines.vscode must be ^x.y.z');
const typesVscode = (pkg.devDependencies || {})['@types/vscode'] || '';
need(((pkg.engines || {}).vscode || '').slice(1) === typesVscode.replace(/^[\^~]/, ''),
  '@types/vscode must match engines.vscode (vsce refuses a newer one)');
need((pkg.activationEvents || []).includes('onLanguage:c'), 'activation on C files (onLanguage:c)');
const main = path.join(dir, pkg.main || '');
need(fs.existsSync(main), `main ${pkg.main} does not exist (run npm run compile)`);

const props = ((pkg.contributes || {}).configuration || {}).properties || {};
for (const key of ['mend.server.path', 'mend.bound', 'mend.mutationLevel', 'mend.hintLevel', 'mend.timeout',
  'mend.syntaxDiagnostics', 'mend.runTests', 'mend.repairAssertions', 'mend.repairTests',
  'mend.repairReference', 'mend.trace.server']) {
  need(key in props, `setting ${key} is not contributed`);
}
for (const [key, p] of Object.entries(props)) {
  need(p.type !== undefined, `${key}: no type`);
  need('default' in p, `${key}: no default`);
  need(typeof (p.markdownDescription || p.description) === 'string', `${key}: no description`);
  if (p.enum) {
    need(p.enum.includes(p.default), `${key}: default ${JSON.stringify(p.default)} is not in its enum`);
    need(!p.enumDescriptions || p.enumDescriptions.length === p.enum.length, `${key}: enumDescriptions do not match enum`);
  }
}
need(props['mend.syntaxDiagnostics'] && props['mend.syntaxDiagnostics'].default === 'auto', 'syntaxDiagnostics defaults to auto');

const commands = ((pkg.contributes || {}).commands || []).map((c) => c.command);
need(commands.includes('mend.restart'), 'the restart command mend.restart is not contributed');

if (fs.existsSync(main)) {
  const js = fs.readFileSync(main, 'utf8');
  for (const m of js.matchAll(/registerCommand\(['"]([^'"]+)['"]/g)) {
    need(commands.includes(m[1]), `command ${m[1]} is registered but not contributed`);
  }
  for (const m of js.matchAll(/c\.get\(['"]([^'"]+)['"]/g)) {
    need(`mend.${m[1]}` in props, `the extension reads mend.${m[1]}, which is not contributed`);
  }
  need(js.includes('llvm-vs-code-extensions.vscode-clangd'), 'the extension looks for the clangd extension');
  need(js.includes('createStatusBarItem'), 'the extension has a status bar item');
}

if (problems.length > 0) {
  console.error(`package.json: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`package.json: ok (${Object.keys(props).length} settings, ${commands.length} commands)`);
