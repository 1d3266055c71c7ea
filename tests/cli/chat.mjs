#!/usr/bin/env node
// chat.mjs — data-driven tests of `dbmcp chat` (and POST /v1/chat) against
// the scripted OpenAI-compatible stub (tests/stub/openai-stub.mjs).
//
// Every tests/cases/chat/*.json is one case:
//   {
//     "description": "…",
//     "settings": {"agent.max_corrections": "1"},   // rows of dbmcp_settings
//     "setup_sql": "UPDATE …",                       // run before the chat; '$NOW' is the
//                                                    // time as dbmcp writes it (ISO, UTC, ms)
//     "env": {"DBMCP_LLM_STREAM": "1"},              // $PORT is the stub's port
//     "http": false,                                 // true: POST /v1/chat instead of the CLI
//     "scenario": {…} | […],                         // the stub's script (see its header)
//     "runs": [RUN, …]  or the fields of one RUN at top level
//     "chat_requests": 3,                            // chat requests the stub saw in total
//     "log": [CHECK, …],                             // checks on the stub's request log
//     "final_sql": [["SELECT …", "expected"], …]     // after every process ended (a server
//                                                    // writes its audit rows asynchronously)
//   }
//   RUN: {"message": "…", "args": ["--plan", "x", "--session", "$SESSION0"],
//         "expect": {"exit": 0, "status": "answered", "plan": "…", "selection": "…",
//                    "answer_contains": […], "answer_lacks": […], "llm_calls": 2,
//                    "tool_calls": [["name", "status"], …],
//                    "sql": [[QUERY, EXPECTED], …],
//                    "stderr_contains": […],
//                    "history": [{"path": "messages.1.tool_calls.0.id", "equals": X}, …]}}
//     (history: checks on get_session_history of the run's session, called as
//      `dbmcp call --interface memory` by the chat's principal)
//   QUERY: "SELECT … '$RUN' …" in SQL both engines take, or
//          {"sqlite": "…", "postgres": "…"} where they differ (JSON functions)
//   EXPECTED: "text" (what `dbmcp sql` prints), or ["row", …]: its rows in
//          order (instead of an engine's string aggregate)
//   CHECK: {"request": i, "path": "body.messages.-1.role", "equals": X}
//        | {"request": i, "path": "body.messages.1.content", "contains": "s"}
//        | {"request": i, "contains": "s"} | {"request": i, "lacks": "s"}
//     (request: index among chat requests, negative from the end; path
//      segments index arrays, negative from the end)
//
// Checked for every case besides: the stub recorded no expectation failure
// and served every scripted step; in every request the stub saw, each
// assistant tool call is answered by a tool message with its id and every
// tool message answers an earlier call; each run has exactly one dbmcp_audit
// row (method "llm") per LLM call, joined to dbmcp_llm_calls, and one
// dbmcp_audit row (transport "agent") per tool call it dispatched.
//
// Usage: node tests/cli/chat.mjs [NAME-SUBSTRING]   (DBMCP=path/to/dbmcp)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

import { dbSql, dropTestDb, testDb } from './lib/db.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const BIN = process.env.DBMCP || path.join(ROOT, 'build/dbmcp');
const CASES = path.join(ROOT, 'tests/cases/chat');
const STUB = path.join(ROOT, 'tests/stub/openai-stub.mjs');
const filter = process.argv[2] || '';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dbmcp-chat-'));
// Stubs and servers still running when this script ends (a case threw) are
// killed with it, and its scratch directory goes.
const children = new Set();
// Databases testDb made (on PostgreSQL they outlive the scratch directory).
const databases = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  for (const db of databases) dropTestDb(BIN, db);
  fs.rmSync(work, { recursive: true, force: true });
});
function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

// `dbmcp sql` waits for a lock a running server holds rather than fail.
function sql(db, query) {
  return dbSql(BIN, db, query).trim();
}

// A case's QUERY for the engine of db, and its EXPECTED as `dbmcp sql` prints it.
function engineQuery(db, q) {
  if (typeof q === 'string') return q;
  return q[/^postgres(ql)?:\/\//i.test(db) ? 'postgres' : 'sqlite'];
}
function expectedText(e) {
  return Array.isArray(e) ? e.join('\n') : String(e);
}

function quote(s) {
  return `'${String(s).replace(/'/g, "''")}'`;
}

function get(obj, p) {
  let v = obj;
  for (const seg of p.split('.')) {
    if (v === undefined || v === null) return undefined;
    if (Array.isArray(v) && /^-?\d+$/.test(seg)) {
      const i = Number(seg);
      v = v[i < 0 ? v.length + i : i];
    } else {
      v = v[seg];
    }
  }
  return v;
}

// How long a process may take to say it is ready, or one chat to run: they
// only bound how long a broken case takes to fail.
const START_MS = 60000;
const RUN_MS = 300000;

// Rejects after START_MS (the child is killed then).
function startTimer(child, what, reject, stderr) {
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
    reject(new Error(`${what} not ready within ${START_MS} ms: ${stderr()}`));
  }, START_MS);
  child.once('exit', () => clearTimeout(timer));
  return timer;
}

// The stub binds port 0 and prints the port it got as its first stdout line.
function startStub(scenarioFile, logFile) {
  return new Promise((resolve, reject) => {
    const child = track(spawn('node', [STUB, '--port', '0', '--scenario', scenarioFile, '--log', logFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = startTimer(child, 'stub', reject, () => stderr);
    const rl = readline.createInterface({ input: child.stdout });
    rl.once('line', (line) => {
      clearTimeout(timer);
      resolve({ child, port: Number(line.trim()), stderr: () => stderr });
    });
    child.once('exit', (code) => reject(new Error(`stub exited (${code}): ${stderr}`)));
  });
}

// dbmcp binds port 0 and prints "listening on http://HOST:PORT/mcp" once it
// accepts connections.
function startServer(db, env) {
  return new Promise((resolve, reject) => {
    const child = track(spawn(BIN, ['serve', '--db', db, '--http', '127.0.0.1:0'], {
      env, stdio: ['ignore', 'ignore', 'pipe'],
    }));
    let stderr = '';
    const timer = startTimer(child, 'dbmcp serve', reject, () => stderr);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /listening on http:\/\/([^/\s]+)\/mcp/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ child, base: `http://${m[1]}`, stderr: () => stderr });
      }
    });
    child.once('exit', (code) => reject(new Error(`dbmcp serve exited (${code}): ${stderr}`)));
  });
}

function toolCallsAnswered(body, failures, where) {
  const open = new Set();
  for (const m of body.messages || []) {
    for (const tc of m.tool_calls || []) open.add(tc.id);
    if (m.role === 'tool') {
      if (!open.has(m.tool_call_id)) failures.push(`${where}: tool message answers unknown id ${m.tool_call_id}`);
      open.delete(m.tool_call_id);
    }
  }
  if (open.size) failures.push(`${where}: tool calls left unanswered: ${[...open].join(', ')}`);
}

async function runChat(c, run, ctx) {
  const subst = (s) => s.replace(/\$SESSION(\d+)/g, (_, i) => ctx.sessions[Number(i)] || '');
  if (c.http) {
    const body = { message: run.message };
    for (let i = 0; i + 1 < (run.args || []).length; i += 2) {
      body[run.args[i].replace(/^--/, '')] = subst(run.args[i + 1]);
    }
    const res = await fetch(`${ctx.server.base}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${run.key ?? ctx.key}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(RUN_MS),
    });
    const text = await res.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* checked below */ }
    return { code: res.status, json, stdout: text, stderr: '' };
  }
  const args = ['chat', '--db', ctx.db, '--json', ...(run.args || []).map(subst), run.message];
  const r = spawnSync(BIN, args, { env: ctx.env, encoding: 'utf8', timeout: RUN_MS });
  let json = null;
  try { json = JSON.parse(r.stdout); } catch { /* checked below */ }
  return { code: r.status, json, stdout: r.stdout, stderr: r.stderr };
}

function checkRun(c, run, out, ctx, failures, label) {
  const e = run.expect || {};
  const want = e.exit ?? (c.http ? 200 : 0);
  if (out.code !== want) failures.push(`${label}: exit/status ${out.code}, expected ${want}; stderr: ${out.stderr.slice(0, 400)}`);
  if (e.stderr_contains) for (const s of e.stderr_contains) if (!(out.stderr + out.stdout).includes(s)) failures.push(`${label}: output lacks ${JSON.stringify(s)}`);
  const j = out.json;
  if (!j) {
    if (!e.no_json) failures.push(`${label}: no JSON on stdout: ${out.stdout.slice(0, 300)}`);
    return;
  }
  if (e.error_contains || !j.usage) {
    if (!e.error_contains) { failures.push(`${label}: not a chat result: ${JSON.stringify(j).slice(0, 300)}`); return; }
    if (!JSON.stringify(j).includes(e.error_contains)) failures.push(`${label}: error lacks ${e.error_contains}: ${JSON.stringify(j)}`);
    return;
  }
  ctx.sessions.push(j.session);
  for (const k of ['status', 'plan', 'selection']) if (e[k] !== undefined && j[k] !== e[k]) failures.push(`${label}: ${k} ${JSON.stringify(j[k])}, expected ${JSON.stringify(e[k])}`);
  for (const s of e.answer_contains || []) if (!(j.answer || '').includes(s)) failures.push(`${label}: answer lacks ${JSON.stringify(s)}: ${JSON.stringify(j.answer)}`);
  for (const s of e.answer_lacks || []) if ((j.answer || '').includes(s)) failures.push(`${label}: answer contains ${JSON.stringify(s)}`);
  if (e.llm_calls !== undefined && j.usage.llm_calls !== e.llm_calls) failures.push(`${label}: ${j.usage.llm_calls} LLM calls, expected ${e.llm_calls}`);
  if (e.tool_calls) {
    const got = (j.tool_calls || []).map((t) => [t.name, t.status]);
    if (JSON.stringify(got) !== JSON.stringify(e.tool_calls)) failures.push(`${label}: tool calls ${JSON.stringify(got)}, expected ${JSON.stringify(e.tool_calls)}`);
  }
  // One audit row per LLM call, joined to its dbmcp_llm_calls row.
  const run_id = quote(j.run_id);
  const audited = Number(sql(ctx.db, `SELECT count(*) FROM dbmcp_audit a JOIN dbmcp_llm_calls l USING (call_id) WHERE l.run_id = ${run_id} AND a.method = 'llm' AND a.target LIKE '%/%'`));
  const recorded = Number(sql(ctx.db, `SELECT count(*) FROM dbmcp_llm_calls WHERE run_id = ${run_id}`));
  if (audited !== j.usage.llm_calls || recorded !== j.usage.llm_calls) failures.push(`${label}: ${audited} audit rows / ${recorded} llm_calls rows for ${j.usage.llm_calls} LLM calls`);
  const dispatched = (j.tool_calls || []).filter((t) => t.status === 'ok' || t.status === 'error').length;
  ctx.toolAudits += dispatched;
  const runRow = sql(ctx.db, `SELECT status || '|' || llm_calls FROM dbmcp_runs WHERE id = ${run_id}`);
  if (runRow !== `${j.status}|${j.usage.llm_calls}`) failures.push(`${label}: dbmcp_runs row ${runRow}`);
  for (const [query, expected] of e.sql || []) {
    const q = engineQuery(ctx.db, query);
    const got = sql(ctx.db, q.replace(/\$RUN/g, j.run_id).replace(/\$SESSION/g, j.session));
    if (got !== expectedText(expected)) failures.push(`${label}: ${q} → ${JSON.stringify(got)}, expected ${JSON.stringify(expectedText(expected))}`);
  }
  if (e.history) {
    const who = ctx.env.DBMCP_PRINCIPAL || 'local';
    const h = spawnSync(BIN, ['call', '--db', ctx.db, '--interface', 'memory', '--principal', who, 'get_session_history', JSON.stringify({ session_id: j.session })], { env: ctx.env, encoding: 'utf8' });
    let hist = null;
    try { hist = JSON.parse(h.stdout); } catch { failures.push(`${label}: get_session_history gave no JSON: ${(h.stdout + h.stderr).slice(0, 300)}`); }
    for (const ch of hist ? e.history : []) {
      const v = get(hist, ch.path);
      if (JSON.stringify(v) !== JSON.stringify(ch.equals)) failures.push(`${label}: history ${ch.path} = ${JSON.stringify(v)?.slice(0, 200)}, expected ${JSON.stringify(ch.equals)}`);
    }
  }
}

function checkLog(c, logFile, failures) {
  const lines = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  const chats = lines.filter((l) => l.kind === 'chat');
  chats.forEach((l, i) => l.body && toolCallsAnswered(l.body, failures, `request ${i}`));
  if (c.chat_requests !== undefined && chats.length !== c.chat_requests) failures.push(`stub saw ${chats.length} chat requests, expected ${c.chat_requests}`);
  for (const ch of c.log || []) {
    const i = ch.request < 0 ? chats.length + ch.request : ch.request;
    const l = chats[i];
    if (!l) { failures.push(`log: no request ${ch.request}`); continue; }
    let text = l.raw ?? JSON.stringify(l.body);
    if (ch.path !== undefined) {
      const v = get(l, ch.path);
      text = typeof v === 'string' ? v : JSON.stringify(v) ?? '';
      if ('equals' in ch && JSON.stringify(v) !== JSON.stringify(ch.equals)) failures.push(`log request ${ch.request}: ${ch.path} = ${JSON.stringify(v)?.slice(0, 200)}, expected ${JSON.stringify(ch.equals)}`);
    }
    if (ch.contains !== undefined && !text.includes(ch.contains)) failures.push(`log request ${ch.request}: lacks ${JSON.stringify(ch.contains)}`);
    if (ch.lacks !== undefined && text.includes(ch.lacks)) failures.push(`log request ${ch.request}: contains ${JSON.stringify(ch.lacks)}`);
  }
}

async function runCase(file, template) {
  const name = path.basename(file, '.json');
  const c = JSON.parse(fs.readFileSync(file, 'utf8'));
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  const db = testDb(BIN, dir, 'chat', { template });
  databases.push(db);
  for (const [k, v] of Object.entries(c.settings || {})) sql(db, `INSERT INTO dbmcp_settings (key, value) VALUES (${quote(k)}, ${quote(v)}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
  if (c.setup_sql) sql(db, c.setup_sql.replace(/\$NOW/g, new Date().toISOString()));
  const scenarioFile = path.join(dir, 'scenario.json');
  const logFile = path.join(dir, 'requests.jsonl');
  fs.writeFileSync(scenarioFile, JSON.stringify(c.scenario ?? []));
  const stub = await startStub(scenarioFile, logFile);
  // Nothing from the caller's environment: no DBMCP_* variable but those set here.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DBMCP_')));
  const env = { ...inherited, DBMCP_LLM_URL: `http://127.0.0.1:${stub.port}/v1`, DBMCP_LLM_MODEL: 'stub-model', DBMCP_LLM_BACKOFF_BASE_MS: '1', DBMCP_LLM_BACKOFF_MAX_MS: '3000', DBMCP_LLM_API_KEY_ENV: 'STUB_API_KEY', STUB_API_KEY: 'sk-stub', DBMCP_LOG: 'warn' };
  for (const [k, v] of Object.entries(c.env || {})) env[k] = String(v).replace(/\$PORT/g, String(stub.port));
  const ctx = { db, env, sessions: [], toolAudits: 0 };
  const failures = [];
  try {
    if (c.http) {
      const key = spawnSync(BIN, ['keys', 'create', '--db', db, '--principal', 'alice', '--interface', c.http_interface || 'chatbot'], { encoding: 'utf8' });
      ctx.key = (key.stdout.match(/dbmcp_[A-Za-z0-9_]+/) || [''])[0];
      if (!ctx.key) throw new Error(`keys create: ${key.stderr}`);
      ctx.server = await startServer(db, env);
    }
    const runs = c.runs || [c];
    for (let i = 0; i < runs.length; i++) checkRun(c, runs[i], await runChat(c, runs[i], ctx), ctx, failures, runs.length > 1 ? `run ${i}` : 'run');
  } catch (e) {
    failures.push(String(e.stack || e));
  } finally {
    if (ctx.server) {
      ctx.server.child.kill('SIGTERM');
      await new Promise((r) => ctx.server.child.once('exit', r));
    }
  }
  try {
    const state = await (await fetch(`http://127.0.0.1:${stub.port}/stub/state`)).json();
    for (const f of state.failures || []) failures.push(`stub expectation: ${JSON.stringify(f)}`);
    if (state.chat_remaining !== 0) failures.push(`stub: ${state.chat_remaining} scripted steps not used`);
  } catch (e) {
    failures.push(`stub state: ${e}`);
  }
  stub.child.kill('SIGTERM');
  checkLog(c, logFile, failures);
  for (const [query, expected] of c.final_sql || []) {
    const q = engineQuery(db, query);
    const got = sql(db, q);
    if (got !== expectedText(expected)) failures.push(`final: ${q} → ${JSON.stringify(got)}, expected ${JSON.stringify(expectedText(expected))}`);
  }
  const toolRows = Number(sql(db, "SELECT count(*) FROM dbmcp_audit WHERE transport = 'agent' AND method = 'tools/call'"));
  if (toolRows !== ctx.toolAudits) failures.push(`${toolRows} tool audit rows (transport agent), expected ${ctx.toolAudits}`);
  return { name, failures };
}

const template = testDb(BIN, work, 'template');
databases.push(template);
const init = spawnSync(BIN, ['init', '--demo', '--db', template], { encoding: 'utf8' });
if (init.status !== 0) {
  console.error(`chat.mjs: dbmcp init failed: ${init.stderr}`);
  process.exit(1);
}
const files = fs.readdirSync(CASES).filter((f) => f.endsWith('.json') && f.includes(filter)).sort();
let passed = 0;
let failed = 0;
for (const f of files) {
  const { name, failures } = await runCase(path.join(CASES, f), template);
  if (failures.length) {
    failed++;
    console.log(`FAIL ${name}`);
    for (const x of failures) console.log(`     ${x}`);
  } else {
    passed++;
    console.log(`ok   ${name}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
