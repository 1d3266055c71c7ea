// run.mjs — the repair benchmark (bench/README.md, "Repair benchmark"):
// dbmcp's repair engine against the npm jsonrepair library on the same
// corpora, side by side in one run: the generated corpus (every case file
// of tests/cases/repair) and, scored apart, the real corpus
// (tests/cases/repair/real: model outputs quoted in public reports).
//
//   node bench/repair/run.mjs --ours build/bench/repair_bench [--seconds 3] [--out FILE]
//
// Both tools loop in-process over the corpus in whole passes, about
// --seconds of wall time each, in three rounds that alternate between the
// tools: jsonrepair here, dbmcp in the C program given by --ours
// (bench/repair_bench.c), which writes its timing and first-pass outputs to
// a file. Both sets of outputs are then judged
// here by one function, the rule of tests/cases/repair/README.md:
// a refusal case is right when the tool refuses; any other case is right
// when the output parses as strict JSON and equals the expected value. An
// output that does not parse is counted as invalid. jsonrepair is judged
// twice: alone, and behind the extraction a careful caller writes
// (peerExtract below); the timing is jsonrepair alone.
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { jsonrepair } from 'jsonrepair';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf('--' + name);
  return i >= 0 ? args[i + 1] : dflt;
};
const ours = opt('ours');
const seconds = Number(opt('seconds', '3'));
const outFile = resolve(root, opt('out', 'build/bench/repair-results.json'));
if (!ours) {
  console.error('usage: node bench/repair/run.mjs --ours REPAIR_BENCH [--seconds N] [--out FILE]');
  process.exit(2);
}

// ---- the corpora -----------------------------------------------------------
const cases = [];
function loadCorpus(dir, set) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    for (const c of [].concat(doc)) {
      if (c.pending) continue; // a known bug is not part of the comparison
      cases.push({
        set,
        file,
        kind: c.kind || file.replace(/\.json$/, ''),
        input: c.input,
        expected: c.output,
        arguments: !!(c.options && c.options.arguments),
        keepEncoded: !!(c.options && c.options.keep_encoded),
        several: !!(c.options && c.options.several),
      });
    }
  }
}
loadCorpus(join(root, 'tests/cases/repair'), 'generated');
loadCorpus(join(root, 'tests/cases/repair/real'), 'real');
const SETS = ['generated', 'real'];
const bytesPerPass = cases.reduce((n, c) => n + Buffer.byteLength(c.input), 0);

// ---- jsonrepair, with the same two value post-passes dbmcp applies -------------
// dbmcp decodes a top-level string that holds JSON text (unless keep_encoded)
// and, with the arguments option, "arguments" members that hold JSON text.
// jsonrepair gets the same post-passes, built from jsonrepair itself, so the
// comparison is about the repairs.
const holdsStructure = (s) => /^\s*[{[]/.test(s);
function decodeArguments(v, depth) {
  if (Array.isArray(v)) return v.map((x) => decodeArguments(x, depth));
  if (!v || typeof v !== 'object') return v;
  for (const [k, x] of Object.entries(v)) {
    if (k === 'arguments' && typeof x === 'string' && holdsStructure(x) && depth < 4) {
      try {
        v[k] = decodeArguments(JSON.parse(jsonrepairOrValid(x)), depth + 1);
      } catch {}
    } else v[k] = decodeArguments(x, depth);
  }
  return v;
}
// jsonrepair throws on some valid JSON (a string value starting with {\");
// valid input is then used as it is, as a careful caller would. Only on a
// throw, so it costs nothing on the common path.
function jsonrepairOrValid(input) {
  try {
    return jsonrepair(input);
  } catch (e) {
    try {
      JSON.parse(input);
    } catch {
      throw e;
    }
    return input;
  }
}
function jsonrepairCase(c) {
  let text = jsonrepairOrValid(c.input);
  if (!c.keepEncoded && /^\s*"/.test(text)) {
    const s = JSON.parse(text);
    if (holdsStructure(s)) {
      try {
        text = jsonrepairOrValid(s);
      } catch {}
    }
  }
  if (c.arguments) text = JSON.stringify(decodeArguments(JSON.parse(text), 0));
  return text;
}
function runJsonrepairOnce(c) {
  try {
    return { ok: true, output: jsonrepairCase(c) };
  } catch (e) {
    return { ok: false, error: String(e.message || e) };
  }
}

// The extraction a careful caller puts in front of jsonrepair, which has
// none: drop a byte-order mark and a leading <think>/[THINK] block; several
// <tool_call> blocks become an array, one gives its body; text after
// [TOOL_CALLS] and the first fenced block holding { or [ are taken; then
// from the first { or [. When jsonrepair refuses that, the text is cut
// after the last } or ] (prose after the JSON) and tried again.
function peerExtract(input) {
  let t = input.replace(/^\uFEFF/, '');
  t = t.replace(/^\s*<think>[\s\S]*?<\/think>/, '').replace(/^\s*\[THINK\][\s\S]*?\[\/THINK\]/, '');
  const calls = [...t.matchAll(/<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g)].map((m) => m[1]);
  if (calls.length > 1) return '[' + calls.join(',') + ']';
  if (calls.length === 1) t = calls[0];
  const marker = t.indexOf('[TOOL_CALLS]');
  if (marker >= 0) t = t.slice(marker + '[TOOL_CALLS]'.length);
  for (const m of t.matchAll(/```[^\n{[]*\n?([\s\S]*?)(?:```|$)/g)) {
    if (/[{[]/.test(m[1])) {
      t = m[1];
      break;
    }
  }
  const start = t.search(/[{[]/);
  return start > 0 ? t.slice(start) : t;
}
function runExtractedOnce(c) {
  const text = peerExtract(c.input);
  const first = runJsonrepairOnce({ ...c, input: text });
  if (first.ok) return first;
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  return end > 0 ? runJsonrepairOnce({ ...c, input: text.slice(0, end + 1) }) : first;
}

// One round: whole passes for at least budget seconds (at least one pass).
function timeJsonrepair(budget) {
  let passes = 0, elapsed = 0, sink = 0;
  while (passes < 1 || elapsed < budget) {
    const start = process.hrtime.bigint();
    for (const c of cases) {
      try {
        sink += jsonrepairCase(c).length;
      } catch {
        sink++;
      }
    }
    elapsed += Number(process.hrtime.bigint() - start) / 1e9;
    passes++;
  }
  return { passes, seconds: elapsed, sink };
}

const benchDir = join(root, 'build/bench');
const corpusFile = join(benchDir, 'repair-corpus.json');
mkdirSync(benchDir, { recursive: true });
writeFileSync(corpusFile, JSON.stringify(cases.map((c) => ({ input: c.input, arguments: c.arguments, keep_encoded: c.keepEncoded, several: c.several }))));

// One round of the C program (it loops at least 3 passes and budget seconds).
function timeOurs(budget) {
  const outputs = join(benchDir, 'repair-dbmcp-outputs.json');
  execFileSync(resolve(root, ours), [corpusFile, outputs, String(budget)], { stdio: ['ignore', 'inherit', 'inherit'] });
  const r = JSON.parse(readFileSync(outputs, 'utf8'));
  if (r.results.length !== cases.length) throw new Error(`${ours} returned ${r.results.length} results for ${cases.length} cases`);
  return r;
}

// ---- judging (the same rule for both) -----------------------------------------
function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}
function judge(c, r) {
  if (c.expected === null) return r.ok ? 'wrong' : 'right';
  if (!r.ok) return 'refused';
  let v;
  try {
    v = JSON.parse(r.output);
  } catch {
    return 'invalid';
  }
  return deepEqual(v, c.expected) ? 'right' : 'wrong';
}
function score(results, set) {
  const s = { cases: 0, right: 0, wrong: 0, refused: 0, invalid: 0, byKind: {}, misses: [] };
  results.forEach((r, i) => {
    const c = cases[i];
    if (set && c.set !== set) return;
    s.cases++;
    const verdict = judge(c, r);
    s[verdict]++;
    const k = (s.byKind[c.kind] ||= { right: 0, total: 0 });
    k.total++;
    if (verdict === 'right') k.right++;
    else s.misses.push({ file: c.file, kind: c.kind, verdict, input: c.input, output: r.ok ? r.output : null, error: r.ok ? undefined : r.error });
  });
  // Invalid is also checked for refusal cases: any output must parse.
  results.forEach((r, i) => {
    if ((set && cases[i].set !== set) || cases[i].expected !== null || !r.ok) return;
    try {
      JSON.parse(r.output);
    } catch {
      s.invalid++;
    }
  });
  return s;
}

// ---- run ----------------------------------------------------------------------
// The outputs judged are each tool's first pass; the timing alternates
// ROUNDS rounds between the tools, so drift on a shared machine hits both.
const ROUNDS = 3;
const jr = { passes: 0, seconds: 0, results: cases.map(runJsonrepairOnce) };
const jx = cases.map(runExtractedOnce);
const db = { passes: 0, seconds: 0, results: null };
timeJsonrepair(0.2); // warm-up: let V8 optimise jsonrepair before timing
for (let round = 0; round < ROUNDS; round++) {
  const a = timeJsonrepair(seconds / ROUNDS);
  jr.passes += a.passes;
  jr.seconds += a.seconds;
  const b = timeOurs(seconds / ROUNDS);
  db.passes += b.passes;
  db.seconds += b.seconds;
  db.results ||= b.results;
}
const jrScore = score(jr.results, 'generated'), dbScore = score(db.results, 'generated');
const perSet = Object.fromEntries(SETS.map((set) => [set, {
  jsonrepair: score(jr.results, set), jsonrepair_extraction: score(jx, set), dbmcp: score(db.results, set),
}]));
const perf = (t) => ({
  mbPerSec: (t.passes * bytesPerPass) / t.seconds / 1e6,
  casesPerSec: (t.passes * cases.length) / t.seconds,
});
const jrPerf = perf(jr), dbPerf = perf(db);
const jrVersion = JSON.parse(readFileSync(join(root, 'bench/repair/node_modules/jsonrepair/package.json'), 'utf8')).version;

const row = (label, a, b, ratio = '') => console.log(`| ${label} | ${a} | ${b} | ${ratio} |`);
const fmt = (x, d = 1) => x.toFixed(d);
const count = (set) => cases.filter((c) => c.set === set).length;
console.log(`\nrepair corpora: ${cases.length} cases, ${(bytesPerPass / 1024).toFixed(1)} KiB per pass: generated ${count('generated')} (tests/cases/repair), real ${count('real')} (tests/cases/repair/real)`);
console.log(`jsonrepair ${jrVersion} on Node ${process.version}: ${jr.passes} passes in ${fmt(jr.seconds, 2)} s; dbmcp: ${db.passes} passes in ${fmt(db.seconds, 2)} s\n`);
for (const set of SETS) {
  const { jsonrepair: a, jsonrepair_extraction: x, dbmcp: d } = perSet[set];
  console.log(`\n${set} corpus (${a.cases} cases)\n`);
  console.log('| verdict | jsonrepair | jsonrepair + extraction | dbmcp |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [label, key] of [['right', 'right'], ['wrong value', 'wrong'], ['refused though repairable', 'refused'], ['invalid JSON output', 'invalid']])
    console.log(`| ${label} | ${a[key]} | ${x[key]} | ${d[key]} |`);
  console.log(`\nright by kind (jsonrepair / jsonrepair + extraction / dbmcp / cases):`);
  for (const kind of Object.keys(d.byKind).sort())
    console.log(`  ${kind.padEnd(20)} ${String(a.byKind[kind].right).padStart(4)} ${String(x.byKind[kind].right).padStart(4)} ${String(d.byKind[kind].right).padStart(4)} / ${d.byKind[kind].total}`);
}
console.log(`\nthroughput, both corpora (jsonrepair alone, without the extraction):\n`);
console.log('| metric | jsonrepair | dbmcp | dbmcp/jsonrepair |');
console.log('| --- | ---: | ---: | ---: |');
row('throughput (MB/s of input)', fmt(jrPerf.mbPerSec, 2), fmt(dbPerf.mbPerSec, 2), fmt(dbPerf.mbPerSec / jrPerf.mbPerSec) + '×');
row('throughput (cases/s)', Math.round(jrPerf.casesPerSec), Math.round(dbPerf.casesPerSec), fmt(dbPerf.casesPerSec / jrPerf.casesPerSec) + '×');
const real = perSet.real;
const goals = [
  ['at least as many right as jsonrepair (generated)', dbScore.right >= jrScore.right],
  ['at least as many right as jsonrepair + extraction (real)', real.dbmcp.right >= real.jsonrepair_extraction.right],
  ['zero invalid outputs', dbScore.invalid === 0 && real.dbmcp.invalid === 0],
  ['zero wrong values (real)', real.dbmcp.wrong === 0],
  ['>= 10x the throughput', dbPerf.mbPerSec >= 10 * jrPerf.mbPerSec],
];
console.log('\ngoals: ' + goals.map(([g, ok]) => `${g}: ${ok ? 'met' : 'NOT met'}`).join('; '));

mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, JSON.stringify({
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  corpus: { cases: cases.length, bytes_per_pass: bytesPerPass },
  jsonrepair: { version: jrVersion, ...jrPerf, passes: jr.passes, seconds: jr.seconds },
  dbmcp: { ...dbPerf, passes: db.passes, seconds: db.seconds },
  corpora: perSet,
}, null, 2));
console.log(`full results and every miss: ${outFile}`);
