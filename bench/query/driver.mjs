#!/usr/bin/env node
// Query benchmark driver: dbmcp's execute_query vs. Bytebase DBHub's
// execute_sql over the same SQLite file, side by side in one run. Called by
// bench/query.sh (see bench/README.md, "Query benchmark").
//
// Both servers run over stdio for the whole run; the same client code talks
// raw newline-delimited JSON-RPC to both (no MCP SDK client), so the client's
// cost is small and equal. Three queries:
//   preview    SELECT * FROM orders LIMIT 25
//   floor      SELECT 1 (the fixed cost of a query call; plus dbmcp's echo)
//   aggregate  SELECT region, product, count(*), sum(quantity*price) FROM orders
//              GROUP BY region, product ORDER BY 4 DESC
// Every response is parsed and checked: the same ids (preview) and the same
// groups with the same counts (aggregate) from both servers, or the run aborts.
//
// Exits 0 when every measurement ran (whether or not the goals are met),
// non-zero when a server cannot start or answers wrongly.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import os from 'node:os';

const PREVIEW_SQL = 'SELECT * FROM orders LIMIT 25';
const PREVIEW_ROWS = 25;
const AGG_SQL =
  'SELECT region, product, count(*), sum(quantity*price) FROM orders GROUP BY region, product ORDER BY 4 DESC';
const AGG_ROWS = 100; // 5 regions x 20 products (bench/query/orders.sql)
const FLOOR_SQL = 'SELECT 1'; // the fixed cost of a query call
const PREVIEW_COLUMNS = ['id', 'customer_id', 'region', 'product', 'quantity', 'price', 'ordered_at'];

// ---------------------------------------------------------------- options
function parseArgs(argv) {
  const o = {
    dbmcp: 'build/dbmcp',
    db: null,
    dbhubNode: null,
    dbhub: null,
    dbhubCwd: null,
    dbhubDsn: null, // DBHub's --dsn; default sqlite://<db>
    engine: 'sqlite', // what --db is: 'sqlite' (a file) or 'postgres' (a URI)
    dbmcpSqlite: 'unknown', // the SQLite version dbmcp is built against (from query.sh)
    dbmcpTool: 'execute_query', // or 'report': stand-in report tools (see query.sh)
    out: null,
    cpuclock: null,
    previewN: 2000,
    previewWarmup: 200,
    previewBlocks: 4,
    previewSeconds: 10, // cap per server on the timed preview calls
    aggN: 10,
    aggWarmup: 1,
    inflight: 8, // pipelined phase: requests kept in flight
    pipelinedN: 2000,
    only: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[i + 1];
    const num = () => {
      const x = Number(v);
      if (!Number.isFinite(x) || x < 0) die(`bad value for ${k}: ${v}`);
      i++;
      return x;
    };
    switch (k) {
      case '--dbmcp': o.dbmcp = v; i++; break;
      case '--db': o.db = v; i++; break;
      case '--dbhub-node': o.dbhubNode = v; i++; break;
      case '--dbhub': o.dbhub = v; i++; break;
      case '--dbhub-cwd': o.dbhubCwd = v; i++; break;
      case '--dbhub-dsn': o.dbhubDsn = v; i++; break;
      case '--engine': o.engine = v; i++; break;
      case '--dbmcp-sqlite': o.dbmcpSqlite = v; i++; break;
      case '--dbmcp-tool': o.dbmcpTool = v; i++; break;
      case '--out': o.out = v; i++; break;
      case '--cpuclock': o.cpuclock = v; i++; break;
      case '--preview-n': o.previewN = num(); break;
      case '--preview-warmup': o.previewWarmup = num(); break;
      case '--preview-blocks': o.previewBlocks = Math.max(1, num()); break;
      case '--preview-seconds': o.previewSeconds = num(); break;
      case '--agg-n': o.aggN = num(); break;
      case '--agg-warmup': o.aggWarmup = num(); break;
      case '--inflight': o.inflight = Math.max(1, num()); break;
      case '--pipelined-n': o.pipelinedN = Math.max(1, num()); break;
      case '--only': o.only = new Set(String(v).split(',')); i++; break;
      default: die(`unknown option ${k}`);
    }
  }
  if (!o.db) die('--db is required (the orders database, after `dbmcp init`)');
  if (!o.dbhub || !o.dbhubNode) die('--dbhub (DBHub dist/index.js) and --dbhub-node (Node >= 22.5) are required');
  if (!['execute_query', 'report'].includes(o.dbmcpTool)) die(`--dbmcp-tool must be execute_query or report`);
  // DBHub runs in its own working directory: make every path absolute.
  if (!['sqlite', 'postgres'].includes(o.engine)) die('--engine must be sqlite or postgres');
  const paths = o.engine === 'sqlite' ? ['dbmcp', 'db', 'dbhubNode', 'dbhub'] : ['dbmcp', 'dbhubNode', 'dbhub'];
  for (const k of paths) if (o[k].includes('/')) o[k] = resolve(o[k]);
  if (!o.dbhubDsn) o.dbhubDsn = `sqlite://${o.db}`;
  return o;
}

function die(msg) {
  console.error(`bench-query: FATAL: ${msg}`);
  killAll();
  process.exit(1);
}

const PROTOCOL = '2025-06-18';
const children = new Set();
const launched = [];

function killAll() {
  for (const c of children) {
    try { c.kill('SIGKILL'); } catch { /* already gone */ }
  }
}
process.on('exit', killAll);
process.on('SIGINT', () => die('interrupted'));
process.on('SIGTERM', () => die('terminated'));

// ---------------------------------------------------------------- /proc
let cpuclock = null;

// CPU time of a process in µs: the bench/cpuclock helper (ns, all threads)
// when it works, else utime+stime of /proc/PID/stat (10 ms ticks).
function cpuUs(pid) {
  if (cpuclock) {
    try {
      return { us: Number(execFileSync(cpuclock, [String(pid)], { encoding: 'utf8' }).trim()) / 1000, method: 'cpuclock' };
    } catch { /* fall back */ }
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { us: ((Number(f[11]) + Number(f[12])) * 1e6) / 100, method: 'proc-stat' };
}

function memMB(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const get = (k) => {
    const m = new RegExp(`${k}:\\s+(\\d+)\\s+kB`).exec(s);
    return m ? Number(m[1]) / 1024 : NaN;
  };
  return { rss: get('VmRSS'), hwm: get('VmHWM') };
}

// ---------------------------------------------------------------- stats
function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

// ---------------------------------------------------------------- servers
// Each spec: how to start it over stdio, which tool/arguments run each query,
// and how to read rows out of its answer.
function serverSpecs(o) {
  const dbmcpArgs =
    o.dbmcpTool === 'execute_query'
      ? {
          preview: { name: 'execute_query', arguments: { query: PREVIEW_SQL, max_rows: PREVIEW_ROWS } },
          floor: { name: 'execute_query', arguments: { query: FLOOR_SQL } },
          aggregate: { name: 'execute_query', arguments: { query: AGG_SQL, max_rows: AGG_ROWS } },
        }
      : {
          preview: { name: 'bench_preview', arguments: { max_rows: PREVIEW_ROWS } },
          floor: { name: 'bench_floor', arguments: {} },
          aggregate: { name: 'bench_aggregate', arguments: {} },
        };
  return [
    {
      name: 'dbhub',
      cmd: o.dbhubNode,
      args: [o.dbhub, '--transport', 'stdio', '--dsn', o.dbhubDsn],
      cwd: o.dbhubCwd || undefined,
      calls: {
        preview: { name: 'execute_sql', arguments: { sql: PREVIEW_SQL } },
        floor: { name: 'execute_sql', arguments: { sql: FLOOR_SQL } },
        aggregate: { name: 'execute_sql', arguments: { sql: AGG_SQL } },
      },
      rows: dbhubRows,
    },
    {
      name: 'dbmcp',
      cmd: o.dbmcp,
      args: ['serve', '--db', o.db],
      calls: dbmcpArgs,
      rows: markdownRows,
    },
  ];
}

// DBHub: the text is JSON {success, data: {statements: [{rows: [{col: value}]}]}}.
// Returned as arrays of cell values in column order.
function dbhubRows(text) {
  const j = JSON.parse(text);
  const st = j && j.success && j.data && Array.isArray(j.data.statements) && j.data.statements[0];
  if (!st || !Array.isArray(st.rows)) throw new Error(`no rows in DBHub's answer: ${text.slice(0, 300)}`);
  return st.rows.map((r) => Object.values(r));
}

// dbmcp: a markdown table (header, separator, one line per row), then
// metadata lines. Cells are split on unescaped pipes.
function markdownRows(text) {
  const lines = text.split('\n').filter((l) => l.startsWith('|'));
  if (lines.length < 2 || !/^\|\s*-/.test(lines[1])) throw new Error(`no markdown table in dbmcp's answer: ${text.slice(0, 300)}`);
  return lines.slice(2).map((l) =>
    l
      .slice(1, l.endsWith('|') ? -1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim()),
  );
}

function launch(spec) {
  const child = spawn(spec.cmd, spec.args, { stdio: ['pipe', 'pipe', 'pipe'], cwd: spec.cwd });
  children.add(child);
  launched.push(child);
  child.stderrText = '';
  child.stderr.on('data', (d) => {
    if (child.stderrText.length < 20000) child.stderrText += d.toString();
  });
  child.exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      child.exitInfo = { code, signal };
      resolve(child.exitInfo);
    });
  });
  child.on('error', (err) => die(`${spec.name}: cannot spawn ${spec.cmd}: ${err.message}`));
  child.stdin.on('error', () => { /* EPIPE when the server died; reported elsewhere */ });
  child.describe = () =>
    `${spec.name}: ${spec.cmd} ${spec.args.join(' ')}` +
    (spec.cwd ? ` (in ${spec.cwd})` : '') +
    (child.exitInfo ? ` exited code=${child.exitInfo.code} signal=${child.exitInfo.signal}` : '') +
    (child.stderrText ? `\n--- stderr ---\n${child.stderrText.trimEnd()}\n--------------` : '');
  return child;
}

async function stopChild(child) {
  child.stopping = true;
  if (child.exitInfo) return;
  child.stdin.end();
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 3000);
  await child.exited;
  clearTimeout(t);
}

// JSON-RPC over newline-delimited stdin/stdout. Each response carries the
// byte length of its line (without the newline) and its arrival time.
class StdioClient {
  constructor(spec, child) {
    this.spec = spec;
    this.child = child;
    this.buf = '';
    this.pending = new Map();
    this.nextId = 1;
    this.noise = 0;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => this.onData(d));
    child.exited.then(() => {
      for (const [, p] of this.pending) p.reject(new Error(`server exited before answering\n${child.describe()}`));
      this.pending.clear();
    });
  }

  onData(d) {
    this.buf += d;
    let nl;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (!line.trim()) continue;
      const at = nowMs();
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        this.noise++;
        continue;
      }
      if (msg.id !== undefined && this.pending.has(msg.id) && !msg.method) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        p.resolve({ msg, bytes: Buffer.byteLength(line, 'utf8'), at });
      }
    }
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  notify(method) {
    this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n');
  }
}

async function withTimeout(promise, ms, what) {
  let t;
  const timeout = new Promise((_, reject) => {
    t = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(t);
  }
}

async function start(spec) {
  const t0 = nowMs();
  const child = launch(spec);
  const client = new StdioClient(spec, child);
  try {
    const { msg } = await withTimeout(
      client.request('initialize', {
        protocolVersion: PROTOCOL,
        capabilities: {},
        clientInfo: { name: 'dbmcp-bench-query', version: '1.0.0' },
      }),
      30000,
      `${spec.name} initialize`,
    );
    if (!msg.result || typeof msg.result.protocolVersion !== 'string') {
      throw new Error(`bad initialize response: ${JSON.stringify(msg)}`);
    }
    client.serverInfo = msg.result.serverInfo || {};
    client.startMs = nowMs() - t0;
    client.notify('notifications/initialized');
    const { msg: list } = await withTimeout(client.request('tools/list', {}), 30000, `${spec.name} tools/list`);
    const names = ((list.result && list.result.tools) || []).map((t) => t.name);
    for (const q of Object.values(spec.calls)) {
      if (!names.includes(q.name)) throw new Error(`tool ${q.name} is not listed (tools: ${names.join(', ')})`);
    }
  } catch (e) {
    throw new Error(`${spec.name}: cannot start: ${e.message}\n${child.describe()}`);
  }
  return client;
}

// One tools/call: latency from the write to the parsed response line, then the
// rows (parsed after the clock stopped).
async function call(client, query) {
  const t0 = nowMs();
  const { msg, bytes, at } = await withTimeout(
    client.request('tools/call', client.spec.calls[query]),
    60000,
    `${client.spec.name} ${query}`,
  );
  const r = msg.result;
  const text = r && Array.isArray(r.content) && r.content[0] && r.content[0].type === 'text' ? r.content[0].text : null;
  if (!r || r.isError || text === null) {
    throw new Error(`${client.spec.name}: ${query} failed: ${JSON.stringify(msg).slice(0, 1000)}\n${client.child.describe()}`);
  }
  let rows;
  try {
    rows = client.spec.rows(text);
  } catch (e) {
    throw new Error(`${client.spec.name}: ${query}: ${e.message}`);
  }
  return { us: (at - t0) * 1000, bytes, textBytes: Buffer.byteLength(text, 'utf8'), rows };
}

// ---------------------------------------------------------------- checks
// The expected preview: ids 1..25 (rowid order of a fresh table), 7 columns.
function checkPreview(name, rows) {
  if (rows.length !== PREVIEW_ROWS) throw new Error(`${name}: preview returned ${rows.length} rows, expected ${PREVIEW_ROWS}`);
  rows.forEach((r, i) => {
    if (r.length !== PREVIEW_COLUMNS.length) throw new Error(`${name}: preview row ${i} has ${r.length} cells: ${JSON.stringify(r)}`);
  });
  return rows.map((r) => Number(r[0]));
}

// Aggregate rows as [region, product, count, sum].
function checkAggregate(name, rows) {
  if (rows.length !== AGG_ROWS) throw new Error(`${name}: aggregate returned ${rows.length} rows, expected ${AGG_ROWS}`);
  return rows.map((r) => {
    if (r.length !== 4) throw new Error(`${name}: aggregate row has ${r.length} cells: ${JSON.stringify(r)}`);
    return [String(r[0]), String(r[1]), Number(r[2]), Number(r[3])];
  });
}

function sameRows(what, a, b, eq) {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (!eq(a[i], b[i])) {
      throw new Error(`${what}: row ${i} differs: ${JSON.stringify(a[i])} vs. ${JSON.stringify(b[i])}`);
    }
  }
}
// Sums are doubles; the two SQLite builds may differ in the last digits
// (summation algorithm, printing), so they are compared to 1e-9 relative.
const aggEq = (x, y) =>
  x && y && x[0] === y[0] && x[1] === y[1] && x[2] === y[2] && Math.abs(x[3] - y[3]) <= 1e-9 * Math.max(1, Math.abs(x[3]));

// ---------------------------------------------------------------- phases
// Sequential calls of one query: `warmup` untimed calls each (every answer
// checked against the first), then n timed calls per server in `blocks`
// blocks alternating between the servers, so drift of the shared machine
// hits both alike; a server stops early once its timed calls add up to
// capSeconds. check(name, rows) returns a comparable key of the answer.
async function timedCalls(specs, clients, query, { n, warmup, blocks, capSeconds, check }) {
  const ref = {};
  const st = {};
  for (const s of specs) {
    for (let i = 0; i < Math.max(1, warmup); i++) {
      const r = await call(clients[s.name], query);
      const key = JSON.stringify(check(s.name, r.rows));
      if (ref[s.name] === undefined) ref[s.name] = { key, rows: r.rows };
      else if (key !== ref[s.name].key) throw new Error(`${s.name}: ${query} call ${i} differs from the first: ${key}`);
    }
  }
  const per = Math.ceil(n / blocks);
  for (const s of specs) st[s.name] = { lat: [], bytes: new Set(), textBytes: new Set(), cpu0: cpuUs(clients[s.name].child.pid) };
  for (let b = 0; b < blocks; b++) {
    for (const s of b % 2 ? [...specs].reverse() : specs) {
      const t = st[s.name];
      const count = Math.min(per, n - b * per);
      for (let i = 0; i < count && sum(t.lat) < capSeconds * 1e6; i++) {
        const x = await call(clients[s.name], query);
        t.lat.push(x.us);
        t.bytes.add(x.bytes);
        t.textBytes.add(x.textBytes);
        const key = JSON.stringify(check(s.name, x.rows));
        if (key !== ref[s.name].key) throw new Error(`${s.name}: ${query} (timed call) differs from the first: ${key}`);
      }
    }
  }
  const out = {};
  for (const s of specs) {
    const t = st[s.name];
    const c1 = cpuUs(clients[s.name].child.pid);
    // Sizes vary by a byte or two (the JSON-RPC id; dbmcp's elapsed time).
    const sizes = [...t.bytes].sort((a, b) => a - b);
    out[s.name] = {
      calls: t.lat.length,
      callsPerSec: t.lat.length / (sum(t.lat) / 1e6), // calls / sum of latencies
      p50Us: pct(t.lat, 50),
      p99Us: pct(t.lat, 99),
      cpuUsPerCall: (c1.us - t.cpu0.us) / t.lat.length,
      cpuMethod: c1.method,
      sizes,
      responseBytes: pct(sizes, 50),
      textBytes: pct([...t.textBytes], 50),
      firstRow: ref[s.name].rows[0],
      key: ref[s.name].key,
    };
  }
  return out;
}

// The fixed cost of a query call: SELECT 1 through the same tools, plus
// dbmcp's built-in echo (answered on the stdio thread, no SQL): the stdio
// round trip through this driver.
async function phaseFloor(specs, clients, o, res) {
  const st = await timedCalls(specs, clients, 'floor', {
    n: o.previewN / 2,
    warmup: o.previewWarmup,
    blocks: 2,
    capSeconds: o.previewSeconds / 2,
    check: (name, rows) => {
      if (rows.length !== 1 || rows[0].length !== 1 || Number(rows[0][0]) !== 1) {
        throw new Error(`${name}: SELECT 1 returned ${JSON.stringify(rows)}`);
      }
      return 1;
    },
  });
  for (const s of specs) {
    Object.assign(res[s.name], {
      floorCalls: st[s.name].calls,
      floorCallsPerSec: st[s.name].callsPerSec,
      floorP50Us: st[s.name].p50Us,
      floorCpuUsPerCall: st[s.name].cpuUsPerCall,
      floorResponseBytes: st[s.name].responseBytes,
    });
  }
  const echoLat = [];
  const c = clients.dbmcp;
  for (let i = 0; i < o.previewWarmup + o.previewN / 2; i++) {
    const text = `floor ${i}`;
    const t0 = nowMs();
    const { msg, at } = await withTimeout(c.request('tools/call', { name: 'echo', arguments: { text } }), 60000, 'dbmcp echo');
    const ct = msg.result && msg.result.content;
    if (!Array.isArray(ct) || !ct[0] || ct[0].text !== text) throw new Error(`dbmcp: bad echo response: ${JSON.stringify(msg)}`);
    if (i >= o.previewWarmup) echoLat.push((at - t0) * 1000);
  }
  res.dbmcp.echoCalls = echoLat.length;
  res.dbmcp.echoCallsPerSec = echoLat.length / (sum(echoLat) / 1e6);
  res.dbmcp.echoP50Us = pct(echoLat, 50);
}

// Capacity: previews with o.inflight requests always in flight (a new one is
// written as each answer arrives), so the servers are never idle waiting for
// the driver; calls/s = calls / wall time. One server at a time, twice each
// (A B B A), every answer checked.
async function phasePipelined(specs, clients, o, res) {
  const st = Object.fromEntries(specs.map((s) => [s.name, { calls: 0, ms: 0, cpu: 0, method: '' }]));
  const runOne = async (s, n) => {
    const c = clients[s.name];
    const cpu0 = cpuUs(c.child.pid);
    const t0 = nowMs();
    let sent = 0;
    const worker = async () => {
      while (sent < n) {
        sent++;
        const { msg } = await withTimeout(c.request('tools/call', c.spec.calls.preview), 60000, `${s.name} pipelined preview`);
        const r = msg.result;
        const text = r && !r.isError && Array.isArray(r.content) && r.content[0] ? r.content[0].text : null;
        if (text === null) throw new Error(`${s.name}: pipelined preview failed: ${JSON.stringify(msg).slice(0, 500)}`);
        checkPreview(s.name, s.rows(text));
      }
    };
    await Promise.all(Array.from({ length: o.inflight }, worker));
    const ms = nowMs() - t0;
    const cpu1 = cpuUs(c.child.pid);
    st[s.name].calls += n;
    st[s.name].ms += ms;
    st[s.name].cpu += cpu1.us - cpu0.us;
    st[s.name].method = cpu1.method;
  };
  const half = Math.ceil(o.pipelinedN / 2);
  for (const s of specs) await runOne(s, Math.min(200, half)); // warm-up, not counted
  for (const s of specs) st[s.name] = { calls: 0, ms: 0, cpu: 0, method: '' };
  for (const s of specs) await runOne(s, half);
  for (const s of [...specs].reverse()) await runOne(s, half);
  for (const s of specs) {
    const x = st[s.name];
    res[s.name].pipelinedCalls = x.calls;
    res[s.name].pipelinedCallsPerSec = x.calls / (x.ms / 1000);
    res[s.name].pipelinedCpuUsPerCall = x.cpu / x.calls;
  }
}

async function phasePreview(specs, clients, o, res) {
  const st = await timedCalls(specs, clients, 'preview', {
    n: o.previewN,
    warmup: o.previewWarmup,
    blocks: o.previewBlocks,
    capSeconds: o.previewSeconds,
    check: checkPreview,
  });
  const expected = JSON.stringify(Array.from({ length: PREVIEW_ROWS }, (_, i) => i + 1));
  if (st.dbhub.key !== expected) throw new Error(`preview: dbhub returned ids ${st.dbhub.key}, expected 1..25`);
  if (st.dbmcp.key !== st.dbhub.key) throw new Error(`preview: the servers disagree: dbhub ids ${st.dbhub.key}, dbmcp ids ${st.dbmcp.key}`);
  for (const s of specs) {
    const x = st[s.name];
    Object.assign(res[s.name], {
      previewCalls: x.calls,
      previewCallsPerSec: x.callsPerSec,
      previewP50Us: x.p50Us,
      previewP99Us: x.p99Us,
      previewCpuUsPerCall: x.cpuUsPerCall,
      cpuMethod: x.cpuMethod,
      previewBytesAll: x.sizes,
      previewResponseBytes: x.responseBytes,
      previewTextBytes: x.textBytes,
      previewSample: x.firstRow,
      rssPreviewMB: memMB(clients[s.name].child.pid).rss,
    });
  }
}

async function phaseAggregate(specs, clients, o, res) {
  const ref = {};
  for (const s of specs) {
    for (let i = 0; i < o.aggWarmup || i < 1; i++) {
      const r = await call(clients[s.name], 'aggregate');
      const rows = checkAggregate(s.name, r.rows);
      if (!ref[s.name]) ref[s.name] = rows;
    }
  }
  sameRows('aggregate rows (dbhub vs. dbmcp)', ref.dbhub, ref.dbmcp, aggEq);
  for (const s of specs) Object.assign(res[s.name], { aggLat: [], aggBytes: [] });
  // Timed: one call each in turn, the order alternating (A B, B A, ...).
  for (let i = 0; i < o.aggN; i++) {
    for (const s of i % 2 ? [...specs].reverse() : specs) {
      const x = await call(clients[s.name], 'aggregate');
      sameRows(`${s.name} aggregate (timed call vs. first)`, ref[s.name], checkAggregate(s.name, x.rows), aggEq);
      res[s.name].aggLat.push(x.us);
      res[s.name].aggBytes.push(x.bytes);
      res[s.name].aggTextBytes = x.textBytes;
    }
  }
  for (const s of specs) {
    const r = res[s.name];
    r.aggCalls = r.aggLat.length;
    r.aggMedianMs = pct(r.aggLat, 50) / 1000;
    r.aggCallsPerSec = r.aggLat.length / (sum(r.aggLat) / 1e6);
    r.aggResponseBytes = pct(r.aggBytes, 50);
    const m = memMB(clients[s.name].child.pid);
    r.rssAggMB = m.rss;
    r.peakRssMB = m.hwm;
    delete r.aggLat;
    delete r.aggBytes;
  }
}

// ---------------------------------------------------------------- report
function fmt(x, digits) {
  return Number.isFinite(x) ? x.toFixed(digits) : 'n/a';
}

function report(o, res) {
  const [hub, db] = [res.dbhub, res.dbmcp];
  // [label, key, digits, lowerIsBetter, goal (as the ratio dbmcp's way) or null]
  const rows = [
    ['preview: calls/s (sequential)', 'previewCallsPerSec', 0, false, 10],
    ['preview: latency p50 (µs)', 'previewP50Us', 0, true, null],
    ['preview: latency p99 (µs)', 'previewP99Us', 0, true, null],
    ['preview: server CPU per call (µs)', 'previewCpuUsPerCall', 1, true, null],
    [`preview: calls/s, ${o.inflight} in flight`, 'pipelinedCallsPerSec', 0, false, null],
    [`preview: CPU per call, ${o.inflight} in flight (µs)`, 'pipelinedCpuUsPerCall', 1, true, null],
    ['preview: response line (bytes)', 'previewResponseBytes', 0, true, 3],
    ['SELECT 1: calls/s (sequential)', 'floorCallsPerSec', 0, false, null],
    ['SELECT 1: server CPU per call (µs)', 'floorCpuUsPerCall', 1, true, null],
    ['RSS idle, after initialize (MB)', 'rssIdleMB', 1, true, null],
    [`RSS after ${o.previewWarmup}+${hub.previewCalls ?? o.previewN} previews (MB)`, 'rssPreviewMB', 1, true, 5],
    ['aggregate: median call (ms)', 'aggMedianMs', 1, true, null],
    ['aggregate: calls/s (sequential)', 'aggCallsPerSec', 2, false, null],
    ['aggregate: response line (bytes)', 'aggResponseBytes', 0, true, null],
    ['RSS after the aggregates (MB)', 'rssAggMB', 1, true, null],
    ['peak RSS, VmHWM (MB)', 'peakRssMB', 1, true, null],
  ];
  const w = [40, 11, 11, 13, 18];
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
  const out = ['', line(['metric', 'dbhub', 'dbmcp', 'dbmcp better', 'goal']), '-'.repeat(w.reduce((a, b) => a + b + 2, -2))];
  const goals = [];
  for (const [label, key, digits, lower, goal] of rows) {
    if (hub[key] === undefined && db[key] === undefined) continue; // phase not run
    // "dbmcp better": how many times better dbmcp is (> 1 = dbmcp wins).
    const ratio = lower ? hub[key] / db[key] : db[key] / hub[key];
    let g = '';
    if (goal) {
      const met = ratio >= goal;
      g = `>= ${goal}x: ${met ? 'MET' : 'missed'}`;
      goals.push({ metric: label, ratio, goal, met });
    }
    out.push(line([label, fmt(hub[key], digits), fmt(db[key], digits), `${fmt(ratio, 2)}x`, g]));
  }
  out.push('');
  out.push(`"dbmcp better" is dbhub/dbmcp for lower-is-better rows and dbmcp/dbhub for calls/s: ` +
    `above 1 dbmcp is ahead. The aggregate is bound by SQLite's own execution; its ratio is reported as it is.`);
  if (hub.previewCalls !== undefined) {
    out.push(`preview: ${hub.previewCalls} (dbhub) / ${db.previewCalls} (dbmcp) timed calls after ${o.previewWarmup} ` +
      `warm-up calls each, ${o.previewBlocks} alternating blocks; calls/s = calls / sum of call latencies ` +
      `(write to parsed response); CPU from ${db.cpuMethod}. Text content: dbhub ${hub.previewTextBytes} bytes, ` +
      `dbmcp ${db.previewTextBytes} bytes; distinct line sizes: dbhub ${hub.previewBytesAll.join(',')}, ` +
      `dbmcp ${db.previewBytesAll.join(',')}. Same 25 ids (1..25) from both.`);
  }
  if (hub.pipelinedCalls !== undefined) {
    out.push(`preview, ${o.inflight} in flight: ${hub.pipelinedCalls} / ${db.pipelinedCalls} calls per server in two runs (A B B A) ` +
      `after a warm-up, a new request written as each answer arrives; calls/s = calls / wall time: the servers' capacity ` +
      `without the sequential round trip through the driver (on 2 cores shared with the driver).`);
  }
  if (hub.floorCalls !== undefined) {
    out.push(`SELECT 1: ${hub.floorCalls} / ${db.floorCalls} timed calls, 2 alternating blocks; its calls/s is ` +
      `${fmt(db.floorCallsPerSec / hub.previewCallsPerSec, 2)}x DBHub's preview calls/s: the most a preview could reach ` +
      `with dbmcp's fixed cost per query call as it is. dbmcp's built-in echo (no SQL, answered on the stdio thread): ` +
      `${fmt(db.echoCallsPerSec, 0)} calls/s, p50 ${fmt(db.echoP50Us, 0)} µs (${fmt(db.echoCallsPerSec / hub.previewCallsPerSec, 2)}x ` +
      `DBHub's preview), the stdio round trip through this driver.`);
  }
  if (hub.aggCalls !== undefined) {
    out.push(`aggregate: ${o.aggN} timed calls each after ${o.aggWarmup} warm-up, alternating; same ${AGG_ROWS} groups, ` +
      `counts and sums (1e-9 relative) from both.`);
  }
  out.push(`start to initialize response (page cache warm or not): dbhub ${fmt(hub.startMs, 0)} ms, ` +
    `dbmcp ${fmt(db.startMs, 0)} ms (${hub.serverInfo.name} ${hub.serverInfo.version}; ${db.serverInfo.name} ${db.serverInfo.version}).`);
  out.push('Shared, noisy machine: compare the two columns of this run; re-run before trusting a small difference.');
  console.log(out.join('\n'));
  return goals;
}

// ---------------------------------------------------------------- main
async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.cpuclock) {
    try {
      execFileSync(o.cpuclock, [String(process.pid)]);
      cpuclock = o.cpuclock;
    } catch (e) {
      console.error(`bench-query: warning: ${o.cpuclock} does not work (${e.message}); CPU from /proc only`);
    }
  }
  const specs = serverSpecs(o);
  const res = Object.fromEntries(specs.map((s) => [s.name, {}]));
  const started = Date.now();
  const cpus = os.cpus();
  const env = {
    date: new Date().toISOString(),
    nproc: cpus.length,
    cpuModel: cpus[0] ? cpus[0].model : 'unknown',
    driverNode: process.version,
    dbhubNode: execFileSync(o.dbhubNode, ['--version'], { encoding: 'utf8' }).trim(),
    dbhubSqlite: execFileSync(o.dbhubNode, ['-p', 'process.versions.sqlite'], { encoding: 'utf8' }).trim(),
    dbmcpSqlite: o.dbmcpSqlite,
    kernel: os.release(),
    dbmcpTool: o.dbmcpTool,
    engine: o.engine,
  };
  console.log(`bench-query: ${env.date}  nproc=${env.nproc}  cpu="${env.cpuModel}"  driver node ${env.driverNode}, ` +
    `DBHub on node ${env.dbhubNode}; ` +
    (o.engine === 'sqlite'
      ? `SQLite: dbhub ${env.dbhubSqlite} (node:sqlite), dbmcp ${env.dbmcpSqlite}; `
      : `both on one PostgreSQL server (DBHub: node-postgres, dbmcp: libpq); `) +
    `dbmcp tool: ${o.dbmcpTool}`);

  let clients = {};
  const phase = async (name, fn) => {
    const t = Date.now();
    process.stdout.write(`bench-query: ${name} ... `);
    try {
      await fn(specs, clients, o, res);
    } catch (e) {
      console.log('FAILED');
      let msg = e.message;
      for (const c of launched) {
        const x = c.exitInfo;
        if (x && !c.stopping && (x.code !== 0 || x.signal) && !msg.includes(c.describe())) msg += `\n${c.describe()}`;
      }
      die(msg);
    }
    console.log(`done (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  };
  await phase('start both servers over stdio', async () => {
    for (const s of specs) clients[s.name] = await start(s);
    await sleep(300);
    for (const s of specs) {
      res[s.name].rssIdleMB = memMB(clients[s.name].child.pid).rss;
      res[s.name].serverInfo = clients[s.name].serverInfo;
      res[s.name].startMs = clients[s.name].startMs;
    }
  });
  const want = (p) => !o.only || o.only.has(p);
  if (want('preview')) {
    await phase(`preview: ${o.previewWarmup} warm-up + ${o.previewN} calls each (alternating blocks, <= ${o.previewSeconds} s each)`, phasePreview);
  }
  if (want('pipelined')) {
    await phase(`preview, ${o.inflight} in flight: ${o.pipelinedN} calls each`, phasePipelined);
  }
  if (want('floor')) {
    await phase(`SELECT 1: ${o.previewWarmup} warm-up + ${o.previewN / 2} calls each (alternating blocks), dbmcp echo`, phaseFloor);
  }
  if (want('aggregate')) {
    await phase(`aggregate: ${o.aggWarmup} warm-up + ${o.aggN} calls each (alternating)`, phaseAggregate);
  }
  for (const s of specs) {
    res[s.name].stdoutNoiseLines = clients[s.name].noise;
    await stopChild(clients[s.name].child);
  }

  const goals = report(o, res);
  const total = (Date.now() - started) / 1000;
  console.log(`bench-query: total ${total.toFixed(1)} s; goals met: ${goals.filter((g) => g.met).length}/${goals.length}`);
  if (o.out) {
    mkdirSync(dirname(o.out), { recursive: true });
    const options = { ...o, only: o.only ? [...o.only] : null };
    writeFileSync(o.out, JSON.stringify({ env, options, results: res, goals, seconds: total }, null, 2) + '\n');
    console.log(`bench-query: results written to ${o.out}`);
  }
}

main().catch((e) => die(e.stack || String(e)));
