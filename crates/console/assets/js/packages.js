// @ts-check
// Packages (`GET /api/v1/packages`): the named bundles of equipment people
// receive, each with its contents in words.

import { request } from "./api.js";
import { href } from "./router.js";
import { announce, errorBox, fill, focusHeading, h, heading, loading, table } from "./ui.js";
import { categories as allCategories, skus as allSkus } from "./names.js";

/**
 * The packages listing.
 * @param {HTMLElement} main
 * @param {import("./lifecycle.js").Route} _route
 * @param {import("./lifecycle.js").Ctx} ctx
 */
export default async function packagesView(main, _route, ctx) {
  const body = h("div", {}, loading("Loading packages…"));
  fill(
    main,
    heading("Packages"),
    h("p", { class: "help" }, "What a person with each package receives. A person has their own package or their group's; CSV uploads name a package by its slug."),
    h("section", { class: "results", "aria-label": "Packages" }, body),
  );
  focusHeading();
  /** @type {any[]} */
  let list;
  /** @type {Map<string, any>} */
  let skus;
  /** @type {Map<string, string>} */
  let categories;
  try {
    const answer = await request("GET", "/api/v1/packages", { signal: ctx.signal });
    list = answer.data;
    [skus, categories] = await Promise.all([allSkus(), allCategories()]);
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(body, errorBox(error, "Loading packages"));
    return;
  }
  if (!ctx.isCurrent()) return;
  fill(
    body,
    h("p", { class: "count", id: "result-count" }, `${list.length} packages`),
    table({
      sorted: null,
      caption: "Packages",
      empty: "The organization has no packages yet (equip import creates them).",
      rows: list,
      columns: [
        { title: "Package", cell: (/** @type {any} */ p) => h("a", { href: href(["packages", p.id], null), class: "package-link" }, p.name) },
        { title: "Slug (CSV uploads)", cell: (/** @type {any} */ p) => h("code", {}, p.slug) },
        { title: "Contents", cell: (/** @type {any} */ p) => contentsList(p.items, skus, categories) },
      ],
    }),
  );
  announce(`${list.length} packages`);
}

/**
 * A package's contents as a list of sentences: "1 × Laptops, preferring
 * MacBook Pro 14".
 * @param {any[]} entries
 * @param {Map<string, any>} skus
 * @param {Map<string, string>} categories
 * @returns {HTMLElement}
 */
export function contentsList(entries, skus, categories) {
  if (!entries.length) return h("span", { class: "muted" }, "Nothing: a person with this package gets no order");
  return h(
    "ul",
    { class: "plain contents" },
    entries.map((e) => h("li", {}, entryWords(e, skus, categories))),
  );
}

/**
 * One entry in words.
 * @param {{categoryCode: string, skuIds: string[], quantity: number}} entry
 * @param {Map<string, any>} skus
 * @param {Map<string, string>} categories
 * @returns {string}
 */
export function entryWords(entry, skus, categories) {
  const category = categories.get(entry.categoryCode) || entry.categoryCode;
  const prefer = entry.skuIds.map((id) => skus.get(id)?.title || "an unlisted model");
  return `${entry.quantity} × ${category}${prefer.length ? `, preferring ${prefer.join(", then ")}` : ", any model"}`;
}
