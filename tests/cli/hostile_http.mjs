// hostile_http.mjs — the attack side of tests/cli/hostile_http.sh: raw
// sockets, so the client does exactly what an attacker does (no retries,
// no pooling). Every mode prints one JSON line and exits 0; the shell
// script judges it.
//
//   node hostile_http.mjs slow PORT N FROM MAX_S
//       N connections from address FROM, each sending a request line and
//       then one header line per second, never finishing. Ends when the
//       server has ended every connection or after MAX_S seconds:
//       {"statuses":{"408":n,"503":n,"none":n},"ended":n,"open":n,"seconds":s}
//   node hostile_http.mjs burst PORT KEY N FROM
//       N connections opened at once from FROM, each POSTing one valid
//       2026-07-28 tools/call (echo): {"statuses":{"200":n,"503":n},"unanswered":n}
//   node hostile_http.mjs slowbody PORT KEY N FROM MAX_S
//       the same, but each sends complete headers (with a valid key) announcing
//       a 1000-byte body, then one body byte per second
//   node hostile_http.mjs idle PORT KEY FROM MAX_S
//       one keep-alive connection: a valid call, then silence until the server
//       closes it: {"first":"200","closed":true,"seconds":s}
//   node hostile_http.mjs big PORT KEY SESSION BYTES COUNT
//       COUNT legacy tools/call requests whose tool name is BYTES characters:
//       {"statuses":{"200":n}}
import net from 'node:net';

const [mode, ...args] = process.argv.slice(2);

function statusOf(data) {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
  return m ? m[1] : 'none';
}

function count(map, key) {
  map[key] = (map[key] || 0) + 1;
}

function slow(port, n, from, maxS, key) {
  const statuses = {};
  let ended = 0;
  const t0 = Date.now();
  const done = () => {
    console.log(JSON.stringify({ statuses, ended, open: n - ended, seconds: (Date.now() - t0) / 1000 }));
    process.exit(0);
  };
  for (let i = 0; i < n; i++) {
    const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
    let data = '';
    let line = 0;
    let timer;
    s.on('connect', () => {
      if (key) {
        s.write(
          'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
            `Authorization: Bearer ${key}\r\nContent-Length: 1000\r\n\r\n`,
        );
        timer = setInterval(() => s.write(' '), 1000);
      } else {
        s.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        timer = setInterval(() => s.write(`X-Slow-${line++}: 1\r\n`), 1000);
      }
    });
    s.on('data', (d) => (data += d));
    s.on('error', () => {});
    s.on('close', () => {
      clearInterval(timer);
      count(statuses, statusOf(data));
      if (++ended === n) done();
    });
  }
  setTimeout(done, maxS * 1000);
}

function idle(port, key, from, maxS) {
  const t0 = Date.now();
  const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
  let data = '';
  const done = (closed) => {
    console.log(JSON.stringify({ first: statusOf(data), closed, seconds: (Date.now() - t0) / 1000 }));
    process.exit(0);
  };
  s.on('connect', () => s.write(echoRequest(key, true)));
  s.on('data', (d) => (data += d));
  s.on('error', () => {});
  s.on('close', () => done(true));
  setTimeout(() => done(false), maxS * 1000);
}

function echoRequest(key, keepAlive) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  return (
    'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
    `Authorization: Bearer ${key}\r\n` +
    'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
    'MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    (keepAlive ? '' : 'Connection: close\r\n') +
    `\r\n${body}`
  );
}

// Send `request` on n connections at once; report the status of each.
function fire(port, n, from, request, maxS) {
  const statuses = {};
  let finished = 0;
  const done = () => {
    const unanswered = (statuses.none || 0) + (n - finished);
    console.log(JSON.stringify({ statuses, unanswered }));
    process.exit(0);
  };
  for (let i = 0; i < n; i++) {
    const opts = { port, host: '127.0.0.1' };
    if (from) opts.localAddress = from;
    const s = net.connect(opts);
    let data = '';
    let counted = false;
    const finish = () => {
      if (counted) return;
      counted = true;
      count(statuses, statusOf(data));
      if (++finished === n) done();
    };
    s.on('connect', () => s.write(request));
    s.on('data', (d) => (data += d));
    s.on('error', finish);
    s.on('close', finish);
  }
  setTimeout(done, maxS * 1000);
}

function big(port, key, session, bytes, n) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'x'.repeat(bytes), arguments: {} },
  });
  const request =
    'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
    `Authorization: Bearer ${key}\r\nMcp-Session-Id: ${session}\r\n` +
    'Content-Type: application/json\r\nAccept: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  // one after the other: the point is the storage, not the concurrency
  const statuses = {};
  const next = (i) => {
    if (i === n) {
      console.log(JSON.stringify({ statuses }));
      process.exit(0);
    }
    const s = net.connect({ port, host: '127.0.0.1' });
    let data = '';
    s.on('connect', () => s.write(request));
    s.on('data', (d) => (data += d));
    s.on('error', () => {});
    s.on('close', () => {
      count(statuses, statusOf(data));
      next(i + 1);
    });
  };
  next(0);
}

if (mode === 'slow') slow(+args[0], +args[1], args[2], +args[3], null);
else if (mode === 'slowbody') slow(+args[0], +args[2], args[3], +args[4], args[1]);
else if (mode === 'idle') idle(+args[0], args[1], args[2], +args[3]);
else if (mode === 'burst') fire(+args[0], +args[2], args[3], echoRequest(args[1]), 60);
else if (mode === 'big') big(+args[0], args[1], args[2], +args[3], +args[4]);
else {
  console.error('usage: hostile_http.mjs slow|slowbody|idle|burst|big …');
  process.exit(2);
}
