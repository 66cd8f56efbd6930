// @ts-check
// One inventory item: `GET /api/v1/inventory/{id}`, its holder and history
// in words, and, with `inventory:write`, its actions: check out to a person,
// check in to a warehouse, give it to an office or to nobody, change its
// status, reason and condition (`PATCH /api/v1/inventory/{id}`). The forms
// offer what the domain's rules allow; the API's refusal is shown in plain
// words; after a change the screen shows the item as the API answered it.

import { request } from "./api.js";
import { lastListing } from "./inventory.js";
import { historySection } from "./history.js";
import { holderCell, holderName, holderPeople } from "./holders.js";
import { enumSelect, itemLists, patchItem, reasonRule, refusal, statusFields, validStatuses } from "./itemrules.js";
import { offices, warehouses } from "./names.js";
import { personPicker } from "./personpicker.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { announce, badge, confirm, errorBox, facts, fill, focusHeading, h, heading, label, loading, notice, text, time } from "./ui.js";
import { CONDITION_WORDS, DEPLOY_REASON_WORDS, DEPLOY_STATUS_WORDS, RETRIEVAL_METHOD_WORDS, RETRIEVAL_WORDS, RETURN_STATUS_WORDS, say } from "./words.js";

/**
 * @param {HTMLElement} main
 * @param {{path: string[], params: URLSearchParams}} route
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
export async function itemView(main, route, ctx) {
  const id = route.path[1];
  fill(main, heading("Item"), loading("Loading the item…"));
  focusHeading();
  let item;
  try {
    item = await request("GET", `/api/v1/inventory/${encodeURIComponent(id)}`, { signal: ctx.signal });
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(main, back(), heading("Item"), errorBox(error, "Loading the item"));
    focusHeading();
    return;
  }
  if (!ctx.isCurrent()) return;
  await draw(main, item, ctx, null);
  focusHeading();
}

/**
 * Draws the item (as the API answered it) and, after a change, its outcome.
 * @param {HTMLElement} main
 * @param {any} item
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 * @param {Node | null} outcome
 */
async function draw(main, item, ctx, outcome) {
  const mayWrite = can("inventory:write");
  const [known, houses, places, { conditions }] = await Promise.all([
    holderPeople([item]),
    mayWrite || item.assignedTo?.type === "WAREHOUSE" ? warehouses() : Promise.resolve(new Map()),
    mayWrite || item.assignedTo?.type === "OFFICE" ? offices() : Promise.resolve(new Map()),
    itemLists(),
  ]);
  if (!ctx.isCurrent()) return;
  const p = item.pricing;
  const price = p ? `${p.discountedPrice ?? p.price} ${p.currencyCode} (${label(p.priceOption)}, ${p.regionCode})` : null;
  const message = h("div", { class: "item-message", tabindex: "-1" }, outcome);
  const where = new Map([...houses, ...places]);
  fill(
    main,
    back(),
    heading(
      item.skuTitle || "Item",
      badge(item.deployStatus, DEPLOY_STATUS_WORDS),
      mayWrite
        ? h(
            "button",
            {
              type: "button",
              class: "secondary small jump",
              onclick: () => {
                const title = document.getElementById("actions-title");
                title?.focus({ preventScroll: true });
                title?.scrollIntoView({ block: "start" });
              },
            },
            "Change this item",
          )
        : null,
    ),
    message,
    h(
      "section",
      { class: "card", "aria-label": "Details" },
      facts([
        ["Serial number", text(item.serialNumber)],
        ["IMEI", text((item.imei || []).join(", "))],
        ["Status", h("span", { id: "item-status" }, badge(item.deployStatus, DEPLOY_STATUS_WORDS), item.deployReason ? ` ${say(DEPLOY_REASON_WORDS, item.deployReason)}` : "")],
        ["Condition", h("span", { id: "item-condition" }, text(say(CONDITION_WORDS, item.condition)))],
        ["Held by", h("div", { id: "item-holder" }, holderCellWith(item.assignedTo, known, where), item.assignedTo?.assignedAt ? h("div", { class: "sub" }, "since ", time(item.assignedTo.assignedAt)) : null)],
        ["Category", h("a", { href: href(["inventory"], new URLSearchParams({ categories: item.categoryCode })) }, item.categoryNameOfSku)],
        ["Product", h("a", { href: href(["inventory"], new URLSearchParams({ skuIds: item.skuId })) }, item.skuTitle)],
        ["Vendor", `${item.vendorCode} · ${item.vendorSku}`],
        ["Description", text(item.description)],
        ["Tags", text((item.tags || []).map((/** @type {any} */ t) => t.label).join(", "))],
        ["Price", text(price)],
        ["Procurement", text(item.procurementMethod)],
        ["Renewal date", text(item.renewalDate)],
        ["Billing", text([item.billingStartDate, item.billingEndDate].filter(Boolean).join(" → "))],
        ["Return", returnWords(item.returnOrder)],
        ["Hold", item.unlockDate ? `Held in the warehouse until ${item.unlockDate}` : text(null)],
        ["Created", time(item.createdAt)],
        ["Updated", time(item.updatedAt)],
        ["Item id", h("code", {}, item.id)],
      ]),
    ),
    mayWrite ? actions(main, item, ctx, houses, places, known, conditions) : null,
    can("events:read") ? historySection(`/api/v1/inventory/${encodeURIComponent(item.id)}/history`) : null,
  );
}

/**
 * @param {any} to
 * @param {Map<string, any>} known
 * @param {Map<string, any>} where
 */
function holderCellWith(to, known, where) {
  if (to && to.type !== "PERSON" && where.has(to.id)) return holderCell({ ...to, label: where.get(to.id).name }, known);
  return holderCell(to, known);
}

/** @param {any} r */
function returnWords(r) {
  if (!r) return text(null);
  const method = r.retrievalMethod ? `; ${say(RETRIEVAL_METHOD_WORDS, r.retrievalMethod.type).toLowerCase()}: ${say(RETRIEVAL_WORDS, r.retrievalMethod.status).toLowerCase()}` : "; no retrieval method chosen yet";
  const words = h("span", {}, `Return: ${say(RETURN_STATUS_WORDS, r.returnOrderItemStatus || r.status).toLowerCase()}${method}; started `, time(r.createdAt));
  return can("returns:read") ? h("a", { href: href(["returns", r.id], null), class: "return-link" }, words) : words;
}

function back() {
  return h("p", { class: "back" }, h("a", { href: lastListing() }, "‹ Inventory"));
}

/**
 * The item's actions: holder and status/condition forms.
 * @param {HTMLElement} main
 * @param {any} item
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 * @param {Map<string, any>} houses
 * @param {Map<string, any>} places
 * @param {Map<string, any>} known
 * @param {string[]} conditions the conditions an item may have (itemLists)
 */
function actions(main, item, ctx, houses, places, known, conditions) {
  const section = h("section", { class: "card item-actions", "aria-labelledby": "actions-title" }, h("h2", { id: "actions-title", tabindex: "-1" }, "Change this item"));
  const heldBy = item.assignedTo ? item.assignedTo.type : null;

  // --- Holder: check out, check in, office, nobody.
  const kinds = [
    can("scim") ? ["PERSON", "A person (check out)"] : null,
    houses.size ? ["WAREHOUSE", "A warehouse (check in)"] : null,
    places.size ? ["OFFICE", "An office"] : null,
    ["NOBODY", "Nobody"],
  ].filter(Boolean);
  const initialKind = /** @type {string} */ ((kinds.find((k) => k && k[0] !== heldBy) || kinds[0])?.[0]);
  const radios = kinds.map((k) => {
    const [value, text_] = /** @type {string[]} */ (k);
    return h("label", { class: "check" }, h("input", { type: "radio", name: "holder-kind", value, checked: value === initialKind }), text_);
  });
  const picker = personPicker({ label: "Person", id: "holder-person" });
  const warehouseSelect = /** @type {HTMLSelectElement} */ (
    h("select", { id: "holder-warehouse" }, [...houses.values()].map((w) => h("option", { value: w.id, selected: heldBy === "WAREHOUSE" && item.assignedTo.id === w.id }, w.name)))
  );
  const officeSelect = /** @type {HTMLSelectElement} */ (
    h("select", { id: "holder-office" }, [...places.values()].map((o) => h("option", { value: o.id }, o.countryCode ? `${o.name} (${o.countryCode})` : o.name)))
  );
  const warehouseField = h("div", { class: "field" }, h("label", { for: "holder-warehouse" }, "Warehouse"), warehouseSelect);
  const officeField = h("div", { class: "field" }, h("label", { for: "holder-office" }, "Office"), officeSelect);
  const hs = statusFields("holder", validStatuses(item.deployStatus, "PERSON"), item.deployStatus, item.deployReason);
  hs.statusField.querySelector("label").textContent = "Status afterwards";
  const submit = h("button", { type: "submit", id: "holder-submit" }, "Save");
  const holderForm = h(
    "form",
    { class: "action-form", id: "holder-form", "aria-labelledby": "holder-title" },
    h("h3", { id: "holder-title" }, "Who holds it"),
    h("fieldset", { class: "kinds" }, h("legend", {}, "Give the item to"), radios),
    picker.element,
    warehouseField,
    officeField,
    hs.statusField,
    hs.reasonField,
    h("div", { class: "form-actions" }, submit),
  );
  const kind = () => /** @type {HTMLInputElement | null} */ (holderForm.querySelector("input[name=holder-kind]:checked"))?.value || "NOBODY";
  const preferred = { PERSON: "DEPLOYED", WAREHOUSE: "AVAILABLE", OFFICE: "UNAVAILABLE", NOBODY: item.deployStatus === "DEPLOYED" ? "AVAILABLE" : item.deployStatus };
  const showKind = (/** @type {boolean} */ reset) => {
    const k = kind();
    picker.element.hidden = k !== "PERSON";
    warehouseField.hidden = k !== "WAREHOUSE";
    officeField.hidden = k !== "OFFICE";
    hs.offer(validStatuses(item.deployStatus, k === "NOBODY" ? null : k), /** @type {any} */ (preferred)[k], reset);
    if (k === "OFFICE" && hs.statusSelect.value === "UNAVAILABLE" && !hs.reasonSelect.value) hs.reasonSelect.value = "SENT_TO_OFFICE";
    const s = hs.statusSelect.value;
    submit.textContent = k === "PERSON" ? "Check out" : k === "WAREHOUSE" && s === "AVAILABLE" ? "Check in" : k === "NOBODY" ? "Unassign" : "Assign";
  };
  holderForm.addEventListener("change", (e) => showKind(/** @type {HTMLInputElement} */ (e.target).name === "holder-kind"));
  showKind(true);
  holderForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const k = kind();
    /** @type {Record<string, any>} */
    const change = {};
    let whom = "nobody";
    if (k === "PERSON") {
      const person = picker.value();
      if (!person) {
        fill(message(main), notice("Choose a person first: type part of their name or email and pick them from the list.", "warning"));
        picker.input.focus();
        return;
      }
      change.assignedTo = { type: "PERSON", id: person.id };
      whom = person.name;
    } else if (k === "WAREHOUSE") {
      change.assignedTo = { type: "WAREHOUSE", id: warehouseSelect.value };
      whom = houses.get(warehouseSelect.value)?.name || "the warehouse";
    } else if (k === "OFFICE") {
      change.assignedTo = { type: "OFFICE", id: officeSelect.value };
      whom = places.get(officeSelect.value)?.name || "the office";
    } else {
      change.assignedTo = null;
    }
    addStatus(change, item, hs.statusSelect.value, hs.reasonSelect.value);
    const verb = k === "PERSON" ? "Checked out to" : k === "WAREHOUSE" && change.deployStatus === "AVAILABLE" ? "Checked in to" : k === "NOBODY" ? "Unassigned from" : "Assigned to";
    const done = k === "NOBODY" ? `Unassigned (was ${holderName(item.assignedTo, known)})` : `${verb} ${whom}`;
    await send(main, item, ctx, change, done, "Changing the holder");
  });

  // --- Status, reason and condition.
  const ss = statusFields("change", validStatuses(item.deployStatus, heldBy), item.deployStatus, item.deployReason);
  const condition = enumSelect({ id: "change-condition", values: conditions, value: item.condition });
  const statusForm = h(
    "form",
    { class: "action-form", id: "status-form", "aria-labelledby": "status-title" },
    h("h3", { id: "status-title" }, "Status and condition"),
    item.deployStatus === "ARCHIVED" ? h("p", { class: "help" }, "Archived is final: the status stays; the condition can still change.") : null,
    heldBy !== "PERSON" && item.deployStatus !== "ARCHIVED" ? h("p", { class: "help" }, "Deployed is offered once a person holds the item (check it out above).") : null,
    ss.statusField,
    ss.reasonField,
    h("div", { class: "field" }, h("label", { for: "change-condition" }, "Condition"), condition),
    h("div", { class: "form-actions" }, h("button", { type: "submit", id: "status-submit" }, "Save status and condition")),
  );
  statusForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    /** @type {Record<string, any>} */
    const change = {};
    addStatus(change, item, ss.statusSelect.value, ss.reasonSelect.value);
    if (condition.value !== item.condition) change.condition = condition.value;
    if (!Object.keys(change).length) {
      fill(message(main), notice("Nothing to change: the status, reason and condition are as they were.", "info"));
      message(main).focus();
      return;
    }
    if (change.deployStatus === "ARCHIVED") {
      const sure = await confirm("Archive this item?", `${item.skuTitle}${item.serialNumber ? ` (S/N ${item.serialNumber})` : ""} will be archived: permanently decommissioned. Its status can never change again.`, "Archive");
      if (!sure) return;
    }
    const words = [];
    if (change.deployStatus) words.push(`Status ${say(DEPLOY_STATUS_WORDS, item.deployStatus)} → ${say(DEPLOY_STATUS_WORDS, change.deployStatus)}`);
    if ("deployReason" in change) words.push(`reason ${change.deployReason ? say(DEPLOY_REASON_WORDS, change.deployReason) : "none"}`);
    if (change.condition) words.push(`condition ${say(CONDITION_WORDS, item.condition)} → ${say(CONDITION_WORDS, change.condition)}`);
    await send(main, item, ctx, change, words.join(", "), "Changing the status");
  });
  section.append(holderForm, statusForm);
  return section;
}

/**
 * Adds the status and reason to `change` when they differ from the item's.
 * @param {Record<string, any>} change
 * @param {any} item
 * @param {string} status
 * @param {string} reason
 */
function addStatus(change, item, status, reason) {
  const rule = reasonRule(status);
  if (status !== item.deployStatus) change.deployStatus = status;
  if (rule === "none") return;
  const r = reason || null;
  // A new UNAVAILABLE/ARCHIVED needs its reason in the same request.
  if (change.deployStatus || r !== (item.deployReason || null)) change.deployReason = r;
}

/** @param {HTMLElement} main */
function message(main) {
  return /** @type {HTMLElement} */ (main.querySelector(".item-message"));
}

/**
 * Sends the change; draws the API's answer (or its refusal).
 * @param {HTMLElement} main
 * @param {any} item
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 * @param {Record<string, any>} change
 * @param {string} done
 * @param {string} what
 */
async function send(main, item, ctx, change, done, what) {
  const box = message(main);
  fill(box, loading("Saving…"));
  let answer;
  try {
    answer = await patchItem(item.id, change);
  } catch (error) {
    if (!ctx.isCurrent()) return;
    fill(box, refusal(error, what));
    announce(`${what} failed`);
    box.focus();
    return;
  }
  if (!ctx.isCurrent()) return;
  const fresh = answer || (await request("GET", `/api/v1/inventory/${encodeURIComponent(item.id)}`));
  await draw(main, fresh, ctx, notice(`${done}. The item now: ${say(DEPLOY_STATUS_WORDS, fresh.deployStatus)}${fresh.deployReason ? ` (${say(DEPLOY_REASON_WORDS, fresh.deployReason)})` : ""}, ${say(CONDITION_WORDS, fresh.condition).toLowerCase()}.`, "success"));
  announce(done);
  message(main).focus();
}
