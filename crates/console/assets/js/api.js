// @ts-check
// The console's only way to equip: its public API, signed in one of two ways.
//
// With an API key: the key lives in sessionStorage (this tab only, gone when
// it closes) and is sent in the Authorization header; it is never put in a
// URL, and requests carry no cookie (credentials "omit").
//
// With a session (single sign-on through the organization's identity
// provider): equip's HttpOnly `equip_session` cookie, which this script never
// sees. `GET /sso/session` at start says whether there is one and what it may
// do; every request then goes with credentials "same-origin", no
// Authorization header, and `X-Equip-CSRF: 1` on every method but GET/HEAD
// (equip refuses a write signed in by the cookie without it).
//
// Either way, any 401 signs the console out, saying why.

const KEY = "equip.key";
const KEY_INFO = "equip.keyInfo";
/** The header a write signed in with a session must carry (any non-empty value). */
const CSRF = "X-Equip-CSRF";

/**
 * What `GET /sso/session` answered, while signed in with a session (kept in
 * memory only: each page load asks equip again).
 * @typedef {{organizationId: string, subject: string, email: string, name?: string, scopes: string[], expiresAt: string, idleExpiresAt: string}} SessionInfo
 */
/** @type {SessionInfo | null} */
let session = null;

/// An error answer of the API, with the `detail` the API gave.
class ApiError extends Error {
  constructor(status, detail, source) {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.source = source;
  }
}

export function storedKey() {
  return sessionStorage.getItem(KEY);
}

/// What `GET /api/v1/api-key` said about the signed-in key; with a session,
/// what `GET /sso/session` said (its `scopes` read as a key's).
export function keyInfo() {
  if (session && !storedKey()) return session;
  const raw = sessionStorage.getItem(KEY_INFO);
  if (!raw) return null;
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

/// The session this tab is signed in with, or null (signed in with a key, or not at all).
export function sessionInfo() {
  return storedKey() ? null : session;
}

/// Whether the tab is signed in, with a key or with a session.
export function signedIn() {
  return Boolean(keyInfo());
}

/// Who is signed in, to tell cached answers of one from another's: the key,
/// or the session's organization and subject.
export function identity() {
  const key = storedKey();
  if (key) return `key:${key}`;
  return session ? `session:${session.organizationId}:${session.subject}` : "";
}

export function forget() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(KEY_INFO);
  session = null;
}

/// At start: a key kept in this tab signs in with it (as before); else
/// `GET /sso/session` says whether the browser has a live session. Answers
/// whether the tab is signed in. Anything but 200 leaves it signed out.
export async function resume() {
  if (storedKey() && keyInfo()) return true;
  session = null;
  try {
    const response = await fetch("/sso/session", {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
      cache: "no-store",
    });
    if (response.ok) session = await response.json();
  } catch {
    session = null;
  }
  if (!session || !Array.isArray(session.scopes)) session = null;
  return Boolean(session);
}

/// Ends the session in equip (`POST /sso/logout`: every instance refuses it
/// at once) and forgets it here. Throws an ApiError when equip could not end it.
export async function signOutSession() {
  let response;
  try {
    response = await fetch("/sso/logout", {
      method: "POST",
      headers: { Accept: "application/json", [CSRF]: "1" },
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "equip could not be reached, so the session may still be live; try again");
  }
  if (!response.ok && response.status !== 401) {
    throw errorOf(response.status, response.statusText, await response.text());
  }
  forget();
}

/// Checks `key` against the API and keeps it for this tab.
export async function signIn(key) {
  const info = await request("GET", "/api/v1/api-key", { key, keepKeyOn401: true });
  sessionStorage.setItem(KEY, key);
  sessionStorage.setItem(KEY_INFO, JSON.stringify(info));
  return info;
}

/** @type {(detail: string, bySession: boolean) => void} */
let onSignedOut = () => {};

/// `callback(message, bySession)` runs when the API refuses the key or the
/// session (401); `bySession` says which it was.
export function whenSignedOut(callback) {
  onSignedOut = callback;
}

function url(path, query) {
  const u = new URL(path, location.origin);
  if (query) {
    for (const [name, value] of query) {
      if (value !== undefined && value !== null && value !== "") u.searchParams.append(name, value);
    }
  }
  return u.pathname + u.search;
}

/// The `detail` of an error body: the API's `errors[0].detail`, or SCIM's
/// `detail`; else the status line.
function errorOf(status, statusText, text) {
  let detail = `${status} ${statusText || "error"}`;
  let source;
  try {
    const body = JSON.parse(text);
    if (body && Array.isArray(body.errors) && body.errors.length) {
      detail = body.errors.map((e) => e.detail).filter(Boolean).join("; ") || detail;
      source = body.errors[0].source;
    } else if (body && typeof body.detail === "string") {
      detail = body.detail;
    }
  } catch {
    if (text && text.length < 300) detail = `${detail}: ${text.trim()}`;
  }
  return new ApiError(status, detail, source);
}

/// Sends a request to the API and answers its JSON (or null without a body);
/// with `withStatus`, `{ status, body }`. `query`: [name, value] pairs (empty
/// values left out); `body`: JSON.
export async function request(method, path, options = {}) {
  const key = options.key ?? storedKey();
  const who = options.key ? `key:${options.key}` : identity();
  const headers = { Accept: "application/json" };
  const bySession = !key && Boolean(session);
  if (key) headers.Authorization = `ApiKey ${key}`;
  if (bySession && !isSafe(method)) headers[CSRF] = "1";
  let body;
  if (options.body !== undefined) {
    headers["Content-Type"] = path.startsWith("/scim/") ? "application/scim+json" : "application/json";
    body = JSON.stringify(options.body);
  }
  let response;
  try {
    response = await fetch(url(path, options.query), {
      method,
      headers,
      body,
      credentials: bySession ? "same-origin" : "omit",
      cache: "no-store",
      signal: options.signal,
    });
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new ApiError(0, "equip could not be reached; check the connection and try again");
  }
  const text = await response.text();
  if (!response.ok) {
    const error = errorOf(response.status, response.statusText, text);
    if (response.status === 401 && !options.keepKeyOn401) refused(who, error.detail);
    throw error;
  }
  let parsed = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError(response.status, "equip answered something that is not JSON");
    }
  }
  return options.withStatus ? { status: response.status, body: parsed } : parsed;
}

/// GET and HEAD change nothing: they need no X-Equip-CSRF header.
function isSafe(method) {
  return method === "GET" || method === "HEAD";
}

/// A 401 for the key or session `who` (an `identity()`): forget it and sign
/// out, unless someone else has signed in since the request left (its answer
/// says nothing about them).
function refused(who, detail) {
  if (who !== identity()) return;
  forget();
  onSignedOut(detail, who.startsWith("session:"));
}

/// Uploads `file` as the `file` field of a multipart form; `progress(sent,
/// total)` follows the upload. XMLHttpRequest, because fetch cannot report
/// upload progress.
export function upload(path, file, progress) {
  const key = storedKey();
  const who = identity();
  if (!who) {
    onSignedOut("this tab is not signed in", false);
    return Promise.reject(new ApiError(401, "sign in first"));
  }
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", path);
    // Same-origin: the session cookie goes with it (withCredentials is for
    // other origins); a key goes in the Authorization header instead.
    if (key) xhr.setRequestHeader("Authorization", `ApiKey ${key}`);
    else xhr.setRequestHeader(CSRF, "1");
    xhr.setRequestHeader("Accept", "application/scim+json, application/json");
    xhr.upload.addEventListener("progress", (e) => progress(e.loaded, e.lengthComputable ? e.total : file.size));
    xhr.upload.addEventListener("load", () => progress(file.size, file.size, true));
    xhr.addEventListener("error", () => reject(new ApiError(0, "the upload failed: equip could not be reached")));
    xhr.addEventListener("abort", () => reject(new ApiError(0, "the upload was cancelled")));
    xhr.addEventListener("load", () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText));
        } catch {
          reject(new ApiError(xhr.status, "equip answered something that is not JSON"));
        }
        return;
      }
      const error = errorOf(xhr.status, xhr.statusText, xhr.responseText);
      if (xhr.status === 401) refused(who, error.detail);
      reject(error);
    });
    const form = new FormData();
    form.append("file", file, file.name || "upload.csv");
    xhr.send(form);
  });
}
