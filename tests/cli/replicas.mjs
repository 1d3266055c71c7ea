// replicas.mjs — the client side of tests/cli/replicas.sh: the official MCP
// SDK behind a round-robin "load balancer", and a write load that kills a
// replica half-way. Prints one JSON line with what it saw; the shell script
// asserts on it. Never sleeps to synchronise: it waits for the events
// themselves, with generous deadlines that only bound how long a broken run
// takes to fail.
//
//   node replicas.mjs sdk URL_A URL_B KEY BIN DB
//     A Client with StreamableHTTPClientTransport whose fetch sends each
//     HTTP request to the other replica than the one before (no sticky
//     sessions): connect (initialize, initialized, GET stream), tools/list,
//     tools/call echo; then `BIN tools disable server_info --db DB` and wait
//     for notifications/tools/list_changed. Prints {hits:{A,B}, tools,
//     echo, stream_on, latency_ms}: stream_on is the replica that got the
//     GET stream; latency runs from the CLI's exit (its commit) to the
//     notification.
//
//   node replicas.mjs load URL_A URL_B KEY COUNT KILL_PID KILL_AFTER ACKS TAG
//     COUNT save_message calls (2026-07-28, stateless), 4 at a time,
//     alternating between the replicas; after KILL_AFTER of them were
//     acknowledged by B, SIGKILL KILL_PID (replica B) and carry on (calls to
//     B then fail and are not acknowledged); KILL_PID 0 kills nothing. Each
//     acknowledged save is appended to the file ACKS as {n, message_id,
//     via}. Texts differ between runs with another TAG. Prints {acked,
//     acked_b, failed, killed}.
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const require = createRequire(path.join(ROOT, 'tests/node/package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ToolListChangedNotificationSchema } = require('@modelcontextprotocol/sdk/types.js');

const WAIT_MS = 60000;

function deadline(ms, what) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref());
}

async function sdk([urlA, urlB, key, bin, db]) {
  const hits = { A: 0, B: 0 };
  let next = 0, streamOpened;
  const streamOpen = new Promise((resolve) => { streamOpened = resolve; });
  // The load balancer: every request goes to the other replica. The GET
  // stream's response headers come once the replica holds the stream.
  const roundRobin = (url, init) => {
    const to = next++ % 2 === 0 ? 'A' : 'B';
    hits[to]++;
    const target = new URL(to === 'A' ? urlA : urlB);
    const u = new URL(url);
    u.host = target.host;
    const res = fetch(u, init);
    if (init && init.method === 'GET')
      res.then((r) => r.ok && streamOpened(to), () => {});
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL(urlA), {
    fetch: roundRobin,
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'replicas-sdk', version: '1.0.0' });
  let changed;
  const listChanged = new Promise((resolve) => { changed = resolve; });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed(Date.now()));
  await Promise.race([client.connect(transport), deadline(WAIT_MS, 'connect')]);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello from both' } });
  // The SDK opens its GET stream in the background after initialized.
  const streamOn = await Promise.race([streamOpen, deadline(WAIT_MS, 'GET stream')]);
  const r = spawnSync(bin, ['tools', 'disable', 'server_info', '--db', db], { encoding: 'utf8' });
  const committed = Date.now();
  if (r.status !== 0) throw new Error(`tools disable: ${r.stderr}`);
  const at = await Promise.race([listChanged, deadline(WAIT_MS, 'list_changed')]);
  const sessionId = transport.sessionId;
  await client.close();
  return {
    hits, tools, sessionId, stream_on: streamOn,
    echo: echo.content && echo.content[0] && echo.content[0].text,
    latency_ms: at - committed,
  };
}

async function load([urlA, urlB, key, count, killPid, killAfter, acksFile, tag]) {
  const total = Number(count);
  const killAt = Number(killAfter);
  let n = 0, acked = 0, ackedB = 0, failed = 0, killed = false;
  const call = async (i) => {
    const via = i % 2 === 0 ? 'A' : 'B';
    const url = via === 'A' ? urlA : urlB;
    const body = {
      jsonrpc: '2.0', id: i, method: 'tools/call',
      params: {
        name: 'save_message',
        arguments: { role: 'user', content: `Replica load ${tag} message ${i}: parcel ${i * 7919 % 10007} goes to dock ${i % 13}.` },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: `load-${via.toLowerCase()}`, version: '1' },
        },
      },
    };
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`, 'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28',
          'Mcp-Method': 'tools/call', 'Mcp-Name': 'save_message',
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(WAIT_MS),
      });
      const text = await res.text();
      const j = JSON.parse(text);
      const result = j.result;
      if (res.status !== 200 || !result || result.isError) throw new Error(text.slice(0, 200));
      const saved = JSON.parse(result.content[0].text);
      appendFileSync(acksFile, JSON.stringify({ n: i, message_id: saved.message_id, via }) + '\n');
      acked++;
      if (via === 'B') ackedB++;
      if (!killed && Number(killPid) > 0 && ackedB >= killAt) {
        killed = true;
        process.kill(Number(killPid), 'SIGKILL');
      }
    } catch {
      failed++;
    }
  };
  const worker = async () => {
    while (n < total) await call(n++);
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return { acked, acked_b: ackedB, failed, killed };
}

const [mode, ...args] = process.argv.slice(2);
const run = mode === 'sdk' ? sdk : mode === 'load' ? load : null;
if (!run) {
  console.error('usage: replicas.mjs sdk|load ARGS…');
  process.exit(2);
}
run(args).then(
  (out) => { console.log(JSON.stringify(out)); process.exit(0); },
  (e) => { console.log(JSON.stringify({ error: String(e && e.stack || e) })); process.exit(1); },
);
