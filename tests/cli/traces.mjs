#!/usr/bin/env node
// traces.mjs — traces of `dbmcp serve --http` exported to an OTLP collector
// (docs/operations.md, "Traces"), run by tests/cli/traces.sh. The collector
// is tests/stub/otlp-collector.mjs (OTLP/HTTP JSON on POST /v1/traces, the
// spans it accepted at GET /spans); the LLM and the embedding service are
// tests/stub/openai-stub.mjs; the MCP client is the official SDK.
//
//   header      a tools/call sent by the SDK with a traceparent header: its
//               span is in the caller's trace under the caller's span, its
//               SQL statement a child span holding the statement, and the
//               audit row of the call (by dbmcp/callId) stores the trace id
//   _meta       params._meta.traceparent wins over the header: the span and
//               the audit row carry the _meta trace
//   embedding   search_documents with an HTTP embedder: an embeddings span
//               under the call's span
//   chat        POST /v1/chat with a traceparent: one server span, the two
//               LLM requests and the agent's tool call under it, the tool's
//               SQL under the tool call, the tool call's audit row in the
//               same trace
//   metrics     dbmcp_trace_spans_exported_total counts what the collector
//               holds; resource attributes name the service and replica
//   slow        a collector that holds every export: calls are answered
//               all the same, the queue (trace.queue_max 1) drops and
//               /metrics counts it
//   down        no collector at the endpoint: calls answered, failed
//               exports counted
//
// Waits for exports poll with a deadline of a minute; no sleeps, no timing
// assertions. Prints "N passed, M failed"; exits 1 on any failure.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

import { dbRows, dbSql, dropTestDb, testDb } from './lib/db.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const require = createRequire(path.join(ROOT, 'tests/node/package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const BIN = process.env.DBMCP || path.join(ROOT, 'build/dbmcp');
const COLLECTOR = path.join(ROOT, 'tests/stub/otlp-collector.mjs');
const STUB = path.join(ROOT, 'tests/stub/openai-stub.mjs');
const WAIT_MS = 60000;

let passed = 0, failed = 0;
function check(name, ok, detail) {
  if (ok) { passed++; console.log(`ok   ${name}`); }
  else { failed++; console.log(`FAIL ${name}`); if (detail !== undefined) console.log(`     ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`); }
}

const children = [];
function track(child) { children.push(child); return child; }

// A child that prints its port (stubs) or "listening on http://…/mcp" (dbmcp).
function start(cmd, args, env, pattern) {
  return new Promise((resolve, reject) => {
    const child = track(spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '', err = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${cmd} not ready: ${err}`)); }, WAIT_MS);
    const look = () => {
      const m = pattern.exec(out + err);
      if (m) { clearTimeout(timer); resolve({ child, match: m[1], stderr: () => err }); }
    };
    child.stdout.on('data', (d) => { out += d; look(); });
    child.stderr.on('data', (d) => { err += d; look(); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${cmd} exited ${code}: ${err}`)); });
  });
}
const startStubProcess = (file, args) => start('node', [file, '--port', '0', ...args], process.env, /^(\d+)\n/);

function serve(db, env) {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DBMCP_') || k.startsWith('DBMCP_TEST_PG')));
  return start(BIN, ['serve', '--db', db, '--http', '127.0.0.1:0'], { ...inherited, DBMCP_LOG: 'warn', ...env },
    /listening on (http:\/\/[^\s]+)\/mcp/);
}

async function until(what, fn) {
  const end = Date.now() + WAIT_MS;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function spansOf(port) {
  return (await (await fetch(`http://127.0.0.1:${port}/spans`)).json()).spans;
}

async function metric(base, name) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

async function connect(url, key, headers = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
  });
  const client = new Client({ name: 'traces', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const hex = (n) => [...crypto.getRandomValues(new Uint8Array(n))].map((b) => b.toString(16).padStart(2, '0')).join('');
const callId = (r) => r._meta && r._meta['dbmcp/callId'];
// The trace id of a call's audit row, once written (rows of quick tools are written after the answer).
const auditTrace = async (db, id) => (await until(`the audit row of ${id}`, async () =>
  dbRows(BIN, db, `SELECT trace_id FROM dbmcp_audit WHERE call_id = '${id}'`)[0]).catch(() => ({}))).trace_id;
const childrenOf = (spans, s) => spans.filter((c) => c.parentSpanId === s.spanId && c.traceId === s.traceId);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'traces-'));
const databases = [];
try {
  const db = testDb(BIN, work, 'traces');
  databases.push(db);
  const init = spawnSync(BIN, ['init', '--demo', '--db', db], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`init: ${init.stderr}`);
  const keyOf = (iface) => {
    const r = spawnSync(BIN, ['keys', 'create', '--db', db, '--principal', 'tracer', '--interface', iface], { encoding: 'utf8' });
    const k = (r.stdout.match(/dbmcp_[A-Za-z0-9_]+/) || [''])[0];
    if (!k) throw new Error(`keys create: ${r.stderr}`);
    return k;
  };
  const key = keyOf('default');
  const chatKey = keyOf('chatbot');

  const scenario = path.join(work, 'scenario.json');
  fs.writeFileSync(scenario, JSON.stringify([
    { reply: { tool_calls: [{ id: 't1', name: 'sales_by_region', arguments: { year: 2025, region: 'Ost' } }] } },
    { expect: { tool_call_id: 't1' }, reply: { content: 'Umsatz Ost 2025: siehe Tabelle.' } },
  ]));
  const llm = await startStubProcess(STUB, ['--scenario', scenario, '--log', path.join(work, 'llm.jsonl')]);
  const collector = await startStubProcess(COLLECTOR, []);
  dbSql(BIN, db, `INSERT INTO dbmcp_settings (key, value) VALUES ('embed.kind', 'http'),
    ('embed.url', 'http://127.0.0.1:${llm.match}/v1'), ('embed.model', 'stub-embed')
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
  const server = await serve(db, {
    DBMCP_OTLP_ENDPOINT: `http://127.0.0.1:${collector.match}`, DBMCP_TRACE_FLUSH_MS: '50',
    DBMCP_LLM_URL: `http://127.0.0.1:${llm.match}/v1`, DBMCP_LLM_MODEL: 'stub-model',
    DBMCP_LLM_API_KEY_ENV: 'STUB_API_KEY', STUB_API_KEY: 'sk-stub',
  });
  const base = server.match;

  // --- header ---------------------------------------------------------------------
  const t1 = hex(16), p1 = hex(8);
  const client = await connect(base, key, { traceparent: `00-${t1}-${p1}-01`, tracestate: 'congo=t61rcWkgMzE' });
  const r1 = await client.callTool({ name: 'execute_query', arguments: { query: 'SELECT 41 + 1 AS answer' } });
  let spans = await until('the execute_query span', async () => {
    const s = await spansOf(collector.match);
    return s.some((x) => x.name === 'tools/call execute_query' && x.traceId === t1) && s;
  });
  const call = spans.find((x) => x.name === 'tools/call execute_query' && x.traceId === t1);
  check('header: the call span is under the caller\'s span', call.parentSpanId === p1 && call.kind === 2, call);
  check('header: the call span keeps the tracestate', call.traceState === 'congo=t61rcWkgMzE', call.traceState);
  check('header: the call span names the call id', call.attributes['dbmcp.call_id'] === callId(r1), call.attributes);
  const sql = childrenOf(spans, call).find((x) => String(x.attributes['db.query.text'] || '').includes('SELECT 41 + 1'));
  check('header: the SQL statement is a child span', sql && sql.name === 'SELECT' && sql.kind === 3 &&
    sql.attributes['db.response.returned_rows'] === 1, childrenOf(spans, call));
  check('header: the audit row stores the trace id', await auditTrace(db, callId(r1)) === t1, await auditTrace(db, callId(r1)));

  // --- _meta ----------------------------------------------------------------------
  const t2 = hex(16), p2 = hex(8);
  const r2 = await client.callTool({ name: 'echo', arguments: { text: 'meta' }, _meta: { traceparent: `00-${t2}-${p2}-01` } });
  spans = await until('the echo span', async () => {
    const s = await spansOf(collector.match);
    return s.some((x) => x.name === 'tools/call echo' && x.traceId === t2) && s;
  });
  const echo = spans.find((x) => x.name === 'tools/call echo' && x.traceId === t2);
  check('_meta: wins over the header', echo.parentSpanId === p2, echo);
  const metaTrace = await auditTrace(db, callId(r2));
  check('_meta: the audit row stores its trace id', metaTrace === t2, metaTrace);
  const bad = await client.callTool({ name: 'echo', arguments: { text: 'bad' }, _meta: { traceparent: `00-${t2.toUpperCase()}-${p2}-01` } });
  const badTrace = await auditTrace(db, callId(bad));
  check('_meta: an invalid traceparent is ignored (the header\'s trace)', badTrace === t1, badTrace);

  // --- embedding ------------------------------------------------------------------
  const chatClient = await connect(base, chatKey, { traceparent: `00-${t1}-${p1}-01` });
  const r3 = await chatClient.callTool({ name: 'search_documents', arguments: { query: 'Kündigungsfrist' } });
  await chatClient.close();
  spans = await until('the embeddings span and its call', async () => {
    const s = await spansOf(collector.match);
    return s.some((x) => x.name.startsWith('embeddings ')) && s.some((x) => x.attributes['dbmcp.call_id'] === callId(r3)) && s;
  });
  const search = spans.find((x) => x.attributes['dbmcp.call_id'] === callId(r3));
  const emb = spans.find((x) => x.name === 'embeddings stub-embed');
  check('embedding: a span under the call', search && emb && emb.parentSpanId === search.spanId && emb.traceId === t1 &&
    emb.attributes['gen_ai.operation.name'] === 'embeddings' && emb.attributes['http.response.status_code'] === 200, { search, emb });
  await client.close();

  // --- chat -----------------------------------------------------------------------
  const t3 = hex(16), p3 = hex(8);
  const res = await fetch(`${base}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${chatKey}`, traceparent: `00-${t3}-${p3}-01` },
    body: JSON.stringify({ message: 'Wie hoch war der Umsatz 2025 im Osten?' }),
  });
  check('chat: answered', res.status === 200, await res.clone().text());
  spans = await until('the chat spans', async () => {
    const s = (await spansOf(collector.match)).filter((x) => x.traceId === t3);
    return s.some((x) => x.name === 'POST /v1/chat') && s.filter((x) => x.name === 'chat stub-model').length === 2 && s;
  });
  const chat = spans.find((x) => x.name === 'POST /v1/chat');
  check('chat: the server span is under the caller\'s span', chat.parentSpanId === p3 && chat.kind === 2, chat);
  const llms = spans.filter((x) => x.name === 'chat stub-model');
  check('chat: both LLM requests are children of it', llms.every((x) => x.parentSpanId === chat.spanId &&
    x.kind === 3 && x.attributes['gen_ai.request.model'] === 'stub-model'), llms);
  const tool = spans.find((x) => x.name === 'tools/call sales_by_region');
  check('chat: the agent\'s tool call is a child', tool && tool.parentSpanId === chat.spanId, tool);
  check('chat: the tool\'s SQL is under the tool call', tool && childrenOf(spans, tool).some((x) => x.kind === 3 && x.attributes['db.query.text']),
    tool && childrenOf(spans, tool));
  const agentAudit = dbRows(BIN, db, `SELECT trace_id FROM dbmcp_audit WHERE method = 'tools/call' AND target = 'sales_by_region'`);
  check('chat: the tool call\'s audit row joins the trace', agentAudit.length === 1 && agentAudit[0].trace_id === t3, agentAudit);

  // --- metrics --------------------------------------------------------------------
  const all = await spansOf(collector.match);
  check('resource: service and replica named', all.every((x) => x.resource['service.name'] === 'dbmcp' && x.resource['service.instance.id']),
    all[0].resource);
  const exported = await until('exported spans counted', async () => {
    const n = await metric(base, 'dbmcp_trace_spans_exported_total');
    return n >= all.length && n;
  }).catch(() => NaN);
  check('metrics: exported spans counted', exported >= all.length, { exported, held: all.length });
  check('metrics: nothing dropped', await metric(base, 'dbmcp_trace_spans_dropped_queue_full_total') === 0 &&
    await metric(base, 'dbmcp_trace_spans_dropped_export_failed_total') === 0);
  server.child.kill('SIGTERM');

  // --- slow collector -------------------------------------------------------------
  const slow = await startStubProcess(COLLECTOR, ['--delay-ms', '30000']);
  const slowServer = await serve(db, {
    DBMCP_OTLP_ENDPOINT: `http://127.0.0.1:${slow.match}/v1/traces`, DBMCP_TRACE_QUEUE_MAX: '1',
    DBMCP_TRACE_EXPORT_TIMEOUT_MS: '60000', DBMCP_TRACE_FLUSH_MS: '10',
  });
  const c2 = await connect(slowServer.match, key);
  let answered = 0;
  for (let i = 0; i < 4; i++) {
    const r = await c2.callTool({ name: 'execute_query', arguments: { query: `SELECT ${i} AS n` } });
    if (!r.isError) answered++;
  }
  check('slow: every call answered while the collector holds the export', answered === 4, answered);
  const dropped = await until('drops counted', async () => (await metric(slowServer.match, 'dbmcp_trace_spans_dropped_queue_full_total')) > 0)
    .catch(() => false);
  check('slow: spans past trace.queue_max dropped and counted', dropped);
  await c2.close();
  slowServer.child.kill('SIGKILL');
  slow.child.kill('SIGKILL');

  // --- no collector ---------------------------------------------------------------
  const downServer = await serve(db, { DBMCP_OTLP_ENDPOINT: 'http://127.0.0.1:9/', DBMCP_TRACE_FLUSH_MS: '10' });
  const c3 = await connect(downServer.match, key);
  const r4 = await c3.callTool({ name: 'echo', arguments: { text: 'nobody listens' } });
  check('down: the call is answered', !r4.isError, r4);
  const failures = await until('failed exports counted', async () => (await metric(downServer.match, 'dbmcp_trace_export_failures_total')) >= 1 &&
    (await metric(downServer.match, 'dbmcp_trace_spans_dropped_export_failed_total')) >= 1).catch(() => false);
  check('down: failed exports and their spans counted', failures);
  await c3.close();
  downServer.child.kill('SIGTERM');
  const bye = await new Promise((resolve) => downServer.child.once('exit', (code) => resolve(code)));
  check('down: serve stops cleanly', bye === 0, bye);
} catch (e) {
  check('no exception', false, String(e.stack || e));
} finally {
  for (const c of children) c.kill('SIGKILL');
  for (const db of databases) { try { dropTestDb(BIN, db); } catch { /* best effort */ } }
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
