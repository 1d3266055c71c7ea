// console_api.test.mjs — the admin console's API (/admin/api/v1/, web/console.h)
// against a real `dbmcp serve --http`: who gets in (no key, a client key, an
// admin key, a login session, an expired or revoked one), the CSRF token and
// Origin checks on every change, the security headers, the size and type
// limits, and that each change is one audited row with before and after.
// Runs on SQLite, or on PostgreSQL with DBMCP_TEST_PG (tests/cli/lib/db.mjs).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { ROOT, binExists, cli, createKey, httpServer, rawRequest, sql, sqlRows, tempDb } from './lib/dbmcp.mjs';

const API = '/admin/api/v1/';

if (!binExists()) throw new Error('build/dbmcp not built: run make first');

function adminKey(db, principal = 'root') {
    const r = cli(['keys', 'create', '--db', db, '--admin', '--principal', principal]);
    if (r.status !== 0) throw new Error(`keys create --admin exited ${r.status}: ${r.stderr}`);
    const key = r.stdout.trim();
    return { key, id: /^dbmcp_([^_]+)_/.exec(key)[1] };
}

/** One request to the console; JSON bodies are sent and parsed. */
async function req(srv, route, { method = 'GET', body, headers = {}, raw } = {}) {
    const h = { ...headers };
    let payload = raw;
    if (body !== undefined) {
        payload = JSON.stringify(body);
        h['Content-Type'] ??= 'application/json';
    }
    if (payload !== undefined) h['Content-Length'] = Buffer.byteLength(payload);
    const res = await rawRequest(srv.base + (route.startsWith('/') ? route : API + route), {
        method,
        headers: h,
        body: payload,
    });
    let json = null;
    try {
        json = JSON.parse(res.body);
    } catch {
        json = null;
    }
    return { ...res, json };
}

/** Log in with key; returns {cookie, csrf, setCookie}. */
async function login(srv, key) {
    const r = await req(srv, 'login', { method: 'POST', body: { key } });
    assert.equal(r.status, 200, `login: HTTP ${r.status} ${r.body}`);
    const setCookie = [].concat(r.headers['set-cookie'] ?? [])[0] ?? '';
    const cookie = setCookie.split(';')[0];
    assert.match(cookie, /^dbmcp_console=[a-z0-9]{40,}$/, `Set-Cookie: ${setCookie}`);
    return { cookie, csrf: r.json.csrf_token, setCookie };
}

async function setup(t, serveArgs = []) {
    const { db } = tempDb(t);
    const admin = adminKey(db);
    const client = createKey(db, 'default', ['--principal', 'bob']);
    const srv = await httpServer(t, db, serveArgs);
    return { db, admin, client, srv };
}

describe('console API: who gets in', () => {
    test('no key, no cookie: 401 on every endpoint; a made-up key cannot log in', async (t) => {
        const { srv } = await setup(t);
        for (const route of ['keys', 'audit', 'catalog/tools']) {
            const r = await req(srv, route);
            assert.equal(r.status, 401, `${route}: HTTP ${r.status} ${r.body}`);
            assert.equal(r.json.error.code, 'unauthorized');
        }
        const post = await req(srv, 'catalog/tools/enabled', { method: 'POST', body: { key: 'echo', enabled: false } });
        assert.equal(post.status, 401, `POST without a session: HTTP ${post.status}`);
        const bad = await req(srv, 'login', { method: 'POST', body: { key: 'dbmcp_nosuchkey_0000000000' } });
        assert.equal(bad.status, 401, `login with a made-up key: HTTP ${bad.status}`);
        assert.equal(bad.headers['set-cookie'], undefined, 'a failed login set a cookie');
        const session = await req(srv, 'session');
        assert.equal(session.status, 200);
        assert.equal(session.json.authenticated, false);
    });

    test('a client (non-admin) key: 403 at login and as a bearer, each refusal audited', async (t) => {
        const { db, client, srv } = await setup(t);
        const r = await req(srv, 'login', { method: 'POST', body: { key: client.key } });
        assert.equal(r.status, 403, `login with a client key: HTTP ${r.status} ${r.body}`);
        assert.equal(r.json.error.code, 'not_admin');
        assert.equal(r.headers['set-cookie'], undefined, 'a refused login set a cookie');
        const b = await req(srv, 'keys', { headers: { Authorization: `Bearer ${client.key}` } });
        assert.equal(b.status, 403, `bearer client key: HTTP ${b.status} ${b.body}`);
        assert.doesNotMatch(b.body, /dbmcp_|secret_hash/, 'a refusal leaked key data');
        const rows = sqlRows(db, "SELECT principal, key_id, method, status FROM dbmcp_audit WHERE status = 'denied' ORDER BY id");
        assert.deepEqual(
            rows.map((x) => [x.principal, x.key_id, x.method, x.status]),
            [
                ['bob', client.id, 'admin/login', 'denied'],
                ['bob', client.id, 'admin/api', 'denied'],
            ],
        );
    });

    test('an admin key logs in: HttpOnly, SameSite=Strict cookie on /admin, no Secure over plain HTTP', async (t) => {
        const { admin, srv } = await setup(t);
        const { setCookie, csrf, cookie } = await login(srv, admin.key);
        assert.match(setCookie, /; HttpOnly/);
        assert.match(setCookie, /; SameSite=Strict/);
        assert.match(setCookie, /; Path=\/admin;/);
        assert.doesNotMatch(setCookie, /Secure/);
        assert.match(csrf, /^[a-z0-9]{32}$/);
        const s = await req(srv, 'session', { headers: { Cookie: cookie } });
        assert.equal(s.json.principal, 'root');
        assert.equal(s.json.csrf_token, csrf);
        const keys = await req(srv, 'keys', { headers: { Cookie: cookie } });
        assert.equal(keys.status, 200);
        assert.equal(keys.json.items.length, 2);
        assert.ok(keys.json.items.every((k) => !('secret_hash' in k) && !('key' in k)), 'a key list shows secrets');
    });

    test('behind TLS (an https public URL) the cookie is Secure', async (t) => {
        const { admin, srv } = await setup(t, ['--public-url', 'https://console.example.test']);
        const r = await req(srv, 'login', {
            method: 'POST',
            body: { key: admin.key },
            headers: { Host: 'console.example.test' },
        });
        assert.equal(r.status, 200, `login: HTTP ${r.status} ${r.body}`);
        assert.match([].concat(r.headers['set-cookie'])[0], /; Secure/);
    });

    test('an expired session: 401 session_expired; a revoked admin key ends its sessions', async (t) => {
        const { db, srv } = await setup(t);
        const a = adminKey(db, 'first');
        const b = adminKey(db, 'second');
        const sa = await login(srv, a.key);
        const sb = await login(srv, b.key);
        sql(db, `UPDATE dbmcp_console_sessions SET expires_at = '2000-01-01T00:00:00.000Z' WHERE key_id = '${a.id}'`);
        const expired = await req(srv, 'keys', { headers: { Cookie: sa.cookie } });
        assert.equal(expired.status, 401, `expired session: HTTP ${expired.status} ${expired.body}`);
        assert.equal(expired.json.error.code, 'session_expired');
        const still = await req(srv, 'keys', { headers: { Cookie: sb.cookie } });
        assert.equal(still.status, 200, 'the other session ended too');
        const revoke = cli(['keys', 'revoke', '--db', db, b.id]);
        assert.equal(revoke.status, 0, revoke.stderr);
        const after = await req(srv, 'keys', { headers: { Cookie: sb.cookie } });
        assert.equal(after.status, 401, `session of a revoked key: HTTP ${after.status} ${after.body}`);
    });

    test('logout ends the session and clears the cookie', async (t) => {
        const { admin, srv } = await setup(t);
        const s = await login(srv, admin.key);
        const out = await req(srv, 'logout', { method: 'POST', body: {}, headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf } });
        assert.equal(out.status, 200, `logout: HTTP ${out.status} ${out.body}`);
        assert.match([].concat(out.headers['set-cookie'])[0], /^dbmcp_console=; .*Max-Age=0/);
        const after = await req(srv, 'keys', { headers: { Cookie: s.cookie } });
        assert.equal(after.status, 401, 'the session still works after logout');
    });
});

describe('console API: under load', () => {
    test('48 concurrent key-authenticated requests (admin and client keys) are all answered', async (t) => {
        const { admin, client, srv } = await setup(t);
        const calls = [];
        for (let i = 0; i < 48; i++) {
            const key = i % 4 === 3 ? client.key : admin.key;
            calls.push(req(srv, 'keys', { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status));
        }
        const statuses = await Promise.all(calls);
        assert.deepEqual(
            statuses.filter((s, i) => s !== (i % 4 === 3 ? 403 : 200)),
            [],
            `statuses: ${statuses.join(' ')}`,
        );
    });
});

describe('console API: changes need the CSRF token and the console origin', () => {
    test('missing or wrong X-CSRF-Token: 403 and nothing changes; the right one: the change is made', async (t) => {
        const { db, admin, srv } = await setup(t);
        const s = await login(srv, admin.key);
        const body = { key: 'echo', enabled: false };
        const enabled = () => sqlRows(db, "SELECT enabled FROM dbmcp_tools WHERE name = 'echo'")[0].enabled;
        for (const headers of [{ Cookie: s.cookie }, { Cookie: s.cookie, 'X-CSRF-Token': 'x'.repeat(32) }]) {
            const r = await req(srv, 'catalog/tools/enabled', { method: 'POST', body, headers });
            assert.equal(r.status, 403, `CSRF ${headers['X-CSRF-Token'] ?? 'missing'}: HTTP ${r.status} ${r.body}`);
            assert.equal(r.json.error.code, 'csrf');
            assert.equal(Number(enabled()), 1, 'the tool was disabled without a valid CSRF token');
        }
        const ok = await req(srv, 'catalog/tools/enabled', { method: 'POST', body, headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf } });
        assert.equal(ok.status, 200, `with the token: HTTP ${ok.status} ${ok.body}`);
        assert.equal(Number(enabled()), 0);
    });

    test('a foreign Origin is refused (403), also another loopback port; the console origin passes', async (t) => {
        const { admin, srv } = await setup(t);
        const s = await login(srv, admin.key);
        const headers = { Cookie: s.cookie, 'X-CSRF-Token': s.csrf };
        const change = (origin) =>
            req(srv, 'catalog/tools/enabled', { method: 'POST', body: { key: 'echo', enabled: false }, headers: { ...headers, Origin: origin } });
        const evil = await change('http://evil.example');
        assert.equal(evil.status, 403, `foreign origin: HTTP ${evil.status}`);
        const port = await change('http://127.0.0.1:1');
        assert.equal(port.status, 403, `other loopback port: HTTP ${port.status} ${port.body}`);
        const evilLogin = await req(srv, 'login', { method: 'POST', body: { key: admin.key }, headers: { Origin: 'http://127.0.0.1:1' } });
        assert.equal(evilLogin.status, 403, `login from another origin: HTTP ${evilLogin.status}`);
        const own = await change(srv.base);
        assert.equal(own.status, 200, `own origin: HTTP ${own.status} ${own.body}`);
    });

    test('a bearer admin key (scripts) changes without a cookie or CSRF token', async (t) => {
        const { admin, srv } = await setup(t);
        const r = await req(srv, 'catalog/tools/enabled', {
            method: 'POST',
            body: { key: 'echo', enabled: false },
            headers: { Authorization: `Bearer ${admin.key}` },
        });
        assert.equal(r.status, 200, `bearer admin: HTTP ${r.status} ${r.body}`);
    });

    test('bad requests: form posts (415), broken JSON (400), big bodies (413), unknown versions (404)', async (t) => {
        const { admin, srv } = await setup(t);
        const form = await req(srv, 'login', { method: 'POST', raw: `key=${admin.key}`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
        assert.equal(form.status, 415, `form post: HTTP ${form.status}`);
        const broken = await req(srv, 'login', { method: 'POST', raw: '{"key": ', headers: { 'Content-Type': 'application/json' } });
        assert.equal(broken.status, 400, `broken JSON: HTTP ${broken.status}`);
        assert.match(broken.json.error.message, /JSON object/);
        const big = await req(srv, 'login', { method: 'POST', raw: JSON.stringify({ key: 'x'.repeat(70000) }), headers: { 'Content-Type': 'application/json' } });
        assert.equal(big.status, 413, `70 KB body: HTTP ${big.status}`);
        const v2 = await req(srv, '/admin/api/v2/keys', { headers: { Authorization: `Bearer ${admin.key}` } });
        assert.equal(v2.status, 404);
        const put = await req(srv, 'keys', { method: 'PUT', headers: { Authorization: `Bearer ${admin.key}` } });
        assert.equal(put.status, 405);
    });
});

describe('console: pages and headers', () => {
    test('every /admin answer has the security headers; the page has no inline script', async (t) => {
        const { srv } = await setup(t);
        for (const path of ['/admin/', '/admin/console.js', '/admin/console.css', '/admin/favicon.svg', API + 'keys', '/admin/nope']) {
            const r = await rawRequest(srv.base + path, { method: 'GET' });
            const csp = r.headers['content-security-policy'] ?? '';
            assert.match(csp, /script-src 'self'/, `${path}: CSP ${csp}`);
            assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, `${path}: CSP ${csp}`);
            assert.match(csp, /frame-ancestors 'none'/);
            assert.equal(r.headers['x-frame-options'], 'DENY', path);
            assert.equal(r.headers['x-content-type-options'], 'nosniff', path);
            assert.equal(r.headers['referrer-policy'], 'no-referrer', path);
        }
        const page = await rawRequest(srv.base + '/admin/', { method: 'GET' });
        assert.equal(page.status, 200);
        assert.match(page.headers['content-type'], /^text\/html/);
        for (const tag of page.body.match(/<script[^>]*>/g) ?? []) assert.match(tag, /src="\/admin\/console\.js"/, `inline script: ${tag}`);
        assert.doesNotMatch(page.body, /\son[a-z]+=|style=/i, 'inline handler or style in index.html');
        const js = await rawRequest(srv.base + '/admin/console.js', { method: 'GET' });
        assert.equal(js.status, 200);
        assert.ok(js.body.length > 5000, 'the bundle is missing');
        const redirect = await rawRequest(srv.base + '/admin', { method: 'GET' });
        assert.equal(redirect.status, 308);
        assert.equal(redirect.headers.location, '/admin/');
    });
});

describe('console API: changes are audited and use the CLI path', () => {
    test('disable, membership, key create and revoke: one audit row each, with who and before/after', async (t) => {
        const { db, admin, client, srv } = await setup(t);
        const s = await login(srv, admin.key);
        const headers = { Cookie: s.cookie, 'X-CSRF-Token': s.csrf };
        const post = (route, body) => req(srv, route, { method: 'POST', body, headers });
        assert.equal((await post('catalog/tools/enabled', { key: 'echo', enabled: false })).status, 200);
        assert.equal((await post('catalog/tools/membership', { key: 'echo', interfaces: [] })).status, 200);
        const created = await post('keys', { interface: 'default', principal: 'carol' });
        assert.equal(created.status, 201, created.body);
        assert.match(created.json.key, /^dbmcp_[a-z0-9]{12}_[a-z0-9]{40}$/);
        assert.equal((await post('keys/revoke', { id: client.id })).status, 200);
        const missing = await post('catalog/tools/enabled', { key: 'no_such_tool', enabled: false });
        assert.equal(missing.status, 404, missing.body);
        assert.match(missing.json.error.message, /no_such_tool/);

        const rows = sqlRows(db, "SELECT principal, key_id, transport, method, target, status, change_json FROM dbmcp_audit WHERE transport = 'console' AND method <> 'admin/login' ORDER BY id");
        const shape = rows.map((r) => [r.principal, r.key_id, r.method, r.target, r.status, r.change_json && JSON.parse(r.change_json)]);
        assert.deepEqual(shape, [
            ['root', admin.id, 'admin/tools.disable', 'echo', 'ok', { before: { enabled: true }, after: { enabled: false } }],
            ['root', admin.id, 'admin/tools.membership', 'echo', 'ok', { before: { interfaces: ['default'] }, after: { interfaces: [] } }],
            ['root', admin.id, 'admin/keys.create', created.json.id, 'ok', { before: null, after: { id: created.json.id, principal: 'carol', interface: 'default', role: 'client' } }],
            ['root', admin.id, 'admin/keys.revoke', client.id, 'ok', shape[3][5]],
            ['root', admin.id, 'admin/tools.disable', 'no_such_tool', 'error', null],
        ]);
        assert.match(shape[3][5].after.revoked_at, /^\d{4}-\d\d-\d\dT/);
        const audit = await req(srv, 'audit?tool=echo&status=ok', { headers: { Cookie: s.cookie } });
        assert.equal(audit.status, 200);
        assert.deepEqual(audit.json.items.map((r) => r.method), ['admin/tools.membership', 'admin/tools.disable']);
        const one = await req(srv, `audit?call_id=${audit.json.items[0].call_id}`, { headers: { Cookie: s.cookie } });
        assert.equal(one.json.items.length, 1);
        assert.deepEqual(one.json.items[0].change.after, { interfaces: [] });
        const badStatus = await req(srv, 'audit?status=maybe', { headers: { Cookie: s.cookie } });
        assert.equal(badStatus.status, 400);
    });
});

describe('docs/console.md', () => {
    test('the curl examples for scripts run as shown', async (t) => {
        const { admin, srv } = await setup(t);
        const doc = readFileSync(path.join(ROOT, 'docs', 'console.md'), 'utf8');
        const commands = doc
            .replace(/\\\n\s*/g, ' ')
            .split('\n')
            .map((l) => l.replace(/^\$ /, ''))
            .filter((l) => /^curl -s '?http:\/\/127\.0\.0\.1:8080\/admin\/api\/v1\//.test(l));
        assert.equal(commands.length, 2, `curl examples found: ${commands.join('\n')}`);
        for (const c of commands) {
            const r = spawnSync('bash', ['-c', c.replaceAll('127.0.0.1:8080', `127.0.0.1:${srv.port}`)], {
                encoding: 'utf8',
                env: { ...process.env, ADMIN_KEY: admin.key },
                timeout: 30000,
            });
            assert.equal(r.status, 0, `${c}: ${r.stderr}`);
            const out = JSON.parse(r.stdout);
            assert.ok(!out.error, `${c}: ${r.stdout}`);
        }
    });
});
