// People: the SCIM users (`GET /scim/v2/Users`), searched as you type by
// name or email, 25 a page. The search and page are in the URL.

import { request } from "./api.js";
import { current, go, href } from "./router.js";
import { announce, badge, debounce, errorBox, fill, focusHeading, h, heading, loading, pager, table, text } from "./ui.js";

export const EXTENSION = "urn:ietf:params:scim:schemas:extension:equip:1.0:User";
const PAGE_SIZE = 25;

let view = null;

export default async function peopleView(main, route, ctx) {
  if (!view || !main.contains(view.form)) {
    view = build(main);
    focusHeading();
  }
  const q = route.params.get("q") || "";
  if (view.search !== document.activeElement) view.search.value = q;
  await load(route.params, ctx);
}

function build(main) {
  const search = h("input", { id: "people-search", type: "search", autocomplete: "off", placeholder: "Name or email", "aria-describedby": "people-search-help" });
  const form = h(
    "form",
    { class: "filters", role: "search", "aria-label": "Search people", onsubmit: (e) => e.preventDefault() },
    h(
      "div",
      { class: "field grow" },
      h("label", { for: "people-search" }, "Search"),
      search,
      h("small", { id: "people-search-help", class: "help" }, "Matches given name, family name or email address (userName)."),
    ),
  );
  const body = h("div", {});
  fill(main, heading("People"), form, h("section", { class: "results", "aria-label": "People" }, body));
  search.addEventListener(
    "input",
    debounce(() => {
      // A search typed just before leaving the list must not bring it back.
      if (!form.isConnected || current().path.join("/") !== "people") return;
      const params = new URLSearchParams();
      if (search.value.trim()) params.set("q", search.value.trim());
      go(["people"], params, { replace: true });
    }, 300),
  );
  return { form, search, body };
}

/// A SCIM string literal.
function quoted(value) {
  return `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

function searchFilter(q) {
  if (!q) return null;
  const v = quoted(q);
  return `userName co ${v} or name.givenName co ${v} or name.familyName co ${v}`;
}

async function load(params, ctx) {
  const page = Math.max(1, Number.parseInt(params.get("page") || "1", 10) || 1);
  const body = view.body;
  if (!body.firstChild) fill(body, loading("Loading people…"));
  else body.classList.add("stale");
  let answer;
  try {
    answer = await request("GET", "/scim/v2/Users", {
      query: [
        ["filter", searchFilter(params.get("q") || "")],
        ["startIndex", String((page - 1) * PAGE_SIZE + 1)],
        ["count", String(PAGE_SIZE)],
        ["sortBy", "name.familyName"],
      ],
      signal: ctx.signal,
    });
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    body.classList.remove("stale");
    fill(body, errorBox(error, "Loading people"));
    return;
  }
  if (!ctx.isCurrent()) return;
  body.classList.remove("stale");
  const total = answer.totalResults;
  const pages = Math.ceil(total / PAGE_SIZE);
  fill(
    body,
    h("p", { class: "count", id: "result-count" }, `${total} people`),
    table({
      caption: "People",
      empty: "Nobody matches this search.",
      rows: answer.Resources,
      columns: [
        {
          title: "Name",
          cell: (u) => h("a", { href: href(["people", u.id], null), class: "person-link" }, displayName(u)),
        },
        { title: "Email", cell: (u) => text(u.userName) },
        { title: "Status", cell: (u) => badge(u[EXTENSION]?.status) },
        { title: "Start date", cell: (u) => text(u[EXTENSION]?.startDate) },
        { title: "Active", cell: (u) => (u.active === false ? "No" : "Yes") },
      ],
    }),
    pager({
      page,
      pages,
      total,
      noun: "people",
      go: (p) => {
        const next = new URLSearchParams(params);
        if (p > 1) next.set("page", String(p));
        else next.delete("page");
        go(["people"], next);
      },
    }),
  );
  announce(`${total} people`);
}

export function displayName(u) {
  const n = u.name || {};
  const name = [n.givenName, n.familyName].filter(Boolean).join(" ");
  return name || u.displayName || u.userName;
}

