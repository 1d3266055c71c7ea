#!/usr/bin/env node
// Benchmark peer for dbmcp: the idiomatic echo server on the official MCP
// TypeScript SDK (@modelcontextprotocol/sdk, pinned in package.json).
//
//   node echo-server.mjs               stdio (StdioServerTransport)
//   node echo-server.mjs --http PORT   Streamable HTTP on 127.0.0.1:PORT/mcp,
//                                      stateful sessions (one McpServer +
//                                      StreamableHTTPServerTransport per session)
//
// One tool, `echo` {text: string}, returning the text as text content.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

function makeServer() {
  const server = new McpServer({ name: 'node-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Returns its input text unchanged.',
      inputSchema: { text: z.string().describe('Text to echo back') },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

function sendJsonError(res, status, code, message) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function serveHttp(port) {
  const transports = new Map(); // session id -> StreamableHTTPServerTransport

  const http = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      if (url.pathname !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      const sid = req.headers['mcp-session-id'];
      if (req.method === 'POST') {
        let body;
        try {
          body = JSON.parse(await readBody(req));
        } catch {
          sendJsonError(res, 400, -32700, 'Parse error');
          return;
        }
        let transport = sid ? transports.get(sid) : undefined;
        if (!transport) {
          if (sid) {
            sendJsonError(res, 404, -32001, 'Session not found');
            return;
          }
          if (!isInitializeRequest(body)) {
            sendJsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
            return;
          }
          transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => transports.set(id, transport),
          });
          transport.onclose = () => {
            if (transport.sessionId) transports.delete(transport.sessionId);
          };
          await makeServer().connect(transport);
        }
        await transport.handleRequest(req, res, body);
        return;
      }
      if (req.method === 'GET' || req.method === 'DELETE') {
        const transport = sid ? transports.get(sid) : undefined;
        if (!transport) {
          sendJsonError(res, sid ? 404 : 400, -32000, 'Invalid or missing session ID');
          return;
        }
        await transport.handleRequest(req, res);
        return;
      }
      res.writeHead(405, { Allow: 'GET, POST, DELETE' }).end();
    } catch (err) {
      console.error('echo-server: error handling request:', err);
      if (!res.headersSent) sendJsonError(res, 500, -32603, 'Internal server error');
    }
  });

  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', resolve);
  });
  console.error(`echo-server: listening on http://127.0.0.1:${port}/mcp`);
  const stop = () => http.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function serveStdio() {
  await makeServer().connect(new StdioServerTransport());
}

const args = process.argv.slice(2);
const httpAt = args.indexOf('--http');
if (httpAt >= 0) {
  const port = Number(args[httpAt + 1]);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    console.error('usage: echo-server.mjs [--http PORT]');
    process.exit(2);
  }
  await serveHttp(port);
} else {
  await serveStdio();
}
