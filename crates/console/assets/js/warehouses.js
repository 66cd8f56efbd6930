// @ts-check
// Warehouses the organization can use (`GET /api/v1/warehouses`): its own
// and shared ones it was granted.

import { request } from "./api.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { errorBox, fill, focusHeading, h, heading, loading, table, text } from "./ui.js";

function addressOf(w) {
  const a = w.address;
  if (!a) return null;
  return [a.street1, a.street2, a.postalCode, a.city, a.province, a.countryCode].filter(Boolean).join(", ");
}

export default async function warehousesView(main, route, ctx) {
  fill(main, heading("Warehouses"), loading("Loading warehouses…"));
  focusHeading();
  let answer;
  try {
    answer = await request("GET", "/api/v1/warehouses", { signal: ctx.signal });
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(main, heading("Warehouses"), errorBox(error, "Loading warehouses"));
    return;
  }
  if (!ctx.isCurrent()) return;
  fill(
    main,
    heading("Warehouses"),
    h("p", { class: "count" }, `${answer.data.length} warehouses`),
    table({
      caption: "Warehouses",
      empty: "This organization has no warehouses.",
      sorted: null,
      rows: answer.data,
      columns: [
        { title: "Name", cell: (w) => w.name },
        { title: "Address", cell: (w) => text(addressOf(w)) },
        { title: "Phone", cell: (w) => text(w.address?.phoneNumber) },
        {
          title: "Items",
          cell: (w) =>
            can("inventory:read")
              ? h(
                  "div",
                  {},
                  h("a", { href: href(["inventory"], new URLSearchParams({ warehouseId: w.id })) }, "Items held here"),
                  h("div", { class: "sub" }, h("a", { href: href(["inventory"], new URLSearchParams({ warehouseId: w.id, deployStatuses: "AVAILABLE" })) }, "Available ones")),
                )
              : text(null),
        },
      ],
    }),
  );
  focusHeading();
}
