// run.mjs — the doc runner: every shell example in README.md and docs/*.md
// runs against a fresh demo database and its output is compared with what
// the page shows, so a change that breaks an example breaks `make test`.
// The convention is documented in docs/contributing-docs.md.
//
// A shell example is a fenced block tagged sh, shell, bash or console, or any
// fenced block with a line starting with "$ ". In it, a line starting with
// "$ " is a command (a line ending in "\" continues it); the lines up to the
// next "$ " line are what it prints (standard output, then standard error). A trailing
// "# exit N" on the command says its exit status (default 0). In the shown
// output, a line that is only "…" stands for any number of lines, and "…"
// inside a line for any text on that line.
//
// An HTML comment right above a block (blank lines between are allowed) says
// how to treat it:
//   <!-- docs-check: skip — REASON -->        not run; counted and printed
//   <!-- docs-check: serve-http PORT -->       a `dbmcp serve --http` of this
//       page's demo database is running; 127.0.0.1:PORT in the commands is
//       that server, $KEY a chatbot key (user alice) and $ADMIN_KEY an admin key
//   <!-- docs-check: sql DB -->                the block (SQL) runs as
//       `dbmcp sql --db DB` and must succeed; its output is not shown
//   <!-- docs-check: file NAME -->             the block's text is written to
//       NAME in the page's directory, for the commands after it
//   <!-- docs-check: capture KEY as PLACEHOLDER --> the first "KEY": VALUE a
//       command of the block prints replaces PLACEHOLDER in every later
//       command of the page (and VALUE becomes PLACEHOLDER in outputs);
//       capture /REGEX/ as PLACEHOLDER: the value is the regex's one group
//   <!-- docs-check: llm-stub PORT SCENARIO -->  the scripted LLM stand-in
//       (tests/stub/openai-stub.mjs) plays SCENARIO (a file under tests/);
//       127.0.0.1:PORT is its address, a later serve-http server's model; every
//       step must be requested and no expectation may fail
// and anywhere on a page, <!-- docs-check: skip-page — REASON --> skips every
// block of the page. A shell example without "$ " commands and without a
// marker is a failure: every block either runs or says why not.
//
// Each page runs in a fresh temporary directory holding demo.db (a copy of one
// fresh `dbmcp init --db demo.db --demo`, unless that is the page's first command)
// and build/dbmcp; `dbmcp` is on PATH. The
// commands of a page run in order, in one directory, and exported variables
// carry over from one command to the next. Before comparing, both sides pass
// through the masks below (times, durations, ids, keys, ports, paths).
//
// Usage: node tests/docs/run.mjs --bin build/dbmcp [--verbose] [--demo-dir DIR] [PAGE...]
//        (--verbose prints every command's unmasked output; --demo-dir: copy
//        DIR/demo.db, a fresh demo database made by the caller, instead of
//        making one, so that several runs share one `dbmcp init --demo`)
//        (no PAGE: README.md and docs/*.md of the repository)
// Exit status: 0 when every run block matched, 1 on any failure, 2 on usage.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const COMMAND_TIMEOUT_MS = 30000;
const MAX_PAGE_BYTES = 1 << 20; // a page larger than this is refused, not parsed

// --- masks: one short list, applied to the shown and the actual output alike ----------
const MASKS = [
  // the directory part of an absolute path (temp directories, /home/alice/…)
  [/(^|[\s'"(=:])\/(?:[^\s/'"():]+\/)+/g, '$1<DIR>/'],
  // ISO 8601 timestamps
  [/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?/g, '<TIME>'],
  // HTTP dates (the Date header)
  [/\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT\b/g, '<TIME>'],
  // durations
  [/\b\d+(?:\.\d+)? ?(?:ms|µs)\b/g, '<DURATION>'],
  [/\b\d+h \d\dm \d\ds\b/g, '<DURATION>'],
  // UUIDs (call ids, session ids), also when the page cuts one short with "…"
  [/\b[0-9a-f]{8}-(?:[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|…)/g, '<UUID>'],
  // API keys: dbmcp_<id>_<secret>, or as the page abbreviates them
  [/\bdbmcp_(?:[a-z0-9]{12}_[A-Za-z0-9_-]{20,}|…_…)/g, '<KEY>'],
];

// What a command printed, as a page shows it: standard output, then standard
// error without the operator log's JSON records (DBMCP_LOG governs those, and
// the order of two streams is the terminal's, not the program's).
function joinOutput(stdout, stderr) {
  const err = stderr.split('\n').filter((l) => !/^\{"ts":"[^"]*","level":"/.test(l));
  if (stdout && !stdout.endsWith('\n') && err.join('') !== '') stdout += '\n';
  return stdout + err.join('\n');
}

function mask(text) {
  for (const [re, to] of MASKS) text = text.replace(re, to);
  return text;
}

function normalise(text) {
  const lines = text.split('\n').map((l) => l.replace(/\s+$/, ''));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  while (lines.length && lines[0] === '') lines.shift();
  return lines;
}

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Does the actual output (lines) match the shown output (lines with "…")?
function matches(shown, actual) {
  let re = '^';
  shown.forEach((line, i) => {
    const nl = i < shown.length - 1 ? '\\n' : '';
    if (line.trim() === '…') re += `(?:[^\\n]*\\n)*?${i < shown.length - 1 ? '' : '[^\\n]*'}`;
    else re += line.split('…').map(escapeRe).join('[^\\n]*') + nl;
  });
  re += '$';
  return new RegExp(re, 'u').test(actual.join('\n'));
}

// --- parsing a page ----------------------------------------------------------------------
const SHELL_TAGS = new Set(['sh', 'shell', 'bash', 'console']);
const MARKER_RE = /^\s*<!--\s*docs-check:\s*(.*?)\s*-->\s*$/; // a line of its own

function parseMarker(text, where) {
  let m = /^skip(?:-page)?\s*(?:—|–|-|:)\s*(\S.*)$/.exec(text);
  if (m) return { kind: text.startsWith('skip-page') ? 'skip-page' : 'skip', reason: m[1] };
  m = /^serve-http\s+(\d+)$/.exec(text);
  if (m) return { kind: 'serve-http', port: m[1] };
  m = /^sql\s+(\S+)$/.exec(text);
  if (m) return { kind: 'sql', db: m[1] };
  m = /^file\s+([A-Za-z0-9._-]+)$/.exec(text);
  if (m) return { kind: 'file', name: m[1] };
  m = /^capture\s+([A-Za-z0-9_./-]+)\s+as\s+(\S+)$/.exec(text);
  if (m) return { kind: 'capture', key: m[1], placeholder: m[2] };
  m = /^capture\s+\/(.+)\/\s+as\s+(\S+)$/.exec(text);
  if (m) {
    let re;
    try {
      re = new RegExp(m[1]);
    } catch (e) {
      throw new Error(`${where}: capture /${m[1]}/: ${e.message}`);
    }
    if (new RegExp(`${m[1]}|`).exec('').length !== 2) throw new Error(`${where}: capture /${m[1]}/: the pattern needs exactly one group (the value)`);
    return { kind: 'capture', re, key: `/${m[1]}/`, placeholder: m[2] };
  }
  m = /^llm-stub\s+(\d+)\s+([A-Za-z0-9._/-]+\.json)$/.exec(text);
  if (m) return { kind: 'llm-stub', port: m[1], scenario: m[2] };
  throw new Error(`${where}: unknown docs-check marker "${text}" (skip — REASON, skip-page — REASON, serve-http PORT, sql DB, file NAME, capture KEY as PLACEHOLDER, capture /REGEX/ as PLACEHOLDER, llm-stub PORT SCENARIO.json)`);
}

export function parsePage(file) {
  const st = fs.statSync(file);
  if (st.size > MAX_PAGE_BYTES) throw new Error(`${file}: ${st.size} bytes, larger than the ${MAX_PAGE_BYTES} a page may have`);
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const blocks = [];
  let pageSkip = null;
  let pending = null; // a marker waiting for its block
  for (let i = 0; i < lines.length; i++) {
    const mk = MARKER_RE.exec(lines[i]);
    if (mk) {
      const marker = parseMarker(mk[1], `${file}:${i + 1}`);
      if (marker.kind === 'skip-page') pageSkip = marker.reason;
      else pending = marker;
      continue;
    }
    const open = /^(\s*)```\s*([A-Za-z0-9_-]*)/.exec(lines[i]);
    if (!open) {
      if (lines[i].trim() !== '') pending = null;
      continue;
    }
    const indent = open[1].length;
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push({ text: lines[j].slice(indent), line: j + 1 });
    if (j >= lines.length) throw new Error(`${file}:${i + 1}: fenced block never closed`);
    const isShell = SHELL_TAGS.has(open[2]) || body.some((b) => b.text.startsWith('$ '));
    if (isShell || (pending && (pending.kind === 'sql' || pending.kind === 'file'))) blocks.push({ file, line: i + 1, tag: open[2], body, marker: pending });
    pending = null;
    i = j;
  }
  return { file, blocks, pageSkip };
}

// The commands of a block: [{line, cmd, exit, shown: [lines]}].
export function commandsOf(block) {
  const cmds = [];
  let cur = null;
  let continuing = false;
  for (const { text, line } of block.body) {
    if (continuing) {
      cur.cmd += '\n' + text;
      continuing = text.endsWith('\\');
      continue;
    }
    if (text.startsWith('$ ')) {
      cur = { line, cmd: text.slice(2), shown: [] };
      cmds.push(cur);
      continuing = text.endsWith('\\');
      continue;
    }
    if (cur) cur.shown.push(text);
  }
  for (const c of cmds) {
    const last = c.cmd.split('\n').pop();
    const m = /#\s*exit\s+(?:status\s+)?(\d+)\s*$/.exec(last);
    c.exit = m ? Number(m[1]) : 0;
  }
  return cmds;
}

// A page whose first command creates demo.db itself starts without one.
function createsDemo(cmd) {
  return /^(?:build\/)?dbmcp init\b/.test(cmd) && /--db demo\.db\b/.test(cmd) && /--demo\b/.test(cmd);
}

// --- running -----------------------------------------------------------------------------
class PageRun {
  constructor(bin, verbose, demoTemplate) {
    this.verbose = verbose;
    this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dbmcp-docs.'));
    fs.chmodSync(this.tmp, 0o755);
    this.work = path.join(this.tmp, 'work');
    this.binDir = path.join(this.tmp, 'bin');
    this.envFile = path.join(this.tmp, 'env.sh');
    fs.mkdirSync(path.join(this.work, 'build'), { recursive: true });
    fs.mkdirSync(this.binDir);
    fs.symlinkSync(bin, path.join(this.binDir, 'dbmcp'));
    fs.symlinkSync(bin, path.join(this.work, 'build', 'dbmcp'));
    this.env = {
      PATH: `${this.binDir}:/usr/local/bin:/usr/bin:/bin`,
      HOME: this.work,
      TMPDIR: this.tmp,
      LANG: 'C.UTF-8',
      TZ: 'UTC',
    };
    this.ports = []; // [actual, shown]
    this.captures = []; // [actual, placeholder]
    this.server = null;
    this.stub = null; // the scripted LLM stand-in, when an llm-stub marker started it
    this.stubFailures = []; // verdicts of stand-ins already stopped
    if (!demoTemplate) return;
    for (const f of fs.readdirSync(demoTemplate)) if (f.startsWith('demo.db')) fs.copyFileSync(path.join(demoTemplate, f), path.join(this.work, f));
  }

  // One command in the page's shell state; its output as joinOutput gives it.
  sh(cmd) {
    const script = `[ -f '${this.envFile}' ] && . '${this.envFile}'
cd '${this.work}' || exit 99
exec </dev/null
${cmd}
__status=$?
export -p > '${this.envFile}'
exit $__status
`;
    const r = spawnSync('bash', ['-c', script], { env: this.env, encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS });
    const out = joinOutput(r.stdout || '', r.stderr || '');
    if (r.error && r.error.code === 'ETIMEDOUT') return { status: -1, out: out + `\n[docs-check: no exit after ${COMMAND_TIMEOUT_MS / 1000} s]` };
    return { status: r.status, out };
  }

  async serveHttp(shownPort) {
    if (!this.server) {
      const key = this.sh('dbmcp keys create --db demo.db --interface chatbot --user alice');
      const admin = this.sh('dbmcp keys create --db demo.db --admin');
      if (key.status || admin.status) throw new Error(`dbmcp keys create failed:\n${key.out}${admin.out}`);
      const keyOf = (out) => /dbmcp_\S+/.exec(out)[0];
      fs.appendFileSync(this.envFile, `export KEY='${keyOf(key.out)}' ADMIN_KEY='${keyOf(admin.out)}'\n`);
      const port = await freePort();
      const log = fs.openSync(path.join(this.tmp, 'serve.log'), 'w');
      // after an llm-stub marker, the server's model is the stand-in
      const env = this.stub ? { ...this.env, DBMCP_LLM_URL: `http://127.0.0.1:${this.stub.port}/v1`, DBMCP_LLM_MODEL: 'stub', DBMCP_LLM_API_KEY_ENV: 'none' } : this.env;
      this.server = spawn(path.join(this.binDir, 'dbmcp'), ['serve', '--db', 'demo.db', '--http', `127.0.0.1:${port}`], {
        cwd: this.work,
        env,
        stdio: ['ignore', log, log],
      });
      this.serverPort = String(port);
      for (let t = 0; t < 100; t++) {
        if (this.sh(`curl -sf -o /dev/null http://127.0.0.1:${port}/status`).status === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    this.ports.push([this.serverPort, shownPort]);
  }

  // The scripted LLM stand-in (tests/stub/openai-stub.mjs) on a free port,
  // playing SCENARIO (a conversation file under tests/); 127.0.0.1:PORT in
  // the commands is its address. A marker naming another scenario stops the
  // running stand-in (its verdict counts) and starts one for the new one.
  async startStub(scenario, shownPort) {
    if (this.stub && this.stub.scenario !== scenario) {
      this.stubFailures.push(...(await this.stubProblems()));
      this.stub.child.kill('SIGTERM');
      this.ports = this.ports.filter(([actual]) => actual !== this.stub.port);
      this.stub = null;
    }
    if (!this.stub) {
      const file = path.resolve(ROOT, scenario);
      if (!file.startsWith(path.join(ROOT, 'tests') + path.sep) || !fs.existsSync(file)) throw new Error(`llm-stub: ${scenario} is not a scenario file under tests/`);
      const child = spawn('node', [path.join(ROOT, 'tests/stub/openai-stub.mjs'), '--port', '0', '--scenario', file, '--log', path.join(this.tmp, 'stub.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
      const port = await new Promise((resolve, reject) => {
        let out = '';
        let err = '';
        const timer = setTimeout(() => reject(new Error(`llm-stub: no port after 10 s\n${err}`)), 10000);
        child.stderr.on('data', (d) => (err += d));
        child.stdout.on('data', (d) => {
          out += d;
          const m = /^(\d+)\n/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        child.once('exit', (code) => reject(new Error(`llm-stub exited (${code}): ${err}`)));
      });
      child.stdout.resume();
      this.stub = { child, port, scenario };
    }
    this.ports.push([this.stub.port, shownPort]);
  }

  // The stand-in's verdict: every scripted step served, no expectation failed.
  async stubProblems() {
    if (!this.stub) return [];
    const state = await (await fetch(`http://127.0.0.1:${this.stub.port}/stub/state`)).json();
    const problems = (state.failures || []).map((f) => `stub expectation failed: ${JSON.stringify(f)}`);
    if (state.chat_remaining) problems.push(`${state.chat_remaining} scripted step(s) of ${this.stub.scenario} never requested`);
    return problems;
  }

  // After a capture marker: the first "KEY": VALUE in a command's output is what
  // PLACEHOLDER stands for in the commands after it (and in outputs, back).
  capture(marker, out) {
    if (this.captures.some(([, ph]) => ph === marker.placeholder)) return true;
    const re = marker.re || new RegExp(`"${escapeRe(marker.key)}"\\s*:\\s*(?:"([^"\\n]*)"|(-?\\d+))`);
    const m = re.exec(out);
    if (!m) return false;
    this.captures.push([m[1] !== undefined ? m[1] : m[2], marker.placeholder]);
    return true;
  }

  substitute(cmd) {
    for (const [actual, shown] of this.ports) cmd = cmd.split(`127.0.0.1:${shown}`).join(`127.0.0.1:${actual}`);
    for (const [actual, ph] of this.captures) cmd = cmd.split(ph).join(actual);
    return cmd;
  }

  unsubstitute(out) {
    for (const [actual, shown] of this.ports) out = out.split(`127.0.0.1:${actual}`).join(`127.0.0.1:${shown}`);
    for (const [actual, ph] of this.captures) if (actual.length >= 3) out = out.split(actual).join(ph);
    return out;
  }

  close() {
    if (this.server) this.server.kill('SIGTERM');
    if (this.stub) this.stub.child.kill('SIGTERM');
    if (!process.env.KEEP) fs.rmSync(this.tmp, { recursive: true, force: true });
  }
}

// One fresh `dbmcp init --db demo.db --demo`, copied into each page's directory.
let templateDir = null;
function makeDemoTemplate(bin) {
  templateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dbmcp-docs-demo.'));
  const r = spawnSync(bin, ['init', '--db', 'demo.db', '--demo'], { cwd: templateDir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: templateDir } });
  if (r.status !== 0) throw new Error(`dbmcp init --db demo.db --demo failed:\n${r.stdout}${r.stderr}`);
}
function demoTemplate() {
  return templateDir;
}

function freePort() {
  return new Promise((resolve, reject) => {
    import('node:net').then(({ createServer }) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = s.address().port;
        s.close(() => resolve(p));
      });
      s.on('error', reject);
    });
  });
}

function unifiedDiff(shown, actual) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dbmcp-docs-diff.'));
  fs.writeFileSync(path.join(dir, 'shown'), shown.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'actual'), actual.join('\n') + '\n');
  const r = spawnSync('diff', ['-u', '--label', 'shown on the page', '--label', 'actual (masked)', 'shown', 'actual'], { cwd: dir, encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true, force: true });
  return r.stdout;
}

async function main() {
  const args = process.argv.slice(2);
  let bin = null;
  let verbose = false;
  let demoDir = null; // a directory holding a fresh `dbmcp init --db demo.db --demo` to copy
  const pages = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--bin') bin = args[++i];
    else if (args[i] === '--verbose') verbose = true;
    else if (args[i] === '--demo-dir') demoDir = args[++i];
    else if (args[i].startsWith('-')) {
      console.error(`run.mjs: unknown option ${args[i]}`);
      process.exit(2);
    } else pages.push(args[i]);
  }
  if (!bin) {
    console.error('usage: node tests/docs/run.mjs --bin build/dbmcp [--verbose] [PAGE...]');
    process.exit(2);
  }
  bin = path.resolve(bin);
  if (!pages.length) {
    pages.push(path.join(ROOT, 'README.md'));
    for (const f of fs.readdirSync(path.join(ROOT, 'docs')).sort()) if (f.endsWith('.md')) pages.push(path.join(ROOT, 'docs', f));
  }

  if (demoDir) {
    if (!fs.existsSync(path.join(demoDir, 'demo.db'))) {
      console.log(`FAIL --demo-dir ${demoDir}: no demo.db in it`);
      process.exit(1);
    }
    templateDir = path.resolve(demoDir);
  } else {
    try {
      makeDemoTemplate(bin);
    } catch (e) {
      console.log(`FAIL ${e.message}`);
      process.exit(1);
    }
    process.on('exit', () => fs.rmSync(templateDir, { recursive: true, force: true }));
  }
  const stats = { pages: 0, run: 0, commands: 0, skipped: [], failures: 0 };
  const fail = (where, msg) => {
    stats.failures++;
    console.log(`FAIL ${where}: ${msg}`);
  };
  for (const file of pages) {
    const rel = path.relative(process.cwd(), file) || file;
    let page;
    try {
      page = parsePage(file);
    } catch (e) {
      fail(rel, e.message);
      continue;
    }
    stats.pages++;
    if (page.pageSkip) {
      for (const b of page.blocks) stats.skipped.push(`${rel}:${b.line}: ${page.pageSkip}`);
      continue;
    }
    const runnable = [];
    for (const b of page.blocks) {
      if (b.marker && b.marker.kind === 'skip') stats.skipped.push(`${rel}:${b.line}: ${b.marker.reason}`);
      else if (b.marker && (b.marker.kind === 'sql' || b.marker.kind === 'file')) runnable.push(b);
      else if (!commandsOf(b).length) fail(`${rel}:${b.line}`, 'shell block with no "$ " command and no docs-check marker: show it as "$ " commands and output, or say why it cannot run (<!-- docs-check: skip — REASON -->)');
      else runnable.push(b);
    }
    if (!runnable.length) continue;
    let run;
    try {
      const first = commandsOf(runnable[0])[0];
      run = new PageRun(bin, verbose, first && createsDemo(first.cmd) ? null : demoTemplate());
    } catch (e) {
      fail(rel, e.message);
      continue;
    }
    try {
      for (const b of runnable) {
        if (b.marker && b.marker.kind === 'llm-stub') await run.startStub(b.marker.scenario, b.marker.port);
        if (b.marker && b.marker.kind === 'serve-http') await run.serveHttp(b.marker.port);
        stats.run++;
        if (b.marker && b.marker.kind === 'file') {
          fs.writeFileSync(path.join(run.work, b.marker.name), b.body.map((l) => l.text).join('\n') + '\n');
          continue;
        }
        if (b.marker && b.marker.kind === 'sql') {
          stats.commands++;
          const sqlFile = path.join(run.tmp, 'block.sql');
          fs.writeFileSync(sqlFile, b.body.map((l) => l.text).join('\n') + '\n');
          const r = run.sh(`dbmcp sql --db '${b.marker.db}' < '${sqlFile}'`);
          if (verbose) console.log(`run  ${rel}:${b.line}: SQL on ${b.marker.db}\n${r.out}\n[exit ${r.status}]`);
          if (r.status !== 0) fail(`${rel}:${b.line}`, `SQL block on ${b.marker.db}: exit status ${r.status}\n${r.out}`);
          continue;
        }
        let captured = !(b.marker && b.marker.kind === 'capture');
        for (const c of commandsOf(b)) {
          stats.commands++;
          const r = run.sh(run.substitute(c.cmd));
          if (!captured) captured = run.capture(b.marker, r.out);
          const actual = normalise(mask(run.unsubstitute(r.out)));
          const shown = normalise(mask(c.shown.join('\n')));
          const where = `${rel}:${c.line}`;
          if (verbose) console.log(`run  ${where}: $ ${c.cmd}\n${r.out}\n[exit ${r.status}]`);
          if (r.status !== c.exit) {
            const diff = matches(shown, actual) ? '' : unifiedDiff(shown, actual);
            fail(where, `$ ${c.cmd}\n  exit status ${r.status}, the page says ${c.exit}${c.exit ? '' : ' (mark another with "# exit N")'}\n${diff}`);
          } else if (!matches(shown, actual)) {
            fail(where, `$ ${c.cmd}\n  output differs\n${unifiedDiff(shown, actual)}`);
          }
        }
        if (!captured) fail(`${rel}:${b.line}`, `capture: no command of the block printed "${b.marker.key}"`);
      }
      for (const p of [...run.stubFailures, ...(await run.stubProblems())]) fail(rel, p);
    } finally {
      run.close();
    }
  }
  console.log(`\ndocs-check: ${stats.pages} pages, ${stats.run} blocks run (${stats.commands} commands), ${stats.skipped.length} blocks skipped, ${stats.failures} failures`);
  if (stats.skipped.length) {
    console.log('skipped:');
    for (const s of stats.skipped) console.log(`  ${s}`);
  }
  process.exit(stats.failures ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
