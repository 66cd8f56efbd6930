// @ts-check
// Bulk actions on the inventory listing's selected rows: change the status
// (and reason) or assign them, one `PATCH /api/v1/inventory/{id}` per item,
// with each item's outcome in words (the API decides each one: an item an
// order holds, or an archived one, is refused and said so).

import { holderName } from "./holders.js";
import { explain, itemLists, patchItem, statusFields } from "./itemrules.js";
import { offices, warehouses } from "./names.js";
import { personPicker } from "./personpicker.js";
import { can } from "./scopes.js";
import { announce, fill, h } from "./ui.js";
import { ITEM_WORDS, say } from "./words.js";

/** The outcomes of the last bulk change, kept over the listing's reload. */
let lastOutcome = /** @type {HTMLElement | null} */ (null);

/**
 * The selection bar of a page of items, and its checkboxes.
 * @param {{items: any[], reload: () => void}} o
 * @returns {{bar: HTMLElement, checkbox: (item: any) => HTMLElement, header: (table: HTMLElement) => void}}
 */
export function bulkBar({ items, reload }) {
  /** @type {Set<string>} */
  const selected = new Set();
  /** @type {HTMLInputElement[]} */
  const boxes = [];
  const count = h("span", { class: "bulk-count", id: "bulk-count" }, "No items selected");
  const statusButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "secondary", id: "bulk-status", disabled: true, "aria-expanded": "false" }, "Change status…"));
  const assignButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "secondary", id: "bulk-assign", disabled: true, "aria-expanded": "false" }, "Assign…"));
  const panel = h("div", { class: "bulk-panel", hidden: true });
  const outcome = h("div", { class: "bulk-outcome", tabindex: "-1" });
  if (lastOutcome) {
    outcome.append(...lastOutcome.childNodes);
    lastOutcome = null;
    // After the reload the keyboard's place is the outcome.
    window.setTimeout(() => outcome.isConnected && outcome.focus({ preventScroll: true }), 0);
  }
  // Select all: in the bar, so that it is there at phone widths too (where
  // the table's header row is hidden).
  const all = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: "select-all" }));
  const bar = h(
    "div",
    { class: "bulk", role: "region", "aria-label": "Selected items" },
    h("div", { class: "bulk-actions" }, h("label", { class: "check" }, all, "Select all on this page"), count, statusButton, assignButton),
    panel,
    outcome,
  );

  const refresh = () => {
    const n = selected.size;
    count.textContent = n ? `${n} selected` : "No items selected";
    statusButton.disabled = assignButton.disabled = n === 0;
    all.checked = n > 0 && n === items.length;
    all.indeterminate = n > 0 && n < items.length;
    if (!n) closePanel();
  };
  const closePanel = () => {
    panel.hidden = true;
    statusButton.setAttribute("aria-expanded", "false");
    assignButton.setAttribute("aria-expanded", "false");
  };
  const chosen = () => items.filter((i) => selected.has(i.id));

  /**
   * Applies `change(item)` to each selected item, one after the other.
   * @param {(item: any) => Record<string, any>} change
   * @param {(item: any, after: any) => string} words
   */
  const run = async (change, words) => {
    const list = chosen();
    const lines = h("ul", { class: "bulk-results" });
    const progress = h("p", { role: "status" }, `Changing ${list.length} items…`);
    fill(outcome, progress, lines);
    let ok = 0;
    for (const item of list) {
      const name = `${item.skuTitle}${item.serialNumber ? ` (S/N ${item.serialNumber})` : ""}`;
      try {
        const after = await patchItem(item.id, change(item));
        ok += 1;
        lines.append(h("li", { class: "bulk-ok", "data-item": item.id }, h("span", { class: "mark", "aria-hidden": "true" }, "✓ "), `${name}: ${words(item, after)}`));
      } catch (error) {
        const plain = explain(error);
        lines.append(
          h(
            "li",
            { class: "bulk-failed", "data-item": item.id },
            h("span", { class: "mark", "aria-hidden": "true" }, "✗ "),
            `${name}: not changed. ${plain ? `${plain} ` : ""}equip said: ${/** @type {any} */ (error).detail || error}`,
          ),
        );
      }
      progress.textContent = `Changed ${ok} of ${list.length}…`;
    }
    const failed = list.length - ok;
    const summary = `${ok} changed${failed ? `, ${failed} not changed` : ""}.`;
    progress.textContent = summary;
    progress.className = failed ? "notice warning" : "notice success";
    announce(summary);
    lastOutcome = outcome;
    reload();
  };

  statusButton.addEventListener("click", async () => {
    if (!panel.hidden && statusButton.getAttribute("aria-expanded") === "true") return closePanel();
    const { statuses } = await itemLists();
    const fields = statusFields("bulk-change", statuses.filter((s) => s !== "ARCHIVED"), "AVAILABLE", null);
    const form = h(
      "form",
      { class: "action-form", "aria-label": "Change the status of the selected items" },
      h("p", { class: "help" }, "Deployed applies only to items a person holds; each item's outcome is shown below."),
      fields.statusField,
      fields.reasonField,
      h("div", { class: "form-actions" }, h("button", { type: "submit", id: "bulk-status-apply" }, "Apply to selected")),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const status = fields.statusSelect.value;
      const reason = fields.reasonSelect.value || null;
      const rule = !fields.reasonField.hidden;
      run(
        () => (rule ? { deployStatus: status, deployReason: reason } : { deployStatus: status }),
        (item, after) => `Status ${say(ITEM_WORDS, item.deployStatus)} → ${say(ITEM_WORDS, after ? after.deployStatus : status)}${after && after.deployReason ? ` (${say(ITEM_WORDS, after.deployReason)})` : ""}`,
      );
    });
    fill(panel, form);
    panel.hidden = false;
    statusButton.setAttribute("aria-expanded", "true");
    assignButton.setAttribute("aria-expanded", "false");
    fields.statusSelect.focus();
  });

  assignButton.addEventListener("click", async () => {
    if (!panel.hidden && assignButton.getAttribute("aria-expanded") === "true") return closePanel();
    const [houses, places] = await Promise.all([warehouses(), offices()]);
    const kinds = [can("scim") ? ["PERSON", "A person (check out, Deployed)"] : null, houses.size ? ["WAREHOUSE", "A warehouse (check in, Available)"] : null, places.size ? ["OFFICE", "An office"] : null].filter(Boolean);
    const radios = kinds.map((k, i) => {
      const [value, text] = /** @type {string[]} */ (k);
      return h("label", { class: "check" }, h("input", { type: "radio", name: "bulk-kind", value, checked: i === 0 }), text);
    });
    const picker = personPicker({ label: "Person", id: "bulk-person" });
    const warehouse = /** @type {HTMLSelectElement} */ (h("select", { id: "bulk-warehouse" }, [...houses.values()].map((w) => h("option", { value: w.id }, w.name))));
    const office = /** @type {HTMLSelectElement} */ (h("select", { id: "bulk-office" }, [...places.values()].map((o) => h("option", { value: o.id }, o.name))));
    const warehouseField = h("div", { class: "field" }, h("label", { for: "bulk-warehouse" }, "Warehouse"), warehouse);
    const officeField = h("div", { class: "field" }, h("label", { for: "bulk-office" }, "Office"), office);
    const note = h("p", { class: "help", role: "status" });
    const form = h(
      "form",
      { class: "action-form", "aria-label": "Assign the selected items" },
      h("fieldset", { class: "kinds" }, h("legend", {}, "Give the selected items to"), radios),
      picker.element,
      warehouseField,
      officeField,
      h("div", { class: "form-actions" }, h("button", { type: "submit", id: "bulk-assign-apply" }, "Assign selected")),
      note,
    );
    const kind = () => /** @type {HTMLInputElement | null} */ (form.querySelector("input[name=bulk-kind]:checked"))?.value || "";
    const show = () => {
      picker.element.hidden = kind() !== "PERSON";
      warehouseField.hidden = kind() !== "WAREHOUSE";
      officeField.hidden = kind() !== "OFFICE";
    };
    form.addEventListener("change", show);
    show();
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const k = kind();
      /** @type {any} */
      let to = null;
      let whom = "";
      if (k === "PERSON") {
        const p = picker.value();
        if (!p) {
          note.textContent = "Choose a person first: type part of their name or email and pick them from the list.";
          picker.input.focus();
          return;
        }
        to = { type: "PERSON", id: p.id };
        whom = p.name;
      } else if (k === "WAREHOUSE") {
        to = { type: "WAREHOUSE", id: warehouse.value };
        whom = houses.get(warehouse.value)?.name || "the warehouse";
      } else if (k === "OFFICE") {
        to = { type: "OFFICE", id: office.value };
        whom = places.get(office.value)?.name || "the office";
      } else return;
      run(
        (item) => {
          if (k === "PERSON") return { assignedTo: to, deployStatus: "DEPLOYED" };
          if (k === "WAREHOUSE") return { assignedTo: to, deployStatus: "AVAILABLE" };
          // An office: a deployed item stops being deployed (a person no longer holds it).
          return item.deployStatus === "DEPLOYED" ? { assignedTo: to, deployStatus: "UNAVAILABLE", deployReason: "SENT_TO_OFFICE" } : { assignedTo: to };
        },
        (item) => `now with ${whom} (was ${holderName(item.assignedTo)})`,
      );
    });
    fill(panel, form);
    panel.hidden = false;
    assignButton.setAttribute("aria-expanded", "true");
    statusButton.setAttribute("aria-expanded", "false");
    /** @type {HTMLInputElement | null} */ (form.querySelector("input[name=bulk-kind]"))?.focus();
  });

  all.addEventListener("change", () => {
    for (const box of boxes) {
      box.checked = all.checked;
      if (box.checked) selected.add(/** @type {string} */ (box.dataset.item));
      else selected.delete(/** @type {string} */ (box.dataset.item));
    }
    refresh();
  });
  all.disabled = items.length === 0;
  return {
    bar,
    checkbox(item) {
      const box = /** @type {HTMLInputElement} */ (
        h("input", { type: "checkbox", class: "select-item", "data-item": item.id, "aria-label": `Select ${item.skuTitle}${item.serialNumber ? ` S/N ${item.serialNumber}` : ""}` })
      );
      box.addEventListener("change", () => {
        if (box.checked) selected.add(item.id);
        else selected.delete(item.id);
        refresh();
      });
      boxes.push(box);
      return box;
    },
    header(table) {
      const th = table.querySelector("thead th");
      if (th) fill(th, h("span", { class: "visually-hidden" }, "Select"));
    },
  };
}
