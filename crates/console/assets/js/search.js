// @ts-check
// The header's search (`#/search?q=…`): people by name or email (SCIM) and
// items by serial number, product or category (the inventory's
// searchString), each as links, with a link to the whole list.

import { request } from "./api.js";
import { personName, remember } from "./names.js";
import { EXTENSION, searchFilter } from "./people.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { DEPLOY_STATUS_WORDS, PERSON_STATUS_WORDS } from "./words.js";
import { announce, badge, errorBox, fill, focusHeading, h, heading, loading } from "./ui.js";

const SHOWN = 10;

/**
 * @param {HTMLElement} main
 * @param {{path: string[], params: URLSearchParams}} route
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
export default async function searchView(main, route, ctx) {
  const q = (route.params.get("q") || "").trim();
  const box = /** @type {HTMLInputElement | null} */ (document.getElementById("global-q"));
  if (box && box !== document.activeElement) box.value = q;
  const people = h("div", {}, loading("Searching people…"));
  const items = h("div", {}, loading("Searching items…"));
  fill(
    main,
    heading(q ? `Search: ${q}` : "Search"),
    q ? null : h("p", {}, "Type a name, an email address, a serial number or a product in the search box at the top."),
    q && can("scim") ? h("section", { class: "card", "aria-labelledby": "people-results" }, h("h2", { id: "people-results" }, "People"), people) : null,
    q && can("inventory:read") ? h("section", { class: "card", "aria-labelledby": "item-results" }, h("h2", { id: "item-results" }, "Items"), items) : null,
  );
  focusHeading();
  if (!q) return;
  const said = [];
  await Promise.all([
    can("scim")
      ? request("GET", "/scim/v2/Users", { query: [["filter", searchFilter(q)], ["count", String(SHOWN)], ["sortBy", "name.familyName"]], signal: ctx.signal }).then(
          (/** @type {any} */ a) => {
            if (!ctx.isCurrent()) return;
            remember(a.Resources);
            said.push(`${a.totalResults} people`);
            fill(
              people,
              a.Resources.length
                ? h(
                    "ul",
                    { class: "search-results", id: "people-found" },
                    a.Resources.map((/** @type {any} */ u) =>
                      h(
                        "li",
                        {},
                        h("a", { href: href(["people", u.id], null), class: "person-link" }, personName(u)),
                        h("span", { class: "sub" }, ` ${u.userName}`),
                        " ",
                        badge(u[EXTENSION]?.status, PERSON_STATUS_WORDS),
                      ),
                    ),
                  )
                : h("p", { class: "muted" }, "Nobody matches."),
              a.totalResults > a.Resources.length
                ? h("p", {}, h("a", { href: href(["people"], new URLSearchParams({ q })) }, `All ${a.totalResults} people matching “${q}”`))
                : null,
            );
          },
          (/** @type {any} */ e) => e.name !== "AbortError" && fill(people, errorBox(e, "Searching people")),
        )
      : null,
    can("inventory:read")
      ? request("GET", "/api/v1/inventory", { query: [["searchString", q], ["size", String(SHOWN)]], signal: ctx.signal }).then(
          (/** @type {any} */ a) => {
            if (!ctx.isCurrent()) return;
            said.push(`${a.pagination.totalRecords} items`);
            fill(
              items,
              a.data.length
                ? h(
                    "ul",
                    { class: "search-results", id: "items-found" },
                    a.data.map((/** @type {any} */ i) =>
                      h(
                        "li",
                        {},
                        h("a", { href: href(["inventory", i.id], null), class: "item-link" }, i.skuTitle || i.serialNumber || i.id),
                        i.serialNumber ? h("span", { class: "sub" }, ` serial ${i.serialNumber}`) : null,
                        " ",
                        badge(i.deployStatus, DEPLOY_STATUS_WORDS),
                      ),
                    ),
                  )
                : h("p", { class: "muted" }, "No item matches."),
              a.pagination.totalRecords > a.data.length
                ? h("p", {}, h("a", { href: href(["inventory"], new URLSearchParams({ searchString: q })) }, `All ${a.pagination.totalRecords} items matching “${q}”`))
                : null,
            );
          },
          (/** @type {any} */ e) => e.name !== "AbortError" && fill(items, errorBox(e, "Searching items")),
        )
      : null,
  ]);
  if (ctx.isCurrent()) announce(`Found ${said.join(" and ")}`);
}
