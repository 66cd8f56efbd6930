// @ts-check
// Small building blocks for the views. Text from the API is only ever set as
// text (textContent), never parsed as HTML.

/// Creates an element: `h("a", { href: "#/x", class: "y" }, "text", child)`.
/// Attributes starting with `on` add listeners; `null`/`false` ones are skipped.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === "class") {
      el.className = value;
    } else if (value === true) {
      el.setAttribute(name, "");
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/// Replaces the children of `el`.
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/// Says `text` to screen readers (the page's polite live region).
export function announce(text) {
  const region = document.getElementById("announcer");
  if (region) {
    region.textContent = "";
    window.setTimeout(() => {
      region.textContent = text;
    }, 30);
  }
}

/// An error from the API, shown with its detail.
export function errorBox(error, what) {
  const status = error && error.status ? ` (HTTP ${error.status})` : "";
  const detail = (error && (error.detail || error.message)) || "something went wrong";
  return h(
    "div",
    { class: "error", role: "alert" },
    h("strong", {}, what ? `${what} failed${status}` : `Error${status}`),
    h("p", { class: "error-detail" }, detail),
    error && error.source && typeof error.source === "string" ? h("p", { class: "error-source" }, `About: ${error.source}`) : null,
  );
}

export function notice(text, kind = "info") {
  return h("div", { class: `notice ${kind}`, role: "status" }, text);
}

export function loading(text = "Loading…") {
  return h("p", { class: "loading", role: "status" }, text);
}

/// `fn` called once `ms` have passed without another call.
export function debounce(fn, ms) {
  let timer;
  return (...args) => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => fn(...args), ms);
  };
}

const two = (n) => String(n).padStart(2, "0");

/// A time from the API (RFC 3339) in the browser's time zone, as
/// `2026-11-23 14:03`; the exact value in `title`. (Not Intl: loading its
/// locale data cost the first screen tens of milliseconds.)
export function time(value) {
  if (!value) return h("span", { class: "muted" }, "—");
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  const shown = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
  return h("time", { datetime: value, title: value }, shown);
}

export function text(value) {
  return value === null || value === undefined || value === "" ? h("span", { class: "muted" }, "—") : String(value);
}

/// A readable form of an enum value: `OUT_FOR_REPAIR` → `Out for repair`.
export function label(value) {
  if (!value) return "";
  const words = String(value).toLowerCase().replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function badge(value) {
  return value ? h("span", { class: `badge badge-${String(value).toLowerCase()}` }, label(value)) : text(null);
}

/// A table. `columns`: [{ title, cell(row) → node/text, sort? }]; on narrow
/// screens each row becomes a card whose cells are labelled by their column.
export function table({ caption, columns, rows, empty = "Nothing to show.", sorted }) {
  if (!rows.length) return h("p", { class: "empty", role: "status" }, empty);
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "data" },
      caption ? h("caption", { class: "visually-hidden" }, caption) : null,
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          columns.map((c) =>
            h("th", { scope: "col", "aria-sort": sorted && sorted.key === c.sort ? sorted.direction : null }, c.title),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((row) =>
          h(
            "tr",
            {},
            columns.map((c) => h("td", { "data-label": c.title }, c.cell(row))),
          ),
        ),
      ),
    ),
  );
}

/// A definition list of [term, value] pairs (values may be nodes).
export function facts(pairs) {
  return h(
    "dl",
    { class: "facts" },
    pairs.map(([term, value]) => [h("dt", {}, term), h("dd", {}, value === undefined ? text(null) : value)]),
  );
}

/// Asks for confirmation in the page's modal dialog; answers true or false.
export function confirm(title, body, action) {
  const dialog = /** @type {HTMLDialogElement} */ (document.getElementById("confirm"));
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-text").textContent = body;
  const ok = document.getElementById("confirm-ok");
  const cancel = document.getElementById("confirm-cancel");
  ok.textContent = action;
  const opener = /** @type {HTMLElement | null} */ (document.activeElement);
  return new Promise((resolve) => {
    const finish = (answer) => {
      ok.removeEventListener("click", yes);
      cancel.removeEventListener("click", no);
      dialog.removeEventListener("cancel", no);
      if (dialog.open) dialog.close();
      if (opener && opener.isConnected) opener.focus();
      resolve(answer);
    };
    const yes = () => finish(true);
    const no = (e) => {
      if (e) e.preventDefault();
      finish(false);
    };
    ok.addEventListener("click", yes);
    cancel.addEventListener("click", no);
    dialog.addEventListener("cancel", no);
    dialog.showModal();
    cancel.focus();
  });
}

/// The page title and heading of a view; focus moves to the heading so that
/// keyboard and screen reader users start at the new view.
export function heading(title, ...extra) {
  document.title = `${title} · equip console`;
  return h("div", { class: "view-head" }, h("h1", { tabindex: "-1", id: "view-title" }, title), ...extra);
}

/// A pager: `Page x of y`, previous and next.
export function pager({ page, pages, total, noun, go }) {
  return h(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    h("button", { type: "button", class: "secondary", disabled: page <= 1, onclick: () => go(page - 1) }, "‹ Previous"),
    h("span", { class: "page-of" }, `Page ${pages ? page : 0} of ${pages} · ${total} ${noun}`),
    h("button", { type: "button", class: "secondary", disabled: page >= pages, onclick: () => go(page + 1) }, "Next ›"),
  );
}

/// Moves focus to the view's heading, unless the person is typing in the
/// view's form (a search as you type re-renders the results, not the form).
export function focusHeading() {
  const title = document.getElementById("view-title");
  const typing = document.activeElement && document.activeElement.closest && document.activeElement.closest("#main form");
  if (title && !typing) title.focus({ preventScroll: true });
}
