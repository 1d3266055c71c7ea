// oidc_issuer.mjs — a stand-in OpenID Connect provider for tests/cli/oidc.sh,
// speaking the real protocol over HTTPS with keys made at start (Node's
// crypto; no npm package).
//
//   node oidc_issuer.mjs CERT KEY     listens on 127.0.0.1:0, prints
//                                     "issuer https://127.0.0.1:PORT" once up
//
// Served:
//   GET  /.well-known/openid-configuration   discovery (issuer, jwks_uri, ...)
//   GET  /jwks                               the public keys: the current RSA key
//                                            and one EC P-256 key
//   POST /admin/rotate                       a new current RSA key (new kid); the
//                                            old one leaves the JWK Set
//   POST /admin/token  {claims, alg, key, kid, header, tamper, none}
//        a signed access token: claims as given plus iss, iat, exp (+300 s)
//        and a jti unless given; key "rsa" (current, default), "ec" or "stray"
//        (never published); alg RS256 (default), PS256, ES256 or HS256 (HMAC
//        keyed with the RSA public key's PEM: the confusion attack); kid and
//        header override the header; tamper changes the payload after
//        signing; none makes an unsigned alg "none" token
//   GET  /admin/stats                        {"jwks": N, "discovery": N} fetches
//   GET  /.well-known/oauth-authorization-server   RFC 8414 metadata (the same)
//   POST /token   the client_credentials grant (RFC 6749 4.4) for the client
//                 test-client:test-secret (client_secret_basic): a token for
//                 the RFC 8707 resource it asks for (aud) with the scope it
//                 asks for, sub = the client id
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';

const [certFile, keyFile] = process.argv.slice(2);
let issuer = '';
let generation = 1;
let rsa = rsaKey(`k${generation}`);
const ec = {kid: 'e1', ...crypto.generateKeyPairSync('ec', {namedCurve: 'P-256'})};
const stray = rsaKey('stray');
const stats = {jwks: 0, discovery: 0};

function rsaKey(kid) {
  return {kid, ...crypto.generateKeyPairSync('rsa', {modulusLength: 2048})};
}

function jwk(k, alg) {
  return {...k.publicKey.export({format: 'jwk'}), kid: k.kid, use: 'sig', alg};
}

const b64 = (buf) => Buffer.from(buf).toString('base64url');

function sign(alg, k, input) {
  const data = Buffer.from(input);
  if (alg === 'RS256') return crypto.sign('sha256', data, k.privateKey);
  if (alg === 'PS256')
    return crypto.sign('sha256', data, {
      key: k.privateKey,
      padding: crypto.constants.RSA_PKCS1_PSS_PADDING,
      saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST,
    });
  if (alg === 'ES256') return crypto.sign('sha256', data, {key: k.privateKey, dsaEncoding: 'ieee-p1363'});
  if (alg === 'HS256') {
    const secret = k.publicKey.export({type: 'spki', format: 'pem'});
    return crypto.createHmac('sha256', secret).update(data).digest();
  }
  throw new Error(`alg ${alg}`);
}

function token(req) {
  const now = Math.floor(Date.now() / 1000);
  const claims = {iss: issuer, iat: now, exp: now + 300, jti: crypto.randomUUID(), ...(req.claims || {})};
  const k = req.key === 'ec' ? ec : req.key === 'stray' ? stray : rsa;
  const alg = req.alg || (req.key === 'ec' ? 'ES256' : 'RS256');
  const header = {typ: 'at+jwt', alg: req.none ? 'none' : alg, kid: req.kid ?? k.kid, ...(req.header || {})};
  const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(claims))}`;
  if (req.none) return `${input}.`;
  const sig = b64(sign(alg, k, input));
  if (req.tamper) {
    const forged = b64(JSON.stringify({...claims, sub: 'mallory'}));
    return `${input.split('.')[0]}.${forged}.${sig}`;
  }
  return `${input}.${sig}`;
}

const CLIENT = {id: 'test-client', secret: 'test-secret'};

function grant(req, res, body) {
  const form = new URLSearchParams(body);
  const basic = Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64');
  if (req.headers.authorization !== `Basic ${basic}`)
    return send(res, 401, {error: 'invalid_client'});
  if (form.get('grant_type') !== 'client_credentials')
    return send(res, 400, {error: 'unsupported_grant_type'});
  const scope = form.get('scope') || '';
  const claims = {sub: CLIENT.id, client_id: CLIENT.id, scope, email: `${CLIENT.id}@clients.test`};
  if (form.get('resource')) claims.aud = form.get('resource');
  stats.grants = (stats.grants || 0) + 1;
  send(res, 200, {access_token: token({claims}), token_type: 'Bearer', expires_in: 300, scope},
    {'Cache-Control': 'no-store'});
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, {'Content-Type': 'application/json', ...headers});
  res.end(JSON.stringify(body));
}

const server = https.createServer(
  {cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile)},
  (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const url = req.url;
      if (req.method === 'GET' && (url === '/.well-known/openid-configuration' ||
                                   url === '/.well-known/oauth-authorization-server')) {
        stats.discovery++;
        return send(res, 200, {
          issuer,
          jwks_uri: `${issuer}/jwks`,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256', 'ES256'],
          code_challenge_methods_supported: ['S256'],
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        }, {'Cache-Control': 'public, max-age=300'});
      }
      if (req.method === 'GET' && url === '/jwks') {
        stats.jwks++;
        return send(res, 200, {keys: [jwk(rsa, 'RS256'), jwk(ec, 'ES256')]},
          {'Cache-Control': 'public, max-age=300'});
      }
      if (req.method === 'POST' && url === '/admin/rotate') {
        rsa = rsaKey(`k${++generation}`);
        return send(res, 200, {kid: rsa.kid});
      }
      if (req.method === 'POST' && url === '/admin/token') {
        try {
          return send(res, 200, {token: token(JSON.parse(body || '{}'))});
        } catch (e) {
          return send(res, 400, {error: String(e)});
        }
      }
      if (req.method === 'GET' && url === '/admin/stats') return send(res, 200, stats);
      if (req.method === 'POST' && url === '/token') return grant(req, res, body);
      send(res, 404, {error: 'not found'});
    });
  },
);

server.listen(0, '127.0.0.1', () => {
  issuer = `https://127.0.0.1:${server.address().port}`;
  console.log(`issuer ${issuer}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
