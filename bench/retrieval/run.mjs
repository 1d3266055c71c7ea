// run.mjs — retrieval quality of dbmcp on real public data, beside stock
// SQLite FTS5 BM25 computed in the same run (bench/retrieval/run.sh; method
// and figures in bench/README.md, "Retrieval benchmark").
//
// Data sets (extracted by bench/retrieval/extract.sh into --data):
//   xquad-en, xquad-de, xquad-zh  XQuAD: one document per paragraph, every
//                                 question's gold is its paragraph
//   jsquad                        JSQuAD (Japanese): a fixed subset, the first
//                                 5 paragraphs of every article (246 paragraphs)
//   locomo                        LoCoMo: one memory per conversation, every turn
//                                 saved with save_message; gold = evidence turns
// Every set is split in two halves that share nothing: XQuAD and JSQuAD by
// article (even positions in the file: tune, odd: report), LoCoMo by
// conversation (files 1–5 in name order: tune, 6–10: report). Each half is its
// own corpus; defaults are chosen on `tune` only and `report` is what
// bench/README.md reports.
//
// dbmcp is driven through its real paths: `dbmcp init`, `dbmcp ingest` (one
// run per paragraph, --max-tokens 4096 so a paragraph is one chunk, like the
// baseline's rows), the search_documents and save_message / memory_search
// tools over `dbmcp serve` (stdio MCP), `dbmcp memory jobs --run` to embed.
// Modes: default (no mode argument), keyword, vector. The baseline is SQLite's
// FTS5 through the sqlite3 shell: one row per paragraph (LoCoMo: per distinct
// turn), bm25 ranking, every query word OR-ed (any term); tokenizer
// `porter unicode61` for English, `unicode61` for German (FTS5 has no German
// stemmer), and for Chinese and Japanese `unicode61` over character bigrams
// made here (NFKC, overlapping bigrams of Han/kana runs).
//
// Metrics per half: recall@1, recall@10 (share of the question's gold items
// found; XQuAD/JSQuAD have one), MRR over the first 10, hits returned per
// question, and hits returned for off-corpus questions (the other half's
// questions, whose answers are not in this corpus: what is returned there is
// padding). LoCoMo evidence turns with identical text count as one item (dbmcp
// stores a text once per memory). Also the milliseconds per search, from
// request to response over stdio (median and 90th percentile per mode).
//
// Usage: node run.mjs --dbmcp BIN --data DIR --work DIR [--sets a,b] [--half tune|report|both]
//                     [--modes default,keyword,vector] [--set key=value,…] [--args JSON]
//                     [--off N] [--limit N] [--out FILE] [--reuse] [--floors 0,0.1,…]
//   --set    settings rows written into every database (experiments, tuning)
//   --args   extra arguments for every search call, e.g. '{"min_relevance":0}'
//   --limit  questions per set and half (quick runs); --off off-corpus questions (200)
//   --reuse  keep each loaded database in WORK and start later runs from a copy
//            (tuning sweeps: settings only matter at search time; a newer dbmcp
//            migrates the copy, so two versions can be timed on the same data)
//   --floors also print each mode's figures with its hits cut at these relevance
//            floors (the returned hits filtered by scores.relevance; run with
//            --args '{"min_relevance":0}' so nothing is cut before)
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (!a.startsWith("--")) continue;
  args[a.slice(2)] = process.argv[i + 1] && !process.argv[i + 1].startsWith("--") ? process.argv[++i] : "1";
}
const BIN = args.dbmcp, DATA = args.data, WORK = args.work;
if (!BIN || !DATA || !WORK) {
  console.error("usage: node run.mjs --dbmcp BIN --data DIR --work DIR [--sets …] [--half …]");
  process.exit(2);
}
const SETS = (args.sets || "xquad-en,xquad-de,xquad-zh,jsquad,locomo").split(",");
const HALVES = args.half === "tune" ? ["tune"] : args.half === "report" ? ["report"] : ["tune", "report"];
const MODES = (args.modes || "default,keyword,vector").split(",");
const EXTRA = args.args ? JSON.parse(args.args) : {};
const OFF = +(args.off ?? 200);
const REUSE = !!args.reuse;
const FLOORS = args.floors ? args.floors.split(",").map(Number) : [];
const LIMIT = args.limit ? +args.limit : Infinity;
const K = 10;
const log = (...a) => console.error("bench-retrieval:", ...a);
const die = (m) => { console.error("bench-retrieval: FATAL:", m); process.exit(1); };

// --- data ------------------------------------------------------------------------------------

function readJson(p) {
  return JSON.parse(fs.readFileSync(p, "utf8"));
}

// SQuAD-format articles → {docs: [{id, text}], questions: [{q, gold: [id]}]} per half.
function squadHalves(articles, perArticle, clean) {
  const halves = { tune: { docs: [], questions: [] }, report: { docs: [], questions: [] } };
  articles.forEach((a, i) => {
    const h = halves[i % 2 === 0 ? "tune" : "report"];
    for (const p of a.paragraphs.slice(0, perArticle)) {
      const id = `p${String(h.docs.length + 1).padStart(4, "0")}`;
      h.docs.push({ id, text: clean(p.context) });
      for (const q of p.qas) h.questions.push({ q: q.question, gold: [id] });
    }
  });
  return halves;
}

function loadSet(name) {
  if (name.startsWith("xquad-")) {
    const lang = name.slice(6);
    const f = path.join(DATA, "xquad", `xquad.${lang}.json`);
    if (!fs.existsSync(f)) return { skip: `${f} is missing` };
    return { kind: "docs", lang, halves: squadHalves(readJson(f).data, Infinity, (t) => t) };
  }
  if (name === "jsquad") {
    const f = path.join(DATA, "jsquad", "valid-v1.3.json");
    if (!fs.existsSync(f)) return { skip: `${f} is missing` };
    // Contexts start with "TITLE [SEP] ": the paragraph is what follows.
    return { kind: "docs", lang: "ja", halves: squadHalves(readJson(f).data, 5, (t) => t.replace(/^.*? \[SEP\] /, "")) };
  }
  if (name === "locomo") {
    const dir = path.join(DATA, "locomo");
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort() : [];
    if (files.length < 10) return { skip: `${dir} does not hold the 10 LoCoMo conversations` };
    const convs = files.map((f) => ({ name: f.replace(/\.json$/, ""), ...readJson(path.join(dir, f)) }));
    return { kind: "memory", lang: "en", halves: { tune: convs.slice(0, 5), report: convs.slice(5, 10) } };
  }
  return { skip: `unknown set ${name}` };
}

// --- dbmcp ------------------------------------------------------------------------------------

function dbmcp(...a) {
  return execFileSync(BIN, a, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, DBMCP_LOG: "error" } });
}

function sqlite(db, sql) {
  return execFileSync("sqlite3", [db], { input: sql, encoding: "utf8", maxBuffer: 1 << 28 });
}

const sq = (s) => `'${String(s).replace(/'/g, "''")}'`;

function copyDb(src, dst) {
  for (const ext of ["", "-wal", "-shm"]) {
    fs.rmSync(dst + ext, { force: true });
    if (fs.existsSync(src + ext)) fs.copyFileSync(src + ext, dst + ext);
  }
}

// A database for one corpus: `dbmcp init`, an interface with these tools,
// then load(db) fills it; with --reuse a copy of the one filled by an
// earlier run. The --set settings go into the copy that is searched.
async function prepareDb(name, iface, tools, load) {
  const db = path.join(WORK, `${name}.db`), base = path.join(WORK, `${name}.base.db`);
  if (REUSE && fs.existsSync(base)) {
    copyDb(base, db);
    dbmcp("init", "--db", db); // a newer dbmcp migrates the copy (timing runs across versions)
  } else {
    for (const ext of ["", "-wal", "-shm"]) fs.rmSync(db + ext, { force: true });
    dbmcp("init", "--db", db);
    let sql = `INSERT INTO dbmcp_interfaces (name, description) VALUES (${sq(iface)}, 'retrieval benchmark');\n`;
    for (const t of tools) sql += `INSERT INTO dbmcp_interface_tools (interface, tool) VALUES (${sq(iface)}, ${sq(t)});\n`;
    sqlite(db, sql);
    await load(db);
    if (REUSE) copyDb(db, base);
  }
  let sql = "";
  for (const kv of (args.set || "").split(",").filter(Boolean)) {
    const i = kv.indexOf("=");
    sql += `INSERT OR REPLACE INTO dbmcp_settings (key, value) VALUES (${sq(kv.slice(0, i))}, ${sq(kv.slice(i + 1))});\n`;
  }
  if (sql) sqlite(db, sql);
  return db;
}

// One `dbmcp serve` over stdio: newline-delimited JSON-RPC, calls one at a time.
class Server {
  constructor(db, iface, principal) {
    const a = ["serve", "--db", db, "--interface", iface];
    if (principal) a.push("--principal", principal);
    this.child = spawn(BIN, a, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, DBMCP_LOG: "warn" } });
    this.stderr = "";
    this.child.stderr.on("data", (d) => (this.stderr = (this.stderr + d).slice(-4000)));
    this.pending = new Map();
    this.nextId = 1;
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => {
      let m;
      try { m = JSON.parse(line); } catch { return; }
      const p = this.pending.get(m.id);
      if (p) { this.pending.delete(m.id); p(m); }
    });
    this.child.on("exit", (code) => {
      for (const p of this.pending.values()) p({ error: { message: `server exited (${code}): ${this.stderr}` } });
      this.pending.clear();
    });
  }
  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }
  async start() {
    const r = await this.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-retrieval", version: "1" } });
    if (!r.result) die(`initialize: ${JSON.stringify(r).slice(0, 300)}`);
    this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    return this;
  }
  async call(tool, a) {
    const r = await this.request("tools/call", { name: tool, arguments: a });
    if (!r.result || r.result.isError) die(`${tool} ${JSON.stringify(a).slice(0, 200)}: ${JSON.stringify(r).slice(0, 400)}`);
    return r.result.structuredContent;
  }
  async stop() {
    const done = new Promise((r) => this.child.on("exit", r));
    this.child.stdin.end();
    await done;
  }
}

// --- the FTS5 baseline --------------------------------------------------------------------

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC\u3005]/u;

// Words, or for zh/ja overlapping bigrams of Han/kana runs (a lone character
// stays a unigram) and words of other scripts.
function baselineTokens(text, lang) {
  const t = text.normalize("NFKC").toLowerCase();
  if (lang !== "zh" && lang !== "ja") return t.match(/[\p{L}\p{M}\p{N}]+/gu) || [];
  const out = [];
  for (const run of t.match(/[\p{L}\p{M}\p{N}\u30FC\u3005]+/gu) || []) {
    let cjk = "";
    const flush = () => {
      const c = [...cjk];
      if (c.length === 1) out.push(c[0]);
      for (let i = 0; i + 1 < c.length; i++) out.push(c[i] + c[i + 1]);
      cjk = "";
    };
    let word = "";
    for (const ch of run) {
      if (CJK.test(ch)) {
        if (word) { out.push(word); word = ""; }
        cjk += ch;
      } else {
        if (cjk) flush();
        word += ch;
      }
    }
    if (cjk) flush();
    if (word) out.push(word);
  }
  return out;
}

// rows: [{rowid, text}], queries: [text] → for every query the rowids of the best K, best first.
function baselineRank(rows, queries, lang, k) {
  const bigrams = lang === "zh" || lang === "ja";
  const tokenizer = lang === "en" ? "porter unicode61" : "unicode61";
  const body = (t) => (bigrams ? baselineTokens(t, lang).join(" ") : t);
  let sql = `CREATE VIRTUAL TABLE t USING fts5(body, tokenize = ${sq(tokenizer)});\nBEGIN;\n`;
  for (const r of rows) sql += `INSERT INTO t (rowid, body) VALUES (${r.rowid}, ${sq(body(r.text))});\n`;
  sql += "COMMIT;\n";
  queries.forEach((q, i) => {
    const terms = [...new Set(baselineTokens(q, lang))].map((w) => `"${w.replace(/"/g, '""')}"`);
    if (terms.length)
      sql += `SELECT ${i}, rowid FROM t WHERE t MATCH ${sq(terms.join(" OR "))} ORDER BY rank LIMIT ${k};\n`;
  });
  const ranked = queries.map(() => []);
  for (const line of sqlite(":memory:", sql).split("\n")) {
    const [qi, rowid] = line.split("|");
    if (rowid !== undefined) ranked[+qi].push(+rowid);
  }
  return ranked;
}

// --- metrics ------------------------------------------------------------------------------

// A search's answer: items best first, each {id, rel} (rel: the hit's
// scores.relevance; 1 for the baseline and for builds without it).
// gold: a Set of ids. The first occurrence of an id counts.
function dedupe(items) {
  const seen = new Set();
  return items.filter((x) => !seen.has(x.id) && seen.add(x.id));
}

function judge(items, gold, floor = 0) {
  const top = dedupe(items).filter((x) => x.rel >= floor).slice(0, K).map((x) => x.id);
  const first = top.findIndex((x) => gold.has(x));
  const found = (n) => new Set(top.slice(0, n).filter((x) => gold.has(x))).size / gold.size;
  return { r1: found(1), r10: found(K), rr: first < 0 ? 0 : 1 / (first + 1), hits: top.length };
}

// asked: [{items, gold}], off: [items] → the figures at one floor.
function summary(asked, off, floor = 0) {
  const js = asked.map((a) => judge(a.items, a.gold, floor));
  const n = js.length || 1;
  const mean = (f) => js.reduce((a, j) => a + f(j), 0) / n;
  const offHits = off.map((items) => dedupe(items).filter((x) => x.rel >= floor).slice(0, K).length);
  return { n: js.length, r1: mean((j) => j.r1), r10: mean((j) => j.r10), mrr: mean((j) => j.rr),
    hits: mean((j) => j.hits), off: offHits.length ? offHits.reduce((a, b) => a + b, 0) / offHits.length : null };
}

const relOf = (scores) => (scores && typeof scores.relevance === "number" ? scores.relevance : 1);

// One search, its wall time from request to response (ms) pushed to ms.
async function timed(srv, tool, a, ms) {
  const t0 = process.hrtime.bigint();
  const r = await srv.call(tool, a);
  ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  return r;
}

// Median and 90th percentile of a list of milliseconds.
function latency(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : null);
  return { median: at(0.5), p90: at(0.9), n: s.length };
}

// --- documents: XQuAD, JSQuAD ---------------------------------------------------------------

const modeArgs = (mode) => (mode === "default" ? {} : { mode });

async function runDocs(name, set, half, offQuestions) {
  const { docs, questions: allQ } = set.halves[half];
  const questions = allQ.slice(0, LIMIT);
  const db = await prepareDb(`${name}-${half}`, "eval", ["search_documents"], async (db) => {
    const dir = path.join(WORK, `${name}-${half}`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    log(`${name} ${half}: ingesting ${docs.length} paragraphs`);
    for (const d of docs) {
      const f = path.join(dir, `${d.id}.txt`);
      fs.writeFileSync(f, d.text + "\n");
      // A title without words: the default (the first line, i.e. the paragraph)
      // would index the paragraph's first 300 bytes a second time.
      dbmcp("ingest", f, "--db", db, "--collection", "eval", "--interface", "eval", "--lang", set.lang,
        "--max-tokens", "4096", "--title", "¶");
    }
  });
  const docOf = (uri) => uri.slice(uri.lastIndexOf("/") + 1);
  const srv = await new Server(db, "eval").start();
  const raw = {};
  const items = (r) => r.results.map((x) => ({ id: docOf(x.document), rel: relOf(x.scores) }));
  for (const mode of MODES) {
    const asked = [], off = [], ms = [];
    for (const q of questions) {
      const r = await timed(srv, "search_documents", { query: q.q, k: K, ...modeArgs(mode), ...EXTRA }, ms);
      asked.push({ items: items(r), gold: new Set(q.gold) });
    }
    for (const q of offQuestions) {
      const r = await timed(srv, "search_documents", { query: q.q, k: K, ...modeArgs(mode), ...EXTRA }, ms);
      off.push(items(r));
    }
    raw[mode] = { asked, off, ms };
  }
  await srv.stop();
  const rows = docs.map((d, i) => ({ rowid: i + 1, text: d.text }));
  const asIds = (ranked) => ranked.map((r) => ({ id: docs[r - 1].id, rel: 1 }));
  const ranked = baselineRank(rows, questions.map((q) => q.q), set.lang, K);
  const offRanked = baselineRank(rows, offQuestions.map((q) => q.q), set.lang, K);
  raw.bm25 = { asked: questions.map((q, i) => ({ items: asIds(ranked[i]), gold: new Set(q.gold) })),
    off: offRanked.map(asIds) };
  return { docs: docs.length, questions: questions.length, offQuestions: offQuestions.length, raw };
}

// --- memory: LoCoMo ----------------------------------------------------------------------------

const MEMORY_TOOLS = ["save_message", "memory_search"];

function turns(conv) {
  const out = [];
  for (let s = 1; Array.isArray(conv[`session_${s}`]); s++)
    conv[`session_${s}`].forEach((t, i) => out.push({ session: s, first: i === 0, speaker: t.speaker, dia: t.dia_id,
      text: `${t.speaker}: ${t.text}${t.blip_caption ? ` [shared ${t.blip_caption}]` : ""}` }));
  return out;
}

// Questions with evidence; evidence ids that name no turn (a few are
// malformed in the data, e.g. "D:11:26") are dropped, and so are questions
// left without any.
function locomoQuestions(conv) {
  const dias = new Set(turns(conv).map((t) => t.dia));
  return conv.qa.map((q) => ({ q: q.question, evidence: (q.evidence || []).filter((e) => dias.has(e)) }))
    .filter((q) => q.evidence.length);
}

async function runConversation(conv, offQuestions) {
  const ts = turns(conv);
  const textOfDia = new Map(ts.map((t) => [t.dia, t.text]));
  const principal = `locomo-${conv.name}`;
  const db = await prepareDb(`locomo-${conv.name}`, "memory", MEMORY_TOOLS, async (db) => {
    const srv = await new Server(db, "memory", principal).start();
    let session;
    for (const t of ts) {
      const a = { role: t.speaker === conv.speaker_a ? "user" : "assistant", content: t.text };
      if (!t.first) a.session_id = session;
      const r = await srv.call("save_message", a);
      session = r.session_id;
    }
    await srv.stop();
    dbmcp("memory", "jobs", "--run", "--db", db);
  });
  const questions = locomoQuestions(conv).slice(0, LIMIT);
  const srv = await new Server(db, "memory", principal).start();
  const raw = {};
  // A hit is the text of a message (one item per distinct text).
  const items = (r) => r.hits.map((h) => ({ id: h.text, rel: relOf(h.scores) }));
  const gold = (q) => new Set(q.evidence.map((e) => textOfDia.get(e)));
  for (const mode of MODES) {
    const asked = [], off = [], ms = [];
    for (const q of questions) {
      const r = await timed(srv, "memory_search", { query: q.q, tiers: ["message"], limit: K, ...modeArgs(mode), ...EXTRA }, ms);
      asked.push({ items: items(r), gold: gold(q) });
    }
    for (const q of offQuestions) {
      const r = await timed(srv, "memory_search", { query: q.q, tiers: ["message"], limit: K, ...modeArgs(mode), ...EXTRA }, ms);
      off.push(items(r));
    }
    raw[mode] = { asked, off, ms };
  }
  await srv.stop();
  const distinct = [...new Set(ts.map((t) => t.text))];
  const rows = distinct.map((t, i) => ({ rowid: i + 1, text: t }));
  const asTexts = (ranked) => ranked.map((r) => ({ id: distinct[r - 1], rel: 1 }));
  const ranked = baselineRank(rows, questions.map((q) => q.q), "en", K);
  const offRanked = baselineRank(rows, offQuestions.map((q) => q.q), "en", K);
  raw.bm25 = { asked: questions.map((q, i) => ({ items: asTexts(ranked[i]), gold: gold(q) })), off: offRanked.map(asTexts) };
  return { turns: ts.length, questions: questions.length, raw };
}

async function runMemory(set, half) {
  const other = half === "tune" ? "report" : "tune";
  const convs = set.halves[half];
  // Off-corpus: questions of the other half's conversations (other people).
  const offPool = set.halves[other].flatMap(locomoQuestions);
  const offPer = Math.floor(Math.min(OFF, offPool.length) / convs.length);
  const raw = {};
  let turnsN = 0, qN = 0;
  for (const [ci, conv] of convs.entries()) {
    log(`locomo ${half}: conversation ${conv.name}`);
    const r = await runConversation(conv, offPool.slice(ci * offPer, (ci + 1) * offPer));
    turnsN += r.turns;
    qN += r.questions;
    for (const [m, v] of Object.entries(r.raw)) {
      raw[m] ??= { asked: [], off: [], ms: [] };
      raw[m].asked.push(...v.asked);
      raw[m].off.push(...v.off);
      raw[m].ms.push(...(v.ms || []));
    }
  }
  return { conversations: convs.map((c) => c.name), turns: turnsN, questions: qN, offQuestions: offPer * convs.length, raw };
}

// --- main ---------------------------------------------------------------------------------------

fs.mkdirSync(WORK, { recursive: true });
const out = { when: new Date().toISOString(), dbmcp: BIN, settings: args.set || "", extra: EXTRA, sets: {} };
const f3 = (x) => (x == null ? "—" : x.toFixed(3));
const f1 = (x) => (x == null ? "—" : x.toFixed(1));
for (const name of SETS) {
  const set = loadSet(name);
  if (set.skip) {
    log(`${name}: skipped (${set.skip}; run bench/retrieval/extract.sh)`);
    out.sets[name] = { skipped: set.skip };
    continue;
  }
  out.sets[name] = {};
  for (const half of HALVES) {
    const other = half === "tune" ? "report" : "tune";
    const t0 = Date.now();
    const r = set.kind === "docs"
      ? await runDocs(name, set, half, set.halves[other].questions.slice(0, OFF))
      : await runMemory(set, half);
    r.seconds = (Date.now() - t0) / 1000;
    r.res = Object.fromEntries(Object.entries(r.raw).map(([m, v]) =>
      [m, { ...summary(v.asked, v.off), ms: v.ms ? latency(v.ms) : null }]));
    const size = set.kind === "docs" ? `${r.docs} paragraphs` : `${r.turns} turns in ${r.conversations.length} conversations`;
    console.log(`\n${name}, ${half} half: ${size}, ${r.questions} questions, ${r.offQuestions} off-corpus questions (${r.seconds.toFixed(0)} s)`);
    console.log("| ranking | recall@1 | recall@10 | MRR | hits per question | hits per off-corpus question |");
    console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (const m of [...MODES, "bm25"]) {
      const s = r.res[m];
      const label = m === "bm25" ? "stock FTS5 BM25, any term" : `dbmcp ${m}`;
      console.log(`| ${label} | ${f3(s.r1)} | ${f3(s.r10)} | ${f3(s.mrr)} | ${f1(s.hits)} | ${f1(s.off)} |`);
    }
    console.log("ms per search, request to response over stdio (median / p90): " + MODES.map((m) =>
      `dbmcp ${m} ${f1(r.res[m].ms.median)} / ${f1(r.res[m].ms.p90)}`).join(" · "));
    for (const m of FLOORS.length ? MODES : []) {
      console.log(`floors, dbmcp ${m}: ` + FLOORS.map((fl) => {
        const s = summary(r.raw[m].asked, r.raw[m].off, fl);
        return `${fl}: r1 ${f3(s.r1)} r10 ${f3(s.r10)} mrr ${f3(s.mrr)} hits ${f1(s.hits)} off ${f1(s.off)}`;
      }).join(" | "));
    }
    delete r.raw;
    out.sets[name][half] = r;
  }
}
if (args.out) fs.writeFileSync(args.out, JSON.stringify(out, null, 1));
