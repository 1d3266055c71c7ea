// db.mjs — the Node side of tests/cli/lib/db.sh: how a Node test gets a
// database and reaches it. Every read and write goes through dbmcp (`dbmcp
// sql`), never through an engine's shell, so a test runs against PostgreSQL
// by changing only what testDb returns.
//
//   testDb(bin, dir, name, {template})
//       a fresh database location for name (letters, digits, '_', '-'):
//       `${dir}/${name}.db` (nothing is created; `dbmcp init` creates it,
//       or with template, a copy of that SQLite file). When DBMCP_TEST_PG
//       holds a PostgreSQL server's base URI, a new database on that server
//       (CREATE DATABASE …, with TEMPLATE for template), as a URI.
//   dropTestDb(bin, db)   drop a database testDb made on PostgreSQL; nothing
//                         to do on SQLite (the file goes with its directory)
//   dbSql(bin, db, sql)   `dbmcp sql`: its stdout; throws on failure
//   dbRows(bin, db, sql)  `dbmcp sql --json` of one query: its rows as objects
//
// `dbmcp sql` waits up to a minute for a lock a running server holds.
// With DBMCP_TEST_PG_TRACE naming a file, testDb appends the name of each
// PostgreSQL database it creates to it (see db.sh).
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';

// A guard against hangs only (a loaded machine, a sanitizer build).
const TIMEOUT_MS = 300000;

function run(bin, args) {
    const r = spawnSync(bin, args, { encoding: 'utf8', timeout: TIMEOUT_MS, maxBuffer: 1 << 28 });
    if (r.error) throw r.error;
    if (r.status !== 0) {
        throw new Error(`dbmcp ${args[0]} exited ${r.status}: ${r.stderr.trim()}\nSQL: ${args.at(-1)}`);
    }
    return r.stdout;
}

export function dbSql(bin, db, sql) {
    return run(bin, ['sql', '--db', db, sql]);
}

export function dbRows(bin, db, sql) {
    const out = run(bin, ['sql', '--json', '--db', db, sql]).trim();
    return out ? JSON.parse(out) : [];
}

// A libpq URI's parts: scheme and authority, the database (its path) and the
// query (host=…, user=…). Split by hand: WHATWG URL refuses the
// user@/db?host=/dir form libpq takes for a Unix socket.
function splitUri(uri) {
    const q = uri.indexOf('?');
    const head = q < 0 ? uri : uri.slice(0, q);
    const slash = head.indexOf('/', head.indexOf('://') + 3);
    return {
        prefix: slash < 0 ? head : head.slice(0, slash),
        database: slash < 0 ? '' : decodeURIComponent(head.slice(slash + 1)),
        query: q < 0 ? '' : uri.slice(q),
    };
}

// The base URI with its database replaced by name, its query kept.
function uriWithDatabase(base, name) {
    const { prefix, query } = splitUri(base);
    return `${prefix}/${name}${query}`;
}

function databaseOf(uri) {
    return splitUri(uri).database;
}

export function testDb(bin, dir, name, { template } = {}) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`testDb: bad name '${name}'`);
    const base = process.env.DBMCP_TEST_PG;
    if (!base) {
        const file = path.join(dir, `${name}.db`);
        if (template) copyFileSync(template, file);
        return file;
    }
    // Lower case: PostgreSQL folds unquoted names; '-' is not allowed unquoted.
    const db = `dbmcp_test_${name.toLowerCase().replace(/-/g, '_')}_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
    dbSql(bin, base, `CREATE DATABASE ${db}${template ? ` TEMPLATE ${databaseOf(template)}` : ''}`);
    if (process.env.DBMCP_TEST_PG_TRACE) appendFileSync(process.env.DBMCP_TEST_PG_TRACE, `${db}\n`);
    return uriWithDatabase(base, db);
}

export function dropTestDb(bin, db) {
    const base = process.env.DBMCP_TEST_PG;
    if (!base) return;
    spawnSync(bin, ['sql', '--db', base, `DROP DATABASE IF EXISTS ${databaseOf(db)} WITH (FORCE)`], {
        encoding: 'utf8',
        timeout: TIMEOUT_MS,
    });
}
