// metrics_check.mjs — the checks tests/cli/metrics.sh makes on what
// `dbmcp serve --http` answers at /metrics and /status.
//
//   node metrics_check.mjs parse FILE
//       FILE must be a strict Prometheus text exposition (format 0.0.4):
//       only "# HELP", "# TYPE" and sample lines; valid metric and label
//       names; label values with only the three escapes (\\, \", \n);
//       numeric values; one TYPE and at most one HELP per family, before
//       its samples; the samples of a family together; no series twice;
//       counters named *_total; each histogram series with increasing `le`
//       bounds, cumulative bucket counts, a +Inf bucket equal to _count, and
//       a _sum. Prints "ok: F families, S samples" or every problem (exit 1).
//   node metrics_check.mjs value FILE 'name{labels}'
//       prints the value of that series exactly as written, or "absent".
//   node metrics_check.mjs status FILE
//       FILE must be a /status object with every documented field of the
//       right type and sane values; prints "ok" or the problems (exit 1).
import { readFileSync } from "node:fs";

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

// Labels of a sample line "name{a="x",b="y"} value": [name, {labels}, rest]
// or a string describing the error.
function parseSample(line) {
  let i = 0;
  while (i < line.length && line[i] !== "{" && line[i] !== " ") i++;
  const name = line.slice(0, i);
  if (!NAME.test(name)) return `bad metric name "${name}"`;
  const labels = {};
  if (line[i] === "{") {
    i++;
    while (line[i] !== "}") {
      const eq = line.indexOf("=", i);
      if (eq < 0) return "label without '='";
      const label = line.slice(i, eq);
      if (!LABEL.test(label)) return `bad label name "${label}"`;
      if (label in labels) return `label "${label}" twice`;
      if (line[eq + 1] !== '"') return `label "${label}" value not quoted`;
      let j = eq + 2,
        value = "";
      for (;;) {
        if (j >= line.length) return `label "${label}" value not terminated`;
        const c = line[j];
        if (c === '"') break;
        if (c === "\\") {
          const e = line[j + 1];
          if (e === "\\" || e === '"') value += e;
          else if (e === "n") value += "\n";
          else return `bad escape \\${e} in label "${label}"`;
          j += 2;
        } else {
          value += c;
          j++;
        }
      }
      labels[label] = value;
      i = j + 1;
      if (line[i] === ",") i++;
      else if (line[i] !== "}") return `expected ',' or '}' after label "${label}"`;
    }
    i++;
  }
  if (line[i] !== " ") return "no space before the value";
  const fields = line.slice(i + 1).split(" ");
  if (fields.length < 1 || fields.length > 2) return "expected a value and an optional timestamp";
  const v = fields[0];
  if (!/^[+-]?(Inf|NaN|\d+(\.\d+)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/.test(v))
    return `bad value "${v}"`;
  if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) return "bad timestamp";
  const value = v.endsWith("Inf") ? (v.startsWith("-") ? -Infinity : Infinity) : Number(v);
  return [name, labels, value];
}

function seriesKey(name, labels, skip) {
  return (
    name +
    "{" +
    Object.keys(labels)
      .filter((k) => k !== skip)
      .sort()
      .map((k) => `${k}=${JSON.stringify(labels[k])}`)
      .join(",") +
    "}"
  );
}

// The family a sample name belongs to, given the declared types.
function familyOf(name, types) {
  if (types.has(name)) return name;
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length);
      if (types.get(base) === "histogram" || types.get(base) === "summary") return base;
    }
  }
  return null;
}

function checkHistograms(samples, types, problems) {
  const groups = new Map(); // family + labels without le -> {buckets, sum, count}
  for (const [name, labels, value] of samples) {
    const fam = familyOf(name, types);
    if (types.get(fam) !== "histogram") continue;
    const key = seriesKey(fam, labels, "le");
    if (!groups.has(key)) groups.set(key, { buckets: [], sum: null, count: null });
    const g = groups.get(key);
    if (name === fam + "_bucket") {
      if (!("le" in labels)) problems.push(`${key}: bucket without le`);
      else g.buckets.push([labels.le === "+Inf" ? Infinity : Number(labels.le), value]);
    } else if (name === fam + "_sum") g.sum = value;
    else if (name === fam + "_count") g.count = value;
    else problems.push(`${name}: not a histogram sample name`);
  }
  for (const [key, g] of groups) {
    if (g.sum === null) problems.push(`${key}: no _sum`);
    if (g.count === null) problems.push(`${key}: no _count`);
    const b = g.buckets;
    if (!b.length || b[b.length - 1][0] !== Infinity) problems.push(`${key}: no +Inf bucket last`);
    for (let i = 1; i < b.length; i++) {
      if (!(b[i][0] > b[i - 1][0])) problems.push(`${key}: le not increasing at ${b[i][0]}`);
      if (b[i][1] < b[i - 1][1]) problems.push(`${key}: buckets not cumulative at le=${b[i][0]}`);
    }
    if (b.length && g.count !== null && b[b.length - 1][1] !== g.count)
      problems.push(`${key}: +Inf bucket ${b[b.length - 1][1]} != _count ${g.count}`);
  }
  return groups.size;
}

function parse(text) {
  const problems = [];
  const types = new Map(),
    helps = new Set(),
    seen = new Set(),
    done = new Set();
  const samples = [];
  let current = null;
  if (!text.endsWith("\n")) problems.push("the text does not end with a newline");
  const lines = text.split("\n");
  lines.pop();
  lines.forEach((line, n) => {
    const at = `line ${n + 1}`;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      if (!NAME.test(name)) problems.push(`${at}: bad metric name "${name}"`);
      if (done.has(name)) problems.push(`${at}: ${kind} for ${name} after its samples ended`);
      if (current !== name) {
        if (current) done.add(current);
        current = name;
      }
      if (kind === "HELP") {
        if (helps.has(name)) problems.push(`${at}: second HELP for ${name}`);
        helps.add(name);
        if (/\\[^\\n]/.test(rest)) problems.push(`${at}: bad escape in HELP`);
      } else {
        if (types.has(name)) problems.push(`${at}: second TYPE for ${name}`);
        if (!TYPES.has(rest)) problems.push(`${at}: unknown type "${rest}"`);
        if (samples.some(([s]) => familyOf(s, new Map([[name, rest]])) === name))
          problems.push(`${at}: TYPE for ${name} after its samples`);
        types.set(name, rest);
        if (rest === "counter" && !name.endsWith("_total"))
          problems.push(`${at}: counter ${name} is not named *_total`);
      }
      return;
    }
    if (line.startsWith("#") || line === "") {
      problems.push(`${at}: not a HELP, TYPE or sample line: ${JSON.stringify(line)}`);
      return;
    }
    const s = parseSample(line);
    if (typeof s === "string") {
      problems.push(`${at}: ${s}: ${JSON.stringify(line.slice(0, 120))}`);
      return;
    }
    const fam = familyOf(s[0], types);
    if (!fam) problems.push(`${at}: ${s[0]} has no TYPE before it`);
    else if (fam !== current) {
      if (done.has(fam)) problems.push(`${at}: samples of ${fam} are not together`);
      if (current) done.add(current);
      current = fam;
    }
    const key = seriesKey(s[0], s[1]);
    if (seen.has(key)) problems.push(`${at}: series ${key} twice`);
    seen.add(key);
    samples.push(s);
  });
  const histograms = checkHistograms(samples, types, problems);
  return { problems, samples, families: types.size, histograms };
}

const [mode, file, arg] = process.argv.slice(2);
const text = readFileSync(file, "utf8");
if (mode === "parse") {
  const r = parse(text);
  if (r.problems.length) {
    for (const p of r.problems.slice(0, 30)) console.log(p);
    process.exit(1);
  }
  console.log(`ok: ${r.families} families, ${r.samples.length} samples, ${r.histograms} histogram series`);
} else if (mode === "value") {
  const want = parseSample(arg + " 0");
  if (typeof want === "string") throw new Error(want);
  const key = seriesKey(want[0], want[1]);
  const hit = parse(text).samples.find(([n, l]) => seriesKey(n, l) === key);
  console.log(hit ? String(hit[2]) : "absent");
} else if (mode === "status") {
  const st = JSON.parse(text);
  const problems = [];
  const need = (path, test, why) => {
    const v = path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), st);
    if (!test(v)) problems.push(`${path} = ${JSON.stringify(v)}: ${why}`);
  };
  const count = (v) => Number.isInteger(v) && v >= 0;
  need("version", (v) => typeof v === "string" && /^\d+\.\d+/.test(v), "a version string");
  need("uptime_s", (v) => typeof v === "number" && v >= 0 && v < 3600, "seconds since start");
  need("started_at", (v) => typeof v === "string" && Math.abs(Date.parse(v) - Date.now()) < 3600e3,
    "an ISO time within the hour");
  need("schema_version", (v) => Number.isInteger(v) && v > 0, "a positive integer");
  need("sessions", count, "a count");
  need("in_flight.tool_calls", count, "a count");
  need("in_flight.http_requests", count, "a count");
  for (const f of ["rows", "bytes", "written", "failed_attempts"])
    need(`queues.audit.${f}`, count, "a count");
  need("queues.audit.oldest_s", (v) => typeof v === "number" && v >= 0, "seconds");
  for (const f of ["pending", "due", "failing"]) need(`queues.embedding_jobs.${f}`, count, "a count");
  for (const p of ["catalog", "query"]) {
    need(`queues.db_pools.${p}.size`, (v) => Number.isInteger(v) && v > 0, "a positive size");
    need(`queues.db_pools.${p}.in_use`, count, "a count");
    need(`queues.db_pools.${p}.waiting`, count, "a count");
  }
  need("queues.http_connections.open", (v) => Number.isInteger(v) && v >= 1, "this request's own");
  need("queues.http_connections.waiting", count, "a count");
  for (const k of ["tools_version", "prompts_version", "resources_version"])
    need(`catalog.${k}`, count, "a version number");
  need("catalog.changed_at", (v) => v === null || !Number.isNaN(Date.parse(v)), "null or a time");
  if (problems.length) {
    for (const p of problems) console.log(p);
    process.exit(1);
  }
  console.log("ok");
} else {
  console.error("usage: metrics_check.mjs parse|value|status FILE [SERIES]");
  process.exit(2);
}
