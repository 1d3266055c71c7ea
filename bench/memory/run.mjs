// run.mjs — the memory benchmark driver (bench/memory.sh; method in
// bench/README.md, "Memory benchmark"). Talks to `dbmcp serve --http` with
// an API key, as an agent would, over keep-alive HTTP (stateless MCP
// requests, 2026-07-28).
//
//   1. retrieval: load a generated multi-session conversation (gen.mjs) and
//      its facts as knowledge, wait for every embedding, then ask the
//      paraphrased questions with memory_search in keyword mode and in
//      hybrid mode, each on its own copy of the database (recall bumps use
//      counters, so the two runs must not see each other's history):
//      recall@5, recall@10 and MRR of the message that holds the answer;
//      as-of accuracy of changed facts (get_knowledge by key, search_knowledge
//      by question, memory_search over messages as of a past time);
//   2. scale: 100k messages in one scope written by 8 concurrent clients
//      (messages/s, embedding jobs pending when the last write returns,
//      embeddings/s of the background worker), then search latency p50/p95
//      in that scope, keyword and hybrid.
//
// Usage: node run.mjs --dbmcp PATH --work DIR [--seeds 42,7,2026] [--sessions 60]
//                     [--scale 100000] [--clients 8] [--queries 200] [--out FILE]
//                     [--set memory.frequency_weight=0,…]  (experiments)
//                     [--only scale]                      (skip the retrieval part)
//                     [--peer PATH]   the scale part again with another dbmcp binary (say
//                                     the build before a change), side by side with ratios
//                     [--reuse DB [--rounds N]]  only the searches, on a copy of a database the
//                                     scale part loaded (with --peer: both builds, alternating)
//                     [--wait-graph 1]  time hybrid only once the HNSW graph answers
//
// With DBMCP_TEST_PG set (a PostgreSQL server's base URI, tests/cli/lib/db.mjs)
// the scale part runs on a fresh database on that server (--only scale).
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { generate, fillerMessages } from "./gen.mjs";
import { testDb, dropTestDb, dbSql } from "../../tests/cli/lib/db.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const BIN = args.dbmcp;
const WORK = args.work;
const SEED = args.seeds ? +String(args.seeds).split(",")[0] : 42;
const SESSIONS = +(args.sessions || 60);
const SCALE = +(args.scale ?? 100000);
const CLIENTS = +(args.clients || 8);
const QUERIES = +(args.queries || 200);
const PEER = args.peer;
if (!BIN || !WORK) {
  console.error("usage: node run.mjs --dbmcp PATH --work DIR [...]");
  process.exit(2);
}
const log = (...a) => console.error("bench-memory:", ...a);
const die = (m) => { console.error("bench-memory: FATAL:", m); process.exit(1); };

// --- server and calls ------------------------------------------------------------------

function dbmcp(...a) {
  return dbmcpWith(BIN, ...a);
}

function dbmcpWith(bin, ...a) {
  return execFileSync(bin, a, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, DBMCP_LOG: "error" } });
}

async function startServer(db, bin = BIN) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 30000);
    const child = spawn(bin, ["serve", "--db", db, "--http", `127.0.0.1:${port}`],
      { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, DBMCP_LOG: "warn" } });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      if (child.exitCode !== null) break;
      try {
        await rawPost(port, "", "{}");
        return { port, child, stderr: () => stderr };
      } catch { /* not up yet */ }
    }
    child.kill("SIGKILL");
  }
  die("the server did not start");
}

async function stopServer(s) {
  const done = new Promise((r) => s.child.on("exit", r));
  s.child.kill("SIGTERM");
  await done;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function rawPost(port, key, body, tool) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", agent,
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${key}`, "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call", "Mcp-Name": tool || "x" } }, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (data += d));
      res.on("end", () => resolve(data));
    });
    req.on("error", reject);
    req.end(body);
  });
}

let nextId = 1;
async function call(srv, key, tool, a) {
  const body = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/call",
    params: { name: tool, arguments: a, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {} } } });
  const text = await rawPost(srv.port, key, body, tool);
  let r;
  try {
    const data = text.split("\n").filter((l) => l.startsWith("data:")); // SSE or plain JSON
    r = JSON.parse(data.length ? data[data.length - 1].slice(5) : text);
  } catch { die(`${tool}: unparsable response ${text.slice(0, 200)}`); }
  if (!r.result || r.result.isError) die(`${tool}: ${JSON.stringify(r).slice(0, 300)}`);
  return r.result.structuredContent;
}

// With the server's own binary: another one would migrate the database under it.
function pendingJobs(db, bin = BIN) {
  const m = /pending jobs: (\d+)/.exec(dbmcpWith(bin, "memory", "jobs", "--db", db, "--limit", "1"));
  return m ? +m[1] : -1;
}

async function waitForEmbeddings(db, timeoutS, bin = BIN) {
  const t0 = Date.now();
  let p;
  while ((p = pendingJobs(db, bin)) > 0) {
    if ((Date.now() - t0) / 1000 > timeoutS) die(`${p} embedding jobs still pending after ${timeoutS}s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return (Date.now() - t0) / 1000;
}

// A fresh database: a file in WORK, or with DBMCP_TEST_PG set (a PostgreSQL
// server's base URI, as tests/cli/lib/db.mjs reads it) a new database on that
// server. Every write goes through `dbmcp sql`, so both engines take the same path.
function freshDb(name, user, bin = BIN) {
  const file = path.join(WORK, name);
  for (const ext of ["", "-wal", "-shm"]) fs.rmSync(file + ext, { force: true });
  const db = testDb(bin, WORK, name.replace(/\.db$/, "").replace(/[^A-Za-z0-9_-]/g, "_"));
  pgDbs.push(db);
  dbmcpWith(bin, "init", "--db", db);
  // The interface `memory` as `init --demo` creates it (the base seed has the tools only).
  dbSql(bin, db, `INSERT INTO dbmcp_interfaces (name, description) VALUES ('memory', 'memory tools')`);
  dbSql(bin, db, `INSERT INTO dbmcp_interface_tools (interface, tool) SELECT 'memory', name FROM dbmcp_tools
    WHERE handler IN ('save_message', 'get_session_history', 'save_episode', 'search_episodes',
    'save_knowledge', 'get_knowledge', 'search_knowledge', 'forget_knowledge', 'memory_search', 'link', 'memory_graph', 'echo')`);
  const key = dbmcpWith(bin, "keys", "create", "--db", db, "--interface", "memory", "--user", user).trim();
  // --set key=value,…: settings for experiments.
  for (const kv of (args.set || "").split(",").filter(Boolean)) {
    const [k, v] = kv.split("=").map((x) => x.replace(/'/g, ""));
    dbSql(bin, db, `INSERT INTO dbmcp_settings (key, value) VALUES ('${k}', '${v}') ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
  }
  return { db, key };
}
const pgDbs = [];

function copyDb(src, name) {
  const dst = path.join(WORK, name);
  for (const ext of ["", "-wal", "-shm"]) {
    fs.rmSync(dst + ext, { force: true });
    if (fs.existsSync(src + ext)) fs.copyFileSync(src + ext, dst + ext);
  }
  return dst;
}

// --- 1. retrieval ---------------------------------------------------------------------------

async function loadConversation(srv, key, ds) {
  const ids = []; // ids[s][i] = message id
  const after = []; // after[s] = ISO time after session s was written
  const statements = new Map(ds.facts.flatMap((f) => f.timeline.map((t) => [t.text, f.key])));
  for (let s = 0; s < ds.sessions.length; s++) {
    let session;
    ids.push([]);
    for (const m of ds.sessions[s]) {
      const r = await call(srv, key, "save_message", { ...m, ...(session ? { session_id: session } : {}) });
      session = r.session_id;
      ids[s].push(r.message_id);
      const fact = statements.get(m.content);
      if (fact) {
        const value = ds.facts.find((f) => f.key === fact).timeline.find((t) => t.text === m.content).value;
        await call(srv, key, "save_knowledge", { key: fact, value, category: "user_fact" });
      }
    }
    await new Promise((r) => setTimeout(r, 5)); // distinct timestamps between sessions
    after.push(new Date().toISOString());
    await new Promise((r) => setTimeout(r, 5));
  }
  return { ids, after };
}

function score(ranks) {
  const n = ranks.length;
  const at = (k) => ranks.filter((r) => r > 0 && r <= k).length / n;
  const mrr = ranks.reduce((s, r) => s + (r > 0 ? 1 / r : 0), 0) / n;
  return { n, recall5: at(5), recall10: at(10), mrr };
}

async function askAll(srv, key, ds, load, mode) {
  const ranks = [];
  for (const q of ds.questions) {
    const r = await call(srv, key, "memory_search", { query: q.q, tiers: ["message"], mode, limit: 10 });
    const want = String(load.ids[q.session][q.msg]);
    ranks.push(r.hits.findIndex((h) => h.id === want) + 1);
  }
  const asofRanks = [];
  let kvExact = 0, kvSearch = 0;
  for (const q of ds.asof) {
    const as_of = load.after[q.afterSession];
    const r = await call(srv, key, "memory_search", { query: q.q, tiers: ["message"], mode, as_of, limit: 10 });
    asofRanks.push(r.hits.findIndex((h) => h.id === String(load.ids[q.session][q.msg])) + 1);
    const g = await call(srv, key, "get_knowledge", { key: q.key, as_of });
    kvExact += g.versions.length === 1 && g.versions[0].value === q.value ? 1 : 0;
    const s = await call(srv, key, "search_knowledge", { query: q.q, as_of, limit: 1 });
    kvSearch += s.hits.length && s.hits[0].key === q.key && s.hits[0].text === `${q.key}: ${q.value}` ? 1 : 0;
  }
  return { ranks, asofRanks, kvExact, kvSearch, asofN: ds.asof.length };
}

// Micro-average over every question of every seed.
function summarise(runs) {
  const all = (k) => runs.flatMap((r) => r[k]);
  const n = runs.reduce((a, r) => a + r.asofN, 0);
  return { questions: score(all("ranks")), asofMessages: score(all("asofRanks")),
    asofGetKnowledge: runs.reduce((a, r) => a + r.kvExact, 0) / n,
    asofSearchKnowledge: runs.reduce((a, r) => a + r.kvSearch, 0) / n };
}

async function retrievalSeed(seed) {
  const ds = generate({ seed, sessions: SESSIONS });
  const { db, key } = freshDb("retrieval.db", "bench");
  let srv = await startServer(db);
  const t0 = Date.now();
  const load = await loadConversation(srv, key, ds);
  const loadS = (Date.now() - t0) / 1000;
  const embedWait = await waitForEmbeddings(db, 300);
  await stopServer(srv);
  const runs = {};
  for (const mode of ["keyword", "hybrid"]) {
    srv = await startServer(copyDb(db, `retrieval-${mode}.db`));
    runs[mode] = await askAll(srv, key, ds, load, mode);
    await stopServer(srv);
  }
  const messages = ds.sessions.reduce((n, s) => n + s.length, 0);
  return { seed, sessions: ds.sessions.length, messages, facts: ds.facts.length,
    changed: ds.facts.filter((f) => f.timeline.length > 1).length, questions: ds.questions.length,
    asof: ds.asof.length, loadS, embedWaitS: embedWait, runs };
}

async function retrieval() {
  const seeds = String(args.seeds || SEED).split(",").map(Number);
  const per = [];
  for (const seed of seeds) {
    log(`retrieval, seed ${seed}`);
    per.push(await retrievalSeed(seed));
  }
  const sum = (k) => per.reduce((a, p) => a + p[k], 0);
  const results = {};
  for (const mode of ["keyword", "hybrid"]) results[mode] = summarise(per.map((p) => p.runs[mode]));
  const perSeed = per.map((p) => ({ seed: p.seed, messages: p.messages, questions: p.questions,
    keyword: summarise([p.runs.keyword]).questions, hybrid: summarise([p.runs.hybrid]).questions }));
  return { dataset: { seeds, sessions: sum("sessions"), messages: sum("messages"), facts: sum("facts"),
    changed: sum("changed"), questions: sum("questions"), asof: sum("asof") },
    loadS: sum("loadS"), embedWaitS: sum("embedWaitS"), results, perSeed };
}

// --- 2. scale ---------------------------------------------------------------------------------

function pct(a, p) {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

// CPU time (user + system, ms) the server process has used so far: on a
// shared machine the wall-clock figures move with the other load, the CPU
// each call costs much less.
function cpuMs(srv) {
  const f = fs.readFileSync(`/proc/${srv.child.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (+f[11] + +f[12]) * 10; // utime, stime in clock ticks of 10 ms
}

// The floor of a call through the same path: dbmcp's built-in echo (no SQL),
// CLIENTS in flight (calls/s) and one after the other (p50 ms).
async function echoFloor(srv, key) {
  const n = Math.min(SCALE, 20000);
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next++ < n) await call(srv, key, "echo", { text: "x" });
  }));
  const perS = n / (Number(process.hrtime.bigint() - t0) / 1e9);
  const t = [];
  for (let i = 0; i < QUERIES; i++) {
    const s = process.hrtime.bigint();
    await call(srv, key, "echo", { text: "x" });
    t.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  return { callsPerS: perS, p50: pct(t, 50) };
}

// Search latency on a loaded database: the first call of each mode right
// after the server started (cold: nothing cached, the vector index not yet
// in memory) apart, then QUERIES calls per mode one after the other.
async function searchLatency(srv, key) {
  const ds = generate({ seed: SEED, sessions: SESSIONS });
  const qs = Array.from({ length: QUERIES }, (_, i) => ds.questions[i % ds.questions.length].q);
  const lat = {};
  for (const mode of ["keyword", "hybrid"]) {
    const first = process.hrtime.bigint();
    await call(srv, key, "memory_search", { query: qs[0], tiers: ["message"], mode, limit: 10 });
    const coldMs = Number(process.hrtime.bigint() - first) / 1e6;
    // --wait-graph: the timed hybrid calls start once the HNSW graph answers
    // (its build runs in the background after the first vector search).
    let graphS;
    if (mode === "hybrid" && args["wait-graph"]) {
      const g0 = Date.now();
      while (!(await call(srv, key, "memory_search", { query: qs[0], tiers: ["message"], mode, limit: 10 })).approximate) {
        if (Date.now() - g0 > 3600e3) die("the graph did not answer within an hour");
        await new Promise((r) => setTimeout(r, 5000));
      }
      graphS = (Date.now() - g0) / 1000;
      log(`graph answered ${graphS.toFixed(0)} s after the first hybrid call`);
    }
    const t = [];
    let approximate = 0;
    const c0 = cpuMs(srv);
    for (const q of qs) {
      const s = process.hrtime.bigint();
      const r = await call(srv, key, "memory_search", { query: q, tiers: ["message"], mode, limit: 10 });
      t.push(Number(process.hrtime.bigint() - s) / 1e6);
      if (r.approximate) approximate++;
    }
    lat[mode] = { coldMs, p50: pct(t, 50), p95: pct(t, 95), n: t.length,
      cpuMs: (cpuMs(srv) - c0) / t.length, approximate, graphS };
  }
  return lat;
}

// --reuse DB: the searches alone on a database the scale part loaded before
// (a copy of it, so the use counters of one run do not reach the next),
// with this build and with --peer, each server started fresh; the first
// call of each mode is the call right after the start.
async function reuse(bin, src, name) {
  const db = copyDb(src, name);
  const key = dbmcpWith(bin, "keys", "create", "--db", db, "--interface", "memory", "--user", "scale").trim();
  for (const kv of (args.set || "").split(",").filter(Boolean)) {
    const [k, v] = kv.split("=");
    execFileSync("sqlite3", [db, `INSERT OR REPLACE INTO dbmcp_settings (key, value) VALUES ('${k.replace(/'/g, "")}', '${v.replace(/'/g, "")}')`]);
  }
  const srv = await startServer(db, bin);
  const lat = await searchLatency(srv, key);
  const floor = await echoFloor(srv, key);
  await stopServer(srv);
  return { latencyMs: lat, floor };
}

async function scale(bin = BIN, name = "scale.db") {
  const { db, key } = freshDb(name, "scale", bin);
  const srv = await startServer(db, bin);
  const msgs = fillerMessages(SEED, SCALE);
  const perSession = 50;
  let next = 0;
  const t0 = process.hrtime.bigint();
  const cpu0 = cpuMs(srv);
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    let session, count = 0;
    while (next < msgs.length) {
      const m = msgs[next++];
      if (count++ % perSession === 0) session = undefined;
      const r = await call(srv, key, "save_message", { ...m, ...(session ? { session_id: session } : {}) });
      session = r.session_id;
    }
  }));
  const writeS = Number(process.hrtime.bigint() - t0) / 1e9;
  const writeCpuUs = ((cpuMs(srv) - cpu0) * 1000) / SCALE; // the embedding worker's included
  const pendingAtEnd = pendingJobs(db, bin);
  const embedS = await waitForEmbeddings(db, 1800, bin);
  // The worker publishes new vectors at most every memory.vector_refresh_s (10 s):
  // wait for the last publication so no index rebuild falls into the timed searches.
  await new Promise((r) => setTimeout(r, 11000));
  const embedded = SCALE; // every message is a distinct item, embedded by now
  const lat = await searchLatency(srv, key);
  const floor = await echoFloor(srv, key);
  await stopServer(srv);
  return { messages: SCALE, clients: CLIENTS, writeS, writesPerS: SCALE / writeS, writeCpuUs, pendingAtEnd,
    embedAfterWritesS: embedS, embedded, latencyMs: lat, floor };
}

// --- main -------------------------------------------------------------------------------------

const out = { when: new Date().toISOString(), engine: process.env.DBMCP_TEST_PG ? "postgres" : "sqlite" };
if (process.env.DBMCP_TEST_PG && args.only !== "scale") die("on PostgreSQL only --only scale runs (the retrieval part copies SQLite files)");
if (args.reuse) {
  // Searches only, on a loaded database; the peer first when there is one.
  const runs = [];
  for (let round = 0; round < +(args.rounds || 1); round++) {
    if (PEER) runs.push(["peer", await reuse(PEER, args.reuse, "reuse-peer.db")]);
    runs.push(["dbmcp", await reuse(BIN, args.reuse, "reuse.db")]);
  }
  out.reuse = runs;
  if (args["fts5-peer"]) {
    // Stock FTS5 BM25 over the same messages, timed inside its own process (fts5_peer.c).
    const ds = generate({ seed: SEED, sessions: SESSIONS });
    const qs = Array.from({ length: QUERIES }, (_, i) => ds.questions[i % ds.questions.length].q);
    out.fts5 = JSON.parse(execFileSync(args["fts5-peer"], [args.reuse], { input: qs.join("\n") + "\n", encoding: "utf8" }));
  }
  console.log(`\nmemory_search on ${args.reuse}: ${QUERIES} queries per mode; first = first call after the server started`);
  console.log("| build | mode | first call (ms) | p50 (ms) | p95 (ms) | server CPU per call (ms) | floor: echo p50 (ms) |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const [who, r] of runs)
    for (const m of ["keyword", "hybrid"])
      console.log(`| ${who} | ${m}${r.latencyMs[m].approximate ? ` (graph: ${r.latencyMs[m].approximate}/${r.latencyMs[m].n})` : ""} | ${r.latencyMs[m].coldMs.toFixed(1)} | ${r.latencyMs[m].p50.toFixed(2)} | ${r.latencyMs[m].p95.toFixed(2)} | ${r.latencyMs[m].cpuMs.toFixed(2)} | ${r.floor.p50.toFixed(2)} |`);
  if (out.fts5)
    console.log(`| stock FTS5 bm25() ORDER BY rank LIMIT 10, in process (${out.fts5.rows} rows) | keyword | | ${(out.fts5.p50_us / 1000).toFixed(2)} | ${(out.fts5.p95_us / 1000).toFixed(2)} | | |`);
  if (args.out) fs.writeFileSync(args.out, JSON.stringify(out, null, 2));
  agent.destroy();
  process.exit(0);
}
if (args.only !== "scale") out.retrieval = await retrieval();
const f = (x) => x.toFixed(3);
const R = out.retrieval;
if (R) {
console.log(`\nMemory retrieval — seeds ${R.dataset.seeds.join(", ")}: ${R.dataset.sessions} sessions, ${R.dataset.messages} messages, ${R.dataset.facts} facts (${R.dataset.changed} change), ${R.dataset.questions} questions, ${R.dataset.asof} as-of questions`);
console.log("| metric | keyword-only | hybrid |\n| --- | ---: | ---: |");
for (const [name, get] of [
  ["recall@5 (answer message)", (r) => f(r.questions.recall5)],
  ["recall@10", (r) => f(r.questions.recall10)],
  ["MRR", (r) => f(r.questions.mrr)],
  ["as-of recall@5 (messages, changed facts)", (r) => f(r.asofMessages.recall5)],
  ["as-of MRR (messages)", (r) => f(r.asofMessages.mrr)],
  ["as-of accuracy, search_knowledge top 1", (r) => f(r.asofSearchKnowledge)],
  ["as-of accuracy, get_knowledge by key", (r) => f(r.asofGetKnowledge)],
]) console.log(`| ${name} | ${get(R.results.keyword)} | ${get(R.results.hybrid)} |`);
for (const p of R.perSeed)
  console.log(`seed ${p.seed}: recall@5 ${f(p.keyword.recall5)} → ${f(p.hybrid.recall5)}, recall@10 ${f(p.keyword.recall10)} → ${f(p.hybrid.recall10)}, MRR ${f(p.keyword.mrr)} → ${f(p.hybrid.mrr)} (keyword → hybrid, ${p.questions} questions)`);
console.log(`load: ${R.loadS.toFixed(1)} s for ${R.dataset.messages} messages + facts; embeddings done ${R.embedWaitS.toFixed(1)} s after the last write`);
}
if (SCALE > 0 && PEER) {
  // The peer first, then this build, each on a fresh database; one table.
  out.peerScale = await scale(PEER, "scale-peer.db");
  out.scale = await scale(BIN, "scale.db");
  const P = out.peerScale, S = out.scale;
  const r = (better) => `${better.toFixed(2)}×`;
  console.log(`\nMemory at scale — ${S.messages} messages in one scope, ${S.clients} concurrent HTTP clients; peer ${PEER}`);
  console.log("| metric | peer | dbmcp | dbmcp better | floor (echo, same path) |\n| --- | ---: | ---: | ---: | ---: |");
  console.log(`| save_message, messages/s | ${P.writesPerS.toFixed(0)} | ${S.writesPerS.toFixed(0)} | ${r(S.writesPerS / P.writesPerS)} | ${S.floor.callsPerS.toFixed(0)} calls/s |`);
  for (const m of ["keyword", "hybrid"])
    console.log(`| memory_search ${m}, p50 / p95 (ms) | ${P.latencyMs[m].p50.toFixed(1)} / ${P.latencyMs[m].p95.toFixed(1)} | ${S.latencyMs[m].p50.toFixed(1)} / ${S.latencyMs[m].p95.toFixed(1)} | ${r(P.latencyMs[m].p50 / S.latencyMs[m].p50)} | ${S.floor.p50.toFixed(2)} ms |`);
  console.log(`| save_message, server CPU per message (µs, embedding included) | ${P.writeCpuUs.toFixed(0)} | ${S.writeCpuUs.toFixed(0)} | ${r(P.writeCpuUs / S.writeCpuUs)} | |`);
  for (const m of ["keyword", "hybrid"])
    console.log(`| memory_search ${m}, server CPU per call (ms) | ${P.latencyMs[m].cpuMs.toFixed(2)} | ${S.latencyMs[m].cpuMs.toFixed(2)} | ${r(P.latencyMs[m].cpuMs / S.latencyMs[m].cpuMs)} | |`);
  console.log(`| embedding jobs pending when the last write returned | ${P.pendingAtEnd} | ${S.pendingAtEnd} | | |`);
} else if (SCALE > 0) {
  out.scale = await scale();
  const S = out.scale;
  console.log(`\nMemory at scale — ${S.messages} messages in one scope, ${S.clients} concurrent HTTP clients`);
  console.log(`| metric | value |\n| --- | ---: |`);
  console.log(`| writes (save_message) | ${S.writesPerS.toFixed(0)} messages/s (${S.writeS.toFixed(1)} s) |`);
  console.log(`| embedding jobs pending when the last write returned | ${S.pendingAtEnd} |`);
  console.log(`| backlog drained after the last write | ${S.embedAfterWritesS.toFixed(1)} s (the worker embeds while the writes go on) |`);
  for (const m of ["keyword", "hybrid"])
    console.log(`| memory_search ${m}: p50 / p95 (first query) | ${S.latencyMs[m].p50.toFixed(1)} / ${S.latencyMs[m].p95.toFixed(1)} ms (${S.latencyMs[m].coldMs.toFixed(0)} ms) |`);
  console.log(`| server CPU per message (embedding included) / per search keyword, hybrid | ${S.writeCpuUs.toFixed(0)} µs / ${S.latencyMs.keyword.cpuMs.toFixed(2)}, ${S.latencyMs.hybrid.cpuMs.toFixed(2)} ms |`);
  console.log(`| floor: echo through the same path, ${S.clients} clients / one at a time | ${S.floor.callsPerS.toFixed(0)} calls/s / p50 ${S.floor.p50.toFixed(2)} ms |`);
}
if (args.out) fs.writeFileSync(args.out, JSON.stringify(out, null, 2));
for (const db of pgDbs) dropTestDb(BIN, db);
agent.destroy();
