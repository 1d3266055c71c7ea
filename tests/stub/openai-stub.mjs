#!/usr/bin/env node
// openai-stub.mjs — a scripted OpenAI-compatible server for dbmcp's tests.
// A test helper, not product code. Node >= 20, no npm dependencies.
//
//   node tests/stub/openai-stub.mjs [--port 0] [--host 127.0.0.1]
//        [--scenario FILE] [--log FILE] [--embed-dim N] [--mistral]
//
// The first line on stdout is the bound port (a number, nothing else); the
// server runs until killed (SIGTERM/SIGINT) or POST /stub/shutdown.
//
// Endpoints
//   POST …/chat/completions   (any prefix: /v1/chat/completions,
//                              /openai/deployments/D/chat/completions?api-version=V)
//                             answers the next scripted chat step, in order.
//   POST …/embeddings         deterministic embeddings (see "embeddings").
//   GET  /stub/state          {"chat_served","chat_remaining","embed_served","failures":[…]}
//   POST /stub/shutdown       stops the server.
//
// Scenario file (JSON). Either an array of chat steps, or an object:
//   {
//     "mistral": false,      // check every chat request against Mistral's rules
//     "chat": [ STEP, … ],   // consumed in order, one per chat request
//     "embeddings": {        // optional
//       "dim": 8,            // vector length (default --embed-dim or 8)
//       "model": "stub-embed",
//       "reverse": false,    // answer data[] in reverse order (indices stay right)
//       "script": [ ESTEP, … ], // consumed in order, one per embeddings request;
//                               // when exhausted every request succeeds
//       "delay_on": {"contains": "TEXT", "delay_ms": N, "times": K}
//                               // the first K requests (default: every one) with
//                               // an input containing TEXT wait N ms first,
//                               // whichever client sends them
//     }
//   }
//
// STEP — what one chat request must look like and what it gets back:
//   "expect": {              // optional assertions on the request
//     "model": "m",          //   body.model equals
//     "tools": true|false,   //   tools present (non-empty array) or absent
//     "tool_names": ["a"],   //   the tools' function names, in order
//     "tool_choice": X,      //   body.tool_choice deep-equals X (null = absent)
//     "last_role": "tool",   //   role of the last message
//     "tool_call_id": "id",  //   some tool message answers this id
//     "message_count": 3,    //   number of messages
//     "stream": true|false,  //   body.stream is true / absent or false
//     "mistral": true,       //   the messages obey Mistral's rules (below)
//     "path_contains": "s",  //   the request path+query contains s
//     "header": {"api-key": "k"}, // request headers (lower-case names) equal
//     "body_contains": "s",  //   the raw request body contains s
//     "body_lacks": "s"      //   … does not contain s
//   },
//   "delay_ms": 0,           // wait before answering (timeouts: longer than the client's)
//   "status": 200,           // HTTP status (default 200)
//   "headers": {"Retry-After": "1", "retry-after-ms": "20"},
//   then exactly one of:
//   "reply": {               // shorthand for a chat completion; becomes SSE
//     "content": "text",     //   chunks when the request has stream: true
//     "tool_calls": [{"id": "c1", "name": "f", "arguments": "{\"a\":1}"}],
//                            //   arguments: a string (sent as is) or a value (serialised)
//     "finish_reason": "stop",     // default: tool_calls when there are calls, else stop
//     "usage": {"prompt_tokens": 10, "completion_tokens": 5},
//     "model": "stub-model", //   default: the request's model
//     "parts": false         //   send content as an array of text parts
//   },
//   "body": {…},             // a JSON body, sent as is (application/json)
//   "text": "…",             // a raw body (content type from "headers", default text/plain)
//   "sse": [EVENT, …],       // a stream (text/event-stream): an object is sent as
//                            //   "data: JSON\n\n", a string is written raw (so
//                            //   "event: error\ndata: {…}\n\n" or half a line work)
//   "done": true,            // sse/reply stream: end with "data: [DONE]" (default true)
//   "cut": false,            // sse/reply stream: destroy the connection after the
//                            //   events instead of ending it (implies no [DONE])
//   "cut_after": N,          // reply stream: cut after N chunks (mid tool call)
//   "chunk_delay_ms": 0      // pause between stream writes
//
// When a step's expectations fail the stub still answers the step, records
// the failures in the log line and in /stub/state, and prints them on
// stderr. A chat request after the last step gets 400
// {"error":{"type":"stub_exhausted",…}}.
//
// Mistral rules ("mistral": true): every assistant tool-call id is 9
// characters [a-zA-Z0-9]; an assistant message has content or tool_calls,
// not both; every tool message's tool_call_id answers a tool call of an
// earlier assistant message; the last message is user or tool (or an
// assistant with prefix: true); the body holds only keys Mistral accepts.
//
// ESTEP — one embeddings answer:
//   {"status": 429, "headers": {"Retry-After": "0"}, "body": {…}}  a scripted failure
//   {"status": 401}                     (a default error body is sent when none given)
//   {"malformed": true}                 200 with a body that is not JSON
//   {"dim": 3}                          200 with vectors of the wrong length
//   {"missing": true}                   200 with one item too few in data[]
//   {"ok": true}                        a normal answer
//   any of them with "delay_ms".
// A normal answer: {"object":"list","model":M,"data":[{"object":"embedding",
// "index":i,"embedding":[…dim floats…]}],"usage":{…}}; vector i is derived
// from SHA-256 of the input text only (same text, same vector, whatever the
// batch), values in [-1, 1), not normalised.
//
// Log (--log FILE): one JSON object per line per request, written before the
// answer: {"seq","kind":"chat"|"embeddings"|"other","method","path",
// "headers":{lower-case},"body": parsed JSON or null,"raw": text when not
// JSON,"step": index or null,"failures":[…]}.
import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';
import util from 'node:util';

const { values: opts } = util.parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    scenario: { type: 'string' },
    log: { type: 'string' },
    'embed-dim': { type: 'string', default: '8' },
    mistral: { type: 'boolean', default: false },
  },
});

let scenario = { chat: [] };
if (opts.scenario) {
  const parsed = JSON.parse(fs.readFileSync(opts.scenario, 'utf8'));
  scenario = Array.isArray(parsed) ? { chat: parsed } : parsed;
}
const chatSteps = scenario.chat || [];
const embedCfg = scenario.embeddings || {};
const embedDim = embedCfg.dim || Number(opts['embed-dim']) || 8;
const embedScript = embedCfg.script || [];
const mistralAll = !!(scenario.mistral || opts.mistral);

let chatServed = 0;
let embedServed = 0;
let seq = 0;
const failures = [];
if (opts.log) fs.writeFileSync(opts.log, '');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function logRequest(entry) {
  if (opts.log) fs.appendFileSync(opts.log, JSON.stringify(entry) + '\n');
}

function deepEqual(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

const MISTRAL_KEYS = new Set([
  'model', 'messages', 'temperature', 'top_p', 'max_tokens', 'stream', 'stop',
  'random_seed', 'response_format', 'tools', 'tool_choice', 'presence_penalty',
  'frequency_penalty', 'n', 'prediction', 'parallel_tool_calls', 'safe_prompt',
]);

// The ways body breaks Mistral's rules (empty when none).
function mistralViolations(body) {
  const out = [];
  if (!body || !Array.isArray(body.messages)) return ['mistral: no messages array'];
  for (const k of Object.keys(body)) {
    if (!MISTRAL_KEYS.has(k)) out.push(`mistral: body key "${k}" is not accepted`);
  }
  const ids = new Set();
  body.messages.forEach((m, i) => {
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
    if (m.role === 'assistant') {
      const hasContent = typeof m.content === 'string' ? m.content.length > 0 : m.content != null;
      if (hasContent && calls.length) {
        out.push(`mistral: message ${i}: assistant has both content and tool_calls`);
      }
      for (const c of calls) {
        if (typeof c.id !== 'string' || !/^[a-zA-Z0-9]{9}$/.test(c.id)) {
          out.push(`mistral: message ${i}: tool call id ${JSON.stringify(c.id)} is not 9 alphanumerics`);
        }
        ids.add(c.id);
      }
    }
    if (m.role === 'tool' && !ids.has(m.tool_call_id)) {
      out.push(`mistral: message ${i}: tool_call_id ${JSON.stringify(m.tool_call_id)} answers no earlier call`);
    }
  });
  const last = body.messages[body.messages.length - 1];
  if (last && !(last.role === 'user' || last.role === 'tool' || (last.role === 'assistant' && last.prefix))) {
    out.push(`mistral: last message role is ${last.role}`);
  }
  return out;
}

// The expectation failures of step for this request.
function checkExpect(expect, req, raw, body) {
  const out = [];
  if (!expect) return out;
  const b = body || {};
  const msgs = Array.isArray(b.messages) ? b.messages : [];
  const hasTools = Array.isArray(b.tools) && b.tools.length > 0;
  if ('model' in expect && b.model !== expect.model) {
    out.push(`model is ${JSON.stringify(b.model)}, expected ${JSON.stringify(expect.model)}`);
  }
  if ('tools' in expect && hasTools !== !!expect.tools) {
    out.push(expect.tools ? 'tools missing' : 'tools present');
  }
  if ('tool_names' in expect) {
    const names = (b.tools || []).map((t) => t && t.function && t.function.name);
    if (!deepEqual(names, expect.tool_names)) out.push(`tool names are ${JSON.stringify(names)}`);
  }
  if ('tool_choice' in expect) {
    const got = 'tool_choice' in b ? b.tool_choice : null;
    if (!deepEqual(got, expect.tool_choice)) out.push(`tool_choice is ${JSON.stringify(got)}`);
  }
  if ('last_role' in expect) {
    const last = msgs[msgs.length - 1];
    if (!last || last.role !== expect.last_role) {
      out.push(`last role is ${last && last.role}, expected ${expect.last_role}`);
    }
  }
  if ('tool_call_id' in expect &&
      !msgs.some((m) => m.role === 'tool' && m.tool_call_id === expect.tool_call_id)) {
    out.push(`no tool message answers ${expect.tool_call_id}`);
  }
  if ('message_count' in expect && msgs.length !== expect.message_count) {
    out.push(`${msgs.length} messages, expected ${expect.message_count}`);
  }
  if ('stream' in expect && (b.stream === true) !== !!expect.stream) {
    out.push(`stream is ${b.stream}`);
  }
  if (expect.mistral) out.push(...mistralViolations(body));
  if ('path_contains' in expect && !req.url.includes(expect.path_contains)) {
    out.push(`path ${req.url} lacks ${expect.path_contains}`);
  }
  for (const [k, v] of Object.entries(expect.header || {})) {
    if (req.headers[k.toLowerCase()] !== v) out.push(`header ${k} is ${req.headers[k.toLowerCase()]}`);
  }
  if ('body_contains' in expect && !raw.includes(expect.body_contains)) {
    out.push(`body lacks ${expect.body_contains}`);
  }
  if ('body_lacks' in expect && raw.includes(expect.body_lacks)) {
    out.push(`body contains ${expect.body_lacks}`);
  }
  return out;
}

function completionFromReply(reply, reqBody) {
  const calls = (reply.tool_calls || []).map((c) => ({
    id: c.id,
    type: 'function',
    function: {
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
    },
  }));
  const message = { role: 'assistant', content: reply.content ?? null };
  if (reply.parts && typeof reply.content === 'string') {
    message.content = [{ type: 'text', text: reply.content }];
  }
  if (calls.length) message.tool_calls = calls;
  const usage = reply.usage || { prompt_tokens: 10, completion_tokens: 5 };
  return {
    id: 'chatcmpl-stub',
    object: 'chat.completion',
    created: 1700000000,
    model: reply.model || (reqBody && reqBody.model) || 'stub-model',
    choices: [{
      index: 0,
      message,
      finish_reason: reply.finish_reason || (calls.length ? 'tool_calls' : 'stop'),
    }],
    usage: { ...usage, total_tokens: (usage.prompt_tokens || 0) + (usage.completion_tokens || 0) },
  };
}

// The reply as stream chunks: text in pieces, each tool call as a first
// delta (id, name, start of arguments) then argument pieces, by index.
function chunksFromReply(reply, reqBody) {
  const full = completionFromReply(reply, reqBody);
  const base = { id: full.id, object: 'chat.completion.chunk', created: full.created, model: full.model };
  const chunk = (delta, finish = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out = [chunk({ role: 'assistant', content: '' })];
  const text = typeof reply.content === 'string' ? reply.content : '';
  for (let i = 0; i < text.length; i += 7) {
    const piece = text.slice(i, i + 7);
    out.push(chunk({ content: reply.parts ? [{ type: 'text', text: piece }] : piece }));
  }
  (full.choices[0].message.tool_calls || []).forEach((c, index) => {
    const args = c.function.arguments;
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: args.slice(0, 5) } }] }));
    for (let i = 5; i < args.length; i += 5) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(i, i + 5) } }] }));
    }
  });
  out.push(chunk({}, full.choices[0].finish_reason));
  out.push({ ...base, choices: [], usage: full.usage });
  return out;
}

async function sendStream(res, step, events) {
  res.writeHead(step.status || 200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    ...(step.headers || {}),
  });
  const limit = step.cut_after ?? events.length;
  let written = Promise.resolve();
  for (let i = 0; i < events.length && i < limit; i++) {
    const e = events[i];
    written = new Promise((resolve) => res.write(typeof e === 'string' ? e : `data: ${JSON.stringify(e)}\n\n`, () => resolve()));
    if (step.chunk_delay_ms) await sleep(step.chunk_delay_ms);
  }
  if (step.cut || step.cut_after !== undefined) {
    // Once the written chunks are with the kernel (the last write's
    // callback), drop the connection mid-body: the client gets every chunk,
    // then the end of the connection, whatever the machine's load.
    await written;
    res.socket && res.socket.destroy();
    return;
  }
  if (step.done !== false) res.write('data: [DONE]\n\n');
  res.end();
}

function sendJson(res, status, headers, body) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...(headers || {}) });
  res.end(JSON.stringify(body));
}

async function answerChat(req, res, raw, body, entry) {
  const index = chatServed++;
  const step = chatSteps[index];
  if (!step) {
    entry.step = null;
    entry.failures = ['stub: no scripted step left'];
    failures.push({ seq: entry.seq, failures: entry.failures });
    logRequest(entry);
    sendJson(res, 400, {}, { error: { message: 'stub: no more scripted replies', type: 'stub_exhausted' } });
    return;
  }
  entry.step = index;
  const fails = checkExpect(step.expect, req, raw, body);
  if (mistralAll && !(step.expect && step.expect.mistral)) fails.push(...mistralViolations(body));
  entry.failures = fails;
  if (fails.length) {
    failures.push({ seq: entry.seq, step: index, failures: fails });
    process.stderr.write(`openai-stub: step ${index}: ${fails.join('; ')}\n`);
  }
  logRequest(entry);
  if (step.delay_ms) await sleep(step.delay_ms);
  if (res.destroyed || req.socket.destroyed) return;
  const status = step.status || 200;
  if (step.sse) return sendStream(res, step, step.sse);
  if (step.reply) {
    if (body && body.stream === true) return sendStream(res, step, chunksFromReply(step.reply, body));
    return sendJson(res, status, step.headers, completionFromReply(step.reply, body));
  }
  if ('text' in step) {
    res.writeHead(status, { 'Content-Type': 'text/plain', ...(step.headers || {}) });
    res.end(step.text);
    return;
  }
  if ('body' in step) return sendJson(res, status, step.headers, step.body);
  res.writeHead(status, step.headers || {});
  res.end();
}

function embedVector(text, dim) {
  const v = [];
  for (let block = 0; v.length < dim; block++) {
    const h = crypto.createHash('sha256').update(`${block}:${text}`).digest();
    for (let i = 0; i + 4 <= h.length && v.length < dim; i += 4) {
      v.push(h.readUInt32BE(i) / 2147483648 - 1);
    }
  }
  return v;
}

const EMBED_ERRORS = {
  400: { message: 'Invalid input', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
  429: { message: 'Rate limit reached', type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error', type: 'server_error', code: null },
  503: { message: 'Service unavailable', type: 'server_error', code: null },
};

async function answerEmbeddings(req, res, body, entry) {
  const index = embedServed++;
  const step = embedScript[index] || { ok: true };
  entry.step = index < embedScript.length ? index : null;
  entry.failures = [];
  logRequest(entry);
  if (step.delay_ms) await sleep(step.delay_ms);
  const delayOn = embedCfg.delay_on;
  const given = body && body.input !== undefined ? [].concat(body.input) : [];
  if (delayOn && delayOn.times !== 0 && given.some((t) => String(t).includes(delayOn.contains))) {
    if (delayOn.times > 0) delayOn.times--;
    await sleep(delayOn.delay_ms);
  }
  if (res.destroyed) return;
  if (step.status && step.status !== 200) {
    const errBody = step.body || { error: EMBED_ERRORS[step.status] || { message: 'error', type: 'error' } };
    return sendJson(res, step.status, step.headers, errBody);
  }
  if (step.malformed) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"object":"list","data":[{"embedding":[0.1,');
    return;
  }
  const inputs = body && body.input !== undefined ? (Array.isArray(body.input) ? body.input : [body.input]) : [];
  const dim = step.dim || embedDim;
  let data = inputs.map((t, i) => ({ object: 'embedding', index: i, embedding: embedVector(String(t), dim) }));
  if (step.missing) data = data.slice(0, -1);
  if (embedCfg.reverse) data.reverse();
  const tokens = inputs.reduce((n, t) => n + String(t).split(/\s+/).length, 0);
  sendJson(res, 200, step.headers, {
    object: 'list',
    model: embedCfg.model || (body && body.model) || 'stub-embed',
    data,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = null;
    }
    const path = req.url.split('?')[0];
    const kind = req.method === 'POST' && path.endsWith('/chat/completions') ? 'chat'
      : req.method === 'POST' && path.endsWith('/embeddings') ? 'embeddings' : 'other';
    const entry = { seq: ++seq, kind, method: req.method, path: req.url, headers: req.headers, body };
    if (body === null && raw) entry.raw = raw;
    if (kind === 'chat') return void answerChat(req, res, raw, body, entry).catch(onError(res));
    if (kind === 'embeddings') return void answerEmbeddings(req, res, body, entry).catch(onError(res));
    if (req.method === 'GET' && path === '/stub/state') {
      return sendJson(res, 200, {}, {
        chat_served: chatServed,
        chat_remaining: Math.max(0, chatSteps.length - chatServed),
        embed_served: embedServed,
        failures,
      });
    }
    if (req.method === 'POST' && path === '/stub/shutdown') {
      // Exit once the answer has been handed over, not after a guess.
      res.on('finish', () => process.exit(0));
      sendJson(res, 200, {}, { ok: true });
      server.close();
      return;
    }
    logRequest(entry);
    sendJson(res, 404, {}, { error: { message: `stub: no route ${req.method} ${path}`, type: 'not_found' } });
  });
});

function onError(res) {
  return (e) => {
    process.stderr.write(`openai-stub: ${e.stack || e}\n`);
    if (!res.headersSent) sendJson(res, 500, {}, { error: { message: 'stub crashed', type: 'stub_error' } });
  };
}

// Idle keep-alive connections are closed after 30 s, not 1 s: a client that
// waits out a Retry-After of 1 s and then reuses its connection would
// otherwise race the stub closing it.
server.keepAliveTimeout = 30000;
server.listen(Number(opts.port), opts.host, () => {
  process.stdout.write(`${server.address().port}\n`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
