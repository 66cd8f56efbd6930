// @ts-check
// The console's only way to equip: its public API, with the signed-in key.
//
// The key lives in sessionStorage (this tab only, gone when it closes) and is
// sent in the Authorization header; it is never put in a URL. Any 401 drops
// it and signs the console out.

const KEY = "equip.key";
const KEY_INFO = "equip.keyInfo";

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

/// What `GET /api/v1/api-key` said about the signed-in key.
export function keyInfo() {
  const raw = sessionStorage.getItem(KEY_INFO);
  if (!raw) return null;
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

export function forget() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(KEY_INFO);
}

/// Checks `key` against the API and keeps it for this tab.
export async function signIn(key) {
  const info = await request("GET", "/api/v1/api-key", { key, keepKeyOn401: true });
  sessionStorage.setItem(KEY, key);
  sessionStorage.setItem(KEY_INFO, JSON.stringify(info));
  return info;
}

/** @type {(detail: string) => void} */
let onSignedOut = () => {};

/// `callback(message)` runs when the API refuses the key (401).
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
  const headers = { Accept: "application/json" };
  if (key) headers.Authorization = `ApiKey ${key}`;
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
      credentials: "omit",
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
    if (response.status === 401 && !options.keepKeyOn401) refused(key, error.detail);
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

/// A 401 for `key`: forget it and sign out, unless another key has been
/// signed in since the request left (its answer says nothing about that one).
function refused(key, detail) {
  if (key && key !== storedKey()) return;
  forget();
  onSignedOut(detail);
}

/// Uploads `file` as the `file` field of a multipart form; `progress(sent,
/// total)` follows the upload. XMLHttpRequest, because fetch cannot report
/// upload progress.
export function upload(path, file, progress) {
  const key = storedKey();
  if (!key) {
    onSignedOut("there is no key in this tab");
    return Promise.reject(new ApiError(401, "sign in first"));
  }
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", path);
    xhr.setRequestHeader("Authorization", `ApiKey ${key}`);
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
      if (xhr.status === 401) refused(key, error.detail);
      reject(error);
    });
    const form = new FormData();
    form.append("file", file, file.name || "upload.csv");
    xhr.send(form);
  });
}
