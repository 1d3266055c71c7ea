// save_load.mjs — concurrent save_message writers for memory.sh's crash
// test: CLIENTS clients, each on its own keep-alive connection and session,
// call save_message over HTTP (stateless 2026-07-28 requests) one after the
// other until the server stops answering or each has written MAX messages.
// The id of every message the server acknowledged (a result without
// isError) is appended to ACKFILE, one per line, as soon as its answer
// arrives, so a test can kill the server at any moment and then ask the
// database for exactly the writes it was told were done.
//
// Usage: node save_load.mjs URL KEY CLIENTS MAX ACKFILE
import { appendFileSync } from 'node:fs';
import http from 'node:http';

const [url, key, clients, max, ackFile] = process.argv.slice(2);
if (!ackFile) {
    console.error('usage: node save_load.mjs URL KEY CLIENTS MAX ACKFILE');
    process.exit(2);
}
const target = new URL(url);

function post(agent, args) {
    const body = JSON.stringify({
        jsonrpc: '2.0', id: 1, method: 'tools/call',
        params: {
            name: 'save_message', arguments: args,
            _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {} },
        },
    });
    return new Promise((resolve, reject) => {
        const req = http.request({
            host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent,
            headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
                Authorization: `Bearer ${key}`, 'MCP-Protocol-Version': '2026-07-28',
                'Mcp-Method': 'tools/call', 'Mcp-Name': 'save_message' },
        }, (res) => {
            let data = '';
            res.setEncoding('utf8');
            res.on('data', (d) => (data += d));
            res.on('end', () => resolve(data));
            res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
    });
}

async function client(c) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let session;
    for (let i = 0; i < +max; i++) {
        let text;
        try {
            text = await post(agent, { role: 'user', content: `client ${c} message ${i}: note ${c * 7919 + i}`,
                ...(session ? { session_id: session } : {}) });
        } catch {
            break; /* the server is gone */
        }
        const lines = text.split('\n').filter((l) => l.startsWith('data:'));
        let r;
        try {
            r = JSON.parse(lines.length ? lines[lines.length - 1].slice(5) : text);
        } catch {
            break; /* cut off mid-answer: not acknowledged */
        }
        const sc = r.result && !r.result.isError && r.result.structuredContent;
        if (!sc || !(sc.message_id > 0)) break;
        appendFileSync(ackFile, `${sc.message_id}\n`);
        session = sc.session_id;
    }
    agent.destroy();
}

await Promise.all(Array.from({ length: +clients }, (_, c) => client(c)));
