// @ts-check
// One package (`GET /api/v1/packages/{id}`): its contents in words and, with
// `packages:write`, an editor that replaces them whole
// (`PUT /api/v1/packages/{id}`). The API checks the contents; its 400 is
// shown with the entry and field it names, in words.

import { request } from "./api.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { announce, errorBox, facts, fill, focusHeading, h, heading, loading, notice } from "./ui.js";
import { categories as allCategories, skus as allSkus } from "./names.js";
import { contentsList } from "./packages.js";

/**
 * One package.
 * @param {HTMLElement} main
 * @param {import("./lifecycle.js").Route} route
 * @param {import("./lifecycle.js").Ctx} ctx
 */
export default async function packageView(main, route, ctx) {
  fill(main, back(), heading("Package"), loading("Loading the package…"));
  focusHeading();
  await draw(main, route.path[1], ctx, null);
}

function back() {
  return h("p", { class: "back" }, h("a", { href: href(["packages"], null) }, "‹ Packages"));
}

/**
 * @param {HTMLElement} main
 * @param {string} id
 * @param {import("./lifecycle.js").Ctx} ctx
 * @param {HTMLElement | null} outcome
 */
async function draw(main, id, ctx, outcome) {
  /** @type {any} */
  let pkg;
  /** @type {Map<string, any>} */
  let skus;
  /** @type {Map<string, string>} */
  let categories;
  try {
    pkg = await request("GET", `/api/v1/packages/${encodeURIComponent(id)}`, { signal: ctx.signal });
    [skus, categories] = await Promise.all([allSkus(), allCategories()]);
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(main, back(), heading("Package"), errorBox(error, "Loading the package"));
    focusHeading();
    return;
  }
  if (!ctx.isCurrent()) return;
  fill(
    main,
    back(),
    heading(pkg.name),
    outcome,
    h(
      "section",
      { class: "card", "aria-label": "Details" },
      facts([
        ["Slug (CSV uploads)", h("code", {}, pkg.slug)],
        ["Contents", contentsList(pkg.items, skus, categories)],
      ]),
    ),
    can("packages:write") ? editor(pkg, skus, categories, (message) => draw(main, id, ctx, message)) : null,
  );
  if (outcome) outcome.focus();
  else focusHeading();
}

/** @typedef {{categoryCode: string, skuIds: string[], quantity: number | string}} Entry */

/**
 * The contents editor: one fieldset per entry (category, quantity, preferred
 * models), add and remove entries, save.
 * @param {any} pkg
 * @param {Map<string, any>} skus
 * @param {Map<string, string>} categories
 * @param {(message: HTMLElement) => void} redraw
 * @returns {HTMLElement}
 */
function editor(pkg, skus, categories, redraw) {
  /** @type {{root: HTMLElement, read: () => Entry}[]} */
  const rows = [];
  const list = h("div", { class: "entries" });
  const result = h("div", { tabindex: "-1", class: "outcome" });
  let serial = 0;
  const renumber = () => {
    rows.forEach((r, i) => {
      const legend = r.root.querySelector("legend");
      if (legend) legend.textContent = `Entry ${i + 1}`;
    });
  };
  /** @param {Entry} entry */
  const addRow = (entry) => {
    const n = ++serial;
    const category = /** @type {HTMLSelectElement} */ (
      h(
        "select",
        { id: `entry-${n}-category` },
        [...categories.entries()].map(([code, name]) => h("option", { value: code, selected: code === entry.categoryCode ? "" : null }, name)),
        entry.categoryCode && !categories.has(entry.categoryCode) ? h("option", { value: entry.categoryCode, selected: "" }, entry.categoryCode) : null,
      )
    );
    const quantity = /** @type {HTMLInputElement} */ (h("input", { id: `entry-${n}-quantity`, type: "number", inputmode: "numeric", min: "1", max: "20", value: String(entry.quantity) }));
    const models = /** @type {HTMLSelectElement} */ (h("select", { id: `entry-${n}-skus`, multiple: true, size: "4", "aria-describedby": `entry-${n}-skus-help` }));
    /** @param {string[]} chosen */
    const fillModels = (chosen) => {
      const of = [...skus.values()].filter((s) => s.categoryCode === category.value).sort((a, b) => a.title.localeCompare(b.title));
      fill(
        models,
        of.map((s) => h("option", { value: s.id, selected: chosen.includes(s.id) ? "" : null }, s.title)),
        chosen.filter((id) => !skus.has(id)).map((id) => h("option", { value: id, selected: "" }, "an unlisted model")),
      );
    };
    fillModels(entry.skuIds);
    /** @param {string} id */
    const rank = (id) => {
      const i = entry.skuIds.indexOf(id);
      return i < 0 ? 1000 : i;
    };
    category.addEventListener("change", () => fillModels([]));
    const root = h(
      "fieldset",
      { class: "entry" },
      h("legend", {}, "Entry"),
      h("div", { class: "field" }, h("label", { for: `entry-${n}-category` }, "Category"), category),
      h("div", { class: "field" }, h("label", { for: `entry-${n}-quantity` }, "Quantity"), quantity),
      h(
        "div",
        { class: "field grow" },
        h("label", { for: `entry-${n}-skus` }, "Preferred models"),
        models,
        h("small", { id: `entry-${n}-skus-help`, class: "help" }, "Chosen models are taken first, in the order of preference the package had, newly chosen ones after; none chosen: any model of the category."),
      ),
      h(
        "button",
        {
          type: "button",
          class: "secondary small",
          onclick: () => {
            const i = rows.findIndex((r) => r.root === root);
            rows.splice(i, 1);
            root.remove();
            renumber();
            announce("Entry removed");
            addButton.focus();
          },
        },
        "Remove this entry",
      ),
    );
    const read = () => ({
      categoryCode: category.value,
      // A multiple select lists its choices in its own order: keep the
      // preference order the entry had, then newly chosen models.
      skuIds: [...models.selectedOptions]
        .map((o) => o.value)
        .sort((a, b) => rank(a) - rank(b)),
      quantity: quantity.value === "" ? "" : Number(quantity.value),
    });
    rows.push({ root, read });
    list.append(root);
    renumber();
    return root;
  };
  for (const e of pkg.items) addRow(e);
  const addButton = h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: () => {
        const first = categories.keys().next().value || "";
        const root = addRow({ categoryCode: first, skuIds: [], quantity: 1 });
        const select = root.querySelector("select");
        if (select) select.focus();
        announce(`Entry ${rows.length} added`);
      },
    },
    "Add an entry",
  );
  const form = h(
    "form",
    {
      class: "stack",
      novalidate: true,
      "aria-labelledby": "edit-title",
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault();
        const items = rows.map((r) => r.read());
        try {
          const saved = await request("PUT", `/api/v1/packages/${encodeURIComponent(pkg.id)}`, { body: { items } });
          const words = `Saved: ${pkg.name} now holds ${saved.items.length} ${saved.items.length === 1 ? "entry" : "entries"}. Orders already made keep their lines.`;
          announce(words);
          redraw(h("div", { class: "outcome", tabindex: "-1", id: "package-outcome" }, notice(words, "success")));
        } catch (error) {
          fill(result, errorBox({ status: error.status, detail: error.detail || error.message, source: fieldWords(error.source) }, "Saving the contents"));
          result.focus();
          announce(`Saving failed: ${error.detail || error.message}`);
        }
      },
    },
    list,
    h("div", { class: "actions" }, addButton, h("button", { type: "submit" }, "Save the contents")),
    result,
  );
  return h(
    "section",
    { class: "card", "aria-labelledby": "edit-title" },
    h("h2", { id: "edit-title" }, "Change the contents"),
    h("p", { class: "help" }, "The new contents replace the old ones whole. People provisioned from now on get them; existing orders keep their lines."),
    form,
  );
}

/**
 * The API's field path in words: `items[1].quantity` → "entry 2, quantity".
 * @param {string | undefined} source
 * @returns {string | undefined}
 */
export function fieldWords(source) {
  if (!source) return undefined;
  const m = /^items\[(\d+)\](?:\.(\w+))?(?:\[(\d+)\])?$/.exec(source);
  if (!m) return source === "items" ? "the list of entries" : source;
  /** @type {Record<string, string>} */
  const fields = { categoryCode: "category", skuIds: "preferred models", quantity: "quantity" };
  const entry = `entry ${Number(m[1]) + 1}`;
  if (!m[2]) return entry;
  const field = fields[m[2]] || m[2];
  return m[3] !== undefined ? `${entry}, ${field} (model ${Number(m[3]) + 1})` : `${entry}, ${field}`;
}
