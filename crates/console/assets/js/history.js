// @ts-check
// An item's or a person's history: `GET /api/v1/{inventory|people}/{id}/history`,
// newest first, with "Show older" following the `next` cursor. Each event is
// told as sentences ("Assigned to Clara Becker (was Jack Evans), by
// Onboarding key"), with names instead of ids and dates in words.

import { request } from "./api.js";
import { holderHref, holderName, productNames } from "./holders.js";
import { namesOf as peopleNamed } from "./lifecycle.js";
import { keys, offices, packages, warehouses } from "./names.js";
import { errorBox, fill, h, label, loading } from "./ui.js";
import {
  CONDITION_WORDS,
  DEPLOY_REASON_WORDS,
  DEPLOY_STATUS_WORDS,
  EVENT_TYPE_WORDS,
  PERSON_STATUS_WORDS,
  RENEWAL_WORDS,
  RETRIEVAL_METHOD_WORDS,
  RETRIEVAL_WORDS,
  RETURN_STATUS_WORDS,
  say,
  SUPPLIED_BY_WORDS,
} from "./words.js";

/**
 * The history section of `path` (e.g. `/api/v1/inventory/<id>/history`).
 * @param {string} path
 * @returns {HTMLElement}
 */
export function historySection(path) {
  const list = h("ol", { class: "history" });
  const more = h("div", { class: "history-more" });
  const section = h("section", { class: "card", "aria-labelledby": "history-title" }, h("h2", { id: "history-title" }, "History"), list, more);
  /** @param {string | null} after */
  const page = async (after) => {
    fill(more, loading("Loading history…"));
    try {
      const answer = await request("GET", path, { query: [["size", "20"], ["after", after]] });
      const names = await namesOf(answer.data);
      const entries = answer.data.map((/** @type {any} */ e) => entry(e, names));
      list.append(...entries);
      // "Show older" is replaced: the keyboard goes on at the first older change.
      if (after && entries.length) entries[0].focus();
      if (!list.firstChild) list.replaceWith(h("p", { class: "empty" }, "No recorded changes."));
      fill(
        more,
        answer.next
          ? h("button", { type: "button", class: "secondary", onclick: () => page(answer.next) }, "Show older changes")
          : null,
      );
    } catch (error) {
      fill(more, errorBox(error, "Loading the history"));
    }
  };
  page(null);
  return section;
}

/**
 * @typedef {{people: Map<string, any>, places: Map<string, any>, keys: Map<string, any>, packages: Map<string, any>, products: Map<string, any>}} Names
 */

/**
 * The names the events mention: holders, warehouses, offices, keys.
 * @param {any[]} events
 * @returns {Promise<Names>}
 */
async function namesOf(events) {
  const ids = new Set();
  let places = false;
  const mentions = (/** @type {string} */ field) => events.some((e) => e.changes && field in e.changes);
  for (const e of events) {
    const a = e.changes && e.changes.assignedTo;
    for (const to of a ? [a.from, a.to] : []) {
      if (to && to.type === "PERSON") ids.add(to.id);
      else if (to) places = true;
    }
  }
  const [who, houses, rooms, keyNames, kits, products] = await Promise.all([
    // People still in the directory by SCIM, people who left by their history.
    ids.size ? peopleNamed([...ids]) : Promise.resolve(new Map()),
    places ? warehouses() : Promise.resolve(new Map()),
    places ? offices() : Promise.resolve(new Map()),
    keys(),
    mentions("packageId") ? packages() : Promise.resolve(new Map()),
    mentions("skuId") ? productNames() : Promise.resolve(new Map()),
  ]);
  return { people: who, places: new Map([...houses, ...rooms]), keys: keyNames, packages: kits, products };
}

/** Field names in words. */
const FIELDS = {
  deployStatus: "Status",
  deployReason: "Reason",
  condition: "Condition",
  description: "Description",
  renewalDate: "Renewal date",
  renewalDateUpdatedBy: "Renewal date set by",
  serialNumber: "Serial number",
  tags: "Tags",
  imei: "IMEI",
  skuId: "Product",
  procurementMethod: "Procurement",
  billingStartDate: "Billing start",
  billingEndDate: "Billing end",
  packageId: "Package",
  "returnOrder.status": "Return",
  "returnOrder.retrievalMethod": "Retrieval",
  startDate: "Start date",
  status: "Status",
  externalId: "External id",
  skipUserActivation: "Skip activation email",
  cpfNumber: "CPF number",
  suppliedBy: "Supplied by",
  userName: "Email (user name)",
  "name.givenName": "Given name",
  "name.familyName": "Family name",
  displayName: "Display name",
  active: "Active",
  emails: "Emails",
  phoneNumbers: "Phone numbers",
  addresses: "Addresses",
};

/** The words of each field's codes. @type {Record<string, Record<string, string>>} */
const VALUE_WORDS = {
  deployStatus: DEPLOY_STATUS_WORDS,
  deployReason: DEPLOY_REASON_WORDS,
  condition: CONDITION_WORDS,
  renewalDateUpdatedBy: RENEWAL_WORDS,
  status: PERSON_STATUS_WORDS,
  suppliedBy: SUPPLIED_BY_WORDS,
  "returnOrder.status": RETURN_STATUS_WORDS,
};

/**
 * A retrieval method (`{type, status}`) in words: "Return kit: requested".
 * @param {any} method
 * @returns {string}
 */
function retrievalSaid(method) {
  const type = method && method.type ? say(RETRIEVAL_METHOD_WORDS, method.type) : "Retrieval";
  return method && method.status ? `${type}: ${say(RETRIEVAL_WORDS, method.status).toLowerCase()}` : type;
}

/**
 * Who made the change, in words.
 * @param {any} actor
 * @param {Names} names
 * @returns {string}
 */
export function actorWords(actor, names) {
  if (!actor) return "";
  if (actor.type === "API_KEY") {
    const k = actor.id ? names.keys.get(actor.id) : null;
    if (k) return k.label ? `${k.label} (key ${k.prefix})` : `the key ${k.prefix}`;
    return actor.id ? `an API key (${String(actor.id).slice(0, 8)})` : "an API key";
  }
  // Someone signed in through the organization's identity provider.
  if (actor.type === "PERSON") return actor.email || actor.subject || "a person";
  if (actor.type === "CLI") return "an administrator (equip command line)";
  if (actor.type === "SYSTEM") return "equip";
  return label(actor.type);
}

/**
 * A time in words: "today at 14:03", "yesterday at 09:12", "3 days ago", "on 23 Nov 2026"; exact in `title`.
 * @param {string} value
 * @param {Date} [now]
 * @returns {HTMLElement}
 */
export function when(value, now = new Date()) {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return h("span", {}, value);
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  const clock = `${two(d.getHours())}:${two(d.getMinutes())}`;
  const day = (/** @type {Date} */ x) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  const days = Math.round((day(now) - day(d)) / 86400000);
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  let words;
  if (days === 0) words = `today at ${clock}`;
  else if (days === 1) words = `yesterday at ${clock}`;
  else if (days > 1 && days < 7) words = `${days} days ago, at ${clock}`;
  else words = `on ${d.getDate()} ${months[d.getMonth()]} ${d.getFullYear()}, at ${clock}`;
  return h("time", { datetime: value, title: value }, words);
}

/**
 * A value of a change, in words (a holder by name, an enum as words, a list joined).
 * @param {string} field
 * @param {any} v
 * @param {Names} names
 * @returns {string}
 */
function words(field, v, names) {
  if (v === null || v === undefined || v === "") return "none";
  if (field === "assignedTo") return holderName(v, names.people, names.places);
  if (field === "packageId") return names.packages.get(v)?.name || `a package (${String(v).slice(0, 8)})`;
  if (field === "skuId") return names.products.get(v)?.title || `a product (${String(v).slice(0, 8)})`;
  if (field === "startDate" && typeof v === "string") return v.slice(0, 10);
  if (field in VALUE_WORDS && typeof v === "string") return say(VALUE_WORDS[field], v);
  if (typeof v === "object" && !Array.isArray(v) && (field === "retrievalMethod" || field === "returnOrder.retrievalMethod" || ("type" in v && "status" in v && v.type in RETRIEVAL_METHOD_WORDS))) return retrievalSaid(v);
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (Array.isArray(v)) {
    if (!v.length) return "none";
    return v.map((x) => (x && typeof x === "object" ? x.label || x.value || x.display || summary(x) : String(x))).join(", ");
  }
  if (typeof v === "object") return v.label || v.name || v.value || summary(v);
  return String(v);
}

/**
 * An object's fields as "a: x, b: y", ids left out.
 * @param {Record<string, any>} o
 * @returns {string}
 */
function summary(o) {
  return Object.entries(o)
    .filter(([k, x]) => x !== null && x !== undefined && k !== "id" && !k.endsWith("Id"))
    .map(([k, x]) => `${k}: ${typeof x === "object" ? "…" : String(x)}`)
    .join(", ");
}

/**
 * One change as a sentence.
 * @param {string} field
 * @param {any} change
 * @param {Names} names
 * @returns {Node[]}
 */
function sentence(field, change, names) {
  const from = change ? change.from : null;
  const to = change ? change.to : null;
  if (field === "assignedTo") {
    const link = (/** @type {any} */ x) => {
      const target = holderHref(x);
      const name = holderName(x, names.people, names.places);
      return target ? h("a", { href: target }, name) : h("span", {}, name);
    };
    if (!to) return [h("span", {}, "Unassigned (was "), link(from), h("span", {}, ")")];
    if (!from) return [h("span", {}, "Assigned to "), link(to)];
    return [h("span", {}, "Assigned to "), link(to), h("span", {}, " (was "), link(from), h("span", {}, ")")];
  }
  if (field === "returnOrder") {
    if (!to) return [h("span", {}, "Return closed")];
    const status = to.returnOrderItemStatus || to.status;
    return [h("span", {}, `Return: ${status ? say(RETURN_STATUS_WORDS, status).toLowerCase() : "started"}${to.retrievalMethod ? `; ${retrievalSaid(to.retrievalMethod).toLowerCase()}` : ""}`)];
  }
  const name = /** @type {Record<string, string>} */ (FIELDS)[field] || label(field.replaceAll(".", " ").replace(/([a-z])([A-Z])/g, "$1_$2"));
  if (field === "description") return [h("span", {}, from ? (to ? `Description changed to “${to}”` : "Description removed") : `Description “${to}”`)];
  if (from === null || from === undefined) return [h("span", {}, `${name}: ${words(field, to, names)}`)];
  return [h("span", {}, `${name} ${words(field, from, names)} → ${words(field, to, names)}`)];
}

/**
 * One event as a list entry.
 * @param {any} event
 * @param {Names} names
 * @returns {HTMLElement}
 */
function entry(event, names) {
  const changes = event.changes ? Object.entries(event.changes) : [];
  const actor = actorWords(event.actor, names);
  const title = say(EVENT_TYPE_WORDS, event.type);
  const created = event.type.endsWith(".created");
  // A creation lists every field it set from null: its main facts are enough.
  const shown = created ? changes.filter(([f, c]) => ["deployStatus", "assignedTo", "condition", "userName", "packageId", "startDate"].includes(f) && c && c.to !== null) : changes;
  return h(
    "li",
    { tabindex: "-1" },
    h(
      "div",
      { class: "event-head" },
      h("strong", {}, title),
      " ",
      when(event.occurredAt),
      actor ? h("span", { class: "sub" }, `, by ${actor}`) : null,
      " ",
      h("span", { class: "event-type" }, event.type),
    ),
    shown.length ? h("ul", { class: "changes" }, shown.map(([field, change]) => h("li", {}, sentence(field, change, names)))) : null,
  );
}
