// @ts-check
// Views live in the URL's fragment (`#/inventory?deployStatuses=DEPLOYED`), so a
// view, its filters and its page can be bookmarked and shared, and the server
// only ever serves one page. The key is never part of it.

/// The current route: `{ path: ["inventory", "<id>"], params: URLSearchParams }`.
export function current() {
  const hash = location.hash.startsWith("#/") ? location.hash.slice(2) : "";
  const [path, query] = splitOnce(hash, "?");
  return {
    path: path.split("/").filter(Boolean).map(decodeURIComponent),
    params: new URLSearchParams(query),
  };
}

function splitOnce(text, sep) {
  const i = text.indexOf(sep);
  return i < 0 ? [text, ""] : [text.slice(0, i), text.slice(i + 1)];
}

/// The fragment for `path` (segments) and `params`.
export function href(path, params) {
  const p = path.map(encodeURIComponent).join("/");
  const q = params ? params.toString() : "";
  return `#/${p}${q ? `?${q}` : ""}`;
}

/// Goes to `path` with `params`; `replace` keeps the browser history as it is
/// (typing in a search box should not add an entry per keystroke).
export function go(path, params, { replace = false } = {}) {
  const target = href(path, params);
  if (target === location.hash) return;
  if (replace) {
    history.replaceState(null, "", target);
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  } else {
    location.hash = target;
  }
}
