// oidc_sdk.mjs — the official MCP SDK client's OAuth flow against dbmcp with
// single sign-on, for tests/cli/oidc.sh:
//
//   node oidc_sdk.mjs MCP_URL ISSUER
//
// The client starts without a token. dbmcp answers 401 with the RFC 9728
// challenge; the SDK reads the protected resource metadata, finds the
// issuer in authorization_servers, reads its metadata, gets a token with the
// client_credentials grant (ClientCredentialsProvider, the SDK's
// machine-to-machine flow) for the resource, and retries. Prints one JSON
// line: {"tools": [...names...], "grants": N} or {"error": "..."}.
// The issuer's certificate is trusted through NODE_EXTRA_CA_CERTS.
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const require = createRequire(path.join(ROOT, 'tests/node/package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ClientCredentialsProvider } = require('@modelcontextprotocol/sdk/client/auth-extensions.js');

const [url, issuer] = process.argv.slice(2);
const timer = setTimeout(() => {
  console.log(JSON.stringify({ error: 'timed out' }));
  process.exit(1);
}, 60000);

try {
  const authProvider = new ClientCredentialsProvider({
    clientId: 'test-client',
    clientSecret: 'test-secret',
    scope: 'mcp:read',
    expectedIssuer: issuer,
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider });
  const client = new Client({ name: 'oidc-sdk-test', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'sso' } });
  await client.close();
  console.log(JSON.stringify({ tools: tools.map((t) => t.name), echo: echo.content?.[0]?.text }));
  clearTimeout(timer);
} catch (e) {
  console.log(JSON.stringify({ error: String(e?.stack || e) }));
  clearTimeout(timer);
  process.exit(1);
}
