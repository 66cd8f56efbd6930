// The inventory listing: every filter and sort of `GET /api/v1/inventory`,
// paging, and search as you type. The form's state is the URL's: each field
// is named as the API's parameter, and the URL's parameters go to the API as
// they are (with `size=25` when it has none), so
// `#/inventory?deployStatuses=DEPLOYED` asks `?deployStatuses=DEPLOYED&size=25`,
// a view can be shared, and a parameter the API refuses shows its error.

import { request } from "./api.js";
import { current, go, href } from "./router.js";
import { announce, badge, debounce, errorBox, fill, focusHeading, h, heading, label, loading, pager, table, text, time } from "./ui.js";

/// The deploy statuses a listing can filter on (the API answers 400 for
/// GIFTED, LOCKED and OUT_FOR_REPAIR, which it no longer uses).
const DEPLOY_STATUSES = ["AVAILABLE", "DEPLOYED", "AWAITING_ARRIVAL", "ON_HOLD", "UNAVAILABLE", "ARCHIVED", "VOIDED"];

/// The API's `sortBy` values, with the console's names for them.
const SORTS = [
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

const SIZES = ["10", "25", "50", "100"];
const DEFAULT_SIZE = "25";

/// The text filters, by API parameter: [label, input type, help].
const TEXT_FILTERS = [
  ["categories", "Categories", "text", "Category codes, comma-separated (e.g. LAPTOP,PHONE)"],
  ["assignedEmail", "Assignee email", "email", "Items assigned to this email address"],
  ["personId", "Person id", "text", "Items assigned to this person (UUID)"],
  ["warehouseId", "Warehouse id", "text", "Items held by this warehouse (UUID)"],
  ["officeId", "Office id", "text", "Items held by this office (UUID)"],
  ["skuIds", "SKU ids", "text", "UUIDs, comma-separated"],
  ["serialNumber", "Serial numbers", "text", "Comma-separated"],
  ["vendorSku", "Vendor SKUs", "text", "Comma-separated"],
  ["updatedAtFrom", "Updated from", "text", "UTC, YYYY-MM-DDTHH:MM:SS (an item's updatedAt works)"],
  ["updatedAtTo", "Updated until", "text", "UTC, YYYY-MM-DDTHH:MM:SS"],
];

/// The parameters the form sets; others in the URL are kept as they are.
const OWNED = ["searchString", "deployStatuses", ...TEXT_FILTERS.map((f) => f[0]), "sortBy", "sortDirection", "size", "page"];

let view = null;
let firstScreen = true;
let lastParams = null;

/// The listing as last shown (its filters and page), to go back to.
export function lastListing() {
  return href(["inventory"], lastParams);
}

export async function inventoryView(main, route, ctx) {
  if (!view || !main.contains(view.form)) {
    view = build(main);
    focusHeading();
  }
  sync(route.params);
  lastParams = route.params;
  await load(route.params, ctx);
}

function build(main) {
  const search = h("input", { id: "f-searchString", name: "searchString", type: "search", autocomplete: "off", placeholder: "Serial number, title, category, description…" });
  const statuses = DEPLOY_STATUSES.map((s) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "deployStatuses", value: s }), label(s)),
  );
  const sortBy = h("select", { id: "f-sortBy", name: "sortBy" }, SORTS.map(([v, t]) => h("option", { value: v }, t)));
  const sortDirection = h(
    "select",
    { id: "f-sortDirection", name: "sortDirection" },
    h("option", { value: "DESC" }, "Descending"),
    h("option", { value: "ASC" }, "Ascending"),
  );
  const size = h("select", { id: "f-size", name: "size" }, SIZES.map((s) => h("option", { value: s }, `${s} a page`)));
  const more = TEXT_FILTERS.map(([name, title, type, help]) =>
    h(
      "div",
      { class: "field" },
      h("label", { for: `f-${name}` }, title),
      h("input", { id: `f-${name}`, name, type, autocomplete: "off", spellcheck: "false", "aria-describedby": `f-${name}-help` }),
      h("small", { id: `f-${name}-help`, class: "help" }, help),
    ),
  );
  const form = h(
    "form",
    { class: "filters", role: "search", "aria-label": "Filter inventory" },
    h("div", { class: "field grow" }, h("label", { for: "f-searchString" }, "Search"), search),
    h("div", { class: "field compact" }, h("label", { for: "f-sortBy" }, "Sort by"), sortBy),
    h("div", { class: "field compact" }, h("label", { for: "f-sortDirection" }, "Order"), sortDirection),
    h("div", { class: "field compact" }, h("label", { for: "f-size" }, "Page size"), size),
    h("fieldset", { class: "statuses" }, h("legend", {}, "Deploy status"), statuses),
    h("details", { class: "more-filters" }, h("summary", {}, "More filters"), h("div", { class: "grid" }, more)),
    h("div", { class: "form-actions" }, h("button", { type: "button", class: "secondary", id: "clear-filters", onclick: clear }, "Clear filters")),
  );
  const results = h("section", { class: "results", "aria-labelledby": "results-title" }, h("h2", { id: "results-title", class: "visually-hidden", tabindex: "-1" }, "Items"));
  const body = h("div", { "aria-busy": "false" });
  results.append(body);
  fill(main, heading("Inventory"), form, results);

  const typed = debounce(() => apply({ replace: true }), 300);
  search.addEventListener("input", typed);
  form.addEventListener("change", (e) => {
    if (e.target === search) return;
    apply({ replace: false });
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    apply({ replace: false });
  });
  for (const input of form.querySelectorAll("input[type=text], input[type=email]")) {
    input.addEventListener("input", debounce(() => apply({ replace: true }), 500));
  }
  return { form, body };
}

/// The form's values as the API's parameters (page back to 1), with the
/// URL's parameters the form does not set.
function paramsOfForm() {
  const form = view.form;
  const params = new URLSearchParams();
  for (const [name, value] of current().params) if (!OWNED.includes(name)) params.append(name, value);
  const value = (name) => form.elements.namedItem(name)?.value?.trim() ?? "";
  const search = value("searchString");
  if (search) params.set("searchString", search);
  const statuses = [...form.querySelectorAll("input[name=deployStatuses]:checked")].map((c) => c.value);
  if (statuses.length) params.set("deployStatuses", statuses.join(","));
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

/// The order the API applies for `params`: createdAt newest first without
/// `sortBy`; with `sortBy`, its `sortDirection`, ASC when it has none.
function sortOf(params) {
  const asked = (params.get("sortBy") || "").trim().toLowerCase();
  const by = SORTS.find(([v]) => v.toLowerCase() === asked)?.[0];
  const direction = (params.get("sortDirection") || "").trim().toUpperCase();
  const known = direction === "ASC" || direction === "DESC" ? direction : null;
  if (!by) return { by: "createdAt", direction: known || "DESC" };
  return { by, direction: known || "ASC" };
}

function apply({ replace }) {
  // A search typed just before leaving the listing must not bring it back.
  if (!view.form.isConnected || current().path.join("/") !== "inventory") return;
  go(["inventory"], paramsOfForm(), { replace });
}

function clear() {
  go(["inventory"], null);
}

/// Puts the URL's values into the form (not into the field being typed in).
function sync(params) {
  const form = view.form;
  for (const name of ["searchString", ...TEXT_FILTERS.map((f) => f[0])]) {
    const input = form.elements.namedItem(name);
    if (input && input !== document.activeElement) input.value = params.getAll(name).join(",");
  }
  // As the API reads them: repeated or comma-separated, any case, spaces ignored.
  const statuses = new Set(
    params
      .getAll("deployStatuses")
      .flatMap((v) => v.split(","))
      .map((v) => v.trim().toUpperCase())
      .filter(Boolean),
  );
  for (const box of form.querySelectorAll("input[name=deployStatuses]")) box.checked = statuses.has(box.value);
  const sort = sortOf(params);
  form.elements.namedItem("sortBy").value = sort.by;
  form.elements.namedItem("sortDirection").value = sort.direction;
  const size = params.get("size") || DEFAULT_SIZE;
  const sizeSelect = form.elements.namedItem("size");
  if (![...sizeSelect.options].some((o) => o.value === size)) sizeSelect.append(h("option", { value: size }, `${size} a page`));
  sizeSelect.value = size;
  const filtered = TEXT_FILTERS.some(([n]) => params.get(n));
  if (filtered) form.querySelector(".more-filters").open = true;
}

async function load(params, ctx) {
  const body = view.body;
  const query = [...params];
  if (!params.has("size")) query.push(["size", DEFAULT_SIZE]);
  body.setAttribute("aria-busy", "true");
  if (!body.firstChild) fill(body, loading("Loading inventory…"));
  else body.classList.add("stale");
  let answer;
  try {
    answer = await request("GET", "/api/v1/inventory", { query, signal: ctx.signal });
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
  const sortKey = sort.by;
  const direction = sort.direction === "ASC" ? "ascending" : "descending";
  fill(
    body,
    h("p", { class: "count", id: "result-count" }, `${pagination.totalRecords} items`),
    table({
      caption: "Inventory items",
      empty: "No items match these filters.",
      sorted: { key: sortKey, direction },
      rows: data,
      columns: [
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
          cell: (item) => h("div", {}, badge(item.deployStatus), item.deployReason ? h("div", { class: "sub" }, label(item.deployReason)) : null),
        },
        { title: "Assignee", sort: "assignee", cell: (item) => assignee(item.assignedTo) },
        { title: "Condition", sort: "condition", cell: (item) => text(label(item.condition)) },
        { title: "Updated", sort: "updatedAt", cell: (item) => time(item.updatedAt) },
      ],
    }),
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
}

export function assignee(to) {
  if (!to) return text(null);
  return h("div", {}, to.label, h("div", { class: "sub" }, label(to.type)));
}
