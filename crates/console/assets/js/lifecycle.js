// @ts-check
// Shared pieces of the returns, receipt, orders and packages screens: the
// words for the API's statuses, people and items by id, status filters and
// paging in the URL. SKU titles, category names and the keys that made
// changes come from names.js.

import { request } from "./api.js";
import { people } from "./names.js";
import { go, href } from "./router.js";
import { can } from "./scopes.js";
import { announce, h } from "./ui.js";
import { say } from "./words.js";

// The words of the API's codes live in words.js; these screens import them from here too.
export { LINE_STATUS_WORDS, ORDER_STATUS_WORDS, RETRIEVAL_WORDS, RETURN_STATUS_WORDS, SHIPMENT_WORDS, WRITE_OFF_REASONS, say } from "./words.js";

/** @typedef {{path: string[], params: URLSearchParams}} Route */
/** @typedef {{signal: AbortSignal, isCurrent: () => boolean}} Ctx */

/** The statuses a return order has (the listing's `status` filter). */
export const RETURN_STATUSES = [
  "PENDING",
  "SUBMITTED",
  "PROCESSING",
  "RETURN_KIT_SENT",
  "RETURN_KIT_DELIVERED",
  "RETURN_KIT_SENT_BACK",
  "RECEIVED_IN_WAREHOUSE",
  "COMPLETED",
  "PARTIALLY_COMPLETED",
  "NOT_COMPLETED",
  "CANCELLED",
];

/** Retrieval methods: words, the path of statuses, the tracking fields. */
export const METHODS = {
  RETURN_KIT: {
    words: "Return kit (a pre-paid kit is sent to the person)",
    path: ["REQUESTED", "LABEL_CREATED", "SHIPPED", "DELIVERED", "SENT_BACK", "ARRIVED_AT_PROCESSING_FACILITY"],
    moving: ["SHIPPED", "SENT_BACK"],
    tracking: {
      inboundTrackingCode: "Tracking code of the kit going to the person",
      inboundTrackingLink: "Tracking link of the kit going to the person",
      outboundTrackingCode: "Tracking code of the equipment coming back",
      outboundTrackingLink: "Tracking link of the equipment coming back",
    },
  },
  INBOUND_LABEL: {
    words: "Pre-paid label (the person ships the equipment back)",
    path: ["REQUESTED", "LABEL_CREATED", "SENT_BACK", "ARRIVED_AT_PROCESSING_FACILITY"],
    moving: ["SENT_BACK"],
    tracking: {
      inboundTrackingCode: "Tracking code of the parcel coming back",
      inboundTrackingLink: "Tracking link of the parcel coming back",
    },
  },
  PHYSICAL: {
    words: "In person (dropped off or collected by a courier)",
    path: ["REQUESTED", "SCHEDULING_PICK_UP", "ARRIVED_AT_PROCESSING_FACILITY"],
    moving: [],
    tracking: {},
  },
};

/**
 * A status badge with words (the colour follows the API's value).
 * @param {Record<string, string>} words
 * @param {string | null | undefined} value
 * @returns {HTMLElement}
 */
export function statusBadge(words, value) {
  return h("span", { class: `badge badge-${String(value || "none").toLowerCase()}`, "data-status": value || "" }, say(words, value) || "—");
}

/**
 * The page number of the URL (1 when absent or wrong).
 * @param {URLSearchParams} params
 * @returns {number}
 */
export function pageOf(params) {
  return Math.max(1, Number.parseInt(params.get("page") || "1", 10) || 1);
}

/**
 * Goes to page `p` of the listing `area` with the other parameters kept.
 * @param {string} area
 * @param {URLSearchParams} params
 * @param {number} p
 */
export function goPage(area, params, p) {
  const next = new URLSearchParams(params);
  if (p > 1) next.set("page", String(p));
  else next.delete("page");
  go([area], next);
}

/** @type {Map<string, Promise<{id: string, name: string, email: string, gone: boolean} | null>>} */
const formerPeople = new Map();

/**
 * People's names by id: the directory's people (`people:read`, every
 * status), else SCIM users (`scim`), and people SCIM no longer shows
 * (offboarding or offboarded: SCIM answers 404) named by their history
 * (`events:read`), marked `gone`, for a key without `people:read`.
 * @param {Iterable<string | null | undefined>} ids
 * @returns {Promise<Map<string, {id: string, name: string, email: string, gone?: boolean}>>}
 */
export async function namesOf(ids) {
  const wanted = /** @type {string[]} */ ([...new Set([...ids].filter(Boolean))]);
  /** @type {Map<string, {id: string, name: string, email: string, gone?: boolean}>} */
  const found = new Map(await people(wanted));
  const missing = wanted.filter((id) => !found.has(id));
  if (!missing.length || !can("events:read")) return found;
  const former = await Promise.all(missing.map(formerPerson));
  for (const p of former) if (p) found.set(p.id, p);
  return found;
}

/**
 * A person's last recorded name, from their history (newest first).
 * @param {string} id
 */
function formerPerson(id) {
  let p = formerPeople.get(id);
  if (!p) {
    p = request("GET", `/api/v1/people/${encodeURIComponent(id)}/history`, { query: [["size", "100"]] }).then(
      (answer) => {
        /** @type {Record<string, string>} */
        const last = {};
        for (const event of answer.data) {
          for (const field of ["name.givenName", "name.familyName", "displayName", "userName"]) {
            const to = event.changes?.[field]?.to;
            if (!(field in last) && typeof to === "string") last[field] = to;
          }
        }
        const full = `${last["name.givenName"] || ""} ${last["name.familyName"] || ""}`.trim();
        const name = full || last.displayName || last.userName || "";
        return name ? { id, name, email: last.userName || "", gone: true } : null;
      },
      () => null,
    );
    formerPeople.set(id, p);
  }
  return p;
}

/**
 * A link to a person's page, by name; a person no longer in the directory
 * by name, unlinked; their id when the name is unknown.
 * @param {Map<string, {name: string, email: string, gone?: boolean, removed?: boolean}>} names
 * @param {string | null | undefined} id
 * @returns {Node | string}
 */
export function personLink(names, id) {
  if (!id) return h("span", { class: "muted" }, "No person is named on it");
  const p = names.get(id);
  if (p && p.gone) return h("span", { class: "person-name" }, p.name || p.email, h("span", { class: "sub" }, " (left)"));
  // A person the directory does not know (people:read answered 404).
  if (p && p.removed) return h("span", { class: "person-name muted" }, p.name);
  const readable = can("people:read") || can("scim");
  // A name this key cannot read is not replaced by an id.
  const text = p ? p.name || p.email : readable ? "a person not in the directory" : "a person (names need the scope people:read)";
  return readable ? h("a", { href: href(["people", id], null), class: "person-link" }, text) : text;
}

/**
 * Items by id (`GET /api/v1/inventory/{id}` each, at most 8 at a time); an
 * item that cannot be read is left out.
 * @param {Iterable<string | null | undefined>} ids
 * @param {AbortSignal} [signal]
 * @returns {Promise<Map<string, any>>}
 */
export async function itemsById(ids, signal) {
  const wanted = [...new Set([...ids].filter(Boolean))];
  /** @type {Map<string, any>} */
  const out = new Map();
  if (!can("inventory:read")) return out;
  for (let i = 0; i < wanted.length; i += 8) {
    const part = await Promise.all(
      wanted.slice(i, i + 8).map((id) =>
        request("GET", `/api/v1/inventory/${encodeURIComponent(String(id))}`, { signal }).catch((e) => {
          if (e.name === "AbortError") throw e;
          return null;
        }),
      ),
    );
    for (const item of part) if (item) out.set(item.id, item);
  }
  return out;
}

/**
 * A link to an item: its SKU's title and serial number.
 * @param {any} item the API's item, or null
 * @param {string} id
 * @returns {Node}
 */
export function itemLink(item, id) {
  const words = item ? `${item.skuTitle}${item.serialNumber ? ` · ${item.serialNumber}` : ""}` : "an item (open it to see it)";
  return h("a", { href: href(["inventory", id], null), class: "item-link" }, words);
}

/** The id of a status filter to focus again once its view is drawn (a mouse choice). */
let refocus = "";

/**
 * A status filter of a listing: a labelled select and a **Show** button.
 * The keyboard's arrow keys only move the choice (the focus stays on the
 * select); Enter or **Show** applies it. A choice made with the mouse applies
 * at once, and the new view puts the focus back on the select.
 * @param {{area: string, params: URLSearchParams, statuses: string[], words: Record<string, string>, label: string}} spec
 * @returns {HTMLElement}
 */
export function statusFilter({ area, params, statuses, words, label: text }) {
  const id = `${area}-status`;
  const select = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id, name: "status" },
      h("option", { value: "" }, "Any status"),
      statuses.map((s) => h("option", { value: s, selected: params.get("status") === s ? "" : null }, say(words, s))),
    )
  );
  const apply = () => {
    const next = new URLSearchParams(params);
    next.delete("page");
    if (select.value) next.set("status", select.value);
    else next.delete("status");
    if (next.toString() === params.toString()) return;
    refocus = id;
    go([area], next);
  };
  let pointer = false;
  select.addEventListener("pointerdown", () => {
    pointer = true;
  });
  select.addEventListener("keydown", (e) => {
    pointer = false;
    if (e.key === "Enter") {
      e.preventDefault();
      apply();
    }
  });
  select.addEventListener("change", () => {
    if (pointer) apply();
  });
  if (refocus === id) {
    refocus = "";
    select.setAttribute("data-refocus", "");
  }
  return h(
    "div",
    { class: "field status-filter" },
    h("label", { for: id }, text),
    h("div", { class: "inline" }, select, " ", h("button", { type: "button", class: "secondary", id: `${id}-show`, onclick: apply }, "Show")),
  );
}

// The lists the API accepts, read from its OpenAPI document (spec.js).
export { maxPageSize, parameterEnum, propertyEnum } from "./spec.js";
import { maxPageSize } from "./spec.js";

/**
 * Every event of one subject (`GET /api/v1/events?subjectId=`), oldest
 * first (at most 10 pages, each as large as the API's `size` allows).
 * @param {string} subjectId
 * @returns {Promise<any[]>}
 */
export async function subjectEvents(subjectId) {
  /** @type {any[]} */
  const events = [];
  /** @type {string | null} */
  let after = null;
  const size = await maxPageSize("/api/v1/events");
  for (let round = 0; round < 10; round++) {
    /** @type {any} */
    const page = await request("GET", "/api/v1/events", { query: [["subjectId", subjectId], ["size", String(size)], ["after", after]] });
    events.push(...page.data);
    if (!page.data.length || page.next === after || page.data.length < size) break;
    after = page.next;
  }
  return events;
}

/**
 * An event's `changes` split into the subject's own fields and those of its
 * parts named `<part>.<id>.<field>` (`lines.<id>.status`).
 * @param {Record<string, {from: any, to: any}> | null | undefined} changes
 * @returns {{top: Record<string, any>, parts: Record<string, Map<string, Record<string, any>>>}}
 */
export function splitChanges(changes) {
  /** @type {Record<string, any>} */
  const top = {};
  /** @type {Record<string, Map<string, Record<string, any>>>} */
  const parts = {};
  for (const [field, change] of Object.entries(changes || {})) {
    const m = /^(lines|shipments)\.([^.]+)\.(.+)$/.exec(field);
    if (m) {
      const byId = parts[m[1]] || (parts[m[1]] = new Map());
      const entry = byId.get(m[2]) || {};
      entry[m[3]] = change?.to;
      byId.set(m[2], entry);
    } else {
      top[field] = change?.to;
    }
  }
  return { top, parts };
}

/**
 * Who made a change, in words.
 * @param {any} actor
 * @param {Map<string, any>} actors the organization's keys
 * @returns {string}
 */
export function actorWords(actor, actors) {
  if (!actor) return "someone";
  if (actor.type === "API_KEY") {
    const k = actors.get(actor.id);
    if (k) return `the key ${k.label || k.prefix}`;
    return "an API key";
  }
  if (actor.type === "PERSON") return actor.email || actor.subject || "a person";
  if (actor.type === "CLI") return "an administrator (equip command)";
  if (actor.type === "SYSTEM") return "equip";
  return say({}, actor.type).toLowerCase();
}

/**
 * Links from a person's page to their orders and returns (each only with
 * the scope that reads it); null when the key may read neither. For
 * person.js: `personLifecycleLinks(user.id)` among its sections.
 * @param {string} personId
 * @returns {HTMLElement | null}
 */
export function personLifecycleLinks(personId) {
  const params = new URLSearchParams({ personId });
  const links = [
    can("orders:read") ? h("li", {}, h("a", { href: href(["orders"], params), class: "person-orders" }, "Their orders")) : null,
    can("returns:read") ? h("li", {}, h("a", { href: href(["returns"], params), class: "person-returns" }, "Their returns")) : null,
  ].filter(Boolean);
  if (!links.length) return null;
  return h("nav", { class: "card", "aria-label": "Orders and returns of this person" }, h("ul", { class: "actions plain" }, links));
}

export { exportButton } from "./export.js";

/**
 * "Only <name>'s <noun>. Show everyone's" above a list filtered to one person
 * (`personId` in the URL); null without that filter.
 * @param {URLSearchParams} params
 * @param {string} area the list's path, e.g. `orders`
 * @param {string} noun e.g. `orders`
 * @returns {Promise<HTMLElement | null>}
 */
export async function personFilterNotice(params, area, noun) {
  const whose = params.get("personId");
  if (!whose) return null;
  const everyone = new URLSearchParams(params);
  everyone.delete("personId");
  everyone.delete("page");
  const person = (await namesOf([whose])).get(whose);
  return h(
    "p",
    { class: "notice", id: "person-filter" },
    `Only ${person ? `${person.name}'s` : "one person's"} ${noun}. `,
    h("a", { href: href([area], everyone) }, "Show everyone's"),
  );
}
