#!/usr/bin/env node
// Benchmark driver: dbmcp vs. an echo server on the official MCP TypeScript
// SDK, side by side in one run. Called by bench/run.sh (see bench/README.md).
//
// The same client code drives both servers: raw JSON-RPC lines over the
// child's stdin/stdout for stdio, node:http with a keep-alive Agent for
// Streamable HTTP. No MCP SDK client is involved, so the client's cost is
// small and equal for both.
//
// Exits 0 when every measurement ran (whether or not the goals are met),
// non-zero when a server cannot start or answers wrongly.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';

// ---------------------------------------------------------------- options
function parseArgs(argv) {
  const o = {
    dbmcp: 'build/dbmcp',
    db: null,
    nodeServer: 'bench/node/echo-server.mjs',
    out: null,
    cold: 10,
    n: 2000,
    warmup: 500,
    blocks: 4,
    clients: 8,
    httpSeconds: 5,
    httpWarmupSeconds: 2,
    httpRounds: 2,
    only: null,
    cpuclock: null,
    floor: null, // bench/stdio_floor: read + canned write only, stdio phase
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[i + 1];
    const num = () => {
      const x = Number(v);
      if (!Number.isFinite(x) || x <= 0) die(`bad value for ${k}: ${v}`);
      i++;
      return x;
    };
    switch (k) {
      case '--dbmcp': o.dbmcp = v; i++; break;
      case '--db': o.db = v; i++; break;
      case '--node-server': o.nodeServer = v; i++; break;
      case '--out': o.out = v; i++; break;
      case '--cpuclock': o.cpuclock = v; i++; break;
      case '--floor': o.floor = v; i++; break;
      case '--cold': o.cold = num(); break;
      case '--n': o.n = num(); break;
      case '--warmup': o.warmup = num(); break;
      case '--blocks': o.blocks = num(); break;
      case '--clients': o.clients = num(); break;
      case '--http-seconds': o.httpSeconds = num(); break;
      case '--http-warmup-seconds': o.httpWarmupSeconds = num(); break;
      case '--http-rounds': o.httpRounds = num(); break;
      case '--only': o.only = new Set(String(v).split(',')); i++; break;
      default: die(`unknown option ${k}`);
    }
  }
  if (!o.db) die('--db is required (a database made by `dbmcp init`)');
  return o;
}

function die(msg) {
  console.error(`bench: FATAL: ${msg}`);
  killAll();
  process.exit(1);
}

const PROTOCOL = '2025-06-18';
const CLK_TCK = 100; // USER_HZ; checked against `getconf CLK_TCK` by run.sh
const children = new Set(); // running
const launched = []; // all, for post-mortems

function killAll() {
  for (const c of children) {
    try { c.kill('SIGKILL'); } catch { /* already gone */ }
  }
}
process.on('exit', killAll);
process.on('SIGINT', () => die('interrupted'));
process.on('SIGTERM', () => die('terminated'));

// ---------------------------------------------------------------- /proc
// CPU time of a process (user + system, all threads), three ways:
//  - clock: clock_getcpuclockid(3) through the bench/cpuclock helper; ns
//    resolution and counts threads that have exited (preferred);
//  - tick: utime+stime of /proc/PID/stat (dead threads included, but 10 ms
//    resolution); always recorded, as a cross-check;
//  - ns: sum of /proc/PID/task/*/schedstat field 1 (ns resolution, but
//    threads that exited during the window are missing); fallback when the
//    helper is absent.
let cpuclock = null; // path of the helper, set from --cpuclock

function cpuSample(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(f[11]) + Number(f[12]); // fields 14, 15
  let clockNs = NaN;
  if (cpuclock) {
    try {
      clockNs = Number(execFileSync(cpuclock, [String(pid)], { encoding: 'utf8' }).trim());
    } catch { /* helper failed: fall back below */ }
  }
  let ns = 0;
  let threads = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      threads++;
    } catch { /* thread exited meanwhile */ }
  }
  return { tickUs: (ticks * 1e6) / CLK_TCK, clockNs, ns, threads };
}

// CPU used between two samples, in µs: the clock figure when there is one;
// else the schedstat figure unless it disagrees with the tick figure by more
// than tick resolution (threads exited); else the tick figure.
function cpuDelta(a, b) {
  const tickUs = b.tickUs - a.tickUs;
  const clockUs = (b.clockNs - a.clockNs) / 1000;
  if (Number.isFinite(clockUs) && clockUs >= 0) return { us: clockUs, tickUs, method: 'cpuclock' };
  const nsUs = (b.ns - a.ns) / 1000;
  const slack = 20000 + 0.05 * Math.max(tickUs, nsUs);
  const precise = nsUs > 0 && Math.abs(tickUs - nsUs) <= slack;
  return { us: precise ? nsUs : tickUs, tickUs, method: precise ? 'schedstat' : 'proc-stat' };
}

function rssMB(pid) {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

// ---------------------------------------------------------------- stats
const median = (xs) => pct(xs, 50);
function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const idx = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[idx];
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

// ---------------------------------------------------------------- servers
function serverSpecs(o) {
  return [
    {
      name: 'node-sdk',
      label: 'Node SDK 1.32.2',
      stdio: () => [process.execPath, [o.nodeServer]],
      http: (port) => [process.execPath, [o.nodeServer, '--http', String(port)]],
    },
    {
      name: 'dbmcp',
      label: 'dbmcp',
      stdio: () => [o.dbmcp, ['serve', '--db', o.db]],
      http: (port) => [o.dbmcp, ['serve', '--db', o.db, '--http', `127.0.0.1:${port}`, '--no-auth']],
    },
  ];
}

function launch(spec, mode, port) {
  const [cmd, args] = mode === 'stdio' ? spec.stdio() : spec.http(port);
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
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
  child.on('error', (err) => die(`${spec.name}: cannot spawn ${cmd}: ${err.message}`));
  child.stdin.on('error', () => { /* EPIPE when the server died; reported elsewhere */ });
  child.describe = () =>
    `${spec.name} (${mode}): ${cmd} ${args.join(' ')}` +
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

// ---------------------------------------------------------------- stdio
// JSON-RPC over newline-delimited stdin/stdout.
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
      for (const [, p] of this.pending) p.reject(new Error('server exited before answering'));
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
        p.resolve(msg);
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

  notify(method, params) {
    this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }) + '\n');
  }
}

const initParams = () => ({
  protocolVersion: PROTOCOL,
  capabilities: {},
  clientInfo: { name: 'dbmcp-bench', version: '1.0.0' },
});

function checkInit(spec, msg, where) {
  if (!msg || !msg.result || typeof msg.result.protocolVersion !== 'string') {
    throw new Error(`${spec.name}: bad initialize response (${where}): ${JSON.stringify(msg)}`);
  }
  return msg.result.protocolVersion;
}

function checkEcho(spec, msg, text) {
  const c = msg && msg.result && msg.result.content;
  if (!Array.isArray(c) || !c[0] || c[0].type !== 'text' || c[0].text !== text || msg.result.isError) {
    throw new Error(`${spec.name}: bad echo response for ${JSON.stringify(text)}: ${JSON.stringify(msg)}`);
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

// 1. Cold start: spawn, send initialize at once, time until its response.
async function coldStartOnce(spec) {
  const t0 = nowMs();
  const child = launch(spec, 'stdio');
  const client = new StdioClient(spec, child);
  let msg;
  try {
    msg = await withTimeout(client.request('initialize', initParams()), 15000, `${spec.name} initialize`);
  } catch (e) {
    throw new Error(`${e.message}\n${child.describe()}`);
  }
  const ms = nowMs() - t0;
  checkInit(spec, msg, 'cold start');
  await stopChild(child);
  return ms;
}

async function startStdio(spec) {
  const child = launch(spec, 'stdio');
  const client = new StdioClient(spec, child);
  try {
    const msg = await withTimeout(client.request('initialize', initParams()), 15000, `${spec.name} initialize`);
    checkInit(spec, msg, 'stdio');
  } catch (e) {
    throw new Error(`${e.message}\n${child.describe()}`);
  }
  client.notify('notifications/initialized');
  return client;
}

async function echoStdio(client, i, lat) {
  const text = `bench ${i}`;
  const t0 = nowMs();
  const msg = await client.request('tools/call', { name: 'echo', arguments: { text } });
  const dt = nowMs() - t0;
  checkEcho(client.spec, msg, text);
  if (lat) lat.push(dt * 1000); // µs
}

// ---------------------------------------------------------------- HTTP
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitListening(child, port, ms) {
  const deadline = nowMs() + ms;
  while (nowMs() < deadline) {
    if (child.exitInfo) throw new Error(`server exited before listening\n${child.describe()}`);
    const ok = await new Promise((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.once('connect', () => { sock.destroy(); resolve(true); });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(25);
  }
  throw new Error(`server not listening on 127.0.0.1:${port} after ${ms} ms\n${child.describe()}`);
}

function httpPost(agent, port, headers, body) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Content-Length': Buffer.byteLength(data),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode, headers: res.headers, msg: parseHttpBody(res.headers, text, body.id) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

// A JSON body, or the SSE event carrying the response with the given id.
function parseHttpBody(headers, text, id) {
  if (!text) return null;
  const ct = String(headers['content-type'] || '');
  if (ct.startsWith('text/event-stream')) {
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (!data) continue;
      try {
        const m = JSON.parse(data);
        if (id === undefined || m.id === id) return m;
      } catch { /* not JSON: ignore */ }
    }
    return null;
  }
  try {
    return JSON.parse(text);
  } catch {
    return { unparsable: text.slice(0, 200) };
  }
}

class HttpSession {
  constructor(spec, port) {
    this.spec = spec;
    this.port = port;
    // One keep-alive connection per client, like one MCP client would hold.
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    this.nextId = 1;
    this.headers = {};
  }

  async open() {
    const r = await httpPost(this.agent, this.port, {}, {
      jsonrpc: '2.0', id: this.nextId++, method: 'initialize', params: initParams(),
    });
    const version = checkInit(this.spec, r.msg, `HTTP status ${r.status}`);
    const sid = r.headers['mcp-session-id'];
    if (!sid) throw new Error(`${this.spec.name}: initialize over HTTP returned no Mcp-Session-Id`);
    this.headers = { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': version };
    const n = await httpPost(this.agent, this.port, this.headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
    if (n.status !== 202 && n.status !== 200) {
      throw new Error(`${this.spec.name}: notifications/initialized got HTTP ${n.status}`);
    }
  }

  async echo(i) {
    const text = `bench ${i}`;
    const id = this.nextId++;
    const r = await httpPost(this.agent, this.port, this.headers, {
      jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } },
    });
    if (r.status !== 200) throw new Error(`${this.spec.name}: tools/call got HTTP ${r.status}: ${JSON.stringify(r.msg)}`);
    checkEcho(this.spec, r.msg, text);
  }

  close() {
    this.agent.destroy();
  }
}

// Every client calls echo in a loop until the deadline; returns calls made.
async function httpLoad(sessions, seconds) {
  const deadline = nowMs() + seconds * 1000;
  let calls = 0;
  await Promise.all(
    sessions.map(async (s, k) => {
      let i = 0;
      while (nowMs() < deadline) {
        await s.echo(`${k}-${i++}`);
        calls++;
      }
    }),
  );
  return calls;
}

// ---------------------------------------------------------------- phases
async function phaseColdStart(specs, o, res) {
  for (const s of specs) res[s.name].coldMs = [];
  // One throw-away start each, so the page cache holds both binaries.
  for (const s of specs) await coldStartOnce(s);
  for (let i = 0; i < o.cold; i++) {
    for (const s of i % 2 ? [...specs].reverse() : specs) res[s.name].coldMs.push(await coldStartOnce(s));
  }
  for (const s of specs) res[s.name].coldStartMs = median(res[s.name].coldMs);
}

async function phaseStdio(servers, o, res) {
  // The floor program runs beside the servers, in the same alternating blocks.
  const specs = o.floor
    ? [...servers, { name: 'floor', label: 'floor', stdio: () => [o.floor, []] }]
    : servers;
  if (o.floor) res.floor = {};
  const clients = {};
  for (const s of specs) clients[s.name] = await startStdio(s);
  await sleep(300);
  for (const s of specs) res[s.name].rssIdleMB = rssMB(clients[s.name].child.pid);
  for (const s of specs) {
    for (let i = 0; i < o.warmup; i++) await echoStdio(clients[s.name], `w${i}`);
  }
  // N measured calls per server, in blocks alternating between the servers
  // so slow drift of the shared machine hits both alike.
  const per = Math.ceil(o.n / o.blocks);
  // CPU is sampled once around all blocks: the server waiting idle while
  // the other one runs its block costs it (next to) nothing, and one delta
  // keeps the tick figure's truncation error to one tick pair.
  const before = {};
  for (const s of specs) {
    res[s.name].lat = [];
    before[s.name] = cpuSample(clients[s.name].child.pid);
  }
  for (let b = 0; b < o.blocks; b++) {
    for (const s of b % 2 ? [...specs].reverse() : specs) {
      const count = Math.min(per, o.n - b * per);
      for (let i = 0; i < count; i++) await echoStdio(clients[s.name], `${b}-${i}`, res[s.name].lat);
    }
  }
  for (const s of specs) res[s.name].cpu = cpuDelta(before[s.name], cpuSample(clients[s.name].child.pid));
  for (const s of specs) {
    const r = res[s.name];
    const c = clients[s.name];
    r.stdioCalls = r.lat.length;
    r.stdioP50Us = pct(r.lat, 50);
    r.stdioP99Us = pct(r.lat, 99);
    r.stdioMeanUs = r.lat.reduce((a, b) => a + b, 0) / r.lat.length;
    r.stdioCpuUsPerCall = r.cpu.us / r.stdioCalls;
    r.stdioCpuTickUsPerCall = r.cpu.tickUs / r.stdioCalls;
    r.stdioCpuMethod = r.cpu.method;
    r.rssLoadMB = rssMB(c.child.pid);
    r.stdioNoiseLines = c.noise;
    delete r.lat;
    delete r.cpu;
  }
  for (const s of specs) await stopChild(clients[s.name].child);
}

async function phaseHttp(specs, o, res) {
  const servers = {};
  for (const s of specs) {
    const port = await freePort();
    const child = launch(s, 'http', port);
    try {
      await waitListening(child, port, 15000);
    } catch (e) {
      throw new Error(`${s.name}: cannot start the HTTP server: ${e.message}`);
    }
    const sessions = Array.from({ length: o.clients }, () => new HttpSession(s, port));
    try {
      for (const ss of sessions) await withTimeout(ss.open(), 15000, `${s.name} HTTP session`);
    } catch (e) {
      throw new Error(`${e.message}\n${child.describe()}`);
    }
    servers[s.name] = { child, sessions };
    res[s.name].httpRssIdleMB = rssMB(child.pid);
  }
  // Warm-up (JIT, thread pools, connection setup), not counted.
  for (const s of specs) await httpLoad(servers[s.name].sessions, o.httpWarmupSeconds);
  for (const s of specs) Object.assign(res[s.name], { httpCalls: 0, httpMs: 0, httpCpuUs: 0, httpCpuTickUs: 0, httpCpuMethods: new Set() });
  for (let round = 0; round < o.httpRounds; round++) {
    for (const s of round % 2 ? [...specs].reverse() : specs) {
      const { child, sessions } = servers[s.name];
      const r = res[s.name];
      const before = cpuSample(child.pid);
      const clientBefore = process.cpuUsage();
      const t0 = nowMs();
      let calls;
      try {
        calls = await httpLoad(sessions, o.httpSeconds / o.httpRounds);
      } catch (e) {
        throw new Error(`${e.message}\n${child.describe()}`);
      }
      r.httpMs += nowMs() - t0;
      const cu = process.cpuUsage(clientBefore);
      r.httpClientCpuUs = (r.httpClientCpuUs || 0) + cu.user + cu.system;
      const d = cpuDelta(before, cpuSample(child.pid));
      r.httpCalls += calls;
      r.httpCpuUs += d.us;
      r.httpCpuTickUs += d.tickUs;
      r.httpCpuMethods.add(d.method);
    }
  }
  for (const s of specs) {
    const r = res[s.name];
    r.httpCallsPerSec = r.httpCalls / (r.httpMs / 1000);
    r.httpCpuUsPerCall = r.httpCpuUs / r.httpCalls;
    r.httpCpuMethod = [...r.httpCpuMethods].join('+');
    r.httpCpuTickUsPerCall = r.httpCpuTickUs / r.httpCalls;
    r.httpClientCpuUsPerCall = r.httpClientCpuUs / r.httpCalls;
    r.httpRssLoadMB = rssMB(servers[s.name].child.pid);
    delete r.httpCpuMethods;
  }
  for (const s of specs) {
    for (const ss of servers[s.name].sessions) ss.close();
    await stopChild(servers[s.name].child);
  }
}

// ---------------------------------------------------------------- report
function fmt(x, digits) {
  if (!Number.isFinite(x)) return 'n/a';
  return x.toFixed(digits);
}

function report(specs, o, res) {
  const [nd, db] = [res['node-sdk'], res.dbmcp];
  // [label, key, digits, lowerIsBetter, goal ratio node/dbmcp or null]
  const rows = [
    ['cold start to first response, median (ms)', 'coldStartMs', 1, true, 10],
    [`stdio echo latency p50 (µs)`, 'stdioP50Us', 0, true, null],
    [`stdio echo latency p99 (µs)`, 'stdioP99Us', 0, true, null],
    [`stdio server CPU per call (µs)`, 'stdioCpuUsPerCall', 1, true, 10],
    ['RSS idle, after initialize (MB)', 'rssIdleMB', 1, true, 5],
    [`RSS after ${o.n} stdio calls (MB)`, 'rssLoadMB', 1, true, 5],
    [`HTTP throughput, ${o.clients} clients (calls/s)`, 'httpCallsPerSec', 0, false, null],
    [`HTTP server CPU per call (µs)`, 'httpCpuUsPerCall', 1, true, 10],
    [`HTTP RSS after load, ${o.clients} sessions (MB)`, 'httpRssLoadMB', 1, true, 5],
  ];
  const w = [44, 12, 12, 11, 22];
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
  const out = [];
  out.push('');
  out.push(line(['metric', 'node-sdk', 'dbmcp', 'node/dbmcp', 'goal / better']));
  out.push('-'.repeat(w.reduce((a, b) => a + b + 2, -2)));
  const goals = [];
  for (const [label, key, digits, lower, goal] of rows) {
    if (nd[key] === undefined && db[key] === undefined) continue; // phase not run
    const ratio = nd[key] / db[key];
    let g = '';
    if (goal) {
      const ok = ratio >= goal;
      g = `>= ${goal}: ${ok ? 'MET' : 'missed'}`;
      goals.push({ metric: label, ratio, goal, met: ok });
    } else {
      // No goal: say which way it went, as a factor >= 1.
      const better = lower ? ratio >= 1 : ratio <= 1;
      const f = lower ? (better ? ratio : 1 / ratio) : (better ? 1 / ratio : ratio);
      g = `${better ? 'dbmcp' : 'node'} ${fmt(f, 2)}x ${lower ? 'lower' : 'higher'}`;
    }
    out.push(line([label, fmt(nd[key], digits), fmt(db[key], digits), `${fmt(ratio, 2)}x`, g]));
  }
  out.push('');
  if (nd.stdioCalls) {
    out.push(`stdio: ${o.n} calls per server after ${o.warmup} warm-up calls; CPU from ${nd.stdioCpuMethod} (node), ` +
      `${db.stdioCpuMethod} (dbmcp); from /proc/PID/stat ticks alone: node ${fmt(nd.stdioCpuTickUsPerCall, 1)}, ` +
      `dbmcp ${fmt(db.stdioCpuTickUsPerCall, 1)} µs/call.`);
  }
  if (res.floor && res.floor.stdioCalls) {
    const f = res.floor;
    out.push(`stdio floor (bench/stdio_floor.c: one read and one canned write per call, nothing else): ` +
      `${fmt(f.stdioCpuUsPerCall, 1)} µs CPU per call, p50 ${fmt(f.stdioP50Us, 0)} µs. node/floor = ` +
      `${fmt(nd.stdioCpuUsPerCall / f.stdioCpuUsPerCall, 2)}x is the largest CPU ratio any stdio server could show ` +
      `in this run; dbmcp spends ${fmt(db.stdioCpuUsPerCall - f.stdioCpuUsPerCall, 1)} µs per call above the floor, ` +
      `node ${fmt(nd.stdioCpuUsPerCall - f.stdioCpuUsPerCall, 1)} µs.`);
  }
  if (nd.httpCalls) {
    out.push(`HTTP: ${nd.httpCalls} (node) / ${db.httpCalls} (dbmcp) calls in ~${o.httpSeconds} s each after ` +
      `${o.httpWarmupSeconds} s warm-up; CPU from ${nd.httpCpuMethod} (node), ${db.httpCpuMethod} (dbmcp), ` +
      `from /proc/PID/stat ticks alone: node ${fmt(nd.httpCpuTickUsPerCall, 1)}, dbmcp ${fmt(db.httpCpuTickUsPerCall, 1)} µs/call; ` +
      `RSS with ${o.clients} idle sessions: node ${fmt(nd.httpRssIdleMB, 1)} MB, dbmcp ${fmt(db.httpRssIdleMB, 1)} MB.`);
    out.push(`HTTP client (this driver) CPU per call: ${fmt(nd.httpClientCpuUsPerCall, 1)} µs against node, ` +
      `${fmt(db.httpClientCpuUsPerCall, 1)} µs against dbmcp; client + server share ${os.cpus().length} cores, so ` +
      `calls/s is bounded by their sum.`);
  }
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
      console.error(`bench: warning: ${o.cpuclock} does not work (${e.message}); CPU from /proc only`);
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
    node: process.version,
    kernel: os.release(),
  };
  console.log(`bench: ${env.date}  nproc=${env.nproc}  cpu="${env.cpuModel}"  node ${env.node}`);

  const phase = async (name, fn) => {
    const t = Date.now();
    process.stdout.write(`bench: ${name} ... `);
    try {
      await fn(specs, o, res);
    } catch (e) {
      console.log('FAILED');
      let msg = e.message;
      for (const c of launched) {
        const x = c.exitInfo;
        const abnormal = x && !c.stopping && (x.code !== 0 || x.signal);
        if (abnormal && !msg.includes(c.describe())) msg += `\n${c.describe()}`;
      }
      die(msg);
    }
    console.log(`done (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  };
  const want = (p) => !o.only || o.only.has(p);
  if (want('cold')) await phase(`cold start x${o.cold} (interleaved)`, phaseColdStart);
  if (want('stdio')) await phase(`stdio: ${o.warmup} warm-up + ${o.n} echo calls each (alternating blocks)`, phaseStdio);
  if (want('http')) await phase(`HTTP: ${o.clients} clients x ~${o.httpSeconds} s each (alternating rounds)`, phaseHttp);

  const goals = report(specs, o, res);
  const total = (Date.now() - started) / 1000;
  console.log(`bench: total ${total.toFixed(1)} s; goals met: ${goals.filter((g) => g.met).length}/${goals.length}`);
  if (o.out) {
    mkdirSync(dirname(o.out), { recursive: true });
    writeFileSync(o.out, JSON.stringify({ env, options: o, results: res, goals, seconds: total }, null, 2) + '\n');
    console.log(`bench: results written to ${o.out}`);
  }
}

main().catch((e) => die(e.stack || String(e)));
