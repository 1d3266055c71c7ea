// hostile_pg_cases.mjs — the hostile SQL cases of tests/cases/hostile_pg
// through dbmcp: each case is one `dbmcp call execute_query` on a
// PostgreSQL database (the dispatch path every MCP client takes: schema,
// admission with PostgreSQL's rules, the query role's connection inside
// pg_guard's call, rendering, audit). Run by tests/cli/hostile_pg.sh.
//
//   node hostile_pg_cases.mjs BIN DB CASES_DIR MARKER
//
// DB is the catalog URI (dbmcp derives the query role's from it with
// DBMCP_QUERY_PASSWORD, which the caller sets). Each case's verdict:
//   "expect": "refused"   refused by admission: exit 1, the agent's answer
//                         starts "Query refused:" (and holds "error_contains"),
//                         the operator log names the case's "rule"
//   "expect": "ok" with "engine":
//     "rows"      exit 0; the table holds "output_contains" and not
//                 "output_excludes"
//     "failed"    refused by the server: exit 1, the agent gets one of the
//                 sentences of tools/sql_failure.h ("The query failed",
//                 "Unknown table …", "Syntax error near …", …), never the
//                 server's own message; the operator log holds "engine_error"
//     "timeout"   exit 1, "stopped at the time limit"
// and never, in anything dbmcp prints, the MARKER of a secret. Text the
// tool's input schema refuses (empty, too long) counts as refused one stage
// before admission; a case whose text JSON cannot carry (query_hex: invalid
// UTF-8, a NUL) must be refused at the JSON boundary (exit 2) before
// anything runs. Every call asks for max_rows 26, the rows pg_guard_run
// fetches, so both runners show the same rows. "timeout_ms" sets
// query.timeout_ms for that case (dbmcp sql), the suite's 2000 otherwise.
// Prints one line per failure, a summary per file and the total; exit 1
// when a case failed.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [bin, db, dir, marker] = process.argv.slice(2);
const SUITE_TIMEOUT_MS = 2000;
const SHOWN_ROWS = 26;
// The starts of the sentences a failed query may show (tools/sql_failure.h).
const FAILURE_STARTS = ["The query failed", "The server ran out of memory", "Unknown table ", "Unknown column ",
  "Unknown function ", "Syntax error", "Type mismatch", "Function ", "Column ", "Division by zero",
  "A value the query builds", "The query needed more memory"]; // what pg_guard_run fetches: 25 and one more
const env = { ...process.env, DBMCP_LOG: "warn" };

function run(args) {
  const r = spawnSync(bin, args, { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, out: r.stdout ?? "", err: r.stderr ?? "" };
}

let timeoutNow = SUITE_TIMEOUT_MS;
function setTimeoutMs(ms) {
  if (ms === timeoutNow) return;
  const r = run(["sql", "--db", db, `UPDATE dbmcp_settings SET value = '${ms}' WHERE key = 'query.timeout_ms'`]);
  if (r.status !== 0) throw new Error(`cannot set query.timeout_ms: ${r.err}`);
  timeoutNow = ms;
}

function caseQuery(c) {
  let q = c.query;
  if (c.repeat && q.includes("{{repeat}}")) q = q.replace("{{repeat}}", c.repeat.text.repeat(c.repeat.count));
  return q;
}

// The operator log's line for the failed call, and the rule it names.
function dispatchLine(err) {
  return err.split("\n").find((l) => l.includes('"component":"dispatch"') && l.includes("failed:")) ?? "";
}

// The arguments {"query": BYTES} for a query_hex case, as a printf format:
// bytes that are not printable ASCII go as \xHH (argv carries any byte but
// NUL), NUL as the JSON escape \u0000.
function hexArgsFormat(hex) {
  let f = '{"query": "';
  for (let i = 0; i + 1 < hex.length; i += 2) {
    const b = parseInt(hex.slice(i, i + 2), 16);
    if (b === 0) f += "\\\\u0000";
    else if (b === 0x22 || b === 0x5c) f += "\\\\" + (b === 0x22 ? '\\"' : "\\\\");
    else if (b === 0x25) f += "%%";
    else if (b >= 0x20 && b < 0x7f) f += String.fromCharCode(b);
    else f += "\\x" + hex.slice(i, i + 2);
  }
  return f + '"}';
}

function verdict(c) {
  if (c.query_hex !== undefined) {
    // JSON strings hold neither invalid UTF-8 nor, in jansson's reading,
    // NUL: such text never reaches admission.
    const r = spawnSync("bash", ["-c", 'exec "$0" call --db "$1" execute_query "$(printf "$2")"', bin, db, hexArgsFormat(c.query_hex)], { env, encoding: "utf8" });
    return r.status === 2 ? null : `expected the JSON boundary to refuse it (exit 2), got exit ${r.status}: ${r.stdout}${r.stderr}`;
  }
  // A time limit of its own matters only to a query that reaches the
  // server; changing the setting otherwise would only bump its counter.
  if (c.expect === "ok") setTimeoutMs(c.timeout_ms > 0 ? c.timeout_ms : SUITE_TIMEOUT_MS);
  const r = run(["call", "--db", db, "execute_query", JSON.stringify({ query: caseQuery(c), max_rows: SHOWN_ROWS })]);
  const shown = `exit ${r.status}: ${r.out.slice(0, 400)}${r.err.slice(0, 600)}`;
  if (r.out.includes(marker) || r.err.includes(marker)) return `LEAK: the answer or the log shows ${marker}: ${shown}`;
  if (r.err.includes('"component":"query-role","msg":"refused')) return `the query role was refused: ${shown}`;
  const line = dispatchLine(r.err);
  if (c.expect === "refused") {
    // Text the tool's input schema refuses (empty, over 32000 characters)
    // never reaches admission: refused one stage earlier.
    if (r.status === 1 && r.out.startsWith("argument 'query': ")) return "schema";
    if (r.status !== 1 || !r.out.startsWith("Query refused:")) return `expected a refusal by admission, got ${shown}`;
    if (c.rule && !line.includes(`(admission rule ${c.rule})`)) return `expected rule ${c.rule}: ${line}`;
    if (c.error_contains && !r.out.includes(c.error_contains)) return `refusal lacks "${c.error_contains}": ${r.out}`;
    return null;
  }
  switch (c.engine) {
    case "rows":
      if (r.status !== 0) return `expected rows, got ${shown}`;
      if (c.output_contains && !r.out.includes(c.output_contains)) return `output lacks "${c.output_contains}": ${r.out.slice(0, 500)}`;
      if (c.output_excludes && r.out.includes(c.output_excludes)) return `output holds "${c.output_excludes}": ${r.out.slice(0, 500)}`;
      return null;
    case "failed":
      if (r.status !== 1 || !FAILURE_STARTS.some((s) => r.out.startsWith(s))) return `expected the server to refuse it, got ${shown}`;
      if (c.engine_error && !line.includes(c.engine_error)) return `server error lacks "${c.engine_error}": ${line}`;
      return null;
    case "timeout":
      if (r.status !== 1 || !r.out.includes("stopped at the time limit")) return `expected the time limit, got ${shown}`;
      return null;
    default:
      return `unknown engine verdict ${c.engine}`;
  }
}

const total = { cases: 0, failed: 0, refused: 0, schema: 0, server: 0, rows: 0, timeout: 0, boundary: 0 };
for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
  const { cases } = JSON.parse(readFileSync(join(dir, file), "utf8"));
  const t = { cases: 0, failed: 0 };
  for (const c of cases) {
    let why = verdict(c);
    t.cases++;
    if (why === "schema") {
      total.schema++;
      why = null;
    } else if (why) {
      t.failed++;
      console.log(`FAIL ${file}: ${c.name}: ${why}`);
    } else if (c.query_hex !== undefined) total.boundary++;
    else if (c.expect === "refused") total.refused++;
    else if (c.engine === "failed") total.server++;
    else if (c.engine === "timeout") total.timeout++;
    else total.rows++;
  }
  console.log(`${file.padEnd(32)} ${String(t.cases).padStart(3)} cases, ${t.failed} failed`);
  total.cases += t.cases;
  total.failed += t.failed;
}
setTimeoutMs(SUITE_TIMEOUT_MS);
console.log(
  `hostile_pg through dbmcp: ${total.cases} cases, ${total.failed} failed; ` +
    `${total.refused} refused by admission, ${total.schema} by the input schema, ${total.boundary} at the JSON boundary, ` +
    `${total.server} refused by the server, ${total.timeout} stopped at the time limit, ${total.rows} answered`,
);
process.exit(total.failed ? 1 : 0);
