// Protocol tests of the MCP tasks extension (io.modelcontextprotocol/tasks),
// driven by the official MCP TypeScript SDK client over Streamable HTTP.
//
// The client declares the extension in its capabilities; task-supporting
// tools (SQL tools, execute_query, the conformance fixtures) then answer a
// call that runs past tasks.after_ms with a CreateTaskResult, and the
// result is read with tasks/get. Each test makes its own database and
// server(s); nothing asserts timings (waits poll with generous limits).
//
// Run: scripts/protocol-tests.sh (runs this file after protocol.test.mjs).
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';

import { McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';

import { BIN, binExists, sql, sqlRows, tempDb, httpServer, httpClient, createKey, waitFor, stopProcess } from './lib/dbmcp.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { capabilities: { extensions: { [TASKS]: {} } } };
const INVALID_PARAMS = -32602;
const MISSING_CAPABILITY = -32021;

before(() => {
    assert.ok(binExists(), `${BIN} does not exist — build it first (make -j2)`);
});

/** A request whose result keeps every field (the SDK's ResultSchema is loose). */
const call = (client, method, params) => client.request({ method, params }, ResultSchema);

/** The JSON-RPC error a request fails with (fails the test on a result). */
async function errorOf(promise, what) {
    try {
        const value = await promise;
        assert.fail(`${what}: expected a JSON-RPC error, got ${JSON.stringify(value)}`);
    } catch (e) {
        if (e instanceof assert.AssertionError) throw e;
        assert.ok(e instanceof McpError, `${what}: expected an McpError, got ${e?.message}`);
        return e;
    }
}

/** tasks/get until the task is terminal. */
async function settle(client, taskId) {
    let task;
    await waitFor(
        async () => {
            task = await call(client, 'tasks/get', { taskId });
            return ['completed', 'failed', 'cancelled'].includes(task.status);
        },
        { what: `task ${taskId} to end`, every: 100 },
    );
    return task;
}

function setSetting(db, key, value) {
    sql(db, `DELETE FROM dbmcp_settings WHERE key = '${key}'`);
    sql(db, `INSERT INTO dbmcp_settings (key, value, description) VALUES ('${key}', '${value}', 'test')`);
}

/** A database with the conformance interface on, and a key for it. */
function conformanceDb(t) {
    const { db } = tempDb(t, { conformance: true });
    sql(db, "UPDATE dbmcp_interfaces SET enabled = 1 WHERE name = 'conformance'");
    return { db, key: createKey(db, 'conformance').key };
}

describe('tasks extension', () => {
    test('execute_query past tasks.after_ms becomes a task; its result is read with tasks/get', async (t) => {
        const { db } = tempDb(t);
        setSetting(db, 'tasks.after_ms', '0');
        const { key } = createKey(db);
        const srv = await httpServer(t, db);
        const { client } = await httpClient(t, srv.url, key, WITH_TASKS);
        const tools = await client.listTools();
        const eq = tools.tools.find((x) => x.name === 'execute_query');
        assert.deepEqual(eq.execution, { taskSupport: 'optional' }, 'tools/list shows task support');
        const created = await call(client, 'tools/call', {
            name: 'execute_query',
            arguments: { query: 'SELECT 40 + 2 AS answer' },
        });
        assert.equal(created.resultType, 'task');
        assert.match(created.taskId, /^[0-9a-f-]{36}$/);
        assert.equal(created.status, 'working');
        assert.ok(!('result' in created), 'a CreateTaskResult carries no result');
        const done = await settle(client, created.taskId);
        assert.equal(done.status, 'completed');
        assert.match(done.result.content[0].text, /42/);
        // The call was audited once, as a tools/call of execute_query.
        await waitFor(
            () => sqlRows(db, "SELECT status FROM dbmcp_audit WHERE method = 'tools/call' AND target = 'execute_query'").length === 1,
            { what: 'the audit row of the task run' },
        );
    });

    test('a client without the extension gets plain results, and -32021 for tasks/get and task-only tools', async (t) => {
        const { db, key } = conformanceDb(t);
        setSetting(db, 'tasks.after_ms', '0');
        const srv = await httpServer(t, db);
        const { client } = await httpClient(t, srv.url, key);
        const r = await call(client, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0.3, label: 'plain' } });
        assert.ok(!r.taskId && r.resultType !== 'task', 'no task without the extension');
        assert.match(r.content[0].text, /Computed plain/);
        const e1 = await errorOf(call(client, 'tasks/get', { taskId: 'x' }), 'tasks/get');
        assert.equal(e1.code, MISSING_CAPABILITY);
        const e2 = await errorOf(call(client, 'tools/call', { name: 'failing_job', arguments: {} }), 'failing_job');
        assert.equal(e2.code, MISSING_CAPABILITY);
        assert.deepEqual(e2.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
    });

    test('a task result is fetched after the client reconnects, from another server process', async (t) => {
        const { db, key } = conformanceDb(t);
        const first = await httpServer(t, db);
        const a = await httpClient(t, first.url, key, WITH_TASKS);
        const created = await call(a.client, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'durable' } });
        assert.equal(created.resultType, 'task');
        const done = await settle(a.client, created.taskId);
        assert.equal(done.status, 'completed');
        await a.client.close();
        await stopProcess(first.proc);

        const second = await httpServer(t, db);
        const b = await httpClient(t, second.url, key, WITH_TASKS);
        const again = await call(b.client, 'tasks/get', { taskId: created.taskId });
        assert.equal(again.status, 'completed');
        assert.equal(again.result.content[0].text, 'Computed durable after 1 seconds');
        assert.equal(again.createdAt, created.createdAt);
    });

    test('tasks/cancel stops the running call; the task settles to cancelled and is audited so', async (t) => {
        const { db, key } = conformanceDb(t);
        const srv = await httpServer(t, db);
        const { client } = await httpClient(t, srv.url, key, WITH_TASKS);
        const created = await call(client, 'tools/call', { name: 'slow_compute', arguments: { seconds: 600, label: 'long' } });
        assert.equal(created.resultType, 'task');
        const ack = await call(client, 'tasks/cancel', { taskId: created.taskId });
        assert.deepEqual(Object.keys(ack).filter((k) => k !== '_meta'), ['resultType'], 'an empty ack');
        assert.equal(ack.resultType, 'complete');
        const task = await call(client, 'tasks/get', { taskId: created.taskId });
        assert.equal(task.status, 'cancelled');
        assert.ok(!('result' in task));
        // The handler stopped (it would sleep 10 minutes): its run is audited as cancelled.
        await waitFor(
            () =>
                sqlRows(db, "SELECT status FROM dbmcp_audit WHERE method = 'tools/call' AND target = 'slow_compute'").some(
                    (r) => r.status === 'cancelled',
                ),
            { what: 'the cancelled run in the audit' },
        );
        // Cancelling again is the same empty ack.
        await call(client, 'tasks/cancel', { taskId: created.taskId });
        assert.equal((await call(client, 'tasks/get', { taskId: created.taskId })).status, 'cancelled');
    });

    test('tasks/cancel on one server stops the call another server runs', async (t) => {
        const { db, key } = conformanceDb(t);
        const runner = await httpServer(t, db);
        const other = await httpServer(t, db);
        const a = await httpClient(t, runner.url, key, WITH_TASKS);
        const b = await httpClient(t, other.url, key, WITH_TASKS);
        const created = await call(a.client, 'tools/call', { name: 'slow_compute', arguments: { seconds: 600, label: 'remote' } });
        assert.equal(created.resultType, 'task');
        await call(b.client, 'tasks/cancel', { taskId: created.taskId });
        assert.equal((await call(a.client, 'tasks/get', { taskId: created.taskId })).status, 'cancelled');
        // The runner notices the row and stops the handler (it would sleep 10 minutes).
        await waitFor(
            () =>
                sqlRows(db, "SELECT status FROM dbmcp_audit WHERE method = 'tools/call' AND target = 'slow_compute'").some(
                    (r) => r.status === 'cancelled',
                ),
            { what: 'the run on the other server to stop' },
        );
    });

    test("another key's task is not found, exactly like a task that does not exist", async (t) => {
        const { db, key } = conformanceDb(t);
        const other = createKey(db, 'conformance').key;
        const srv = await httpServer(t, db);
        const owner = await httpClient(t, srv.url, key, WITH_TASKS);
        const stranger = await httpClient(t, srv.url, other, WITH_TASKS);
        const created = await call(owner.client, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'mine' } });
        assert.equal(created.resultType, 'task');
        for (const method of ['tasks/get', 'tasks/cancel']) {
            const foreign = await errorOf(call(stranger.client, method, { taskId: created.taskId }), `${method} foreign`);
            const missing = await errorOf(
                call(stranger.client, method, { taskId: '00000000-0000-4000-8000-000000000000' }),
                `${method} missing`,
            );
            assert.equal(foreign.code, INVALID_PARAMS);
            assert.deepEqual([foreign.code, foreign.message, foreign.data], [missing.code, missing.message, missing.data]);
        }
        const foreignUpdate = await errorOf(
            call(stranger.client, 'tasks/update', { taskId: created.taskId, inputResponses: {} }),
            'tasks/update foreign',
        );
        assert.equal(foreignUpdate.code, INVALID_PARAMS);
        // The stranger's cancel did nothing: the owner's task completes.
        assert.equal((await settle(owner.client, created.taskId)).status, 'completed');
    });

    test('one key runs at most tasks.max_per_key tasks at once; others are refused as busy', async (t) => {
        const { db, key } = conformanceDb(t);
        setSetting(db, 'tasks.max_per_key', '1');
        const other = createKey(db, 'conformance').key;
        const srv = await httpServer(t, db);
        const a = await httpClient(t, srv.url, key, WITH_TASKS);
        const b = await httpClient(t, srv.url, other, WITH_TASKS);
        const first = await call(a.client, 'tools/call', { name: 'slow_compute', arguments: { seconds: 600, label: 'one' } });
        assert.equal(first.resultType, 'task');
        const busy = await errorOf(
            call(a.client, 'tools/call', { name: 'slow_compute', arguments: { seconds: 600, label: 'two' } }),
            'second task of the key',
        );
        assert.equal(busy.code, -32000);
        assert.match(busy.message, /tasks\.max_per_key/);
        // Another key is not held back by the first one's task.
        const theirs = await call(b.client, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'b' } });
        assert.equal(theirs.resultType, 'task');
        assert.equal((await settle(b.client, theirs.taskId)).status, 'completed');
        // Once the first task is cancelled (and has stopped), the key may start another.
        await call(a.client, 'tasks/cancel', { taskId: first.taskId });
        let again;
        await waitFor(
            async () => {
                try {
                    again = await call(a.client, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'three' } });
                    return true;
                } catch (e) {
                    if (e.code !== -32000) throw e;
                    return false;
                }
            },
            { what: 'room for another task of the key', every: 100 },
        );
        assert.ok(again.content || again.taskId);
    });

    test('a task expires after tasks.ttl_s and is then not found', async (t) => {
        const { db, key } = conformanceDb(t);
        setSetting(db, 'tasks.ttl_s', '2');
        const srv = await httpServer(t, db);
        const { client } = await httpClient(t, srv.url, key, WITH_TASKS);
        const created = await call(client, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0.5, label: 'brief' } });
        assert.equal(created.resultType, 'task');
        assert.equal(created.ttlMs, 2000);
        await waitFor(
            async () => {
                try {
                    await call(client, 'tasks/get', { taskId: created.taskId });
                    return false;
                } catch (e) {
                    return e.code === INVALID_PARAMS;
                }
            },
            { what: 'the task to expire', every: 200 },
        );
    });

    test('a task waiting for input is resumed by tasks/update and completes with the answer', async (t) => {
        const { db, key } = conformanceDb(t);
        const srv = await httpServer(t, db);
        const { client } = await httpClient(t, srv.url, key, WITH_TASKS);
        const created = await call(client, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'report.csv' } });
        assert.equal(created.resultType, 'task');
        let task;
        await waitFor(
            async () => (task = await call(client, 'tasks/get', { taskId: created.taskId })).status === 'input_required',
            { what: 'input_required', every: 100 },
        );
        assert.equal(task.inputRequests.confirm.method, 'elicitation/create');
        const ack = await call(client, 'tasks/update', {
            taskId: created.taskId,
            inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
        });
        assert.ok(!('status' in ack));
        const done = await settle(client, created.taskId);
        assert.equal(done.result.content[0].text, 'Deleted report.csv');
    });
});
