// @ts-check
// What the signed-in key may do. The console shows only what its scopes
// allow; the API still decides (a 403 is shown like any other error).

import { keyInfo } from "./api.js";

/// What each scope opens in the console.
export const SCOPES = {
  "inventory:read": "browse inventory and inventory levels",
  "inventory:write": "create and change inventory items",
  "warehouses:read": "view warehouses",
  "inventory-levels:write": "create and deactivate inventory levels",
  "new-joiners:write": "send reminders to new joiners",
  scim: "view people, upload CSV files of users and offboard people",
  "events:read": "read the history of items and people",
  "webhooks:write": "manage webhooks (not in the console)",
  "returns:read": "read return orders and their timeline",
  "returns:write": "choose retrievals, write items off, receive items at a warehouse and release holds",
  "packages:write": "change the contents of packages",
  "orders:read": "read joiners' orders and backorders",
  "orders:write": "record shipments and deliveries of orders",
  "people:read": "view every person, also those leaving or gone, and name them in lists and histories",
};

export function scopes() {
  const info = keyInfo();
  return info && Array.isArray(info.scopes) ? info.scopes : [];
}

export function can(scope) {
  return scopes().includes(scope);
}
