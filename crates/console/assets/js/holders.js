// @ts-check
// An item's holder in words: a person's name linked to their page, a
// warehouse's or office's name linked to the items it holds.

import { href } from "./router.js";
import { request } from "./api.js";
import { people, skus } from "./names.js";
import { can } from "./scopes.js";
import { maxPageSize } from "./spec.js";
import { h, label, text } from "./ui.js";

/**
 * The names of the people holding `items` (by person id).
 * @param {any[]} items
 * @returns {Promise<Map<string, {id: string, name: string, email: string}>>}
 */
export function holderPeople(items) {
  const ids = items.filter((i) => i && i.assignedTo && i.assignedTo.type === "PERSON").map((i) => i.assignedTo.id);
  return ids.length ? people(ids) : Promise.resolve(new Map());
}

/**
 * Where a holder's link goes.
 * @param {{type: string, id: string}} to
 * @returns {string | null}
 */
export function holderHref(to) {
  if (to.type === "PERSON") return can("scim") || can("people:read") ? href(["people", to.id], null) : null;
  if (to.type === "WAREHOUSE") return href(["inventory"], new URLSearchParams({ warehouseId: to.id }));
  if (to.type === "OFFICE") return href(["inventory"], new URLSearchParams({ officeId: to.id }));
  return null;
}

/**
 * A holder's name: the person's name when known, else the API's label.
 * @param {any} to
 * @param {Map<string, {name: string, email: string}>} [known]
 * @param {Map<string, any>} [places] warehouses and offices by id
 * @returns {string}
 */
export function holderName(to, known, places) {
  if (!to) return "nobody";
  const person = to.type === "PERSON" && known ? known.get(to.id) : null;
  if (person) return person.name || person.email;
  const place = to.type !== "PERSON" && places ? places.get(to.id) : null;
  if (place) return place.name;
  if (to.label) return to.label;
  // Never an id: say what kind of holder it is and why its name is missing.
  if (to.type === "PERSON") return can("scim") ? "a person not in the directory" : "a person (names need the scope scim)";
  return `a ${label(to.type).toLowerCase()} equip no longer lists`;
}

/**
 * The holder as a link with its kind below.
 * @param {any} to
 * @param {Map<string, {name: string, email: string}>} [known]
 * @returns {Node | string}
 */
export function holderCell(to, known) {
  if (!to) return text(null);
  const name = holderName(to, known);
  const target = holderHref(to);
  const person = to.type === "PERSON" && known ? known.get(to.id) : null;
  const kind = to.type === "PERSON" ? (person && person.email && person.email !== name ? person.email : "Person") : label(to.type);
  return h("div", {}, target ? h("a", { href: target, class: "holder-link" }, name) : name, h("div", { class: "sub" }, kind));
}

/**
 * The organization's SKUs by id (`GET /api/v1/skus`); where that list is not
 * available, the SKUs of the first page of items (by category, as large as
 * the API's `size` allows), so that
 * products still show by name.
 * @returns {Promise<Map<string, {id: string, title: string, categoryCode: string, categoryName: string, vendorSku: string}>>}
 */
export async function productNames() {
  const all = await skus();
  if (all.size || !can("inventory:read")) return all;
  /** @type {Map<string, any>} */
  const found = new Map();
  try {
    const size = await maxPageSize("/api/v1/inventory");
    const answer = await request("GET", "/api/v1/inventory", { query: [["size", String(size)], ["sortBy", "category"]] });
    for (const i of answer.data) {
      if (!found.has(i.skuId)) found.set(i.skuId, { id: i.skuId, title: i.skuTitle, categoryCode: i.categoryCode, categoryName: i.categoryNameOfSku, vendorSku: i.vendorSku });
    }
  } catch {
    // names stay unknown: the screen shows short ids
  }
  return found;
}
