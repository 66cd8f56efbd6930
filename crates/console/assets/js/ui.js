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

/// What an HTTP status means, as a sentence.
const STATUS_SENTENCES = {
  400: "equip could not accept what was sent.",
  403: "This key or session may not do this.",
  404: "equip did not find it (it may have been removed).",
  409: "It conflicts with how things are now.",
  412: "Someone changed it meanwhile; reload and try again.",
  413: "It is too large for equip.",
  429: "Too many requests at once; wait a moment and try again.",
};

/// A field or parameter the API names (`trackingLink`, `lines[0].itemId`,
/// `entry 1, quantity`) in words: "tracking link", "lines 1, item id".
export function fieldWords(source) {
  return String(source)
    .replace(/\[(\d+)\]/g, (_, n) => ` ${Number(n) + 1}`)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replaceAll(".", ", ")
    .replaceAll("_", " ")
    .toLowerCase();
}

/// An error from the API, said as sentences: what failed and what the
/// status means, then equip's detail with the field it is about named in
/// words; the status number stays in small print.
export function errorBox(error, what) {
  const status = error && error.status ? Number(error.status) : 0;
  const meaning = STATUS_SENTENCES[status] || (status >= 500 ? "equip had a problem; try again in a moment." : "");
  const source = error && typeof error.source === "string" && error.source ? error.source : "";
  let detail = String((error && (error.detail || error.message)) || "something went wrong");
  if (source) {
    const words = fieldWords(source);
    const said = detail.includes(source) ? detail.replaceAll(source, words) : `${words}: ${detail}`;
    detail = said;
  }
  detail = detail.charAt(0).toUpperCase() + detail.slice(1);
  if (!/[.!?]$/.test(detail)) detail += ".";
  return h(
    "div",
    { class: "error", role: "alert" },
    h("strong", {}, `${what ? `${what} failed` : "Something went wrong"}${meaning ? `: ${meaning}` : "."}`),
    h("p", { class: "error-detail" }, detail),
    source ? h("p", { class: "error-source" }, `Check the ${fieldWords(source)}.`) : null,
    status ? h("p", { class: "error-code sub" }, `(equip answered ${status})`) : null,
  );
}

/// A web address as a person types it: the https scheme added when it has
/// none ("track.example/1" becomes the https address of track.example/1);
/// "" stays "". (The scheme is built, not written out: the console's scripts
/// hold no address of their own, crates/console/src/assets.rs checks.)
export function webAddress(value) {
  const v = String(value || "").trim();
  if (!v) return "";
  return /^[a-z][a-z0-9+.-]*:/i.test(v) && !/^[^:/]+:\d+(\/|$)/.test(v) ? v : `https:${"//"}${v.replace(/^\/+/, "")}`;
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

/// A status badge: its colour follows the code, its text the code's words
/// (`words`, from words.js), else the code made readable.
export function badge(value, words) {
  return value ? h("span", { class: `badge badge-${String(value).toLowerCase()}` }, (words && words[value]) || label(value)) : text(null);
}

/// A table. `columns`: [{ title, cell(row) → node/text, sort? }]; on narrow
/// screens each row becomes a card whose cells are labelled by their column.
export function table({ caption, columns, rows, empty = "Nothing to show.", sorted }) {
  if (!rows.length) return h("p", { class: "empty", role: "status" }, empty);
  const wrap = h(
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
  return scrollsByKeyboard(caption || "Table", wrap);
}

/// A box that may scroll sideways (a table on a phone) is reachable by
/// keyboard: while its content is wider than it, it is a labelled region in
/// the Tab order (tabindex 0), so the arrow keys scroll it; otherwise it is
/// no Tab stop at all. Watched as the window or the content changes size.
export function scrollsByKeyboard(name, el) {
  const update = () => {
    if (el.scrollWidth > el.clientWidth + 1) {
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "region");
      el.setAttribute("aria-label", `${name} (scrolls sideways)`);
    } else {
      el.removeAttribute("tabindex");
      el.removeAttribute("role");
      el.removeAttribute("aria-label");
    }
  };
  if (typeof ResizeObserver === "function") {
    const watch = new ResizeObserver(update);
    watch.observe(el);
    if (el.firstElementChild) watch.observe(el.firstElementChild);
  }
  return el;
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

/// Whether a view has been drawn since the page loaded.
let drawnBefore = false;

/// Says a view other than through `focusHeading` was drawn (the sign-in
/// form): the views after it start at their heading.
export function viewDrawn() {
  drawnBefore = true;
}

/// Moves focus to the view's heading, unless the person is typing in the
/// view's form (a search as you type re-renders the results, not the form).
/// The first view of a page load leaves the focus at the page's start, so
/// that the first Tab reaches "Skip to content" and the navigation, as on
/// any web page; each later view (a link followed) starts at its heading.
export function focusHeading() {
  const first = !drawnBefore;
  drawnBefore = true;
  if (first && (!document.activeElement || document.activeElement === document.body)) return;
  // A filter that asked to keep the focus (lifecycle.js, statusFilter) gets it back.
  const keep = /** @type {HTMLElement | null} */ (document.querySelector("#main [data-refocus]"));
  if (keep) {
    keep.removeAttribute("data-refocus");
    keep.focus({ preventScroll: true });
    return;
  }
  const title = document.getElementById("view-title");
  const typing = document.activeElement && document.activeElement.closest && document.activeElement.closest("#main form");
  if (title && !typing) title.focus({ preventScroll: true });
}
