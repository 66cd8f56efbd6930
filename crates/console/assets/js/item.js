// One inventory item: `GET /api/v1/inventory/{id}`, and its history when the
// key may read events.

import { request } from "./api.js";
import { assignee, lastListing } from "./inventory.js";
import { historySection } from "./history.js";
import { can } from "./scopes.js";
import { badge, errorBox, facts, fill, focusHeading, h, heading, label, loading, text, time } from "./ui.js";

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
  const p = item.pricing;
  const price = p ? `${p.discountedPrice ?? p.price} ${p.currencyCode} (${label(p.priceOption)}, ${p.regionCode})` : null;
  fill(
    main,
    back(),
    heading(item.skuTitle || "Item", badge(item.deployStatus)),
    h(
      "section",
      { class: "card", "aria-label": "Details" },
      facts([
        ["Serial number", text(item.serialNumber)],
        ["IMEI", text((item.imei || []).join(", "))],
        ["Status", h("span", {}, badge(item.deployStatus), item.deployReason ? ` ${label(item.deployReason)}` : "")],
        ["Condition", text(label(item.condition))],
        ["Assigned to", assignee(item.assignedTo)],
        ["Category", `${item.categoryNameOfSku} (${item.categoryCode})`],
        ["Vendor", `${item.vendorCode} · ${item.vendorSku}`],
        ["SKU id", h("code", {}, item.skuId)],
        ["Item id", h("code", {}, item.id)],
        ["Description", text(item.description)],
        ["Tags", text((item.tags || []).map((t) => t.label).join(", "))],
        ["Price", text(price)],
        ["Procurement", text(item.procurementMethod)],
        ["Renewal date", text(item.renewalDate)],
        ["Billing", text([item.billingStartDate, item.billingEndDate].filter(Boolean).join(" → "))],
        ["Return order", item.returnOrder ? h("code", { class: "json" }, JSON.stringify(item.returnOrder)) : text(null)],
        ["Created", time(item.createdAt)],
        ["Updated", time(item.updatedAt)],
      ]),
    ),
    can("events:read") ? historySection(`/api/v1/inventory/${encodeURIComponent(item.id)}/history`) : null,
  );
  focusHeading();
}

function back() {
  return h("p", { class: "back" }, h("a", { href: lastListing() }, "‹ Inventory"));
}
