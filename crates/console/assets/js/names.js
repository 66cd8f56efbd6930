// @ts-check
// Names for ids: the console shows a SKU's title, a warehouse's or office's
// name, a package's name and a person's name where the API gives an id. Each
// list is read once per tab (per signed-in key or session) and kept; people are read one
// by one as they are needed and kept too. A key without the scope a list
// needs gets an empty map, never an error: the screen then shows the id.
// People are read from the directory (`GET /api/v1/people/{id}`, scope
// `people:read`), which also knows leavers (offboarding or offboarded), so
// they are named like anyone else; without that scope, from SCIM (`scim`),
// which knows only active people. A person the directory does not know
// (404: not of the organization) is named "(removed)".

import { identity, request } from "./api.js";
import { can } from "./scopes.js";
import { PERSON_STATUS_WORDS, say } from "./words.js";

/** @typedef {{id: string, title: string, categoryCode: string, categoryName: string, vendorCode: string, vendorName: string, vendorSku: string}} Sku */
/** @typedef {{id: string, name: string, countryCode: string | null}} Office */
/** @typedef {{id: string, name: string}} Named */
/** @typedef {{id: string, name: string, email: string, status?: string, removed?: boolean}} PersonName */
/** @typedef {{id: string, prefix: string, label: string | null}} KeyName */

/** The SCIM schema of equip's user extension (package, start date, status). */
export const EXTENSION = "urn:ietf:params:scim:schemas:extension:equip:1.0:User";

/** @type {Map<string, Promise<Map<string, any>>>} */
const lists = new Map();
/** Ids per SCIM search when naming people (within the server's page cap, 50 by default). */
const PEOPLE_PER_REQUEST = 40;

/** @type {Map<string, Promise<PersonName | null>>} */
const persons = new Map();
let keyOfCache = "";

/** Drops every cached name when another key (or session) signed in. */
function fresh() {
  const key = identity();
  if (key !== keyOfCache) {
    lists.clear();
    persons.clear();
    keyOfCache = key;
  }
}

/**
 * A list endpoint's `data`, by id, read once.
 * @param {string} path
 * @param {string} scope
 * @returns {Promise<Map<string, any>>}
 */
function byId(path, scope) {
  fresh();
  let found = lists.get(path);
  if (!found) {
    found = can(scope)
      ? request("GET", path).then(
          (body) => new Map((body?.data ?? []).map((/** @type {any} */ row) => [row.id, row])),
          () => {
            lists.delete(path);
            return new Map();
          },
        )
      : Promise.resolve(new Map());
    lists.set(path, found);
  }
  return found;
}

/** @returns {Promise<Map<string, Sku>>} every SKU of the organization */
export function skus() {
  return byId("/api/v1/skus", "inventory:read");
}

/** @returns {Promise<Map<string, Office>>} */
export function offices() {
  return byId("/api/v1/offices", "inventory:read");
}

/** @returns {Promise<Map<string, Named>>} the warehouses the organization may use */
export function warehouses() {
  return byId("/api/v1/warehouses", "warehouses:read");
}

/** @returns {Promise<Map<string, Named & {slug: string, items?: any[]}>>} the packages with their contents */
export function packages() {
  return byId("/api/v1/packages", "inventory:read");
}

/** @returns {Promise<Map<string, KeyName>>} the organization's API keys, to name who did what */
export function keys() {
  return byId("/api/v1/api-keys", "events:read");
}

/** @returns {Promise<Map<string, string>>} category code → name, from the SKUs */
export async function categories() {
  const all = await skus();
  const out = new Map();
  for (const s of [...all.values()].sort((a, b) => a.categoryName.localeCompare(b.categoryName))) {
    if (!out.has(s.categoryCode)) out.set(s.categoryCode, s.categoryName);
  }
  return out;
}

/**
 * "Given Family", else the userName.
 * @param {any} user a SCIM user
 * @returns {string}
 */
export function personName(user) {
  const given = user?.name?.givenName ?? "";
  const family = user?.name?.familyName ?? "";
  const full = `${given} ${family}`.trim();
  return full || user?.displayName || user?.userName || "";
}

/** What a person the directory does not know is called. */
export const REMOVED = "(removed)";

/**
 * A person's status in words: Active, Leaving (offboarding: their returns
 * are open), Left (offboarded); the same words as every list (`words.js`).
 * @param {string | null | undefined} status
 * @returns {string}
 */
export function statusWords(status) {
  return status ? say(PERSON_STATUS_WORDS, status) : "";
}

/**
 * A person of the directory (`GET /api/v1/people/{id}`) as a name; a 404
 * is a removed person, another failure nothing.
 * @param {string} id
 * @returns {Promise<PersonName | null>}
 */
function directoryPerson(id) {
  return request("GET", `/api/v1/people/${encodeURIComponent(id)}`).then(
    (p) => ({ id, name: personName(p), email: p.userName ?? "", status: p.status }),
    (e) => (e?.status === 404 ? { id, name: REMOVED, email: "", removed: true } : null),
  );
}

/**
 * The people of `ids`, by id: from the directory with `people:read` (every
 * status; a person it does not know named {@link REMOVED}), else SCIM users
 * (`scim`; unknown or unreadable ones left out).
 * @param {Iterable<string>} ids
 * @returns {Promise<Map<string, PersonName>>}
 */
export async function people(ids) {
  fresh();
  const out = new Map();
  if (can("people:read")) return directoryPeople([...new Set(ids)].filter(Boolean));
  if (!can("scim")) return out;
  const wanted = [...new Set(ids)].filter(Boolean);
  // The ones not asked for yet are read together: one SCIM search per
  // PEOPLE_PER_REQUEST ids (`id eq "…" or …`), not one request per person.
  const missing = wanted.filter((id) => !persons.has(id));
  for (let i = 0; i < missing.length; i += PEOPLE_PER_REQUEST) {
    const chunk = missing.slice(i, i + PEOPLE_PER_REQUEST);
    const answer = usersWithIds(chunk).catch(() => new Map());
    for (const id of chunk) {
      persons.set(
        id,
        answer.then((found) => {
          const u = found.get(id);
          return u ? { id, name: personName(u), email: u.userName ?? "" } : null;
        }),
      );
    }
  }
  const found = await Promise.all(wanted.map((id) => persons.get(id)));
  for (const p of found) if (p) out.set(p.id, p);
  return out;
}

/**
 * The directory's people of `ids` by id, each read once (8 at a time).
 * @param {string[]} wanted
 * @returns {Promise<Map<string, PersonName>>}
 */
async function directoryPeople(wanted) {
  const missing = wanted.filter((id) => !persons.has(id));
  for (let i = 0; i < missing.length; i += 8) {
    const chunk = missing.slice(i, i + 8);
    const answers = Promise.all(chunk.map(directoryPerson));
    chunk.forEach((id, k) => persons.set(id, answers.then((all) => all[k])));
    await answers;
  }
  const out = new Map();
  for (const p of await Promise.all(wanted.map((id) => persons.get(id)))) if (p) out.set(p.id, p);
  return out;
}

/**
 * The SCIM users of `ids` by id, in as many pages as the server's page cap
 * makes of them.
 * @param {string[]} ids
 * @returns {Promise<Map<string, any>>}
 */
async function usersWithIds(ids) {
  const filter = ids.map((id) => `id eq "${id.replaceAll("\\", "").replaceAll('"', "")}"`).join(" or ");
  const found = new Map();
  for (let start = 1; ; ) {
    const body = await request("GET", "/scim/v2/Users", {
      query: [
        ["filter", filter],
        ["startIndex", String(start)],
        ["count", String(ids.length)],
        ["attributes", "userName,name,displayName"],
      ],
    });
    const page = body?.Resources ?? [];
    for (const u of page) found.set(u.id, u);
    start += page.length;
    if (!page.length || start > (body?.totalResults ?? 0)) return found;
  }
}

/**
 * Remembers people the screen already read (a SCIM listing), so that no
 * second request asks for them.
 * @param {any[]} users SCIM users
 */
export function remember(users) {
  fresh();
  for (const u of users) {
    if (u?.id) persons.set(u.id, Promise.resolve({ id: u.id, name: personName(u), email: u.userName ?? "" }));
  }
}

/**
 * The name of an item's holder (`assignedTo` of the API): a person's name, a
 * warehouse's or office's name; the id when it cannot be named.
 * @param {{type: string, id: string} | null | undefined} holder
 * @returns {Promise<string>}
 */
export async function holderName(holder) {
  if (!holder) return "";
  if (holder.type === "PERSON") return (await people([holder.id])).get(holder.id)?.name || (can("people:read") ? REMOVED : holder.id);
  if (holder.type === "WAREHOUSE") return (await warehouses()).get(holder.id)?.name || holder.id;
  if (holder.type === "OFFICE") return (await offices()).get(holder.id)?.name || holder.id;
  return holder.id;
}

/**
 * Where a holder's page is in the console (a person's page, or the items a
 * warehouse or office holds).
 * @param {{type: string, id: string}} holder
 * @returns {string}
 */
export function holderLink(holder) {
  if (holder.type === "PERSON") return `#/people/${encodeURIComponent(holder.id)}`;
  if (holder.type === "WAREHOUSE") return `#/inventory?warehouseId=${encodeURIComponent(holder.id)}`;
  return `#/inventory?officeId=${encodeURIComponent(holder.id)}`;
}
