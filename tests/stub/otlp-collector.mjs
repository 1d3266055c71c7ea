// otlp-collector.mjs — a stand-in OpenTelemetry collector for tests (not
// product code): Node 20, no npm dependencies. It speaks OTLP/HTTP with the
// JSON encoding on POST /v1/traces (an ExportTraceServiceRequest in, an
// empty ExportTraceServiceResponse out) and keeps every span it accepted.
//
//   node tests/stub/otlp-collector.mjs --port 0 [--delay-ms N] [--status N]
//   first stdout line: the bound port
//
// GET /spans answers {"requests": N, "spans": [...]} with every span flattened
// (resource attributes copied to "resource"); POST /stub/shutdown stops it.
// --delay-ms holds every export that long before answering (a slow
// collector); --status answers every export with that status (a refusing
// one). A body that is not an ExportTraceServiceRequest gets 400, so a test
// sees dbmcp's encoding checked, not only counted.
import http from 'node:http';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const port = Number(opt('--port', '0'));
const delayMs = Number(opt('--delay-ms', '0'));
const status = Number(opt('--status', '200'));

const spans = [];
let requests = 0;
const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const DIGITS = /^[0-9]+$/;

function attrMap(list) {
  const out = {};
  for (const a of list || []) {
    const v = a.value || {};
    out[a.key] = 'stringValue' in v ? v.stringValue : 'intValue' in v ? Number(v.intValue)
      : 'doubleValue' in v ? v.doubleValue : 'boolValue' in v ? v.boolValue : null;
  }
  return out;
}

// The reason body is not a well-formed OTLP/JSON trace export, or null.
function invalid(body) {
  if (!Array.isArray(body.resourceSpans)) return 'resourceSpans is not an array';
  for (const rs of body.resourceSpans) {
    if (!Array.isArray(rs.scopeSpans)) return 'scopeSpans is not an array';
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans || []) {
        if (!HEX32.test(s.traceId)) return `traceId ${s.traceId}`;
        if (!HEX16.test(s.spanId)) return `spanId ${s.spanId}`;
        if (s.parentSpanId !== undefined && !HEX16.test(s.parentSpanId))
          return `parentSpanId ${s.parentSpanId}`;
        if (!DIGITS.test(s.startTimeUnixNano) || !DIGITS.test(s.endTimeUnixNano))
          return 'times are not decimal strings';
        if (BigInt(s.endTimeUnixNano) < BigInt(s.startTimeUnixNano)) return 'ends before start';
        if (typeof s.name !== 'string' || !s.name) return 'no name';
        if (![1, 2, 3, 4, 5].includes(s.kind)) return `kind ${s.kind}`;
      }
    }
  }
  return null;
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/spans') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ requests, spans }));
    return;
  }
  if (req.method === 'POST' && req.url === '/stub/shutdown') {
    res.end('bye');
    server.close();
    return;
  }
  if (req.method !== 'POST' || req.url !== '/v1/traces') {
    res.writeHead(404);
    res.end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    requests++;
    const answer = () => {
      if (status !== 200) {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end('{"code":14,"message":"unavailable"}');
        return;
      }
      let body;
      try {
        if (!/^application\/json/.test(req.headers['content-type'] || ''))
          throw new Error('content-type ' + req.headers['content-type']);
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const why = invalid(body);
        if (why) throw new Error(why);
      } catch (e) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 3, message: String(e.message) }));
        process.stderr.write(`otlp-collector: refused: ${e.message}\n`);
        return;
      }
      for (const rs of body.resourceSpans) {
        const resource = attrMap(rs.resource && rs.resource.attributes);
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans || [])
            spans.push({ ...s, attributes: attrMap(s.attributes), resource });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(server.address().port);
});
