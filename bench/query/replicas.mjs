#!/usr/bin/env node
// Throughput of execute_query (the 25-row preview) through 1 and through 2
// `dbmcp serve --http` replicas on one PostgreSQL database, side by side in
// one run. Called by bench/query_pg.sh. Each client opens a 2025-11-25
// session on its replica and keeps --inflight requests in flight in total,
// spread round-robin over the replicas given.
//
//   node replicas.mjs --url URL [--url URL2] [--n 2000] [--inflight 8]
// prints one JSON line: {replicas, calls, seconds, callsPerSecond}.
const o = { urls: [], n: 2000, inflight: 8 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const [k, v] = [argv[i], argv[i + 1]];
  if (k === '--url') o.urls.push(v);
  else if (k === '--n') o.n = Number(v);
  else if (k === '--inflight') o.inflight = Number(v);
  else { console.error(`replicas.mjs: unknown option ${k}`); process.exit(2); }
}
if (!o.urls.length) { console.error('replicas.mjs: --url is required'); process.exit(2); }

const PREVIEW = { name: 'execute_query', arguments: { query: 'SELECT * FROM orders LIMIT 25', max_rows: 25 } };
let nextId = 1;

async function rpc(url, session, method, params) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (session) { headers['mcp-session-id'] = session; headers['mcp-protocol-version'] = '2025-11-25'; }
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  const body = text.startsWith('event:') || text.startsWith('data:')
    ? JSON.parse(text.split('\n').find((l) => l.startsWith('data:')).slice(5)) : JSON.parse(text);
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return { body, session: res.headers.get('mcp-session-id') };
}

async function open(url) {
  const init = await rpc(url, null, 'initialize', {
    protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-replicas', version: '1' } });
  const session = init.session;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  return { url, session };
}

const clients = [];
for (let i = 0; i < o.inflight; i++) clients.push(await open(o.urls[i % o.urls.length]));
// warm-up: one call per client
await Promise.all(clients.map((c) => rpc(c.url, c.session, 'tools/call', PREVIEW)));
let left = o.n;
const t0 = process.hrtime.bigint();
await Promise.all(clients.map(async (c) => {
  while (left > 0) {
    left--;
    const r = await rpc(c.url, c.session, 'tools/call', PREVIEW);
    if (r.body.result.isError) throw new Error(`tool error: ${JSON.stringify(r.body.result).slice(0, 300)}`);
  }
}));
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(JSON.stringify({ replicas: o.urls.length, calls: o.n, seconds, callsPerSecond: o.n / seconds }));
