// Protocol tests for dbmcp, driven by the official MCP TypeScript SDK client
// (and raw HTTP / raw stdio where the SDK would hide what is being checked).
//
// Every test makes its own temp database with `dbmcp init`, starts its own
// server (stdio, or HTTP on a port the system picks) and cleans up after itself.
// Nothing here asserts timings; waits for asynchronous effects
// (notifications, audit rows) use generous timeouts.
//
// Run: node --test --test-reporter=spec protocol.test.mjs
// (scripts/protocol-tests.sh does exactly that). DBMCP_BIN overrides the
// binary (default build/dbmcp).
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import readline from 'node:readline';

import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import {
    BIN,
    WAIT_MS,
    binExists,
    cli,
    sql,
    sqlRows,
    tempDb,
    stdioClient,
    httpServer,
    httpClient,
    createKey,
    waitExit,
    stopProcess,
    rawRequest,
    postMcp,
    parseMessages,
    rawInitialize,
    INIT_PARAMS,
    waitFor,
    listAll,
    textOf,
} from './lib/dbmcp.mjs';

const INVALID_PARAMS = -32602;
const PARSE_ERROR = -32700;
// The tools `dbmcp init` lists in the `default` interface (src/store/seed/base.sql),
// in tools/list order: position, then name.
const BASE_TOOLS = ['echo', 'server_info', 'list_tables', 'describe_table', 'search_objects', 'execute_query'];
const BASE_WITHOUT_ECHO = BASE_TOOLS.filter((n) => n !== 'echo');

before(() => {
    assert.ok(binExists(), `${BIN} does not exist — build it first (make -j2)`);
});

/** Assert that promise rejects with an McpError of the given code; returns the error. */
async function rejectsWithCode(promise, code, what) {
    let err;
    try {
        const value = await promise;
        assert.fail(`${what}: expected JSON-RPC error ${code}, got a result: ${JSON.stringify(value)}`);
    } catch (e) {
        if (e instanceof assert.AssertionError) throw e;
        err = e;
    }
    assert.ok(err instanceof McpError, `${what}: expected an McpError, got ${err?.constructor?.name}: ${err?.message}`);
    assert.equal(err.code, code, `${what}: error code (message: ${err.message})`);
    return err;
}

/** SQL string literal. */
const q = (s) => `'${String(s).replace(/'/g, "''")}'`;

/** A resolvable counter of notifications received by a handler. */
function notificationCounter() {
    const box = { count: 0, waiters: [] };
    box.handler = () => {
        box.count++;
        for (const w of box.waiters.splice(0)) w();
    };
    box.waitBeyond = (n, ms = WAIT_MS, what = 'notification') =>
        new Promise((resolve, reject) => {
            if (box.count > n) return resolve(box.count);
            const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms (received ${box.count})`)), ms);
            const check = () => {
                if (box.count > n) {
                    clearTimeout(timer);
                    resolve(box.count);
                } else box.waiters.push(check);
            };
            box.waiters.push(check);
        });
    return box;
}

// ---------------------------------------------------------------------------
// 1. stdio basics
// ---------------------------------------------------------------------------
describe('stdio: lifecycle and tools', () => {
    test('initialize returns serverInfo dbmcp and instructions warning about untrusted data', async (t) => {
        const { db } = tempDb(t);
        const { client } = await stdioClient(t, db);
        const info = client.getServerVersion();
        assert.equal(info?.name, 'dbmcp');
        assert.equal(typeof info.version, 'string');
        assert.ok(info.version.length > 0, 'serverInfo.version is empty');
        const instructions = client.getInstructions();
        assert.equal(typeof instructions, 'string', 'initialize result has no instructions');
        assert.match(instructions, /untrusted/i);
        const caps = client.getServerCapabilities();
        assert.ok(caps?.tools, 'server does not advertise the tools capability');
        await client.ping();
    });

    test('tools/list is deterministic and lists the base tools in catalog order', async (t) => {
        const { db } = tempDb(t);
        const { client } = await stdioClient(t, db);
        const first = await client.listTools();
        const second = await client.listTools();
        assert.deepEqual(second, first, 'two tools/list calls returned different results');
        assert.deepEqual(
            first.tools.map((x) => x.name),
            BASE_TOOLS,
        );
        assert.equal(first.nextCursor, undefined, 'the base tool list should fit in one page');
        for (const tool of first.tools) {
            assert.equal(tool.inputSchema?.type, 'object', `${tool.name}: inputSchema.type`);
            assert.ok(tool.description?.length > 0, `${tool.name}: empty description`);
        }
        const echo = first.tools.find((x) => x.name === 'echo');
        assert.deepEqual(echo.inputSchema.required, ['text']);
        assert.equal(echo.annotations?.readOnlyHint, true);
    });

    test('tools/call echo returns the text unchanged', async (t) => {
        const { db } = tempDb(t);
        const { client } = await stdioClient(t, db);
        const text = 'hello, wörld 🌍 "quoted" \\ back\nslash';
        const result = await client.callTool({ name: 'echo', arguments: { text } });
        assert.ok(!result.isError, `echo returned isError: ${JSON.stringify(result)}`);
        assert.deepEqual(result.content, [{ type: 'text', text }]);
        assert.equal(typeof result._meta?.['dbmcp/callId'], 'string', 'result._meta["dbmcp/callId"] missing');
    });

    test('tools/call with bad arguments returns isError naming the field', async (t) => {
        const { db } = tempDb(t);
        const { client } = await stdioClient(t, db);

        const wrongType = await client.callTool({ name: 'echo', arguments: { text: 5 } });
        assert.equal(wrongType.isError, true, `text: 5 → ${JSON.stringify(wrongType)}`);
        assert.match(textOf(wrongType), /\btext\b/, 'message for text: 5 does not name the field');

        const unknownProp = await client.callTool({ name: 'echo', arguments: { text: 'a', colour: 'red' } });
        assert.equal(unknownProp.isError, true, `unknown property → ${JSON.stringify(unknownProp)}`);
        assert.match(textOf(unknownProp), /\bcolour\b/, 'message for an unknown property does not name it');

        const missing = await client.callTool({ name: 'echo', arguments: {} });
        assert.equal(missing.isError, true, `missing required → ${JSON.stringify(missing)}`);
        assert.match(textOf(missing), /\btext\b/, 'message for a missing required argument does not name it');
    });

    test('unknown tool → JSON-RPC error -32602', async (t) => {
        const { db } = tempDb(t);
        const { client } = await stdioClient(t, db);
        const err = await rejectsWithCode(
            client.callTool({ name: 'no_such_tool', arguments: {} }),
            INVALID_PARAMS,
            'tools/call no_such_tool',
        );
        assert.match(err.message, /no_such_tool/, 'error message does not name the unknown tool');
        // The connection is still usable afterwards.
        const ok = await client.callTool({ name: 'echo', arguments: { text: 'still here' } });
        assert.equal(textOf(ok), 'still here');
    });

    test('a tool disabled via SQL is not listed and answers exactly like an unknown tool', async (t) => {
        const { db } = tempDb(t);
        sql(db, "UPDATE dbmcp_tools SET enabled=0 WHERE name='echo'");
        const { client } = await stdioClient(t, db);
        const { tools } = await client.listTools();
        assert.deepEqual(
            tools.map((x) => x.name),
            BASE_WITHOUT_ECHO,
        );
        const disabled = await rejectsWithCode(
            client.callTool({ name: 'echo', arguments: { text: 'x' } }),
            INVALID_PARAMS,
            'tools/call of a disabled tool',
        );
        const unknown = await rejectsWithCode(
            client.callTool({ name: 'zz_unknown', arguments: { text: 'x' } }),
            INVALID_PARAMS,
            'tools/call of an unknown tool',
        );
        const norm = (e, name) => JSON.stringify({ m: e.message, d: e.data ?? null }).split(name).join('<NAME>');
        assert.equal(norm(disabled, 'echo'), norm(unknown, 'zz_unknown'), 'disabled and unknown tools answer differently');
    });

    test('--allowed-tools echo hides server_info from list and call', async (t) => {
        const { db } = tempDb(t);
        const { client } = await stdioClient(t, db, ['--allowed-tools', 'echo']);
        const { tools } = await client.listTools();
        assert.deepEqual(
            tools.map((x) => x.name),
            ['echo'],
        );
        await rejectsWithCode(client.callTool({ name: 'server_info', arguments: {} }), INVALID_PARAMS, 'tools/call server_info outside --allowed-tools');
        const ok = await client.callTool({ name: 'echo', arguments: { text: 'allowed' } });
        assert.equal(textOf(ok), 'allowed');
    });

    test('--interface naming a disabled or missing interface is refused at start', async (t) => {
        const { db } = tempDb(t, { demo: true, conformance: true });
        for (const iface of ['conformance', 'no_such_interface']) {
            const r = cli(['serve', '--db', db, '--interface', iface], { input: '' });
            assert.notEqual(r.status, 0, `serve --interface ${iface} exited 0`);
            assert.match(r.stderr, new RegExp(iface), `stderr does not name ${iface}: ${r.stderr}`);
            assert.equal(r.stdout, '', 'nothing may be written to stdout');
        }
    });

    test('server_info reports the interface the client is connected to', async (t) => {
        const { db } = tempDb(t);
        const { client } = await stdioClient(t, db);
        const result = await client.callTool({ name: 'server_info', arguments: {} });
        assert.ok(!result.isError, JSON.stringify(result));
        assert.match(textOf(result), /default/);
    });
});

// ---------------------------------------------------------------------------
// 2. pagination
// ---------------------------------------------------------------------------
describe('pagination', () => {
    test('tools/list with page size 2 follows nextCursor through every tool of the interface', async (t) => {
        const { db } = tempDb(t, { demo: true });
        sql(db, "UPDATE dbmcp_settings SET value='2' WHERE key='server.page_size'");
        const expected = sqlRows(
            db,
            `SELECT t.name FROM dbmcp_interface_tools it JOIN dbmcp_tools t ON t.name = it.tool
             WHERE it.interface = 'chatbot' AND t.enabled = 1 ORDER BY it.position, t.name`,
        ).map((r) => r.name);
        assert.ok(expected.length > 2, `demo chatbot interface has only ${expected.length} tools; pagination would not be exercised`);

        const { client } = await stdioClient(t, db, ['--interface', 'chatbot']);
        const { items, pages } = await listAll((p) => client.listTools(p), 'tools');
        for (const [i, page] of pages.entries()) {
            assert.ok(page.tools.length <= 2, `page ${i} has ${page.tools.length} tools with page size 2`);
            if (i < pages.length - 1) assert.equal(page.tools.length, 2, `page ${i} is short but has a nextCursor`);
        }
        assert.equal(pages.length, Math.ceil(expected.length / 2), 'number of pages');
        const names = items.map((x) => x.name);
        assert.equal(new Set(names).size, names.length, `duplicates across pages: ${names}`);
        assert.deepEqual(names, expected, 'paged tools/list differs from the catalog (order: position, name)');

        // Paging again gives the same sequence.
        const again = await listAll((p) => client.listTools(p), 'tools');
        assert.deepEqual(
            again.items.map((x) => x.name),
            names,
        );
    });

    test('an invalid cursor → -32602', async (t) => {
        const { db } = tempDb(t, { demo: true });
        sql(db, "UPDATE dbmcp_settings SET value='2' WHERE key='server.page_size'");
        const { client } = await stdioClient(t, db, ['--interface', 'chatbot']);
        await rejectsWithCode(client.listTools({ cursor: 'not-a-cursor' }), INVALID_PARAMS, 'tools/list cursor "not-a-cursor"');
        await rejectsWithCode(client.listTools({ cursor: '' }), INVALID_PARAMS, 'tools/list cursor ""');
        // Still serving.
        const first = await client.listTools();
        assert.equal(first.tools.length, 2);
    });
});

// ---------------------------------------------------------------------------
// 3. resources, prompts, completion (demo database)
// ---------------------------------------------------------------------------

/** Expand a level-1 RFC 6570 template. */
function expandTemplate(template, vars) {
    return template.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(vars[name]));
}
const templateVars = (template) => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

describe('resources, prompts and completion', () => {
    test('resources/list and resources/read of a demo document', async (t) => {
        const { db } = tempDb(t, { demo: true });
        const { client } = await stdioClient(t, db, ['--interface', 'document_analysis']);
        assert.ok(client.getServerCapabilities()?.resources, 'resources capability not advertised');
        const { items } = await listAll((p) => client.listResources(p), 'resources');
        const doc = items.find((r) => r.uri.startsWith('doc://tarif/'));
        assert.ok(doc, `no doc://tarif/* resource listed; got ${items.map((r) => r.uri)}`);
        assert.ok(doc.name, 'resource without name');

        const read = await client.readResource({ uri: doc.uri });
        assert.equal(read.contents.length, 1);
        const [c] = read.contents;
        assert.equal(c.uri, doc.uri);
        if (doc.mimeType) assert.equal(c.mimeType, doc.mimeType, 'mimeType differs between list and read');
        const [row] = sqlRows(db, `SELECT content_text FROM dbmcp_resources WHERE uri = ${q(doc.uri)}`);
        assert.ok(row, `listed resource ${doc.uri} is not a dbmcp_resources row`);
        assert.equal(c.text, row.content_text, 'read text differs from the stored content');
        assert.ok(c.text.length > 0);
    });

    test('resources/templates/list, completion of a template variable, and read via the template', async (t) => {
        const { db } = tempDb(t, { demo: true });
        const { client } = await stdioClient(t, db, ['--interface', 'document_analysis']);
        const { items: templates } = await listAll((p) => client.listResourceTemplates(p), 'resourceTemplates');
        assert.ok(templates.length > 0, 'no resource templates listed for document_analysis');
        for (const tpl of templates) {
            assert.ok(tpl.name, 'template without name');
            assert.ok(templateVars(tpl.uriTemplate).length > 0, `template ${tpl.uriTemplate} has no variables`);
        }

        // Find a template whose first variable completes to something.
        let chosen;
        for (const tpl of templates) {
            const [v] = templateVars(tpl.uriTemplate);
            const res = await client.complete({ ref: { type: 'ref/resource', uri: tpl.uriTemplate }, argument: { name: v, value: '' } });
            if (res.completion.values.length > 0 && templateVars(tpl.uriTemplate).length === 1) {
                chosen = { tpl, v, values: res.completion.values };
                break;
            }
        }
        assert.ok(chosen, `no single-variable template of ${templates.map((x) => x.uriTemplate)} offers completions`);

        // Completion filters by prefix (case-insensitive).
        const sample = chosen.values[0];
        const prefix = sample.slice(0, 1);
        const filtered = await client.complete({
            ref: { type: 'ref/resource', uri: chosen.tpl.uriTemplate },
            argument: { name: chosen.v, value: prefix.toLowerCase() },
        });
        assert.ok(filtered.completion.values.includes(sample), `completing "${prefix.toLowerCase()}" lost ${sample}`);
        for (const value of filtered.completion.values) {
            assert.ok(value.toLowerCase().startsWith(prefix.toLowerCase()), `completion "${value}" does not match prefix "${prefix}"`);
        }
        const none = await client.complete({
            ref: { type: 'ref/resource', uri: chosen.tpl.uriTemplate },
            argument: { name: chosen.v, value: 'zzqqxx-no-such-value' },
        });
        assert.deepEqual(none.completion.values, []);

        // Read through the template with a completed value.
        const uri = expandTemplate(chosen.tpl.uriTemplate, { [chosen.v]: sample });
        const read = await client.readResource({ uri });
        assert.equal(read.contents.length, 1);
        assert.equal(read.contents[0].uri, uri);
        const body = read.contents[0].text ?? read.contents[0].blob;
        assert.ok(body && body.length > 0, `empty content reading ${uri}`);
    });

    test('resources/read of an unknown URI → JSON-RPC error', async (t) => {
        const { db } = tempDb(t, { demo: true });
        const { client } = await stdioClient(t, db, ['--interface', 'document_analysis']);
        for (const uri of ['doc://tarif/no-such-document-xyz', 'nope://nothing/here']) {
            let err;
            try {
                const r = await client.readResource({ uri });
                assert.fail(`reading ${uri} returned a result: ${JSON.stringify(r)}`);
            } catch (e) {
                if (e instanceof assert.AssertionError) throw e;
                err = e;
            }
            assert.ok(err instanceof McpError, `reading ${uri}: ${err}`);
            // 2025-11-25 clients get -32002 (legacy); the modern revision uses -32602.
            assert.ok([-32002, INVALID_PARAMS].includes(err.code), `reading ${uri}: code ${err.code} (${err.message})`);
        }
        // Still serving.
        const { resources } = await client.listResources();
        assert.ok(Array.isArray(resources));
    });

    test('prompts/list and prompts/get substitute arguments; a missing required argument → -32602', async (t) => {
        const { db } = tempDb(t, { demo: true });
        const rows = sqlRows(db, "SELECT interface FROM dbmcp_interface_prompts WHERE prompt = 'tarif_summary' ORDER BY interface = 'document_analysis' DESC, interface");
        assert.ok(rows.length > 0, 'demo database has no interface exposing prompt tarif_summary');
        const iface = rows[0].interface;
        const { client } = await stdioClient(t, db, ['--interface', iface]);
        assert.ok(client.getServerCapabilities()?.prompts, 'prompts capability not advertised');

        const { items } = await listAll((p) => client.listPrompts(p), 'prompts');
        const prompt = items.find((p) => p.name === 'tarif_summary');
        assert.ok(prompt, `tarif_summary not in prompts/list of ${iface}: ${items.map((p) => p.name)}`);
        const argNames = (prompt.arguments ?? []).map((a) => a.name).sort();
        assert.deepEqual(argNames, ['region', 'sector']);

        const region = 'Nordmarkxyz';
        const sector = 'Gastgewerbe-Test';
        const got = await client.getPrompt({ name: 'tarif_summary', arguments: { region, sector } });
        assert.ok(got.messages.length > 0);
        const all = got.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
        assert.ok(all.includes(region), `region not substituted: ${all}`);
        assert.ok(all.includes(sector), `sector not substituted: ${all}`);
        assert.doesNotMatch(all, /\{\{\s*(region|sector)\s*\}\}/, 'placeholders left in the prompt');
        for (const m of got.messages) assert.ok(['user', 'assistant'].includes(m.role), `role ${m.role}`);

        const required = (prompt.arguments ?? []).filter((a) => a.required).map((a) => a.name);
        assert.ok(required.length > 0, 'tarif_summary declares no required argument');
        const args = { region, sector };
        delete args[required[0]];
        const err = await rejectsWithCode(client.getPrompt({ name: 'tarif_summary', arguments: args }), INVALID_PARAMS, `prompts/get without ${required[0]}`);
        assert.match(err.message, new RegExp(required[0]), 'error does not name the missing argument');

        await rejectsWithCode(client.getPrompt({ name: 'no_such_prompt', arguments: {} }), INVALID_PARAMS, 'prompts/get unknown prompt');
    });
});

// ---------------------------------------------------------------------------
// 4. list_changed
// ---------------------------------------------------------------------------
describe('list_changed', () => {
    test('a plain-SQL catalog change reaches a connected stdio client as notifications/tools/list_changed', async (t) => {
        const { db } = tempDb(t);
        const { client } = await stdioClient(t, db);
        assert.equal(client.getServerCapabilities()?.tools?.listChanged, true, 'tools.listChanged not advertised');
        const seen = notificationCounter();
        client.setNotificationHandler(ToolListChangedNotificationSchema, seen.handler);
        const before = await client.listTools();
        assert.deepEqual(
            before.tools.map((x) => x.name),
            BASE_TOOLS,
        );

        // Disable a tool.
        sql(db, "UPDATE dbmcp_tools SET enabled=0 WHERE name='echo'");
        await seen.waitBeyond(0, WAIT_MS, 'tools/list_changed after disabling echo');
        const afterDisable = await client.listTools();
        assert.deepEqual(
            afterDisable.tools.map((x) => x.name),
            BASE_WITHOUT_ECHO,
        );
        await rejectsWithCode(client.callTool({ name: 'echo', arguments: { text: 'x' } }), INVALID_PARAMS, 'calling echo after it was disabled');

        // Add a tool (builtin handler under a new name) to the interface.
        const n = seen.count;
        sql(
            db,
            `INSERT INTO dbmcp_tools (name, description, input_schema, handler_kind, handler) VALUES
               ('shout', 'Echo under another name',
                '{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}',
                'builtin', 'echo');
             INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES ('default', 'shout', 3);`,
        );
        await seen.waitBeyond(n, WAIT_MS, 'tools/list_changed after inserting shout');
        const afterInsert = await client.listTools();
        assert.deepEqual(
            afterInsert.tools.map((x) => x.name),
            ['server_info', 'shout', ...BASE_TOOLS.slice(2)],
        );
        const r = await client.callTool({ name: 'shout', arguments: { text: 'new tool' } });
        assert.equal(textOf(r), 'new tool');
    });
});

// ---------------------------------------------------------------------------
// 5. Streamable HTTP
// ---------------------------------------------------------------------------
const initMsg = (id = 1) => ({ jsonrpc: '2.0', id, method: 'initialize', params: INIT_PARAMS });

describe('Streamable HTTP', () => {
    test('SDK client with a bearer key lists and calls tools; the call is audited as http', async (t) => {
        const { db } = tempDb(t);
        const { key } = createKey(db, 'default');
        const srv = await httpServer(t, db);
        const { client } = await httpClient(t, srv.url, key);
        assert.equal(client.getServerVersion()?.name, 'dbmcp');
        const { tools } = await client.listTools();
        assert.deepEqual(
            tools.map((x) => x.name),
            BASE_TOOLS,
        );
        const r = await client.callTool({ name: 'echo', arguments: { text: 'over http' } });
        assert.ok(!r.isError, JSON.stringify(r));
        assert.equal(textOf(r), 'over http');
        const callId = r._meta?.['dbmcp/callId'];
        assert.equal(typeof callId, 'string', 'no _meta["dbmcp/callId"] over HTTP');
        const row = await waitFor(() => sqlRows(db, `SELECT method, target, status, transport, client_name FROM dbmcp_audit WHERE call_id = ${q(callId)}`)[0], {
            what: `audit row for call ${callId}`,
        });
        assert.deepEqual(row, { method: 'tools/call', target: 'echo', status: 'ok', transport: 'http', client_name: 'dbmcp-protocol-tests' });
    });

    test('no key → 401 with WWW-Authenticate resource_metadata; the metadata document names the resource', async (t) => {
        const { db } = tempDb(t);
        const srv = await httpServer(t, db);
        const res = await postMcp(srv.url, initMsg());
        assert.equal(res.status, 401, `no key: HTTP ${res.status} ${res.body}`);
        const www = res.headers['www-authenticate'];
        assert.ok(www, '401 without WWW-Authenticate');
        assert.match(www, /^Bearer\b/i);
        const m = /resource_metadata="([^"]+)"/.exec(www);
        assert.ok(m, `WWW-Authenticate has no resource_metadata: ${www}`);
        assert.equal(m[1], `${srv.base}/.well-known/oauth-protected-resource`);

        const meta = await rawRequest(m[1], { method: 'GET' });
        assert.equal(meta.status, 200, `GET ${m[1]} → ${meta.status}`);
        assert.match(String(meta.headers['content-type']), /application\/json/);
        const doc = JSON.parse(meta.body);
        assert.equal(doc.resource, srv.url);

        // The SDK client without a key cannot connect either.
        const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
        const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
        const c = new Client({ name: 'nokey', version: '0' });
        await assert.rejects(c.connect(new StreamableHTTPClientTransport(new URL(srv.url))));
        await c.close().catch(() => {});
    });

    test('bad keys → 401', async (t) => {
        const { db } = tempDb(t);
        const { key, id } = createKey(db, 'default');
        const srv = await httpServer(t, db);
        const bad = [
            `dbmcp_${id}_wrongsecretwrongsecret`, // right id, wrong secret
            `${key}x`, // trailing garbage
            'dbmcp_nosuchid_nosuchsecret', // unknown id
            'not-a-dbmcp-key',
        ];
        for (const k of bad) {
            const res = await postMcp(srv.url, initMsg(), { key: k });
            assert.equal(res.status, 401, `key ${k}: HTTP ${res.status} ${res.body}`);
            assert.match(String(res.headers['www-authenticate']), /resource_metadata=/);
        }
        const basic = await postMcp(srv.url, initMsg(), { headers: { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
        assert.equal(basic.status, 401, `Basic auth: HTTP ${basic.status}`);
        // The real key still works.
        const ok = await postMcp(srv.url, initMsg(), { key });
        assert.equal(ok.status, 200, `valid key: HTTP ${ok.status} ${ok.body}`);
    });

    test('a key revoked while the server runs → 401, also on its existing session', async (t) => {
        const { db } = tempDb(t);
        const { key, id } = createKey(db, 'default');
        const srv = await httpServer(t, db);
        const sessionId = await rawInitialize(srv.url, key);
        const before = await postMcp(srv.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { key, sessionId });
        assert.equal(before.status, 200, `before revoke: HTTP ${before.status} ${before.body}`);

        const r = cli(['keys', 'revoke', '--db', db, id]);
        assert.equal(r.status, 0, `dbmcp keys revoke exited ${r.status}: ${r.stderr}`);
        const [row] = sqlRows(db, `SELECT revoked_at FROM dbmcp_api_keys WHERE id = ${q(id)}`);
        assert.ok(row?.revoked_at, 'keys revoke did not set revoked_at');

        const fresh = await postMcp(srv.url, initMsg(), { key });
        assert.equal(fresh.status, 401, `initialize with a revoked key: HTTP ${fresh.status} ${fresh.body}`);
        const onSession = await postMcp(srv.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { key, sessionId });
        assert.equal(onSession.status, 401, `existing session with a revoked key: HTTP ${onSession.status} ${onSession.body}`);
    });

    test('Origin http://evil.example → 403; a loopback Origin is accepted', async (t) => {
        const { db } = tempDb(t);
        const { key } = createKey(db, 'default');
        const srv = await httpServer(t, db);
        const evil = await postMcp(srv.url, initMsg(), { key, headers: { Origin: 'http://evil.example' } });
        assert.equal(evil.status, 403, `evil Origin: HTTP ${evil.status} ${evil.body}`);
        const evilNoKey = await postMcp(srv.url, initMsg(), { headers: { Origin: 'http://evil.example' } });
        assert.ok([401, 403].includes(evilNoKey.status), `evil Origin without key: HTTP ${evilNoKey.status}`);
        const good = await postMcp(srv.url, initMsg(), { key, headers: { Origin: `http://127.0.0.1:${srv.port}` } });
        assert.equal(good.status, 200, `loopback Origin: HTTP ${good.status} ${good.body}`);
    });

    test('malformed JSON → 400 with JSON-RPC -32700, and the server keeps serving', async (t) => {
        const { db } = tempDb(t);
        const { key } = createKey(db, 'default');
        const srv = await httpServer(t, db);
        const res = await postMcp(srv.url, '{"jsonrpc":"2.0","id":1,"method":', { key });
        assert.equal(res.status, 400, `malformed JSON: HTTP ${res.status} ${res.body}`);
        const body = JSON.parse(res.body);
        assert.equal(body.jsonrpc, '2.0');
        assert.equal(body.error?.code, PARSE_ERROR, res.body);
        assert.equal(typeof body.error?.message, 'string');

        const { client } = await httpClient(t, srv.url, key);
        const r = await client.callTool({ name: 'echo', arguments: { text: 'after garbage' } });
        assert.equal(textOf(r), 'after garbage');
    });

    test('a body over 4 MiB → 413, and the server keeps serving', async (t) => {
        const { db } = tempDb(t);
        const { key } = createKey(db, 'default');
        const srv = await httpServer(t, db);
        const big = JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { ...INIT_PARAMS, padding: 'x'.repeat(4 * 1024 * 1024 + 16) },
        });
        let res;
        try {
            res = await postMcp(srv.url, big, { key });
        } catch (e) {
            assert.fail(`4 MiB body: the connection failed without an HTTP answer (${e.code ?? ''} ${e.message})`);
        }
        assert.equal(res.status, 413, `4 MiB body: HTTP ${res.status} ${res.body.slice(0, 200)}`);

        const { client } = await httpClient(t, srv.url, key);
        const { tools } = await client.listTools();
        assert.equal(tools.length, BASE_TOOLS.length);
    });

    test('clients that disconnect mid-request or mid-call do not stop the server', async (t) => {
        const { db } = tempDb(t, { conformance: true });
        sql(db, "UPDATE dbmcp_interfaces SET enabled=1 WHERE name='conformance'");
        const { key } = createKey(db, 'conformance');
        const { key: defaultKey } = createKey(db, 'default');
        const srv = await httpServer(t, db);

        // (a) Disconnect halfway through sending the body.
        await new Promise((resolve, reject) => {
            const sock = net.connect(srv.port, '127.0.0.1', () => {
                sock.write(
                    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nAuthorization: Bearer ${key}\r\n` +
                        'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":"2.0",',
                    () => {
                        sock.destroy();
                        resolve();
                    },
                );
            });
            sock.on('error', reject);
        });

        // (b) Abort a slow tools/call (progress tool) once its response has started.
        const sessionId = await rawInitialize(srv.url, key);
        const ac = new AbortController();
        const res = await fetch(srv.url, {
            method: 'POST',
            signal: ac.signal,
            headers: {
                'Content-Type': 'application/json',
                Accept: 'application/json, text/event-stream',
                Authorization: `Bearer ${key}`,
                'Mcp-Session-Id': sessionId,
                'MCP-Protocol-Version': '2025-11-25',
            },
            body: JSON.stringify({
                jsonrpc: '2.0',
                id: 7,
                method: 'tools/call',
                params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p1' } },
            }),
        });
        assert.equal(res.status, 200, `test_tool_with_progress: HTTP ${res.status}`);
        ac.abort();
        await res.body?.cancel().catch(() => {});

        // (c) Abort a request before any answer arrives.
        const ac2 = new AbortController();
        const pending = fetch(srv.url, {
            method: 'POST',
            signal: ac2.signal,
            headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${key}` },
            body: JSON.stringify(initMsg(9)),
        }).catch(() => null);
        ac2.abort();
        await pending;

        // The server is alive and answers on the old session and on new ones.
        assert.equal(srv.proc.exitCode, null, `dbmcp exited: ${srv.stderr.text}`);
        const again = await postMcp(
            srv.url,
            { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'test_simple_text', arguments: {} } },
            { key, sessionId },
        );
        assert.equal(again.status, 200, `same session after the abort: HTTP ${again.status} ${again.body}`);
        const msgs = parseMessages(again);
        const final = msgs.find((m) => m.id === 8);
        assert.ok(final?.result, `no result for test_simple_text: ${again.body}`);
        const { client } = await httpClient(t, srv.url, defaultKey);
        const r = await client.callTool({ name: 'echo', arguments: { text: 'alive' } });
        assert.equal(textOf(r), 'alive');
        assert.equal(srv.proc.exitCode, null);
    });

    test('the key fixes the interface: each key sees its own interface catalog', async (t) => {
        const { db } = tempDb(t, { demo: true });
        const chatbotTools = sqlRows(
            db,
            `SELECT t.name FROM dbmcp_interface_tools it JOIN dbmcp_tools t ON t.name = it.tool
             WHERE it.interface = 'chatbot' AND t.enabled = 1 ORDER BY it.position, t.name`,
        ).map((r) => r.name);
        const { key: chatbotKey } = createKey(db, 'chatbot');
        const { key: defaultKey } = createKey(db, 'default');
        const srv = await httpServer(t, db);
        const { client: chat } = await httpClient(t, srv.url, chatbotKey);
        const { items } = await listAll((p) => chat.listTools(p), 'tools');
        assert.deepEqual(
            items.map((x) => x.name),
            chatbotTools,
        );
        const { client: def } = await httpClient(t, srv.url, defaultKey);
        assert.deepEqual(
            (await def.listTools()).tools.map((x) => x.name),
            BASE_TOOLS,
        );
        // A tool of another interface is unknown to this key.
        const foreign = chatbotTools.find((n) => n !== 'echo' && n !== 'server_info');
        assert.ok(foreign, 'chatbot has no tool of its own');
        await rejectsWithCode(def.callTool({ name: foreign, arguments: {} }), INVALID_PARAMS, `default key calling chatbot tool ${foreign}`);
        const info = await chat.callTool({ name: 'server_info', arguments: {} });
        if (!info.isError) assert.match(textOf(info), /chatbot/);
    });

    test('keys create prints the key once; the database keeps only a hash of the secret', async (t) => {
        const { db, dir } = tempDb(t);
        const { key, id } = createKey(db, 'default', ['--user', 'alice', '--agent', 'bot-1']);
        const secret = key.slice(`dbmcp_${id}_`.length);
        const [row] = sqlRows(db, `SELECT principal, interface, user_id, agent_id, secret_hash, revoked_at FROM dbmcp_api_keys WHERE id = ${q(id)}`);
        assert.ok(row, 'no dbmcp_api_keys row for the printed id');
        assert.equal(row.interface, 'default');
        assert.equal(row.user_id, 'alice');
        assert.equal(row.agent_id, 'bot-1');
        assert.equal(row.revoked_at, null);
        assert.notEqual(row.secret_hash, secret);
        // The files of a SQLite database (on PostgreSQL the directory holds none).
        const { readdirSync, readFileSync } = await import('node:fs');
        for (const f of readdirSync(dir)) {
            assert.ok(!readFileSync(`${dir}/${f}`).includes(secret), `the secret is stored in plain text in ${f}`);
        }
        const { key: other } = createKey(db, 'default');
        assert.notEqual(other, key, 'two keys are identical');
    });

    test('legacy sessions: unknown id → 404, a session used with another key → 404, DELETE ends it', async (t) => {
        const { db } = tempDb(t);
        const { key } = createKey(db, 'default');
        const { key: otherKey } = createKey(db, 'default');
        const srv = await httpServer(t, db);
        const list = (id) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

        const unknown = await postMcp(srv.url, list(2), { key, sessionId: 'no-such-session-0000' });
        assert.equal(unknown.status, 404, `unknown session: HTTP ${unknown.status} ${unknown.body}`);

        const noSession = await postMcp(srv.url, list(2), { key, headers: { 'MCP-Protocol-Version': '2025-11-25' } });
        assert.equal(noSession.status, 400, `legacy request without a session: HTTP ${noSession.status} ${noSession.body}`);

        const sessionId = await rawInitialize(srv.url, key);
        const ok = await postMcp(srv.url, list(3), { key, sessionId });
        assert.equal(ok.status, 200, `own session: HTTP ${ok.status} ${ok.body}`);
        assert.deepEqual(
            parseMessages(ok).find((m) => m.id === 3)?.result?.tools?.map((x) => x.name),
            BASE_TOOLS,
        );

        const stolen = await postMcp(srv.url, list(4), { key: otherKey, sessionId });
        assert.equal(stolen.status, 404, `session used with another key: HTTP ${stolen.status} ${stolen.body}`);

        const del = await rawRequest(srv.url, {
            method: 'DELETE',
            headers: { Authorization: `Bearer ${key}`, 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' },
        });
        assert.ok(del.status >= 200 && del.status < 300, `DELETE session: HTTP ${del.status} ${del.body}`);
        const after = await postMcp(srv.url, list(5), { key, sessionId });
        assert.equal(after.status, 404, `deleted session: HTTP ${after.status} ${after.body}`);
    });

    test('an HTTP SDK client receives tools/list_changed after a plain-SQL change', async (t) => {
        const { db } = tempDb(t);
        const { key } = createKey(db, 'default');
        const srv = await httpServer(t, db);
        const { client } = await httpClient(t, srv.url, key);
        const seen = notificationCounter();
        client.setNotificationHandler(ToolListChangedNotificationSchema, seen.handler);
        await client.listTools();
        sql(db, "UPDATE dbmcp_tools SET enabled=0 WHERE name='server_info'");
        await seen.waitBeyond(0, WAIT_MS, 'tools/list_changed over HTTP');
        assert.deepEqual(
            (await client.listTools()).tools.map((x) => x.name),
            BASE_TOOLS.filter((n) => n !== 'server_info'),
        );
    });

    test('--no-auth on a loopback bind serves without a key', async (t) => {
        const { db } = tempDb(t);
        const srv = await httpServer(t, db, ['--no-auth']);
        const { client } = await httpClient(t, srv.url, null);
        const r = await client.callTool({ name: 'echo', arguments: { text: 'anonymous' } });
        assert.equal(textOf(r), 'anonymous');
    });

    test('--no-auth with a non-loopback bind (0.0.0.0) exits 2 with a message', async (t) => {
        const { db } = tempDb(t);
        const proc = spawn(BIN, ['serve', '--db', db, '--http', '0.0.0.0:0', '--no-auth'], { stdio: ['ignore', 'pipe', 'pipe'] });
        t.after(() => stopProcess(proc));
        let stderr = '';
        proc.stderr.setEncoding('utf8');
        proc.stderr.on('data', (d) => (stderr += d));
        proc.stdout.resume();
        const exit = await waitExit(proc, WAIT_MS);
        assert.ok(exit, `dbmcp serve --http 0.0.0.0 --no-auth is still running after ${WAIT_MS} ms (stderr: ${stderr})`);
        assert.equal(exit.code, 2, `exit code (stderr: ${stderr})`);
        assert.match(stderr, /no-auth|loopback/i, `stderr does not explain the refusal: ${JSON.stringify(stderr)}`);
        assert.doesNotMatch(stderr, /listening on/);
    });
});

// ---------------------------------------------------------------------------
// 6. audit
// ---------------------------------------------------------------------------
describe('behind a reverse proxy', () => {
    test('--public-url names the public endpoint in the 401 challenge and RFC 9728 metadata, and its Host and Origin are accepted', async (t) => {
        const { db } = tempDb(t);
        const srv = await httpServer(t, db, ['--public-url', 'https://mcp.example.com/']);
        const res = await rawRequest(srv.url, {
            headers: { Host: 'mcp.example.com', Origin: 'https://mcp.example.com', 'Content-Type': 'application/json' },
            body: '{}',
        });
        assert.equal(res.status, 401);
        assert.equal(
            res.headers['www-authenticate'],
            'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"',
        );
        const meta = await rawRequest(`${srv.base}/.well-known/oauth-protected-resource`, { method: 'GET' });
        assert.equal(JSON.parse(meta.body).resource, 'https://mcp.example.com/mcp');
        const evil = await rawRequest(srv.url, { headers: { Host: 'evil.example.com' }, body: '{}' });
        assert.equal(evil.status, 403, 'other Host names are still refused');
    });

    test('a public URL that is not http(s) is a usage error', (t) => {
        const { db } = tempDb(t);
        const r = cli(['serve', '--db', db, '--http', '127.0.0.1:1', '--public-url', 'ftp://x']);
        assert.equal(r.status, 2);
        assert.match(r.stderr, /public URL must look like https:\/\/host/);
    });
});

describe('audit', () => {
    test('one dbmcp_audit row per tools/call, resources/read and prompts/get, with status; callId matches', async (t) => {
        const { db } = tempDb(t);
        // A resource and a prompt of our own on the default interface.
        sql(
            db,
            `INSERT INTO dbmcp_resources (uri, name, mime_type, content_text) VALUES ('test://audit/note', 'note', 'text/plain', 'audited text');
             INSERT INTO dbmcp_interface_resources (interface, uri) VALUES ('default', 'test://audit/note');
             INSERT INTO dbmcp_prompts (name, description, arguments, messages) VALUES ('greet', 'Greets someone',
               '[{"name":"who","description":"Whom to greet","required":true}]',
               '[{"role":"user","content":{"type":"text","text":"Hello {{who}}"}}]');
             INSERT INTO dbmcp_interface_prompts (interface, prompt, position) VALUES ('default', 'greet', 1);`,
        );
        const { client } = await stdioClient(t, db);

        const ok1 = await client.callTool({ name: 'echo', arguments: { text: 'one' } });
        const bad = await client.callTool({ name: 'echo', arguments: { text: 5 } });
        assert.equal(bad.isError, true);
        const read = await client.readResource({ uri: 'test://audit/note' });
        assert.equal(read.contents[0].text, 'audited text');
        await assert.rejects(client.readResource({ uri: 'test://audit/missing' }));
        const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
        assert.equal(prompt.messages[0].content.text, 'Hello Ada');
        await assert.rejects(client.getPrompt({ name: 'greet', arguments: {} }));
        await client.listTools(); // not audited

        const expected = [
            { method: 'tools/call', target: 'echo', status: 'ok', transport: 'stdio' },
            { method: 'tools/call', target: 'echo', status: 'error', transport: 'stdio' },
            { method: 'resources/read', target: 'test://audit/note', status: 'ok', transport: 'stdio' },
            { method: 'resources/read', target: 'test://audit/missing', status: 'error', transport: 'stdio' },
            { method: 'prompts/get', target: 'greet', status: 'ok', transport: 'stdio' },
            { method: 'prompts/get', target: 'greet', status: 'error', transport: 'stdio' },
        ];
        const query = 'SELECT method, target, status, transport FROM dbmcp_audit ORDER BY id';
        // Rows are written asynchronously (audit.flush_ms, 200 ms by default).
        await waitFor(() => sqlRows(db, query).length >= expected.length, { what: `${expected.length} audit rows` });
        assert.deepEqual(sqlRows(db, query), expected);

        const all = sqlRows(db, 'SELECT call_id, method, target, client_name, interface FROM dbmcp_audit');
        for (const r of all) {
            assert.equal(r.client_name, 'dbmcp-protocol-tests', 'client_name from initialize');
            assert.equal(r.interface, 'default');
        }
        const ids = all.map((r) => r.call_id);
        assert.equal(new Set(ids).size, ids.length, 'call_id values are not unique');
        for (const [label, result, method, target] of [
            ['tools/call echo', ok1, 'tools/call', 'echo'],
            ['resources/read', read, 'resources/read', 'test://audit/note'],
            ['prompts/get', prompt, 'prompts/get', 'greet'],
        ]) {
            const callId = result._meta?.['dbmcp/callId'];
            assert.equal(typeof callId, 'string', `${label}: no _meta["dbmcp/callId"]`);
            const row = all.find((r) => r.call_id === callId);
            assert.ok(row, `${label}: callId ${callId} has no audit row`);
            assert.equal(row.method, method);
            assert.equal(row.target, target);
        }
    });
});

// ---------------------------------------------------------------------------
// 7. dbmcp call
// ---------------------------------------------------------------------------
describe('dbmcp call', () => {
    test('exit 0 on success with the text on stdout, 1 on isError, 2 on usage errors', async (t) => {
        const { db } = tempDb(t);
        const ok = cli(['call', '--db', db, 'echo', '{"text":"hi from cli"}']);
        assert.equal(ok.status, 0, `echo: exit ${ok.status}, stderr: ${ok.stderr}`);
        assert.equal(ok.stdout.trim(), 'hi from cli');

        const json = cli(['call', '--db', db, 'echo', '{"text":"hi"}', '--json']);
        assert.equal(json.status, 0, `echo --json: exit ${json.status}, stderr: ${json.stderr}`);
        let parsed;
        assert.doesNotThrow(() => (parsed = JSON.parse(json.stdout)), `--json output is not JSON: ${json.stdout}`);
        assert.deepEqual(parsed.content, [{ type: 'text', text: 'hi' }]);

        const withIface = cli(['call', '--db', db, 'server_info', '{}', '--interface', 'default']);
        assert.equal(withIface.status, 0, `server_info --interface default: exit ${withIface.status}, stderr: ${withIface.stderr}`);
        assert.match(withIface.stdout, /default/);

        const isError = cli(['call', '--db', db, 'echo', '{"text":5}']);
        assert.equal(isError.status, 1, `echo {"text":5}: exit ${isError.status}`);
        assert.match(isError.stdout + isError.stderr, /\btext\b/, 'the isError message is not shown');

        const unknownFlag = cli(['call', '--db', db, 'echo', '{"text":"x"}', '--no-such-flag']);
        assert.equal(unknownFlag.status, 2, `unknown flag: exit ${unknownFlag.status}`);
        assert.ok(unknownFlag.stderr.trim().length > 0, 'usage error without a message on stderr');

        const noTool = cli(['call', '--db', db]);
        assert.equal(noTool.status, 2, `call without a tool name: exit ${noTool.status}`);

        // Every tools/call through the CLI is audited as transport cli.
        const rows = await waitFor(() => {
            const r = sqlRows(db, "SELECT target, status FROM dbmcp_audit WHERE transport = 'cli' ORDER BY id");
            return r.length >= 4 ? r : null;
        }, { what: 'cli audit rows' });
        assert.deepEqual(
            rows.map((r) => r.status),
            ['ok', 'ok', 'ok', 'error'],
        );
    });
});

// ---------------------------------------------------------------------------
// 8. raw stdio
// ---------------------------------------------------------------------------
/** A dbmcp stdio server driven line by line: send(obj|string), nextMessage()
 * (the next stdout line, parsed), and the lines seen so far. */
function rawStdio(t, db, args = []) {
    const proc = spawn(BIN, ['serve', '--db', db, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    t.after(() => stopProcess(proc));
    const io = { proc, stderr: '', lines: [] };
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d) => (io.stderr += d));
    const waiters = [];
    const rl = readline.createInterface({ input: proc.stdout });
    rl.on('line', (line) => {
        io.lines.push(line);
        for (const w of waiters.splice(0)) w();
    });
    let cursor = 0;
    io.nextMessage = (waitMs = WAIT_MS) =>
        new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no line on stdout within ${waitMs} ms; stderr:\n${io.stderr}`)), waitMs);
            const check = () => {
                if (cursor < io.lines.length) {
                    clearTimeout(timer);
                    const line = io.lines[cursor++];
                    try {
                        resolve(JSON.parse(line));
                    } catch {
                        reject(new Error(`stdout line is not JSON: ${JSON.stringify(line)}`));
                    }
                } else waiters.push(check);
            };
            check();
        });
    io.send = (obj) => proc.stdin.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n');
    io.initialize = async () => {
        io.send(initMsg(1));
        const init = await io.nextMessage();
        assert.equal(init.id, 1);
        assert.equal(init.result?.serverInfo?.name, 'dbmcp');
        io.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    };
    return io;
}

// A query that runs until the time limit (10 s by default) stops it.
const ENDLESS_QUERY =
    'WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

describe('raw stdio', () => {
    test('a non-JSON line → -32700 with id null; the server keeps answering and exits 0 on EOF', async (t) => {
        const { db } = tempDb(t);
        const { proc, send, nextMessage, lines, initialize } = rawStdio(t, db);
        await initialize();

        send('this is not json {');
        const parseErr = await nextMessage();
        assert.equal(parseErr.jsonrpc, '2.0');
        assert.ok('id' in parseErr, 'parse error response has no id member');
        assert.equal(parseErr.id, null);
        assert.equal(parseErr.error?.code, PARSE_ERROR, JSON.stringify(parseErr));

        send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        const list = await nextMessage();
        assert.equal(list.id, 2);
        assert.deepEqual(
            list.result?.tools?.map((x) => x.name),
            BASE_TOOLS,
        );

        send({ jsonrpc: '2.0', id: 'three', method: 'tools/call', params: { name: 'echo', arguments: { text: 'after garbage' } } });
        const call = await nextMessage();
        assert.equal(call.id, 'three');
        assert.deepEqual(call.result?.content, [{ type: 'text', text: 'after garbage' }]);

        proc.stdin.end();
        const exit = await waitExit(proc, WAIT_MS);
        assert.ok(exit, 'dbmcp serve did not exit after stdin EOF');
        assert.equal(exit.code, 0, 'exit code after EOF');
        // Nothing but JSON-RPC on stdout.
        for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `non-JSON on stdout: ${line}`);
    });
    test('a running execute_query does not hold up the reader: ping is answered, cancellation stops the query', async (t) => {
        const { db } = tempDb(t);
        // A time limit far away: only the cancellation can stop the query.
        sql(db, "UPDATE dbmcp_settings SET value = '600000' WHERE key = 'query.timeout_ms'");
        const io = rawStdio(t, db);
        await io.initialize();
        // Sequential SQL calls run on the reading thread; this one turns slow,
        // so reading must pass to another thread while it runs.
        io.send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'execute_query', arguments: { query: ENDLESS_QUERY } } });
        io.send({ jsonrpc: '2.0', id: 11, method: 'ping' });
        const pong = await io.nextMessage();
        assert.equal(pong.id, 11, `expected the ping answered while the query runs, got ${JSON.stringify(pong)}`);
        assert.deepEqual(pong.result, {});
        io.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10, reason: 'test' } });
        io.send({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'execute_query', arguments: { query: 'SELECT 41 + 1 AS answer' } } });
        // The next answer is for 12 (a cancelled request gets no response),
        // and it comes although the endless query held the only reason to wait.
        const next = await io.nextMessage();
        assert.equal(next.id, 12, `expected the answer to 12, got ${JSON.stringify(next)}`);
        assert.match(textOf(next.result), /\| 42 \|/);
        io.proc.stdin.end();
        const exit = await waitExit(io.proc, WAIT_MS);
        assert.ok(exit, 'dbmcp serve did not exit after stdin EOF');
        assert.equal(exit.code, 0);
        assert.equal(io.lines.length, 3, `unexpected stdout lines: ${io.lines.join('\n')}`);
        const rows = sqlRows(db, "SELECT status FROM dbmcp_audit WHERE target = 'execute_query' ORDER BY id");
        assert.deepEqual(rows.map((r) => r.status).sort(), ['cancelled', 'ok']);
    });

    test('stdin closed while an execute_query runs: its answer still comes, then the server exits 0', async (t) => {
        const { db } = tempDb(t);
        sql(db, "UPDATE dbmcp_settings SET value = '300' WHERE key = 'query.timeout_ms'");
        const io = rawStdio(t, db);
        await io.initialize();
        io.send({ jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'execute_query', arguments: { query: ENDLESS_QUERY } } });
        io.proc.stdin.end();
        const answer = await io.nextMessage();
        assert.equal(answer.id, 20);
        assert.equal(answer.result?.isError, true, JSON.stringify(answer));
        const exit = await waitExit(io.proc, WAIT_MS);
        assert.ok(exit, 'dbmcp serve did not exit after stdin EOF');
        assert.equal(exit.code, 0);
    });
    test('an sql resource template stops at report.timeout_ms, and a cancelled read stops and gets no response', async (t) => {
        const { db } = tempDb(t);
        sql(
            db,
            `INSERT INTO dbmcp_resource_templates (uri_template, name, handler_kind, handler)
               VALUES ('slow://{n}', 'slow', 'sql', '${ENDLESS_QUERY}');
             INSERT INTO dbmcp_interface_resources (interface, uri) VALUES ('default', 'slow://{n}');
             INSERT INTO dbmcp_settings (key, value) VALUES ('report.timeout_ms', '400')
               ON CONFLICT (key) DO UPDATE SET value = excluded.value;`,
        );
        const io = rawStdio(t, db);
        await io.initialize();
        io.send({ jsonrpc: '2.0', id: 30, method: 'resources/read', params: { uri: 'slow://1' } });
        const stopped = await io.nextMessage();
        assert.equal(stopped.id, 30);
        assert.ok(stopped.error, `expected an error at the time limit, got ${JSON.stringify(stopped)}`);

        io.proc.stdin.end();
        const exit = await waitExit(io.proc, WAIT_MS);
        assert.ok(exit && exit.code === 0, 'dbmcp serve did not exit 0 after stdin EOF');

        // A new server with a long limit: only the cancellation can stop the read.
        sql(db, "INSERT INTO dbmcp_settings (key, value) VALUES ('report.timeout_ms', '600000') ON CONFLICT (key) DO UPDATE SET value = excluded.value");
        const io2 = rawStdio(t, db);
        await io2.initialize();
        // The read and its cancellation in one write: the cancellation is
        // read before a worker has started the read (which is queued), and
        // must still stop it; a cancellation that arrives while the read
        // runs is the case above with execute_query.
        io2.proc.stdin.write(
            `${JSON.stringify({ jsonrpc: '2.0', id: 31, method: 'resources/read', params: { uri: 'slow://2' } })}\n` +
                `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 31, reason: 'test' } })}\n`,
        );
        io2.send({ jsonrpc: '2.0', id: 32, method: 'ping' });
        const pong = await io2.nextMessage();
        assert.equal(pong.id, 32, `expected only the ping's answer, got ${JSON.stringify(pong)}`);
        io2.proc.stdin.end();
        const exit2 = await waitExit(io2.proc, WAIT_MS);
        assert.ok(exit2 && exit2.code === 0, 'dbmcp serve did not exit 0 after stdin EOF');
        assert.equal(io2.lines.length, 2, `unexpected stdout lines: ${io2.lines.join('\n')}`);
        const rows = sqlRows(db, "SELECT target, status FROM dbmcp_audit WHERE method = 'resources/read' ORDER BY id");
        assert.deepEqual(rows, [
            { target: 'slow://1', status: 'error' },
            { target: 'slow://2', status: 'cancelled' },
        ]);
    });
});
