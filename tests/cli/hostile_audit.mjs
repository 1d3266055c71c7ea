// hostile_audit.mjs — the load side of tests/cli/hostile_audit.sh.
//
//   node hostile_audit.mjs load URL KEYS WORKERS THRESHOLD OUT
//       WORKERS concurrent clients per API key (KEYS: comma-separated),
//       each sending 2026-07-28 tools/call requests of execute_query
//       ("SELECT n AS n") one after another until a request fails (the
//       server is gone) or 60 s passed. The call id of every successful
//       result received whole is appended to OUT at once (synchronously),
//       so OUT lists exactly the answers a client got. Prints "threshold"
//       when THRESHOLD results were received, and at the end one JSON
//       line: {"ok":n,"refused":n,"failed":n} (refused: an isError result,
//       failed: requests that got no whole answer).
import fs from 'node:fs';

const [mode, ...args] = process.argv.slice(2);

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function call(url, key, n) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'execute_query',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: n,
      method: 'tools/call',
      params: { name: 'execute_query', arguments: { query: `SELECT ${n} AS n` }, _meta: META },
    }),
  });
  const body = await res.json();
  return body.result;
}

async function load(url, keys, workers, threshold, out) {
  const counts = { ok: 0, refused: 0, failed: 0 };
  const until = Date.now() + 60000;
  let next = 1;
  fs.writeFileSync(out, '');
  const worker = async (key) => {
    while (Date.now() < until) {
      let result;
      try {
        result = await call(url, key, next++);
      } catch {
        counts.failed++;
        return;
      }
      const id = result?._meta?.['dbmcp/callId'];
      if (!id || result.isError) {
        counts.refused++;
        continue;
      }
      fs.appendFileSync(out, `${id}\n`);
      if (++counts.ok === threshold) console.log('threshold');
    }
  };
  const all = [];
  for (const key of keys.split(',')) for (let i = 0; i < workers; i++) all.push(worker(key));
  await Promise.all(all);
  console.log(JSON.stringify(counts));
}

if (mode === 'load') {
  const [url, keys, workers, threshold, out] = args;
  await load(url, keys, +workers, +threshold, out);
} else {
  console.error('usage: node hostile_audit.mjs load URL KEYS WORKERS THRESHOLD OUT');
  process.exit(2);
}
