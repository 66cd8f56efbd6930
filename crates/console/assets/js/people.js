// @ts-check
// People: the SCIM users (`GET /scim/v2/Users`), searched as you type by
// name or email, 25 a page; optionally only those starting in the next N
// days, sorted by family name, email or start date, either way (the column
// headers sort as the inventory's do; the "Sort by" choice says the same and
// serves phones, whose table has no header row). The search, filters, sort
// and page are in the URL (`sort=userName|startDate`, `order=descending`).
// A key without `scim` (with `people:read`) lists the directory instead
// (`GET /api/v1/people`: every status, searched, by family name).

import { request } from "./api.js";
import { current, go, href } from "./router.js";
import { exportButton } from "./export.js";
import { PERSON_STATUS_WORDS, say } from "./words.js";
import { remember } from "./names.js";
import { can } from "./scopes.js";
import { announce, badge, debounce, errorBox, fill, focusHeading, h, heading, loading, pager, table, text } from "./ui.js";

import { EXTENSION } from "./names.js";
export { EXTENSION };
const PAGE_SIZE = 25;
/** The start-date sort, as SCIM names the extension's attribute. */
const START_DATE = `${EXTENSION}:startDate`;
/**
 * The sorts: the URL's `sort` (none for `name`, the column header's
 * `data-sort`), SCIM's `sortBy`, and the choice's words either way.
 */
const SORTS = [
  { key: "name", by: "name.familyName", ascending: "Family name, A to Z", descending: "Family name, Z to A" },
  { key: "userName", by: "userName", ascending: "Email, A to Z", descending: "Email, Z to A" },
  { key: "startDate", by: START_DATE, ascending: "Start date, soonest first", descending: "Start date, latest first" },
];
/** "Starting in the next N days" choices. */
const WITHIN = ["7", "14", "30", "60", "90"];

/** @type {any} */
let view = null;

/**
 * @param {HTMLElement} main
 * @param {{path: string[], params: URLSearchParams}} route
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
export default async function peopleView(main, route, ctx) {
  if (!view || !main.contains(view.form)) {
    view = build(main);
    focusHeading();
  }
  const q = route.params.get("q") || "";
  if (view.search !== document.activeElement) view.search.value = q;
  view.within.value = WITHIN.includes(route.params.get("startingWithin") || "") ? route.params.get("startingWithin") : "";
  view.sort.value = choiceOf(sortOf(route.params));
  view.folded.open = view.folded.open || Boolean(view.within.value || view.sort.value) && !narrow();
  await load(route.params, ctx);
}

/**
 * The list's sort: the URL's `sort` (family name when it names none the
 * console offers) and `order` (ascending unless `descending`).
 * @param {URLSearchParams} params
 * @returns {{key: string, by: string, descending: boolean}}
 */
function sortOf(params) {
  const found = SORTS.find((s) => s.key === params.get("sort")) || SORTS[0];
  return { key: found.key, by: found.by, descending: params.get("order") === "descending" };
}

/**
 * The "Sort by" choice's value for a sort ("" for the default).
 * @param {{key: string, descending: boolean}} sort
 */
function choiceOf(sort) {
  if (sort.key === "name" && !sort.descending) return "";
  return sort.descending ? `${sort.key}:descending` : sort.key;
}

/**
 * Sets the URL's `sort` and `order` for a sort (neither for the default).
 * @param {URLSearchParams} params
 * @param {string} key
 * @param {boolean} descending
 */
function setSort(params, key, descending) {
  if (key === "name") params.delete("sort");
  else params.set("sort", key);
  if (descending) params.set("order", "descending");
  else params.delete("order");
}

/** A phone-sized screen, where filters start folded under the results' count. */
function narrow() {
  return window.matchMedia("(max-width: 720px)").matches;
}

/**
 * The people list's URL for the form's values.
 * @returns {URLSearchParams}
 */
function paramsOfForm() {
  const params = new URLSearchParams();
  if (view.search.value.trim()) params.set("q", view.search.value.trim());
  if (view.within.value) params.set("startingWithin", view.within.value);
  const [key, order] = (view.sort.value || "name").split(":");
  setSort(params, key, order === "descending");
  return params;
}

/** @param {HTMLElement} main */
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
  const within = h(
    "select",
    { id: "people-within", name: "startingWithin", onchange: () => go(["people"], paramsOfForm()) },
    h("option", { value: "" }, "Anyone"),
    WITHIN.map((d) => h("option", { value: d }, `Starting in the next ${d} days`)),
  );
  const sort = h(
    "select",
    { id: "people-sort", name: "sort", onchange: () => go(["people"], paramsOfForm()) },
    SORTS.flatMap((s) => [
      h("option", { value: choiceOf({ key: s.key, descending: false }) }, s.ascending),
      h("option", { value: choiceOf({ key: s.key, descending: true }) }, s.descending),
    ]),
  );
  const folded = h(
    "details",
    { class: "filters-fold", open: narrow() ? null : true },
    h("summary", {}, "Filters"),
    h(
      "div",
      { class: "filters-grid" },
      h("div", { class: "field" }, h("label", { for: "people-within" }, "Start date"), within),
      h("div", { class: "field" }, h("label", { for: "people-sort" }, "Sort by"), sort),
    ),
  );
  // The start-date filter and the sorts are SCIM's (`scim`); the
  // directory (`people:read` alone) is searched and ordered by family name.
  if (can("scim")) form.append(folded);
  const body = h("div", {});
  fill(main, heading("People"), form, h("section", { class: "results", "aria-label": "People" }, body));
  search.addEventListener(
    "input",
    debounce(() => {
      // A search typed just before leaving the list must not bring it back.
      if (!form.isConnected || current().path.join("/") !== "people") return;
      go(["people"], paramsOfForm(), { replace: true });
    }, 300),
  );
  return { form, search, body, within, sort, folded };
}

/**
 * A SCIM string literal.
 * @param {string} value
 */
function quoted(value) {
  return `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * The SCIM filter of a search for `q` in names and emails.
 * @param {string} q
 * @returns {string | null}
 */
export function searchFilter(q) {
  if (!q) return null;
  const v = quoted(q);
  return `userName co ${v} or name.givenName co ${v} or name.familyName co ${v}`;
}

/**
 * `YYYY-MM-DD`, `days` from today on the UTC calendar (the API's).
 * @param {number} days
 */
function day(days) {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * The SCIM filter of the list's URL: the search, and people starting within
 * `startingWithin` days (today included).
 * @param {URLSearchParams} params
 * @returns {string | null}
 */
export function peopleFilter(params) {
  const search = searchFilter(params.get("q") || "");
  const within = params.get("startingWithin");
  const soon = within && WITHIN.includes(within) ? `${START_DATE} ge "${day(0)}" and ${START_DATE} le "${day(Number(within))}"` : null;
  if (search && soon) return `(${search}) and ${soon}`;
  return search || soon;
}

/**
 * One page of the list: the API's filter, sort and page (SCIM sorts by
 * the extension's start date too).
 * @param {URLSearchParams} params
 * @param {number} page
 * @param {AbortSignal} signal
 * @returns {Promise<{totalResults: number, Resources: any[]}>}
 */
export async function peoplePage(params, page, signal) {
  return peopleFrom(params, (page - 1) * PAGE_SIZE + 1, PAGE_SIZE, signal);
}

/**
 * `count` people of the list from the 1-based `startIndex` (the server may
 * answer fewer: its page cap).
 * @param {URLSearchParams} params
 * @param {number} startIndex
 * @param {number} count
 * @param {AbortSignal} [signal]
 * @returns {Promise<{totalResults: number, Resources: any[]}>}
 */
function peopleFrom(params, startIndex, count, signal) {
  if (!can("scim")) return directoryFrom(params, startIndex, count, signal);
  return request("GET", "/scim/v2/Users", {
    query: [
      ["filter", peopleFilter(params)],
      ["startIndex", String(startIndex)],
      ["count", String(count)],
      // Family name, email or start date (people without one last when
      // ascending, first when descending: SCIM's order).
      ["sortBy", sortOf(params).by],
      ["sortOrder", sortOf(params).descending ? "descending" : null],
    ],
    signal,
  });
}

/**
 * For a key without `scim` (with `people:read`): `count` people of the
 * directory (`GET /api/v1/people`, every status, by family name) from the
 * 1-based `startIndex` (a multiple of `count` plus one), searched by the
 * URL's `q`, as SCIM users (the extension's status and start date).
 * @param {URLSearchParams} params
 * @param {number} startIndex
 * @param {number} count
 * @param {AbortSignal} [signal]
 * @returns {Promise<{totalResults: number, Resources: any[]}>}
 */
async function directoryFrom(params, startIndex, count, signal) {
  const answer = await request("GET", "/api/v1/people", {
    query: [
      ["search", params.get("q") || null],
      ["page", String(Math.floor((startIndex - 1) / count) + 1)],
      ["size", String(count)],
    ],
    signal,
  });
  return {
    totalResults: answer.pagination.totalRecords,
    Resources: answer.data.map((/** @type {any} */ p) => ({
      id: p.id,
      userName: p.userName,
      name: p.name,
      displayName: p.displayName,
      [EXTENSION]: { status: p.status, startDate: p.startDate },
    })),
  };
}

/**
 * @param {URLSearchParams} params
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
async function load(params, ctx) {
  const page = Math.max(1, Number.parseInt(params.get("page") || "1", 10) || 1);
  const body = view.body;
  if (!body.firstChild) fill(body, loading("Loading people…"));
  else body.classList.add("stale");
  let answer;
  try {
    answer = await peoplePage(params, page, ctx.signal);
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    body.classList.remove("stale");
    fill(body, errorBox(error, "Loading people"));
    return;
  }
  if (!ctx.isCurrent()) return;
  body.classList.remove("stale");
  remember(answer.Resources);
  const total = answer.totalResults;
  const pages = Math.ceil(total / PAGE_SIZE);
  const sort = sortOf(params);
  /** @type {{title: string, sort?: string, cell: (u: any) => any}[]} */
  const columns = [
    {
      title: "Name",
      sort: "name",
      cell: (u) => h("a", { href: href(["people", u.id], null), class: "person-link" }, displayName(u)),
    },
    { title: "Email", sort: "userName", cell: (u) => text(u.userName) },
    { title: "Status", cell: (u) => badge(u[EXTENSION]?.status, PERSON_STATUS_WORDS) },
    { title: "Start date", sort: "startDate", cell: (u) => text(u[EXTENSION]?.startDate) },
    { title: "Active", cell: (u) => (u.active === false ? "No" : "Yes") },
  ].filter((c) => can("scim") || (c.title !== "Active" && c.title !== "Start date"));
  const drawn = table({
    caption: "People",
    sorted: { key: sort.key, direction: sort.descending ? "descending" : "ascending" },
    empty: "Nobody matches this search.",
    rows: answer.Resources,
    columns,
  });
  if (can("scim")) sortableHeaders(drawn, columns, sort, params);
  fill(
    body,
    h("p", { class: "count", id: "result-count" }, `${total} people`),
    total ? peopleExport(params) : null,
    params.get("startingWithin") ? h("p", { class: "help" }, `Starting between ${day(0)} and ${day(Number(params.get("startingWithin")))} (UTC dates).`) : null,
    drawn,
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

/**
 * Column headers that sort, as the inventory's: a button in each sortable
 * header sorts by it ascending, or the other way when it already sorts the
 * list (the header's aria-sort says the current order); back to page 1.
 * @param {HTMLElement} drawn the table (or the "nobody" line)
 * @param {{title: string, sort?: string}[]} columns
 * @param {{key: string, descending: boolean}} sort
 * @param {URLSearchParams} params
 */
function sortableHeaders(drawn, columns, sort, params) {
  const ths = drawn.querySelectorAll("thead th");
  columns.forEach((c, i) => {
    const th = ths[i];
    const key = c.sort;
    if (!th || !key) return;
    const descending = sort.key === key && !sort.descending;
    const button = h(
      "button",
      {
        type: "button",
        class: "sort-header",
        "data-sort": key,
        onclick: () => {
          const p = new URLSearchParams(params);
          p.delete("page");
          setSort(p, key, descending);
          go(["people"], p);
        },
      },
      c.title,
      h("span", { class: "visually-hidden" }, `, sort ${descending ? "descending" : "ascending"}`),
    );
    fill(th, button);
  });
}

/**
 * "Export CSV" of the whole filtered list, in the list's order, read in
 * SCIM pages of up to 50 (each next page starts after the rows received, so a
 * smaller page cap of the server skips nobody).
 * @param {URLSearchParams} params
 */
function peopleExport(params) {
  const filter = new URLSearchParams(params);
  filter.delete("page");
  let next = 1;
  return exportButton({
    noun: "people",
    filename: "people.csv",
    columns: [
      { header: "name", value: (u) => displayName(u) },
      { header: "email", value: (u) => u.userName },
      { header: "status", value: (u) => say(PERSON_STATUS_WORDS, u[EXTENSION]?.status) },
      { header: "start_date", value: (u) => u[EXTENSION]?.startDate },
      { header: "active", value: (u) => (u.active === false ? "no" : "yes") },
      { header: "id", value: (u) => u.id },
    ],
    fetchPage: async (page) => {
      if (page === 1) next = 1;
      const answer = await peopleFrom(filter, next, 50);
      const got = answer.Resources.length;
      next += got;
      const left = Math.max(0, answer.totalResults - (next - 1));
      return { rows: answer.Resources, totalPages: got && left ? page + Math.ceil(left / got) : page };
    },
  });
}

/**
 * @param {any} u a SCIM user
 * @returns {string}
 */
export function displayName(u) {
  const n = u.name || {};
  const name = [n.givenName, n.familyName].filter(Boolean).join(" ");
  return name || u.displayName || u.userName;
}

