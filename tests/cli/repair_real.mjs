// repair_real.mjs — the real repair corpus (tests/cases/repair/real)
// through the command line: each case is piped into `dbmcp repair`
// (with --several when the case asks for it) and judged by the rule of
// tests/cases/repair/README.md: a refusal case must exit 1 with its
// error_contains on stderr; any other must exit 0 with strict JSON equal
// to the expected value. Prints one line per failure and "N passed, M
// failed"; exits 1 on any failure. Usage: node repair_real.mjs DBMCP
import { readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = process.argv[2];
const dir = join(root, 'tests/cases/repair/real');
let passed = 0, failed = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  JSON.parse(readFileSync(join(dir, file), 'utf8')).forEach((c, i) => {
    const args = ['repair'];
    if (c.options && c.options.several) args.push('--several');
    if (c.options && c.options.arguments) args.push('--arguments');
    const r = spawnSync(bin, args, { input: c.input, encoding: 'utf8' });
    let why = null;
    if (!c.source || !(c.source.url || (c.source.repo && c.source.path)))
      why = 'the case cites no source (url, or repo and path)';
    else if (c.output === null) {
      if (r.status !== 1) why = `expected exit 1 (refused), got ${r.status}: ${r.stdout}`;
      else if (c.error_contains && !r.stderr.includes(c.error_contains))
        why = `stderr lacks "${c.error_contains}": ${r.stderr}`;
    } else if (r.status !== 0) {
      why = `exit ${r.status}: ${r.stderr}`;
    } else {
      try {
        if (!isDeepStrictEqual(JSON.parse(r.stdout), c.output)) why = `wrong value: ${r.stdout}`;
      } catch {
        why = `invalid JSON: ${r.stdout}`;
      }
    }
    if (why) {
      failed++;
      console.log(`FAIL ${file}[${i}] ${c.description}: ${why.trim()}`);
    } else passed++;
  });
}
console.log(`repair_real: ${passed} passed, ${failed} failed`);
process.exit(failed || passed < 40 ? 1 : 0);
