// @ts-check
// Returns: the return orders (`GET /api/v1/return-orders`), newest first,
// filtered by status, 25 a page, each with the person's name. The status and
// page are in the URL.

import { request } from "./api.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { announce, errorBox, fill, focusHeading, h, heading, loading, pager, table, time } from "./ui.js";
import { exportButton, goPage, maxPageSize, METHODS, parameterEnum, namesOf, personFilterNotice, pageOf, personLink, RETRIEVAL_WORDS, RETURN_STATUS_WORDS, RETURN_STATUSES, say, statusBadge, statusFilter } from "./lifecycle.js";

const PAGE_SIZE = 25;

/**
 * The returns listing.
 * @param {HTMLElement} main
 * @param {import("./lifecycle.js").Route} route
 * @param {import("./lifecycle.js").Ctx} ctx
 */
export default async function returnsView(main, route, ctx) {
  const params = route.params;
  const page = pageOf(params);
  const statuses = await parameterEnum("/api/v1/return-orders", "status", RETURN_STATUSES);
  if (!ctx.isCurrent()) return;
  const body = h("div", {}, loading("Loading return orders…"));
  fill(
    main,
    heading("Returns"),
    h("p", { class: "help" }, "Equipment coming back from people: one return per person and occasion (an offboarding, a repair), newest first."),
    h(
      "form",
      { class: "filters", "aria-label": "Filter returns", onsubmit: (/** @type {Event} */ e) => e.preventDefault() },
      statusFilter({ area: "returns", params, statuses, words: RETURN_STATUS_WORDS, label: "Status" }),
      can("returns:write") ? h("p", { class: "help" }, h("a", { href: href(["receipt"], null) }, "Receive returned equipment at a warehouse ›")) : null,
    ),
    h("section", { class: "results", "aria-label": "Return orders" }, body),
  );
  focusHeading();
  /** @type {any} */
  let answer;
  /** @type {Map<string, any>} */
  let names;
  try {
    answer = await request("GET", "/api/v1/return-orders", {
      query: [["status", params.get("status")], ["personId", params.get("personId")], ["page", String(page)], ["size", String(PAGE_SIZE)]],
      signal: ctx.signal,
    });
    names = await namesOf(answer.data.map((/** @type {any} */ r) => r.personId));
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(body, errorBox(error, "Loading return orders"));
    return;
  }
  if (!ctx.isCurrent()) return;
  const total = answer.pagination.totalRecords;
  const notice = await personFilterNotice(params, "returns", "returns");
  if (!ctx.isCurrent()) return;
  if (notice) body.before(notice);
  fill(
    body,
    h(
      "div",
      { class: "list-head" },
      h("p", { class: "count", id: "result-count" }, `${total} return orders`),
      total
        ? exportButton({
            noun: "return orders",
            filename: `returns${params.get("status") ? `-${params.get("status")?.toLowerCase()}` : ""}.csv`,
            columns: [
              { header: "person", value: (r) => r._person?.name || "" },
              { header: "email", value: (r) => r._person?.email || "" },
              { header: "status", value: (r) => say(RETURN_STATUS_WORDS, r.status) },
              { header: "retrieval", value: (r) => retrievalWords(r.retrievalMethod) },
              { header: "items", value: (r) => r.lines.length },
              { header: "opened", value: (r) => r.createdAt },
              { header: "last_change", value: (r) => r.updatedAt },
              { header: "return_id", value: (r) => r.id },
            ],
            fetchPage: async (p) => {
              const all = await request("GET", "/api/v1/return-orders", {
                query: [["status", params.get("status")], ["personId", params.get("personId")], ["page", String(p)], ["size", String(await maxPageSize("/api/v1/return-orders"))]],
              });
              const who = await namesOf(all.data.map((/** @type {any} */ r) => r.personId));
              return { rows: all.data.map((/** @type {any} */ r) => ({ ...r, _person: who.get(r.personId) })), totalPages: all.pagination.totalPages };
            },
          })
        : null,
    ),
    table({
      sorted: null,
      caption: "Return orders",
      empty: "No return orders with this status.",
      rows: answer.data,
      columns: [
        { title: "Return", cell: (/** @type {any} */ r) => h("a", { href: href(["returns", r.id], null), class: "return-link" }, `Return of ${r.lines.length} ${r.lines.length === 1 ? "item" : "items"}`) },
        { title: "Person", cell: (/** @type {any} */ r) => personLink(names, r.personId) },
        { title: "Status", cell: (/** @type {any} */ r) => statusBadge(RETURN_STATUS_WORDS, r.status) },
        { title: "Retrieval", cell: (/** @type {any} */ r) => retrievalWords(r.retrievalMethod) },
        { title: "Opened", cell: (/** @type {any} */ r) => time(r.createdAt) },
        { title: "Last change", cell: (/** @type {any} */ r) => time(r.updatedAt) },
      ],
    }),
    pager({ page, pages: answer.pagination.totalPages, total, noun: "return orders", go: (/** @type {number} */ p) => goPage("returns", params, p) }),
  );
  announce(`${total} return orders`);
}

/**
 * A retrieval in words: "Return kit: Kit shipped to the person".
 * @param {any} method
 * @returns {string}
 */
export function retrievalWords(method) {
  if (!method) return "Not chosen yet";
  const m = /** @type {Record<string, {words: string}>} */ (METHODS)[method.type];
  const name = m ? m.words.replace(/ \(.*\)$/, "") : say({}, method.type);
  return `${name}: ${say(RETRIEVAL_WORDS, method.status)}`;
}
