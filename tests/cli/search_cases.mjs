// search_cases.mjs — runs the relevance cases of tests/cases/search/*.json
// against a database built by tests/cli/search.sh (`dbmcp init --demo`),
// through `dbmcp call search_documents … --json`, once per listed mode.
//
// A case file is one JSON object:
//   description   what it shows
//   query         the query text; k (default 5); filters, expand: passed on
//   interface     interface to call through (default document_analysis)
//   modes         ["keyword", "vector", "hybrid"]: every mode must pass
//   expect        document URIs that must all be among the top k results
//   expect_first  the document URI of the first result
//   only          every result's document must be one of these
//   expect_none   no result at all
//   max_results   at most this many results (the relevance floor left the rest out)
//   min_results   at least this many
//   min_relevance passed on as the argument
// Prints "ok"/"FAIL" per case and mode, then "N passed, M failed"; exits 1
// on any failure. Adding a case never needs a change here.
//
// Engine parity: with a fourth argument TWIN (a SQLite database built the
// same way), every case's vector mode also runs on TWIN, and the top
// results must be the same on both: the same chunks (uri) in the same
// order, with the same vector distance to 4 decimals (the engines store
// float32 vectors alike; the last bits of a sum may differ). search.sh
// passes it, so on PostgreSQL this compares PostgreSQL with SQLite.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [bin, db, dir, twin] = process.argv.slice(2);
let passed = 0, failed = 0;

function call(iface, args, on = db) {
  try {
    const out = execFileSync(bin, ["call", "search_documents", JSON.stringify(args), "--json",
      "--db", on, "--interface", iface], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return JSON.parse(out);
  } catch (e) {
    return { error: (e.stdout || "") + (e.stderr || "") };
  }
}

function check(c, res) {
  if (res.error) return `call failed: ${res.error.slice(0, 300)}`;
  const docs = (res.structuredContent?.results ?? []).map((r) => r.document);
  if (c.expect_none) return docs.length ? `expected no result, got ${docs.join(" ")}` : null;
  for (const want of c.expect ?? [])
    if (!docs.includes(want)) return `${want} not in top ${c.k ?? 5}: ${docs.join(" ")}`;
  if (c.expect_first && docs[0] !== c.expect_first)
    return `first is ${docs[0]}, want ${c.expect_first} (${docs.join(" ")})`;
  for (const d of docs)
    if (c.only && !c.only.includes(d)) return `${d} is outside ${c.only.join(", ")}`;
  if (c.max_results !== undefined && docs.length > c.max_results)
    return `${docs.length} results, want at most ${c.max_results}`;
  if (c.min_results !== undefined && docs.length < c.min_results)
    return `${docs.length} results, want at least ${c.min_results}`;
  if (!docs.length) return "no results";
  return null;
}

function report(name, why) {
  if (why) {
    failed++;
    console.log(`FAIL ${name}: ${why}`);
  } else {
    passed++;
    console.log(`ok   ${name}`);
  }
}

// The top results of a vector search, as compared across engines.
function top(res) {
  return (res.structuredContent?.results ?? []).map((r) =>
    `${r.rank} ${r.uri} ${r.scores?.vector?.distance?.toFixed(4)}`);
}

// null when res (this database) and ref (TWIN) have the same top results
// (none on both is the same: check() fails a case that wants some).
function parity(res, ref) {
  if (res.error || ref.error) return `call failed: ${(res.error || ref.error).slice(0, 300)}`;
  const a = top(res), b = top(ref);
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) return `result ${i + 1} is '${a[i]}' here, '${b[i]}' on the twin`;
  return null;
}

for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
  const c = JSON.parse(readFileSync(join(dir, file), "utf8"));
  for (const mode of c.modes) {
    const args = { query: c.query, k: c.k ?? 5, mode };
    if (c.filters) args.filters = c.filters;
    if (c.expand) args.expand = true;
    if (c.min_relevance !== undefined) args.min_relevance = c.min_relevance;
    const res = call(c.interface ?? "document_analysis", args);
    const name = `${file.replace(/\.json$/, "")} [${mode}]`;
    report(name, check(c, res));
    if (twin && mode === "vector")
      report(`${name} same top results on both engines`,
        parity(res, call(c.interface ?? "document_analysis", args, twin)));
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
