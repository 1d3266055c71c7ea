// console_browser.test.mjs — the admin console end to end in a real
// Chromium (Debian's chromium, driven by playwright-core) against a real
// `dbmcp serve --http`, with a real MCP SDK client connected beside it:
//
//   log in from the keyboard; disable a tool in the Catalog page and see the
//   SDK client get tools/list_changed and lose the tool; revoke the client's
//   key in the Keys page and see its next request fail with 401; filter the
//   Audit page and open the client's call. XSS payloads (<script>, <img
//   onerror>, ANSI escapes) in a tool description, the client's name and an
//   audited tool name stay text: no dialog, no script run, no element made.
//   No console error, failed request or HTTP error on any page; every form
//   control has a label. Screenshots go to build/console/ for a reviewer.
//
// Runs on SQLite, or on PostgreSQL with DBMCP_TEST_PG (tests/cli/lib/db.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { ROOT, WAIT_MS, binExists, cli, createKey, httpServer, tempDb, waitFor } from './lib/dbmcp.mjs';

if (!binExists()) throw new Error('build/dbmcp not built: run make first');

const SHOTS = path.join(ROOT, 'build', 'console');
// Debian's /usr/bin/chromium is a shell wrapper; the browser itself is beside it.
const CHROMIUM =
    process.env.DBMCP_CHROMIUM ??
    ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));

const XSS_DESCRIPTION =
    '<script>window.__xss = "description script"</script><img src=x onerror="window.__xss = \'description img\'"> \u001b[31mred\u001b[0m';
const XSS_CLIENT = '<img src=x onerror="window.__xss = \'client img\'">\u001b[2Jevil client';
const XSS_TOOL = '<img src=x onerror="window.__xss = \'tool img\'">\u001b[31mno_such_tool';

/** Watch a page for everything the console must never cause. */
function watch(page) {
    const bad = { console: [], pageErrors: [], failed: [], http: [], dialogs: [] };
    page.on('console', (m) => m.type() === 'error' && bad.console.push(m.text()));
    page.on('pageerror', (e) => bad.pageErrors.push(String(e)));
    page.on('requestfailed', (r) => bad.failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
    page.on('response', (r) => r.status() >= 400 && bad.http.push(`${r.status()} ${r.request().method()} ${r.url()}`));
    page.on('dialog', (d) => {
        bad.dialogs.push(`${d.type()}: ${d.message()}`);
        d.dismiss().catch(() => {});
    });
    return bad;
}

/** Form controls without an accessible label on the page. */
async function unlabelled(page) {
    return page.evaluate(() =>
        [...document.querySelectorAll('input, select, textarea, button')]
            .filter((el) => {
                if (el.getAttribute('aria-label')) return false;
                if (el.tagName === 'BUTTON') return !el.textContent.trim();
                return !(el.labels && el.labels.length);
            })
            .map((el) => el.outerHTML.slice(0, 120)),
    );
}

/** What no page may ever show: script effects and elements from data. */
async function assertInert(page, where) {
    const state = await page.evaluate(() => ({
        xss: window.__xss ?? null,
        imgs: document.querySelectorAll('img').length,
        scripts: [...document.querySelectorAll('script')].map((s) => s.src),
    }));
    assert.equal(state.xss, null, `${where}: a payload ran: ${state.xss}`);
    assert.equal(state.imgs, 0, `${where}: an <img> element was made from data`);
    assert.deepEqual(state.scripts.map((s) => new URL(s).pathname), ['/admin/console.js'], `${where}: scripts ${state.scripts}`);
    assert.deepEqual(await unlabelled(page), [], `${where}: form controls without a label`);
}

async function shot(page, name) {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

test('the console in Chromium: log in, disable a tool, revoke a key, find the call; payloads stay text', async (t) => {
    assert.ok(CHROMIUM, 'chromium is not installed (scripts/deps.sh installs it)');
    const { db } = tempDb(t, { conformance: true }); // so prompts, resources and templates have rows
    const admin = cli(['keys', 'create', '--db', db, '--admin', '--principal', 'operator']).stdout.trim();
    const agent = createKey(db, 'default', ['--principal', 'agent']);
    const upd = cli(['tools', 'update', 'echo', '--db', db, '--file', '-'], {
        input: JSON.stringify({ description: XSS_DESCRIPTION }),
    });
    assert.equal(upd.status, 0, `tools update: ${upd.stderr}`);
    const srv = await httpServer(t, db);

    // The MCP client an agent would run, named with a payload.
    const client = new Client({ name: XSS_CLIENT, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(srv.url), {
        requestInit: { headers: { Authorization: `Bearer ${agent.key}` } },
    });
    t.after(() => client.close().catch(() => {}));
    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged++);
    await client.connect(transport);
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hello from the agent' } });
    assert.ok(!echoed.isError, JSON.stringify(echoed));
    await client.callTool({ name: XSS_TOOL, arguments: {} }).catch(() => {});
    assert.ok((await client.listTools()).tools.some((x) => x.name === 'echo'));

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    t.after(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(WAIT_MS);
    const bad = watch(page);

    // Log in, from the keyboard.
    await page.goto(`${srv.base}/admin/`);
    await page.getByLabel('Admin API key').waitFor();
    await assertInert(page, 'login');
    await shot(page, '01-login');
    await page.getByLabel('Admin API key').focus();
    await page.keyboard.type(admin);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Log out' }).waitFor();

    // Catalog: the payload in echo's description is text; disable echo.
    const echoRow = page.locator('tr[data-key="echo"]');
    await echoRow.waitFor();
    const description = await echoRow.locator('td.desc').innerText();
    assert.ok(description.includes('<script>window.__xss = "description script"</script>'), description);
    assert.ok(description.includes('\\x1b[31mred'), `ANSI escape not shown as text: ${description}`);
    await assertInert(page, 'catalog');
    await shot(page, '02-catalog-tools');
    const before = listChanged;
    await page.getByRole('button', { name: 'Disable echo' }).click();
    await echoRow.locator('td.off').waitFor();
    await waitFor(() => listChanged > before, { what: 'tools/list_changed after the console disabled echo' });
    const names = (await client.listTools()).tools.map((x) => x.name);
    assert.ok(!names.includes('echo'), `the client still sees echo: ${names}`);
    await shot(page, '03-catalog-echo-disabled');

    // The other catalog pages: text only, labelled, no errors.
    for (const [kind, key] of [['prompts', null], ['resources', null], ['templates', null], ['interfaces', 'default']]) {
        await page.getByRole('link', { name: kind[0].toUpperCase() + kind.slice(1), exact: true }).click();
        await page.locator('tbody tr').first().waitFor();
        if (key) await page.locator(`tr[data-key="${key}"]`).waitFor();
        await assertInert(page, `catalog ${kind}`);
        await shot(page, `03-catalog-${kind}`);
    }

    // Keys: revoke the agent's key; its next request is refused with 401.
    await page.getByRole('link', { name: 'Keys' }).click();
    const keyRow = page.locator(`tr[data-key="${agent.id}"]`);
    await keyRow.waitFor();
    await assertInert(page, 'keys');
    await shot(page, '04-keys');
    // Create a key in the form: its secret is shown once, as text.
    await page.getByLabel('Principal').fill('<b>new</b> principal');
    await page.getByLabel('Description').fill('made in the console test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('#created-key').innerText()).trim();
    assert.match(secret, /^dbmcp_[a-z0-9]{12}_[a-z0-9]{40}$/, `shown key: ${secret}`);
    const newId = secret.split('_')[1];
    await page.locator(`tr[data-key="${newId}"]`).waitFor();
    assert.ok((await page.locator(`tr[data-key="${newId}"]`).innerText()).includes('<b>new</b> principal'));
    await shot(page, '04-keys-created');
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.locator('#created-key').count(), 0, 'the secret stays on the page');
    assert.ok(!(await page.content()).includes(secret.split('_')[2]), 'the secret is still in the page');
    await assertInert(page, 'keys after create');
    await page.getByRole('button', { name: `Revoke ${agent.id}` }).click();
    await page.getByRole('button', { name: `Confirm revoke ${agent.id}` }).click();
    await keyRow.locator('td.off').waitFor();
    await assert.rejects(client.listTools(), /401|nauthorized/, 'the revoked key still works');

    // Audit: filter for the agent's echo call and open it.
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByLabel('Principal').fill('agent');
    await page.getByLabel('Tool, URI or prompt').fill('echo');
    await page.getByLabel('Status').selectOption('ok');
    await page.getByRole('button', { name: 'Filter' }).click();
    const rows = page.locator('tbody tr');
    await waitFor(async () => (await rows.count()) === 1, { what: 'one audit row for the agent\'s echo call' });
    const rowText = await rows.first().innerText();
    assert.ok(rowText.includes("<img src=x onerror=\"window.__xss = 'client img'\">"), `client name: ${rowText}`);
    await assertInert(page, 'audit');
    await shot(page, '05-audit-filtered');
    await rows.first().getByRole('link').click();
    await page.getByRole('link', { name: 'Back to the audit' }).waitFor();
    const detail = await page.locator('dl').innerText();
    assert.match(detail, /hello from the agent|tools\/call/);
    assert.match(detail, /agent/);
    await assertInert(page, 'audit call');
    await shot(page, '06-audit-call');

    // The unknown tool's payload name, audited as denied (not_found), is text too.
    await page.getByRole('link', { name: 'Back to the audit' }).click();
    await page.getByLabel('Status').selectOption('denied');
    await page.getByRole('button', { name: 'Filter' }).click();
    const payloadRow = page.locator('tbody tr', { hasText: 'no_such_tool' });
    await payloadRow.first().waitFor();
    const target = await payloadRow.first().locator('td.mono').nth(1).innerText();
    assert.equal(target, "<img src=x onerror=\"window.__xss = 'tool img'\">\\x1b[31mno_such_tool");
    await assertInert(page, 'audit errors');

    // Log out: back to the login page.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('Admin API key').waitFor();

    assert.deepEqual(bad.dialogs, [], 'dialogs opened');
    assert.deepEqual(bad.pageErrors, [], 'uncaught errors in the page');
    assert.deepEqual(bad.console, [], 'console errors');
    assert.deepEqual(bad.failed, [], 'failed requests');
    assert.deepEqual(bad.http, [], 'HTTP errors');
});
