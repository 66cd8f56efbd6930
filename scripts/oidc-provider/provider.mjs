// A local, real OpenID Connect provider for equip's SSO tests (npm `oidc-provider`).
// TEST USE ONLY: fixed cookie keys, plain http on 127.0.0.1, open client registration,
// in-memory state and the test hooks below. Start it with scripts/oidc-provider.sh.
//
// Output: the FIRST stdout line is the issuer `http://127.0.0.1:PORT`, written once the
// port is listening; everything else goes to stderr. SIGTERM/SIGINT stop it cleanly.
//
// Environment:
//   OIDC_PORT            port on 127.0.0.1 (default 0: a free one)
//   OIDC_ACCOUNTS        accounts JSON file (default: accounts.json beside this file), an array
//                        of {login, password, sub, email, email_verified, name, groups}
//   OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_REDIRECT_URIS (space separated)
//                        optional fixed client (secret default "test-secret")
//
// Client authentication at /token: client_secret_basic or client_secret_post, whichever of
// the two a client registered (oidc-provider's lib/shared/client_auth.js treats them alike).
//
// Endpoints (oidc-provider's defaults): /.well-known/openid-configuration, /auth, /token,
// /jwks, /me, /reg (open dynamic registration), /session/end; and served here:
//   GET  /interaction/:uid   the login page: a form with `login`, `password`, "Sign in"
//   POST /interaction/:uid   checks the password; a wrong one shows the form again (401)
//                            with an error; a right one finishes the login, consent is
//                            granted without a prompt, and the browser goes back to the
//                            client's redirect_uri with `code` and `state`.
// Test hooks (each answers 204):
//   POST /__test/tamper-next-id-token  the next successful token response carries an
//                                      id_token whose signature is corrupted (still base64url)
//   POST /__test/shift-next-id-token?iat=S&nbf=S
//                                      the next successful token response carries an
//                                      id_token re-signed with the current key whose `iat`
//                                      (and `exp` with it) and/or `nbf` are S seconds from now
//                                      (a provider whose clock runs ahead)
//   POST /__test/rotate-keys           from now on sign with a freshly generated RSA key
//                                      (new kid); /jwks lists only that key. Clients, sessions,
//                                      grants and codes survive (shared in-memory adapter).
//
// http redirect URIs: oidc-provider accepts `http:` redirect URIs for clients of
// application_type `web` (the default) as long as they do not use the implicit grant
// (lib/helpers/client_schema.js, redirectUris(): only the implicit flow forces https and
// forbids localhost). Our clients use the authorization code grant only, so a web client
// registering `http://127.0.0.1:PORT/sso/callback` is accepted as it is: no tweak needed.

import { createPrivateKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';

// oidc-provider prints its notices with console.info (stdout); stdout is reserved for the
// issuer line, so every console output goes to stderr. Done before oidc-provider is loaded.
for (const name of ['log', 'info', 'debug']) console[name] = console.error;
const log = (...args) => console.error('oidc-provider:', ...args);

const { default: Provider } = await import('oidc-provider');

if (process.argv.includes('--check')) {
  log(`oidc-provider loaded on node ${process.version}`);
  process.exit(0);
}

// ---------------------------------------------------------------------------------------
// Accounts

const accountsFile = process.env.OIDC_ACCOUNTS || new URL('accounts.json', import.meta.url);
const accounts = JSON.parse(readFileSync(accountsFile, 'utf8'));
for (const a of accounts) {
  if (!a.login || !a.password || !a.sub) throw new Error(`${accountsFile}: each account needs login, password and sub`);
}

async function findAccount(_ctx, sub) {
  const account = accounts.find((a) => a.sub === sub);
  if (!account) return undefined;
  return {
    accountId: sub,
    // oidc-provider keeps only the claims of the granted scopes (see `claims` below).
    async claims() {
      return {
        sub,
        email: account.email,
        email_verified: account.email_verified ?? true,
        name: account.name,
        groups: account.groups ?? [],
      };
    },
  };
}

// ---------------------------------------------------------------------------------------
// State shared by every Provider instance (a key rotation builds a new instance).

// Map-based adapter over one store for all models and all instances. oidc-provider's own
// default (MemoryAdapter) makes a new store per Provider instance, which would lose the
// registered clients and sessions on rotation.
const store = new Map(); // key -> { value, expiresAt (ms) | undefined }
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode',
  'BackchannelAuthenticationRequest']);
let writes = 0;

function get(key) {
  const entry = store.get(key);
  if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
    store.delete(key);
    return undefined;
  }
  return entry?.value;
}

function put(key, value, expiresAt) {
  store.set(key, { value, expiresAt });
  if (++writes % 500 === 0) { // sweep expired entries now and then
    for (const k of store.keys()) get(k);
  }
}

class SharedMemoryAdapter {
  constructor(model) { this.model = model; }

  key(id) { return `${this.model}:${id}`; }

  async upsert(id, payload, expiresIn) {
    const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : undefined;
    put(this.key(id), payload, expiresAt);
    if (this.model === 'Session') put(`sessionUid:${payload.uid}`, id, expiresAt);
    if (payload.userCode) put(`userCode:${payload.userCode}`, id, expiresAt);
    if (GRANTABLE.has(this.model) && payload.grantId) {
      const members = get(`grant:${payload.grantId}`) ?? new Set();
      members.add(this.key(id));
      put(`grant:${payload.grantId}`, members);
    }
  }

  async find(id) { return get(this.key(id)); }

  async findByUid(uid) {
    const id = get(`sessionUid:${uid}`);
    return id === undefined ? undefined : this.find(id);
  }

  async findByUserCode(userCode) {
    const id = get(`userCode:${userCode}`);
    return id === undefined ? undefined : this.find(id);
  }

  async consume(id) {
    const payload = get(this.key(id));
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id) { store.delete(this.key(id)); }

  async revokeByGrantId(grantId) {
    for (const key of get(`grant:${grantId}`) ?? []) store.delete(key);
    store.delete(`grant:${grantId}`);
  }
}

// ---------------------------------------------------------------------------------------
// Configuration

function newSigningKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

const fixedClients = [];
if (process.env.OIDC_CLIENT_ID) {
  fixedClients.push({
    client_id: process.env.OIDC_CLIENT_ID,
    client_secret: process.env.OIDC_CLIENT_SECRET || 'test-secret',
    redirect_uris: (process.env.OIDC_REDIRECT_URIS || '').split(/\s+/).filter(Boolean),
    token_endpoint_auth_method: 'client_secret_basic', // client_secret_post works as well
    grant_types: ['authorization_code'],
    response_types: ['code'],
  });
}

// Consent without a prompt: the grant for this client and account is found (or made) and
// extended with whatever OIDC scopes and claims this request asks for.
async function loadExistingGrant(ctx) {
  const { oidc } = ctx;
  const grantId = oidc.result?.consent?.grantId || oidc.session.grantIdFor(oidc.client.clientId);
  const grant = (grantId && await oidc.provider.Grant.find(grantId))
    || new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
  grant.addOIDCScope([...oidc.requestParamOIDCScopes].join(' '));
  const claims = [...oidc.requestParamClaims];
  if (claims.length) grant.addOIDCClaims(claims);
  await grant.save();
  return grant;
}

function configuration(signingKey) {
  return {
    adapter: SharedMemoryAdapter,
    clients: fixedClients,
    jwks: { keys: [signingKey] },
    findAccount,
    loadExistingGrant,
    responseTypes: ['code'], // authorization code flow only (so no implicit grant either)
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    // Put the granted scopes' claims into the ID token, not only into /me.
    conformIdTokenClaims: false,
    pkce: { required: () => true }, // S256 is the only method oidc-provider supports
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
    features: {
      devInteractions: { enabled: false }, // the login page is served below
      registration: { enabled: true }, // open: no initial access token
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['equip-test-cookie-key-1', 'equip-test-cookie-key-2'] },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 600,
      Grant: 14 * 24 * 3600,
      IdToken: 3600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
    },
    async renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = page('Error', `<h1>Sign-in error</h1><p>${esc(out.error)}: ${esc(out.error_description ?? '')}</p>`);
    },
  };
}

// ---------------------------------------------------------------------------------------
// The login page

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title, body) {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:sans-serif;max-width:22rem;margin:3rem auto;padding:0 1rem}
label{display:block;margin:.8rem 0}input{display:block;width:100%;box-sizing:border-box;padding:.4rem}
button{padding:.5rem 1.2rem}.error{color:#b00020;font-weight:bold}</style></head><body>${body}</body></html>`;
}

function loginPage(uid, clientId, error, login = '') {
  // "Sign in" is the button's text only, so a test's text selector finds the button.
  return page('Test OpenID provider', `<h1>Test OpenID provider</h1>
<p>Signing in to the client <code>${esc(clientId)}</code>.</p>
${error ? `<p role="alert" class="error">${esc(error)}</p>` : ''}
<form method="post" action="/interaction/${esc(uid)}">
<label>Login <input name="login" autocomplete="username" value="${esc(login)}" required autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`);
}

function send(res, status, html) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

async function readForm(req) {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 64 * 1024) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { uid, prompt, params } = details;

  if (prompt.name === 'consent') { // only when a client asks prompt=consent: grant it
    const grant = (details.grantId && await provider.Grant.find(details.grantId))
      || new provider.Grant({ accountId: details.session.accountId, clientId: params.client_id });
    grant.addOIDCScope(params.scope ?? 'openid');
    if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
    return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } });
  }

  if (req.method === 'GET') return send(res, 200, loginPage(uid, params.client_id));
  if (req.method !== 'POST') return send(res, 405, page('Method not allowed', '<h1>Method not allowed</h1>'));

  const form = await readForm(req);
  const login = form.get('login') ?? '';
  const account = accounts.find((a) => a.login === login && a.password === form.get('password'));
  if (!account) {
    log(`login failed for "${login}"`);
    return send(res, 401, loginPage(uid, params.client_id, 'Wrong login or password.', login));
  }
  log(`signed in ${account.login} (${account.sub}) for client ${params.client_id}`);
  return provider.interactionFinished(req, res, { login: { accountId: account.sub } });
}

// ---------------------------------------------------------------------------------------
// Provider instances, test hooks and the HTTP server

let tamperNextIdToken = false;
let shiftNextIdToken = null; // {iat?, nbf?}: seconds from now

// The JWT with its claims' times moved as `shift` says, signed again with `key` (RS256).
function shiftTimes(jwt, shift, key) {
  const [header, payload] = jwt.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  const now = Math.floor(Date.now() / 1000);
  if (shift.iat !== undefined) {
    const lifetime = claims.exp - claims.iat;
    claims.iat = now + shift.iat;
    claims.exp = claims.iat + lifetime;
  }
  if (shift.nbf !== undefined) claims.nbf = now + shift.nbf;
  const signed = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(signed), createPrivateKey({ key, format: 'jwk' }));
  return `${signed}.${signature.toString('base64url')}`;
}

// Flips characters of the signature segment; the result stays base64url.
function corruptSignature(jwt) {
  const [header, payload, signature] = jwt.split('.');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const flipped = [...signature].map((c, i) => (i < 8 ? alphabet[(alphabet.indexOf(c) + 1) % 64] : c)).join('');
  return `${header}.${payload}.${flipped}`;
}

function newProvider(issuer) {
  const key = newSigningKey();
  const p = new Provider(issuer, configuration(key));
  p.use(async (ctx, next) => { // runs around oidc-provider's own handling
    await next();
    if (tamperNextIdToken && ctx.path === '/token' && ctx.status === 200 && ctx.body?.id_token) {
      tamperNextIdToken = false;
      ctx.body = { ...ctx.body, id_token: corruptSignature(ctx.body.id_token) };
      log('test hook: this token response carries a corrupted id_token signature');
    }
    if (shiftNextIdToken && ctx.path === '/token' && ctx.status === 200 && ctx.body?.id_token) {
      const shift = shiftNextIdToken;
      shiftNextIdToken = null;
      ctx.body = { ...ctx.body, id_token: shiftTimes(ctx.body.id_token, shift, key) };
      log(`test hook: this token response carries an id_token with times shifted ${JSON.stringify(shift)}`);
    }
  });
  p.on('server_error', (_ctx, err) => log('server error', err));
  log(`signing key kid ${key.kid}`);
  return p;
}

let provider;
let handle;

const server = http.createServer(async (req, res) => {
  try {
    const { pathname } = new URL(req.url, 'http://127.0.0.1');
    if (req.method === 'POST' && pathname === '/__test/tamper-next-id-token') {
      tamperNextIdToken = true;
      log('test hook: the next id_token will carry a corrupted signature');
      res.writeHead(204).end();
    } else if (req.method === 'POST' && pathname === '/__test/shift-next-id-token') {
      const query = new URL(req.url, 'http://127.0.0.1').searchParams;
      shiftNextIdToken = {};
      for (const claim of ['iat', 'nbf']) {
        if (query.has(claim)) shiftNextIdToken[claim] = Number(query.get(claim));
      }
      log(`test hook: the next id_token's times will be shifted ${JSON.stringify(shiftNextIdToken)}`);
      res.writeHead(204).end();
    } else if (req.method === 'POST' && pathname === '/__test/rotate-keys') {
      provider = newProvider(provider.issuer);
      handle = provider.callback();
      log('test hook: signing keys rotated');
      res.writeHead(204).end();
    } else if (/^\/interaction\/[^/]+$/.test(pathname)) {
      await interaction(req, res);
    } else {
      await handle(req, res);
    }
  } catch (err) {
    log(`${req.method} ${req.url}:`, err.statusCode < 500 ? `${err.name}: ${err.message}` : err);
    if (!res.headersSent) send(res, err.statusCode ?? 500, page('Error', `<h1>Error</h1><p>${esc(err.message)}</p>`));
    else res.destroy();
  }
});

server.listen(Number(process.env.OIDC_PORT || 0), '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  provider = newProvider(issuer);
  handle = provider.callback();
  process.stdout.write(`${issuer}\n`); // the first stdout line; pipes and files write synchronously
  log(`listening, issuer ${issuer}, ${accounts.length} accounts, ${fixedClients.length} fixed client(s)`);
});

function stop(signal) {
  log(`${signal}: stopping`);
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
