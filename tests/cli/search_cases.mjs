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
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [bin, db, dir] = process.argv.slice(2);
let passed = 0, failed = 0;

function call(iface, args) {
  try {
    const out = execFileSync(bin, ["call", "search_documents", JSON.stringify(args), "--json",
      "--db", db, "--interface", iface], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
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

for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
  const c = JSON.parse(readFileSync(join(dir, file), "utf8"));
  for (const mode of c.modes) {
    const args = { query: c.query, k: c.k ?? 5, mode };
    if (c.filters) args.filters = c.filters;
    if (c.expand) args.expand = true;
    if (c.min_relevance !== undefined) args.min_relevance = c.min_relevance;
    const why = check(c, call(c.interface ?? "document_analysis", args));
    const name = `${file.replace(/\.json$/, "")} [${mode}]`;
    if (why) {
      failed++;
      console.log(`FAIL ${name}: ${why}`);
    } else {
      passed++;
      console.log(`ok   ${name}`);
    }
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
