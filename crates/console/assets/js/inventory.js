// @ts-check
// The inventory listing: every filter and sort of `GET /api/v1/inventory`,
// paging, and search as you type. The form's state is the URL's: each field
// is named as the API's parameter, and the URL's parameters go to the API as
// they are (with `size=25` when it has none), so
// `#/inventory?deployStatuses=DEPLOYED` asks `?deployStatuses=DEPLOYED&size=25`,
// a view can be shared, and a parameter the API refuses shows its error.
//
// Filters speak people's words: categories, warehouses, offices and SKUs are
// chosen by name (the API gets their codes and ids), a person by name or
// email, the updated-at range by date. Column headers sort. With
// `inventory:write`, rows can be selected and changed together (bulk.js);
// the filtered list exports as CSV, page by page.

import { request } from "./api.js";
import { holderCell, holderPeople, productNames } from "./holders.js";
import { offices, people, warehouses } from "./names.js";
import { current, go, href } from "./router.js";
import { can } from "./scopes.js";
import { maxPageSize, parameterEnum } from "./spec.js";
import { announce, badge, debounce, errorBox, fill, focusHeading, h, heading, label, loading, pager, table, text, time } from "./ui.js";
import { CONDITION_WORDS, DEPLOY_REASON_WORDS, DEPLOY_STATUS_WORDS, HOLDER_TYPE_WORDS, say } from "./words.js";

/// The deploy statuses a listing can filter on: the `deployStatuses` values of
/// the API's OpenAPI document (read by `fromTheApi`), this list only when the
/// document cannot be read.
let DEPLOY_STATUSES = ["AVAILABLE", "DEPLOYED", "AWAITING_ARRIVAL", "ON_HOLD", "UNAVAILABLE", "ARCHIVED", "VOIDED"];

/// The console's names for the API's `sortBy` values. Which values there are
/// comes from the OpenAPI document (`fromTheApi`); a value the console has no
/// name for is shown as it is.
const SORT_NAMES = [
  ["createdAt", "Created"],
  ["updatedAt", "Updated"],
  ["product", "Product"],
  ["skuId", "SKU id"],
  ["serialNumber", "Serial number"],
  ["deployStatus", "Status"],
  ["deployReason", "Reason"],
  ["assignee", "Assignee"],
  ["condition", "Condition"],
  ["renewalDate", "Renewal date"],
  ["category", "Category"],
  ["suppliedBy", "Supplied by"],
];

/** The sort keys offered, with their names. @type {string[][]} */
let SORTS = SORT_NAMES;
let askedTheApi = false;

/**
 * Takes the statuses and sort keys the API documents (`GET /openapi.json`,
 * read once per tab) instead of a copy of them.
 */
async function fromTheApi() {
  if (askedTheApi) return;
  askedTheApi = true;
  const path = "/api/v1/inventory";
  const [statuses, sorts] = await Promise.all([
    parameterEnum(path, "deployStatuses", DEPLOY_STATUSES),
    parameterEnum(
      path,
      "sortBy",
      SORT_NAMES.map(([v]) => v),
    ),
  ]);
  DEPLOY_STATUSES = statuses;
  const named = new Map(SORT_NAMES.map(([v, t]) => [v, t]));
  SORTS = [...sorts].sort((a, b) => order(a) - order(b)).map((v) => [v, named.get(v) || v]);
  /** @param {string} v */
  function order(v) {
    const i = SORT_NAMES.findIndex(([k]) => k === v);
    return i < 0 ? SORT_NAMES.length : i;
  }
}

/** Sorts whose natural first click is newest first. */
const NEWEST_FIRST = ["createdAt", "updatedAt", "renewalDate"];

const SIZES = ["10", "25", "50", "100"];
const DEFAULT_SIZE = "25";

/// The free-text filters, by API parameter: [label, input type, help].
const TEXT_FILTERS = [
  ["assignedEmail", "Assignee email", "email", "Items assigned to this email address"],
  ["serialNumber", "Serial numbers", "text", "Comma-separated"],
  ["vendorSku", "Vendor SKUs", "text", "Comma-separated"],
];

/// The filters chosen by name: [parameter, label].
const CHOICES = [
  ["warehouseId", "Warehouse"],
  ["officeId", "Office"],
  ["skuIds", "Product (SKU)"],
];

const DATES = [
  ["updatedAtFrom", "Updated from", "T00:00:00"],
  ["updatedAtTo", "Updated until", "T23:59:59.999"],
];

/// The parameters the form sets; others in the URL are kept as they are.
const OWNED = ["searchString", "deployStatuses", "categories", "personId", ...TEXT_FILTERS.map((f) => f[0]), ...CHOICES.map((c) => c[0]), ...DATES.map((d) => d[0]), "sortBy", "sortDirection", "size", "page"];

/**
 * @typedef {{form: HTMLFormElement, body: HTMLElement, tools: HTMLElement, categoryBox: HTMLElement, person: HTMLElement, names: Map<string, string> | null}} View
 */

/** @type {View | null} */
let view = null;
let firstScreen = true;
/** @type {URLSearchParams | null} */
let lastParams = null;

/// The listing as last shown (its filters and page), to go back to.
export function lastListing() {
  return href(["inventory"], lastParams);
}

/**
 * @param {HTMLElement} main
 * @param {{path: string[], params: URLSearchParams}} route
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
export async function inventoryView(main, route, ctx) {
  const built = !view || !main.contains(view.form);
  if (built) {
    await fromTheApi();
    if (!ctx.isCurrent()) return;
  }
  if (built) {
    view = build(main);
    focusHeading();
  }
  // The pickers' names are asked for alongside the first page (small lists
  // read once per tab); they are filled in when they come.
  if (built && view) namesForFilters(view);
  sync(route.params);
  lastParams = route.params;
  await load(route.params, ctx);
}

/**
 * @param {string} name
 * @param {string} title
 */
function choiceField(name, title) {
  return h(
    "div",
    { class: "field" },
    h("label", { for: `f-${name}` }, title),
    h("select", { id: `f-${name}`, name }, h("option", { value: "" }, `Any ${title.toLowerCase().replace(" (sku)", "")}`)),
  );
}

/** @param {HTMLElement} main */
function build(main) {
  const search = h("input", { id: "f-searchString", name: "searchString", type: "search", autocomplete: "off", placeholder: "Serial number, title, category, description…" });
  const statuses = DEPLOY_STATUSES.map((s) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "deployStatuses", value: s }), say(DEPLOY_STATUS_WORDS, s)),
  );
  const sortBy = h("select", { id: "f-sortBy", name: "sortBy" }, SORTS.map(([v, t]) => h("option", { value: v }, t)));
  const sortDirection = h(
    "select",
    { id: "f-sortDirection", name: "sortDirection" },
    h("option", { value: "DESC" }, "Descending"),
    h("option", { value: "ASC" }, "Ascending"),
  );
  const size = h("select", { id: "f-size", name: "size" }, SIZES.map((s) => h("option", { value: s }, `${s} a page`)));
  // Categories: checkboxes by name once the names are known; until then (or
  // without them) the codes, typed.
  const categoryBox = h(
    "fieldset",
    { class: "statuses categories" },
    h("legend", {}, "Category"),
    h("input", { id: "f-categories", name: "categories", type: "text", autocomplete: "off", "aria-label": "Category codes, comma-separated" }),
  );
  const person = h("div", { class: "person-slot" });
  const more = [
    person,
    ...CHOICES.map(([name, title]) => choiceField(name, title)),
    ...DATES.map(([name, title]) =>
      h(
        "div",
        { class: "field" },
        h("label", { for: `f-${name}` }, `${title} (UTC)`),
        h("input", { id: `f-${name}`, name, type: "date" }),
      ),
    ),
    ...TEXT_FILTERS.map(([name, title, type, help]) =>
      h(
        "div",
        { class: "field" },
        h("label", { for: `f-${name}` }, title),
        h("input", { id: `f-${name}`, name, type, autocomplete: "off", spellcheck: "false", "aria-describedby": `f-${name}-help` }),
        h("small", { id: `f-${name}-help`, class: "help" }, help),
      ),
    ),
  ];
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "filters", role: "search", "aria-label": "Filter inventory" },
      h("div", { class: "field grow" }, h("label", { for: "f-searchString" }, "Search"), search),
      h("div", { class: "field compact" }, h("label", { for: "f-sortBy" }, "Sort by"), sortBy),
      h("div", { class: "field compact" }, h("label", { for: "f-sortDirection" }, "Order"), sortDirection),
      h("div", { class: "field compact" }, h("label", { for: "f-size" }, "Page size"), size),
      h("fieldset", { class: "statuses" }, h("legend", {}, "Deploy status"), statuses),
      categoryBox,
      h("details", { class: "more-filters" }, h("summary", {}, "More filters"), h("div", { class: "grid" }, more)),
      h("div", { class: "form-actions" }, h("button", { type: "button", class: "secondary", id: "clear-filters", onclick: clear }, "Clear filters")),
    )
  );
  const tools = h("div", { class: "list-tools" });
  const results = h("section", { class: "results", "aria-labelledby": "results-title" }, h("h2", { id: "results-title", class: "visually-hidden", tabindex: "-1" }, "Items"));
  const body = h("div", { "aria-busy": "false" });
  results.append(body);
  // On a phone the filters fold away, so that the results come first; the
  // summary says how many are set.
  const foldSummary = h("summary", { id: "filters-summary" }, "Filters");
  const fold = /** @type {HTMLDetailsElement} */ (h("details", { class: "inventory-fold", id: "filters-fold" }, foldSummary, form));
  const phone = window.matchMedia("(max-width: 720px)");
  fold.open = !phone.matches;
  phone.addEventListener("change", () => {
    if (!phone.matches) fold.open = true;
  });
  fill(main, heading("Inventory"), fold, results);

  const typed = debounce(() => apply({ replace: true }), 300);
  search.addEventListener("input", typed);
  form.addEventListener("change", (e) => {
    if (e.target === search || !(/** @type {HTMLElement} */ (e.target).getAttribute("name"))) return;
    apply({ replace: false });
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    apply({ replace: false });
  });
  for (const input of form.querySelectorAll("input[type=text][name], input[type=email][name]")) {
    input.addEventListener("input", debounce(() => apply({ replace: true }), 500));
  }
  /** @type {View} */
  const v = { form, body, tools, categoryBox, person, names: null };
  personField(v);
  return v;
}

/**
 * The person filter: a picker by name or email with `scim`, else the id.
 * @param {View} v
 */
function personField(v) {
  if (!can("scim")) {
    fill(
      v.person,
      h("div", { class: "field" }, h("label", { for: "f-personId" }, "Person id"), h("input", { id: "f-personId", name: "personId", type: "text", autocomplete: "off", spellcheck: "false" })),
    );
    return;
  }
  const hidden = /** @type {HTMLInputElement} */ (h("input", { type: "hidden", name: "personId", id: "f-personId" }));
  fill(v.person, hidden);
  // The picker's module loads after the first screen's.
  import("./personpicker.js").then(({ personPicker }) => {
    const picker = personPicker({
      label: "Assigned to person",
      id: "f-person",
      help: "Type a name or email and choose; clear the box for anyone.",
      activeOnly: false,
      onChange: (p) => {
        hidden.value = p ? p.id : "";
        if (p || !picker.input.value) apply({ replace: false });
      },
    });
    picker.input.addEventListener("input", () => {
      if (!picker.input.value && hidden.value) {
        hidden.value = "";
        apply({ replace: false });
      }
    });
    v.person.prepend(picker.element);
    /** @type {any} */ (v.person).picker = picker;
    const shown = hidden.value;
    if (shown) {
      people([shown]).then((found) => {
        const p = found.get(shown);
        if (hidden.value === shown) picker.set(p || { id: shown, name: "A person", email: shown });
      });
    }
  });
}

/**
 * Fills the pickers with names (categories, warehouses, offices, SKUs), then
 * puts the URL's values in them again.
 * @param {View} v
 */
async function namesForFilters(v) {
  const [houses, places, products] = await Promise.all([warehouses(), offices(), productNames()]);
  /** @type {Map<string, string>} */
  const cats = new Map();
  for (const s of [...products.values()].sort((a, b) => a.categoryName.localeCompare(b.categoryName))) if (!cats.has(s.categoryCode)) cats.set(s.categoryCode, s.categoryName);
  if (!v.form.isConnected) return;
  v.names = cats;
  if (cats.size) {
    fill(
      v.categoryBox,
      h("legend", {}, "Category"),
      [...cats.entries()].map(([code, name]) =>
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "categories", value: code }), name),
      ),
    );
  }
  /**
   * @param {string} name
   * @param {{value: string, text: string, group?: string}[]} options
   */
  const offer = (name, options) => {
    const select = /** @type {HTMLSelectElement} */ (v.form.querySelector(`#f-${name}`));
    const first = select.options[0];
    /** @type {Map<string, HTMLElement>} */
    const groups = new Map();
    const nodes = [];
    for (const o of options) {
      const option = h("option", { value: o.value }, o.text);
      if (o.group) {
        let g = groups.get(o.group);
        if (!g) {
          g = h("optgroup", { label: o.group });
          groups.set(o.group, g);
          nodes.push(g);
        }
        g.append(option);
      } else {
        nodes.push(option);
      }
    }
    select.replaceChildren(first, ...nodes);
  };
  offer("warehouseId", [...houses.values()].map((w) => ({ value: w.id, text: w.name })));
  offer("officeId", [...places.values()].map((o) => ({ value: o.id, text: o.countryCode ? `${o.name} (${o.countryCode})` : o.name })));
  offer(
    "skuIds",
    [...products.values()]
      .sort((a, b) => a.categoryName.localeCompare(b.categoryName) || a.title.localeCompare(b.title))
      .map((s) => ({ value: s.id, text: s.title, group: s.categoryName })),
  );
  sync(current().params);
}

/**
 * The form's values as the API's parameters (page back to 1), with the
 * URL's parameters the form does not set.
 * @returns {URLSearchParams}
 */
function paramsOfForm() {
  const form = /** @type {View} */ (view).form;
  const params = new URLSearchParams();
  for (const [name, value] of current().params) if (!OWNED.includes(name)) params.append(name, value);
  const value = (/** @type {string} */ name) => /** @type {HTMLInputElement | null} */ (form.querySelector(`[name=${name}]:not([type=checkbox])`))?.value?.trim() ?? "";
  const search = value("searchString");
  if (search) params.set("searchString", search);
  const statuses = [...form.querySelectorAll("input[name=deployStatuses]:checked")].map((c) => /** @type {HTMLInputElement} */ (c).value);
  if (statuses.length) params.set("deployStatuses", statuses.join(","));
  const boxes = [...form.querySelectorAll("input[name=categories][type=checkbox]:checked")].map((c) => /** @type {HTMLInputElement} */ (c).value);
  const typedCategories = value("categories");
  if (boxes.length) params.set("categories", boxes.join(","));
  else if (typedCategories) params.set("categories", typedCategories);
  const personId = value("personId");
  if (personId) params.set("personId", personId);
  for (const [name] of CHOICES) {
    const v = value(name);
    if (v) params.set(name, v);
  }
  for (const [name, , suffix] of DATES) {
    const v = value(name);
    if (v) params.set(name, `${v}${suffix}`);
  }
  for (const [name] of TEXT_FILTERS) {
    const v = value(name);
    if (v) params.set(name, v);
  }
  // Without parameters the API sorts by createdAt, newest first; any other
  // order is sent whole (the API sorts ASC when sortBy comes alone).
  const by = value("sortBy");
  const direction = value("sortDirection");
  if (by !== "createdAt" || direction !== "DESC") {
    params.set("sortBy", by);
    params.set("sortDirection", direction);
  }
  if (value("size") !== DEFAULT_SIZE) params.set("size", value("size"));
  return params;
}

/**
 * The order the API applies for `params`: createdAt newest first without
 * `sortBy`; with `sortBy`, its `sortDirection`, ASC when it has none.
 * @param {URLSearchParams} params
 */
function sortOf(params) {
  const asked = (params.get("sortBy") || "").trim().toLowerCase();
  const by = SORTS.find(([v]) => v.toLowerCase() === asked)?.[0];
  const direction = (params.get("sortDirection") || "").trim().toUpperCase();
  const known = direction === "ASC" || direction === "DESC" ? direction : null;
  if (!by) return { by: "createdAt", direction: known || "DESC" };
  return { by, direction: known || "ASC" };
}

/** @param {{replace: boolean}} o */
function apply({ replace }) {
  // A search typed just before leaving the listing must not bring it back.
  if (!view || !view.form.isConnected || current().path.join("/") !== "inventory") return;
  go(["inventory"], paramsOfForm(), { replace });
}

function clear() {
  go(["inventory"], null);
}

/**
 * A select showing `wanted`: an option for a value it does not list.
 * @param {HTMLSelectElement} select
 * @param {string} wanted
 * @param {string} text
 */
function choose(select, wanted, text) {
  if (wanted && ![...select.options].some((o) => o.value === wanted)) select.append(h("option", { value: wanted }, text));
  select.value = wanted;
}

/**
 * Puts the URL's values into the form (not into the field being typed in).
 * @param {URLSearchParams} params
 */
function sync(params) {
  const v = /** @type {View} */ (view);
  const form = v.form;
  const all = (/** @type {string} */ name) => params.getAll(name).join(",");
  for (const name of ["searchString", ...TEXT_FILTERS.map((f) => f[0])]) {
    const input = /** @type {HTMLInputElement | null} */ (form.querySelector(`[name=${name}]`));
    if (input && input !== document.activeElement) input.value = all(name);
  }
  /** @param {string} name */
  const set = (name) =>
    new Set(
      params
        .getAll(name)
        .flatMap((x) => x.split(","))
        .map((x) => x.trim())
        .filter(Boolean),
    );
  // As the API reads them: repeated or comma-separated, any case, spaces ignored.
  const statuses = new Set([...set("deployStatuses")].map((s) => s.toUpperCase()));
  for (const box of form.querySelectorAll("input[name=deployStatuses]")) /** @type {HTMLInputElement} */ (box).checked = statuses.has(/** @type {HTMLInputElement} */ (box).value);
  const cats = new Set([...set("categories")].map((c) => c.toUpperCase()));
  const catBoxes = [...form.querySelectorAll("input[name=categories][type=checkbox]")];
  for (const box of catBoxes) /** @type {HTMLInputElement} */ (box).checked = cats.has(/** @type {HTMLInputElement} */ (box).value.toUpperCase());
  const typedCategories = /** @type {HTMLInputElement | null} */ (form.querySelector("input[name=categories][type=text]"));
  if (typedCategories && typedCategories !== document.activeElement) typedCategories.value = all("categories");
  for (const [name, title] of CHOICES) {
    const select = /** @type {HTMLSelectElement} */ (form.querySelector(`#f-${name}`));
    const wanted = all(name);
    const many = wanted.split(",").filter(Boolean).length;
    choose(select, wanted, many > 1 ? `${many} chosen` : `${title} ${wanted.slice(0, 8)}`);
  }
  for (const [name] of DATES) {
    const input = /** @type {HTMLInputElement} */ (form.querySelector(`#f-${name}`));
    const value = params.get(name) || "";
    input.value = /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : "";
  }
  const personId = params.get("personId") || "";
  const hidden = /** @type {HTMLInputElement | null} */ (form.querySelector("input[name=personId]"));
  const picker = /** @type {any} */ (v.person).picker;
  if (hidden && hidden.value !== personId) {
    hidden.value = personId;
    if (picker) {
      if (!personId) picker.set(null);
      else
        people([personId]).then((found) => {
          const p = found.get(personId);
          if (hidden.value === personId) picker.set(p || { id: personId, name: "A person", email: personId });
        });
    }
  }
  const sort = sortOf(params);
  /** @type {HTMLSelectElement} */ (form.querySelector("#f-sortBy")).value = sort.by;
  /** @type {HTMLSelectElement} */ (form.querySelector("#f-sortDirection")).value = sort.direction;
  const size = params.get("size") || DEFAULT_SIZE;
  const sizeSelect = /** @type {HTMLSelectElement} */ (form.querySelector("#f-size"));
  if (![...sizeSelect.options].some((o) => o.value === size)) sizeSelect.append(h("option", { value: size }, `${size} a page`));
  sizeSelect.value = size;
  const active = OWNED.filter((n) => !["sortBy", "sortDirection", "size", "page"].includes(n) && params.get(n)).length;
  const summary = form.closest("details")?.querySelector("summary");
  if (summary) summary.textContent = active ? `Filters (${active} set)` : "Filters";
  const filtered = ["personId", ...TEXT_FILTERS.map(([n]) => n), ...CHOICES.map(([n]) => n), ...DATES.map(([n]) => n)].some((n) => params.get(n));
  if (filtered) /** @type {HTMLDetailsElement} */ (form.querySelector(".more-filters")).open = true;
}

/**
 * The API's query for `params` (a page size when it has none).
 * @param {URLSearchParams} params
 * @returns {[string, string][]}
 */
function queryOf(params) {
  const query = [...params];
  if (!params.has("size")) query.push(["size", DEFAULT_SIZE]);
  return query;
}

/**
 * @param {URLSearchParams} params
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
async function load(params, ctx) {
  const v = /** @type {View} */ (view);
  const body = v.body;
  body.setAttribute("aria-busy", "true");
  if (!body.firstChild) fill(body, loading("Loading inventory…"));
  else body.classList.add("stale");
  // The bulk actions' module loads while the page is asked for.
  const bulkModule = can("inventory:write") ? import("./bulk.js") : null;
  let answer;
  try {
    answer = await request("GET", "/api/v1/inventory", { query: queryOf(params), signal: ctx.signal });
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    body.classList.remove("stale");
    body.setAttribute("aria-busy", "false");
    fill(body, errorBox(error, "Loading the inventory"));
    return;
  }
  if (!ctx.isCurrent()) return;
  body.classList.remove("stale");
  body.setAttribute("aria-busy", "false");
  const { data, pagination } = answer;
  const sort = sortOf(params);
  const direction = sort.direction === "ASC" ? "ascending" : "descending";
  const bulk = bulkModule ? await bulkModule : null;
  if (!ctx.isCurrent()) return;
  const selection = bulk ? bulk.bulkBar({ items: data, reload: () => window.dispatchEvent(new HashChangeEvent("hashchange")) }) : null;
  fill(v.tools, exportButton(params, pagination.totalRecords), selection ? selection.bar : null);
  /** @type {{title: string, sort?: string, cell: (item: any) => any}[]} */
  const columns = [
    {
      title: "Item",
      sort: "product",
      cell: (item) =>
        h(
          "div",
          {},
          h("a", { href: href(["inventory", item.id], null), class: "item-link" }, item.skuTitle || item.id),
          h("div", { class: "sub" }, item.serialNumber ? `S/N ${item.serialNumber}` : "no serial number"),
        ),
    },
    { title: "Category", sort: "category", cell: (item) => text(item.categoryNameOfSku) },
    {
      title: "Status",
      sort: "deployStatus",
      cell: (item) => h("div", {}, badge(item.deployStatus, DEPLOY_STATUS_WORDS), item.deployReason ? h("div", { class: "sub" }, say(DEPLOY_REASON_WORDS, item.deployReason)) : null),
    },
    { title: "Assignee", sort: "assignee", cell: (item) => h("div", { class: "holder", "data-item": item.id }, holderCell(item.assignedTo)) },
    { title: "Condition", sort: "condition", cell: (item) => text(say(CONDITION_WORDS, item.condition)) },
    { title: "Updated", sort: "updatedAt", cell: (item) => time(item.updatedAt) },
  ];
  if (selection) columns.unshift({ title: "Select", cell: (item) => selection.checkbox(item) });
  const drawn = table({
    caption: "Inventory items",
    empty: "No items match these filters.",
    sorted: { key: sort.by, direction },
    rows: data,
    columns,
  });
  sortableHeaders(drawn, columns, sort, params);
  if (selection) selection.header(drawn);
  const said = h("p", { class: "filter-words", id: "filter-words" });
  describe(params).then((words) => {
    if (words.length && ctx.isCurrent()) fill(said, h("span", { class: "sub" }, "Showing: "), words.join(" · "));
  });
  fill(
    body,
    h("p", { class: "count", id: "result-count" }, `${pagination.totalRecords} items`),
    said,
    v.tools,
    pagination.totalRecords === 0 ? hint(params, v.names) : null,
    drawn,
    pager({
      page: pagination.currentPage,
      pages: pagination.totalPages,
      total: pagination.totalRecords,
      noun: "items",
      go: (page) => {
        const next = new URLSearchParams(current().params);
        if (page > 1) next.set("page", String(page));
        else next.delete("page");
        go(["inventory"], next);
        // The pager is drawn again: keep the keyboard's place at the results.
        const title = document.getElementById("results-title");
        title?.focus({ preventScroll: true });
        title?.scrollIntoView({ block: "start" });
      },
    }),
  );
  announce(`${pagination.totalRecords} items`);
  if (firstScreen) {
    firstScreen = false;
    performance.mark("equip:first-screen");
  }
  // People's names come after the page is shown (their emails first).
  holderPeople(data).then((known) => {
    if (!known.size || !ctx.isCurrent()) return;
    for (const item of data) {
      if (item.assignedTo?.type !== "PERSON" || !known.has(item.assignedTo.id)) continue;
      const cell = body.querySelector(`.holder[data-item="${item.id}"]`);
      if (cell) fill(cell, holderCell(item.assignedTo, known));
    }
  });
}

/**
 * The URL's filters in words: names instead of ids and codes.
 * @param {URLSearchParams} params
 * @returns {Promise<string[]>}
 */
async function describe(params) {
  const list = (/** @type {string} */ n) => params.getAll(n).flatMap((x) => x.split(",")).map((x) => x.trim()).filter(Boolean);
  const words = [];
  const search = params.get("searchString");
  if (search) words.push(`“${search}”`);
  const statuses = list("deployStatuses");
  if (statuses.length) words.push(statuses.map((x) => say(DEPLOY_STATUS_WORDS, x.toUpperCase())).join(" or "));
  const cats = list("categories");
  const products = cats.length || params.get("skuIds") ? await productNames() : new Map();
  if (cats.length) {
    const byCode = new Map([...products.values()].map((p) => [p.categoryCode.toUpperCase(), p.categoryName]));
    words.push(cats.map((c) => byCode.get(c.toUpperCase()) || c).join(" or "));
  }
  const skuIds = list("skuIds");
  if (skuIds.length) words.push(skuIds.map((id) => products.get(id)?.title || `product ${id.slice(0, 8)}`).join(" or "));
  const personId = params.get("personId");
  if (personId) words.push(`held by ${(await people([personId])).get(personId)?.name || "a person"}`);
  const email = params.get("assignedEmail");
  if (email) words.push(`held by ${email}`);
  const warehouseId = params.get("warehouseId");
  if (warehouseId) words.push(`in ${(await warehouses()).get(warehouseId)?.name || "a warehouse"}`);
  const officeId = params.get("officeId");
  if (officeId) words.push(`at ${(await offices()).get(officeId)?.name || "an office"}`);
  const from = params.get("updatedAtFrom");
  const to = params.get("updatedAtTo");
  if (from || to) words.push(`updated ${from ? `from ${from.slice(0, 10)}` : ""}${from && to ? " " : ""}${to ? `until ${to.slice(0, 10)}` : ""}`);
  const serials = list("serialNumber");
  if (serials.length) words.push(`serial ${serials.join(", ")}`);
  const vendorSkus = list("vendorSku");
  if (vendorSkus.length) words.push(`vendor SKU ${vendorSkus.join(", ")}`);
  return words;
}

/**
 * Column headers that sort: a button in each sortable header toggles the
 * URL's sortBy/sortDirection (aria-sort says the current order).
 * @param {HTMLElement} drawn
 * @param {{title: string, sort?: string}[]} columns
 * @param {{by: string, direction: string}} sort
 * @param {URLSearchParams} params
 */
function sortableHeaders(drawn, columns, sort, params) {
  const ths = drawn.querySelectorAll("thead th");
  columns.forEach((c, i) => {
    const th = ths[i];
    if (!th || !c.sort) return;
    const key = c.sort;
    const active = sort.by === key;
    const next = active ? (sort.direction === "ASC" ? "DESC" : "ASC") : NEWEST_FIRST.includes(key) ? "DESC" : "ASC";
    const button = h(
      "button",
      {
        type: "button",
        class: "sort-header",
        "data-sort": key,
        onclick: () => {
          const p = new URLSearchParams(params);
          p.delete("page");
          if (key === "createdAt" && next === "DESC") {
            p.delete("sortBy");
            p.delete("sortDirection");
          } else {
            p.set("sortBy", key);
            p.set("sortDirection", next);
          }
          go(["inventory"], p);
        },
      },
      c.title,
      h("span", { class: "visually-hidden" }, `, sort ${next === "ASC" ? "ascending" : "descending"}`),
    );
    fill(th, button);
  });
}

/**
 * A hint when nothing matched a search that names a category.
 * @param {URLSearchParams} params
 * @param {Map<string, string> | null} names
 */
function hint(params, names) {
  const term = (params.get("searchString") || "").trim().toLowerCase();
  if (!term || !names) return null;
  const stem = term.replace(/e?s$/, "");
  const found = [...names.entries()].filter(([code, name]) => {
    const n = name.toLowerCase();
    return term.includes(n) || n.startsWith(stem) || code.toLowerCase() === stem;
  });
  if (!found.length) return null;
  return h(
    "p",
    { class: "hint", role: "status" },
    "Looking for a category? ",
    found.map(([code, name], i) => [
      i ? ", " : "",
      h("a", { href: href(["inventory"], new URLSearchParams({ categories: code })) }, `all ${name} items`),
    ]),
  );
}

/**
 * The filtered list as a CSV file, page by page.
 * @param {URLSearchParams} params
 * @param {number} total
 */
function exportButton(params, total) {
  const progress = /** @type {HTMLProgressElement} */ (h("progress", { id: "export-progress", max: "1", value: "0", hidden: true, "aria-label": "Export progress" }));
  const status = h("span", { class: "export-status", role: "status" });
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "secondary", id: "export-csv", disabled: total === 0 }, `Export ${total} items as CSV`));
  button.addEventListener("click", async () => {
    button.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    status.textContent = "Exporting…";
    const base = [...params].filter(([n]) => n !== "page" && n !== "size");
    try {
      const { exportCsv } = await import("./export.js");
      const size = String(await maxPageSize("/api/v1/inventory"));
      const done = await exportCsv({
        filename: `inventory-${new Date().toISOString().slice(0, 10)}.csv`,
        columns: EXPORT_COLUMNS,
        fetchPage: async (page) => {
          const answer = await request("GET", "/api/v1/inventory", { query: [...base, ["size", size], ["page", String(page)]] });
          // Holders by name: each page's people looked up once.
          const holders = await holderPeople(answer.data);
          return { rows: answer.data.map((/** @type {any} */ i) => ({ ...i, _holder: i.assignedTo?.type === "PERSON" ? holders.get(i.assignedTo.id) : null })), totalPages: answer.pagination.totalPages };
        },
        progress: (d, t) => {
          progress.max = t;
          progress.value = d;
          status.textContent = `Page ${d} of ${t}…`;
        },
      });
      status.textContent = `Exported ${done.rows} items.`;
      announce(`Exported ${done.rows} items`);
    } catch (error) {
      status.textContent = `The export failed: ${/** @type {any} */ (error).detail || error}`;
    } finally {
      button.disabled = false;
    }
  });
  return h("div", { class: "export" }, button, progress, status);
}

/** The columns of the CSV export. @type {{header: string, value: (item: any) => string}[]} */
export const EXPORT_COLUMNS = [
  { header: "id", value: (i) => i.id },
  { header: "product", value: (i) => i.skuTitle },
  { header: "category", value: (i) => i.categoryNameOfSku },
  { header: "category_code", value: (i) => i.categoryCode },
  { header: "vendor", value: (i) => i.vendorCode },
  { header: "vendor_sku", value: (i) => i.vendorSku },
  { header: "serial_number", value: (i) => i.serialNumber ?? "" },
  { header: "status", value: (i) => say(DEPLOY_STATUS_WORDS, i.deployStatus) },
  { header: "reason", value: (i) => say(DEPLOY_REASON_WORDS, i.deployReason) },
  { header: "condition", value: (i) => say(CONDITION_WORDS, i.condition) },
  { header: "holder_type", value: (i) => say(HOLDER_TYPE_WORDS, i.assignedTo?.type) },
  // A person by name (their email in holder_email); a warehouse or office by its name.
  { header: "holder", value: (i) => (i.assignedTo ? i._holder?.name || (i.assignedTo.type === "PERSON" ? "" : i.assignedTo.label) || "" : "") },
  { header: "holder_email", value: (i) => (i.assignedTo?.type === "PERSON" ? i._holder?.email || i.assignedTo.label || "" : "") },
  { header: "holder_id", value: (i) => i.assignedTo?.id ?? "" },
  { header: "renewal_date", value: (i) => i.renewalDate ?? "" },
  { header: "description", value: (i) => i.description ?? "" },
  { header: "created_at", value: (i) => i.createdAt },
  { header: "updated_at", value: (i) => i.updatedAt },
];

/**
 * The holder of an item (kept for other screens).
 * @param {any} to
 */
export function assignee(to) {
  return holderCell(to);
}
