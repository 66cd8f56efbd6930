// @ts-check
// What equip's own OpenAPI document (`GET /openapi.json`, no key needed)
// says, read once per tab: the console takes lists such as the scopes from
// it rather than from a copy of the Rust code.

import { SCOPES } from "./scopes.js";

/** @type {Promise<any> | null} */
let doc = null;

/** @returns {Promise<any>} the OpenAPI document */
export function openapi() {
  if (!doc) {
    doc = fetch("/openapi.json", { credentials: "omit", headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`openapi.json: ${r.status}`))))
      .catch((e) => {
        doc = null;
        throw e;
      });
  }
  return doc;
}

/**
 * Every scope a key may have, in the API's order (the ApiKey schema's
 * `scopes` enum); the console's own list when the document cannot be read.
 * @returns {Promise<string[]>}
 */
export async function scopeList() {
  try {
    const list = (await openapi())?.components?.schemas?.ApiKey?.properties?.scopes?.items?.enum;
    if (Array.isArray(list) && list.length) return list;
  } catch {
    // The console's own list below.
  }
  return Object.keys(SCOPES);
}

/**
 * The values a listing's query parameter takes (`schema.enum`, or
 * `schema.items.enum` for a repeated one), from the OpenAPI document, so the
 * console offers exactly what the API accepts; `fallback` when the document
 * cannot be read.
 * @param {string} path e.g. `/api/v1/return-orders`
 * @param {string} name e.g. `status`
 * @param {string[]} fallback
 * @returns {Promise<string[]>}
 */
export async function parameterEnum(path, name, fallback) {
  const schema = await parameterSchema(path, name);
  const found = schema?.enum ?? schema?.items?.enum;
  return Array.isArray(found) ? found.filter((/** @type {any} */ v) => typeof v === "string") : fallback;
}

/**
 * The schema of a GET operation's query parameter, or null (no document, no
 * such parameter).
 * @param {string} path
 * @param {string} name
 * @returns {Promise<any>}
 */
async function parameterSchema(path, name) {
  try {
    const params = (await openapi())?.paths?.[path]?.get?.parameters || [];
    return params.find((/** @type {any} */ p) => p.name === name)?.schema ?? null;
  } catch {
    return null;
  }
}

/** The largest page of a listing when the OpenAPI document cannot be read (the API's own maximum today). */
export const PAGE_SIZE_FALLBACK = 1000;

/**
 * The largest page a listing answers: its `size` parameter's `maximum` in the
 * OpenAPI document, so that exports and full reads ask for as much as the API
 * allows and no more; PAGE_SIZE_FALLBACK when the document cannot be read.
 * @param {string} path e.g. `/api/v1/inventory`
 * @returns {Promise<number>}
 */
export async function maxPageSize(path) {
  const found = (await parameterSchema(path, "size"))?.maximum;
  return Number.isInteger(found) && found > 0 ? found : PAGE_SIZE_FALLBACK;
}

/**
 * The values a schema's property takes, from the OpenAPI document.
 * @param {string} schema e.g. `ReturnLinePatch`
 * @param {string} property e.g. `closedReason`
 * @param {string[]} fallback
 * @returns {Promise<string[]>}
 */
export async function propertyEnum(schema, property, fallback) {
  let found;
  try {
    found = (await openapi())?.components?.schemas?.[schema]?.properties?.[property]?.enum;
  } catch {
    found = null;
  }
  return Array.isArray(found) ? found.filter((/** @type {any} */ v) => typeof v === "string") : fallback;
}
