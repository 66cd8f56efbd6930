// Self-test of the test OpenID provider: starts scripts/oidc-provider.sh, registers a client,
// signs in as a non-browser client would (the same HTTP sequence equip's tests follow),
// checks the ID token, a wrong password, the tamper and rotate hooks, and stops the provider.
// Usage: node scripts/oidc-provider/selftest.mjs   (exits non-zero on the first failure)

import { spawn } from 'node:child_process';
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import readline from 'node:readline';

const script = fileURLToPath(new URL('../oidc-provider.sh', import.meta.url));
const REDIRECT_URI = 'http://127.0.0.1:9/sso/callback';
let passed = 0;

function check(cond, what, detail = '') {
  if (!cond) throw new Error(`FAILED: ${what}${detail ? ` (${detail})` : ''}`);
  passed += 1;
  console.log(`ok ${passed} - ${what}`);
}

const b64url = (buf) => Buffer.from(buf).toString('base64url');
const decode = (seg) => JSON.parse(Buffer.from(seg, 'base64url').toString());

// Start the provider; its first stdout line is the issuer.
const fixed = { client_id: 'fixed-client', client_secret: 'fixed-secret' };
const child = spawn(script, [], {
  env: {
    ...process.env, OIDC_PORT: '0', OIDC_CLIENT_ID: fixed.client_id, OIDC_CLIENT_SECRET: fixed.client_secret,
    OIDC_REDIRECT_URIS: `http://127.0.0.1:8/other ${REDIRECT_URI}`,
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const started = Date.now();
const issuer = await new Promise((resolve, reject) => {
  readline.createInterface({ input: child.stdout }).once('line', resolve);
  child.once('exit', (code) => reject(new Error(`provider exited with ${code}`)));
});

try {
  console.log(`# provider ${issuer} up in ${Date.now() - started} ms`);
  check(/^http:\/\/127\.0\.0\.1:\d+$/.test(issuer), 'first stdout line is the issuer');

  const discovery = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
  check(discovery.issuer === issuer, 'discovery names the issuer');
  check(discovery.code_challenge_methods_supported.includes('S256'), 'discovery offers S256');
  const jwks = async () => (await (await fetch(discovery.jwks_uri)).json()).keys;
  const keys1 = await jwks();
  check(keys1.length === 1 && keys1[0].alg === 'RS256' && keys1[0].kid, 'JWKS has one RS256 key with a kid');

  // Dynamic registration of a web client with an http loopback redirect URI.
  const reg = await fetch(discovery.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' }),
  });
  const client = await reg.json();
  check(reg.status === 201 && client.client_id && client.client_secret, 'client registered', JSON.stringify(client));

  // One sign-in: returns the token response (and the code step's Location).
  async function signIn({
    login, password, wrongPasswordFirst = false, auth = 'basic', cl = client, scope = 'openid email profile groups',
  }) {
    const jar = new Map(); // cookie name -> value (paths ignored: a test-only jar)
    const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const go = async (url, init = {}) => {
      const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: cookieHeader() } });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const i = pair.indexOf('=');
        jar.set(pair.slice(0, i), pair.slice(i + 1));
      }
      return res;
    };
    const verifier = b64url(randomBytes(32));
    const state = b64url(randomBytes(16));
    const nonce = b64url(randomBytes(16));
    const auth1 = new URL(discovery.authorization_endpoint);
    Object.entries({
      response_type: 'code', client_id: cl.client_id, redirect_uri: REDIRECT_URI,
      scope, state, nonce,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    }).forEach(([k, v]) => auth1.searchParams.set(k, v));

    let res = await go(auth1);
    check(res.status === 303, 'GET /auth answers 303 to the login page', res.status);
    const loginUrl = new URL(res.headers.get('location'), issuer);
    check(/^\/interaction\/[\w-]+$/.test(loginUrl.pathname), 'redirected to /interaction/:uid');
    res = await go(loginUrl);
    const html = await res.text();
    check(res.status === 200 && /name="login"/.test(html) && /name="password"/.test(html) && />Sign in</.test(html),
      'login page has login, password and a Sign in button');
    const post = (pw) => go(loginUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ login, password: pw }),
    });
    if (wrongPasswordFirst) {
      res = await post('wrong');
      const again = await res.text();
      check(res.status === 401 && /Wrong login or password/.test(again) && /name="password"/.test(again),
        'a wrong password shows the form again with an error');
    }
    res = await post(password);
    check(res.status === 303, 'POST of the login form answers 303', res.status);
    let location = new URL(res.headers.get('location'), issuer);
    for (let hops = 0; !location.href.startsWith(REDIRECT_URI) && hops < 5; hops += 1) {
      res = await go(location);
      check([302, 303].includes(res.status), `follow ${location.pathname}: ${res.status}`, await res.text());
      location = new URL(res.headers.get('location'), issuer);
    }
    check(location.href.startsWith(REDIRECT_URI), 'back at the redirect_uri without a consent page');
    const code = location.searchParams.get('code');
    check(code && location.searchParams.get('state') === state, 'redirect carries code and the same state');

    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    if (auth === 'basic') {
      const enc = encodeURIComponent; // RFC 6749 2.3.1: form-encode id and secret first
      headers.authorization = `Basic ${Buffer.from(`${enc(cl.client_id)}:${enc(cl.client_secret)}`).toString('base64')}`;
    } else {
      body.set('client_id', cl.client_id);
      body.set('client_secret', cl.client_secret);
    }
    res = await fetch(discovery.token_endpoint, { method: 'POST', headers, body });
    const tokens = await res.json();
    check(res.status === 200 && tokens.id_token, 'token endpoint answers an id_token', JSON.stringify(tokens));
    return { tokens, nonce };
  }

  const verifies = (idToken, keys) => {
    const [h, p, s] = idToken.split('.');
    const jwk = keys.find((k) => k.kid === decode(h).kid);
    return !!jwk && verify('RSA-SHA256', Buffer.from(`${h}.${p}`), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(s, 'base64url'));
  };

  // 1. admin, with a wrong password first.
  let { tokens, nonce } = await signIn({ login: 'admin', password: 'admin', wrongPasswordFirst: true });
  let claims = decode(tokens.id_token.split('.')[1]);
  check(claims.iss === issuer && claims.aud === client.client_id && claims.nonce === nonce, 'id_token iss, aud and nonce');
  check(claims.sub === 'admin-sub' && claims.email === 'admin@example.com' && claims.name, 'id_token sub, email and name');
  check(JSON.stringify(claims.groups) === '["IT Admins"]', 'id_token groups', JSON.stringify(claims.groups));
  check(decode(tokens.id_token.split('.')[0]).alg === 'RS256', 'id_token is RS256');
  check(verifies(tokens.id_token, keys1), 'id_token signature verifies with the JWKS');

  // The fixed client from the environment; no groups scope, no groups claim.
  ({ tokens } = await signIn({ login: 'admin', password: 'admin', auth: 'post', cl: fixed, scope: 'openid email' }));
  claims = decode(tokens.id_token.split('.')[1]);
  check(claims.aud === fixed.client_id && claims.email && !('groups' in claims) && !('name' in claims),
    'fixed client signs in; without the groups and profile scopes no groups nor name', JSON.stringify(claims));

  // 2. tamper hook: only the next token response is corrupted.
  let res = await fetch(`${issuer}/__test/tamper-next-id-token`, { method: 'POST' });
  check(res.status === 204, 'tamper hook answers 204');
  ({ tokens } = await signIn({ login: 'reader', password: 'reader', auth: 'post' }));
  check(decode(tokens.id_token.split('.')[1]).groups[0] === 'Inventory Readers', 'reader signs in with client_secret_post');
  check(/^[\w-]+$/.test(tokens.id_token.split('.')[2]), 'tampered signature is still base64url');
  check(!verifies(tokens.id_token, keys1), 'tampered id_token does not verify');
  ({ tokens } = await signIn({ login: 'reader', password: 'reader', auth: 'post' }));
  check(verifies(tokens.id_token, keys1), 'the following id_token verifies again');

  // 3. rotate hook: a new kid, the JWKS lists only it, the registered client still works.
  res = await fetch(`${issuer}/__test/rotate-keys`, { method: 'POST' });
  check(res.status === 204, 'rotate hook answers 204');
  const keys2 = await jwks();
  check(keys2.length === 1 && keys2[0].kid !== keys1[0].kid, 'JWKS lists only a new key');
  ({ tokens } = await signIn({ login: 'nobody', password: 'nobody' }));
  check(decode(tokens.id_token.split('.')[0]).kid === keys2[0].kid, 'id_token after rotation carries the new kid');
  check(verifies(tokens.id_token, keys2) && !verifies(tokens.id_token, keys1), 'it verifies with the new key only');
  check(decode(tokens.id_token.split('.')[1]).groups[0] === 'Sales', 'nobody is in Sales');

  console.log(`${passed} passed, 0 failed`);
} catch (err) {
  console.log(err.message);
  console.log(`${passed} passed, 1 failed`);
  process.exitCode = 1;
} finally {
  child.kill('SIGTERM');
  const code = await new Promise((resolve) => child.once('exit', (c, sig) => resolve(c ?? sig)));
  if (code !== 0) {
    console.log(`provider did not stop cleanly on SIGTERM: ${code}`);
    process.exitCode = 1;
  }
}
