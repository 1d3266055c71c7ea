// Helpers for the dbmcp protocol tests: temp databases, the CLI, stdio and
// HTTP servers, raw HTTP requests and polling. Every helper that starts a
// process registers its cleanup with the test context, so a failing test
// never leaves a server running.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

import { dbRows, dbSql, dropTestDb, testDb } from '../../cli/lib/db.mjs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '..', '..', '..');
export const BIN = process.env.DBMCP_BIN ? path.resolve(process.env.DBMCP_BIN) : path.join(ROOT, 'build', 'dbmcp');
export const CLIENT_INFO = { name: 'dbmcp-protocol-tests', version: '1.0.0' };

// Generous upper bounds for things that should take well under a second:
// they only decide how long a broken test takes to fail, so they allow for
// a loaded two-core machine running the ThreadSanitizer build.
export const WAIT_MS = 60000;
// How long one CLI run may take (`init --demo` under ThreadSanitizer takes
// tens of seconds on such a machine); a guard against hangs only.
const CLI_TIMEOUT_MS = 300000;

export function binExists() {
    return existsSync(BIN);
}

/** Run the dbmcp CLI synchronously. Returns {status, stdout, stderr}. */
export function cli(args, opts = {}) {
    const r = spawnSync(BIN, args, { encoding: 'utf8', timeout: CLI_TIMEOUT_MS, ...opts });
    if (r.error) throw r.error;
    return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Run SQL on db through `dbmcp sql` (never an engine's shell, so the tests
 * run on either backend); returns stdout. It waits up to a minute for a
 * lock a running server holds (its audit writer, say). Throws on failure.
 */
export function sql(db, query) {
    return dbSql(BIN, db, query);
}

/** One query through `dbmcp sql --json`; returns an array of row objects. */
export function sqlRows(db, query) {
    return dbRows(BIN, db, query);
}

/**
 * A fresh temp dir and a database made by `dbmcp init` (optionally --demo),
 * from testDb (tests/cli/lib/db.mjs): a file in the dir, or a database on
 * the PostgreSQL server DBMCP_TEST_PG names. Both removed after the test.
 * Returns {dir, db}.
 */
export function tempDb(t, { demo = false, conformance = false } = {}) {
    const dir = mkdtempSync(path.join(tmpdir(), 'dbmcp-proto-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const db = testDb(BIN, dir, 'test');
    t.after(() => dropTestDb(BIN, db));
    const flags = [...(demo ? ['--demo'] : []), ...(conformance ? ['--conformance'] : [])];
    const r = cli(['init', '--db', db, ...flags]);
    if (r.status !== 0) {
        throw new Error(`dbmcp init ${flags.join(' ')} exited ${r.status}: ${r.stderr}`);
    }
    return { dir, db };
}

/** Keep a process's stderr for diagnostics (last 64 KiB). */
function collectStderr(stream) {
    const box = { text: '' };
    stream?.setEncoding('utf8');
    stream?.on('data', (d) => {
        box.text += d;
        if (box.text.length > 65536) box.text = box.text.slice(-65536);
    });
    return box;
}

/**
 * An SDK Client connected over stdio to `dbmcp serve --db DB ...args`.
 * Returns {client, transport, stderr, pid}. Closed after the test.
 */
export async function stdioClient(t, db, args = [], clientOptions = {}) {
    const transport = new StdioClientTransport({
        command: BIN,
        args: ['serve', '--db', db, ...args],
        stderr: 'pipe',
    });
    const stderr = collectStderr(transport.stderr);
    const client = new Client(CLIENT_INFO, clientOptions);
    t.after(async () => {
        await client.close().catch(() => {});
    });
    try {
        await client.connect(transport);
    } catch (e) {
        e.message += `\n--- dbmcp stderr ---\n${stderr.text}`;
        throw e;
    }
    return { client, transport, stderr, pid: transport.pid };
}

/** Resolve with {code, signal} when proc exits (or null after ms). */
export function waitExit(proc, ms = WAIT_MS) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
        return Promise.resolve({ code: proc.exitCode, signal: proc.signalCode });
    }
    return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(null), ms);
        proc.once('exit', (code, signal) => {
            clearTimeout(timer);
            resolve({ code, signal });
        });
    });
}

/** Stop a process we started: SIGTERM, then SIGKILL if it lingers. */
export async function stopProcess(proc) {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM');
    if (!(await waitExit(proc, WAIT_MS))) {
        proc.kill('SIGKILL');
        await waitExit(proc, WAIT_MS);
    }
}

/**
 * Start `dbmcp serve --db DB --http HOST:0 ...args`: the system picks a free
 * port (no race with other processes, or a second copy of the suite, for a
 * port chosen beforehand), and dbmcp prints the one it bound as
 * "listening on http://HOST:PORT/mcp" on stderr once it accepts
 * connections. Returns {proc, port, base, url, stderr}. Stopped after the
 * test.
 */
export async function httpServer(t, db, args = [], { host = '127.0.0.1' } = {}) {
    const proc = spawn(BIN, ['serve', '--db', db, '--http', `${host}:0`, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.after(() => stopProcess(proc));
    const stderr = collectStderr(proc.stderr);
    proc.stdout.resume();
    const port = await new Promise((resolve, reject) => {
        const timer = setTimeout(
            () => reject(new Error(`dbmcp did not print "listening on" within ${WAIT_MS} ms; stderr:\n${stderr.text}`)),
            WAIT_MS,
        );
        const check = () => {
            const m = /listening on http:\/\/\S+:(\d+)\/mcp\n/.exec(stderr.text);
            if (m) {
                clearTimeout(timer);
                proc.stderr.off('data', check);
                proc.off('exit', onExit);
                resolve(Number(m[1]));
            }
        };
        const onExit = (code, signal) => {
            clearTimeout(timer);
            reject(new Error(`dbmcp serve --http exited early (code ${code}, signal ${signal}); stderr:\n${stderr.text}`));
        };
        proc.stderr.on('data', check);
        proc.once('exit', onExit);
        check();
    });
    const base = `http://127.0.0.1:${port}`;
    return { proc, port, base, url: `${base}/mcp`, stderr };
}

/** `dbmcp keys create`; returns {key, id}. */
export function createKey(db, iface = 'default', extra = []) {
    const r = cli(['keys', 'create', '--db', db, '--interface', iface, ...extra]);
    if (r.status !== 0) throw new Error(`dbmcp keys create exited ${r.status}: ${r.stderr}`);
    const key = r.stdout.trim();
    const m = /^dbmcp_([^_\s]+)_(\S+)$/.exec(key);
    if (!m) throw new Error(`dbmcp keys create printed ${JSON.stringify(r.stdout)}, expected dbmcp_<id>_<secret>`);
    return { key, id: m[1] };
}

/** An SDK Client over Streamable HTTP with a bearer key. Closed after the test. */
export async function httpClient(t, url, key, clientOptions = {}) {
    const headers = key ? { Authorization: `Bearer ${key}` } : {};
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    const client = new Client(CLIENT_INFO, clientOptions);
    t.after(async () => {
        await client.close().catch(() => {});
    });
    await client.connect(transport);
    return { client, transport };
}

/**
 * A raw HTTP request with node:http (tolerates a server that answers before
 * reading the whole body). Resolves {status, headers, body}.
 */
export function rawRequest(url, { method = 'POST', headers = {}, body, timeoutMs = WAIT_MS } = {}) {
    return new Promise((resolve, reject) => {
        const u = new URL(url);
        const req = http.request(
            { host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers, agent: false },
            (res) => {
                let data = '';
                res.setEncoding('utf8');
                res.on('data', (d) => (data += d));
                res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
                res.on('error', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
            },
        );
        req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        req.on('error', reject);
        if (body !== undefined) {
            // A server that answers early (413) may reset the connection while
            // we still write; the response handler has resolved by then.
            req.write(body, () => req.end());
        } else {
            req.end();
        }
    });
}

/** POST one JSON-RPC message (object or raw string) to /mcp. */
export function postMcp(url, message, { key, sessionId, headers = {}, ...rest } = {}) {
    const h = {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...(key ? { Authorization: `Bearer ${key}` } : {}),
        ...(sessionId ? { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' } : {}),
        ...headers,
    };
    const body = typeof message === 'string' ? message : JSON.stringify(message);
    return rawRequest(url, { method: 'POST', headers: h, body, ...rest });
}

/** The JSON-RPC messages in a response body (application/json or SSE). */
export function parseMessages(res) {
    const type = String(res.headers['content-type'] || '');
    if (type.includes('text/event-stream')) {
        const out = [];
        for (const line of res.body.split(/\r?\n/)) {
            const m = /^data:\s?(.*)$/.exec(line);
            if (m && m[1].trim()) out.push(JSON.parse(m[1]));
        }
        return out;
    }
    return res.body.trim() ? [JSON.parse(res.body)] : [];
}

export const INIT_PARAMS = {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: CLIENT_INFO,
};

/** Legacy handshake over raw HTTP; returns the Mcp-Session-Id. */
export async function rawInitialize(url, key) {
    const res = await postMcp(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS }, { key });
    if (res.status !== 200) throw new Error(`initialize → HTTP ${res.status}: ${res.body}`);
    const sessionId = res.headers['mcp-session-id'];
    if (!sessionId) throw new Error('initialize response has no Mcp-Session-Id header');
    const n = await postMcp(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { key, sessionId });
    if (n.status < 200 || n.status > 299) throw new Error(`notifications/initialized → HTTP ${n.status}: ${n.body}`);
    return sessionId;
}

/** Poll fn() until it returns a truthy value; throws after ms. */
export async function waitFor(fn, { ms = WAIT_MS, every = 50, what = 'condition' } = {}) {
    const deadline = Date.now() + ms;
    let last;
    for (;;) {
        try {
            last = await fn();
            if (last) return last;
        } catch (e) {
            last = e;
        }
        if (Date.now() > deadline) {
            throw new Error(`timed out after ${ms} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
        }
        await new Promise((r) => setTimeout(r, every));
    }
}

/** All pages of a list method, following nextCursor. Returns {items, pages}. */
export async function listAll(fetchPage, key, { maxPages = 1000 } = {}) {
    const items = [];
    const pages = [];
    let cursor;
    for (let i = 0; i < maxPages; i++) {
        const page = await fetchPage(cursor === undefined ? {} : { cursor });
        pages.push(page);
        items.push(...page[key]);
        if (page.nextCursor === undefined) return { items, pages };
        cursor = page.nextCursor;
    }
    throw new Error(`more than ${maxPages} pages — nextCursor never ends`);
}

/** The text of every text content item, joined. */
export function textOf(result) {
    return (result.content || [])
        .filter((c) => c.type === 'text')
        .map((c) => c.text)
        .join('');
}
