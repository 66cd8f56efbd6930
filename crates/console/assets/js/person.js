// One person: the SCIM user (package, effective package, groups), the items
// assigned to them, reminders for new joiners, and their history.

import { request } from "./api.js";
import { historySection } from "./history.js";
import { displayName, EXTENSION } from "./people.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { badge, errorBox, facts, fill, focusHeading, h, heading, label, loading, notice, table, text, time } from "./ui.js";
import { personLifecycleLinks } from "./lifecycle.js";

export default async function personView(main, route, ctx) {
  const id = route.path[1];
  fill(main, back(), heading("Person"), loading("Loading the person…"));
  focusHeading();
  let user;
  try {
    user = await request("GET", `/scim/v2/Users/${encodeURIComponent(id)}`, { signal: ctx.signal });
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(main, back(), heading("Person"), errorBox(error, "Loading the person"));
    focusHeading();
    return;
  }
  if (!ctx.isCurrent()) return;
  const ext = user[EXTENSION] || {};
  const address = (user.addresses || [])[0];
  fill(
    main,
    back(),
    heading(displayName(user), badge(ext.status)),
    h(
      "section",
      { class: "card", "aria-label": "Details" },
      facts([
        ["Email", text(user.userName)],
        ["Other emails", text((user.emails || []).filter((e) => !e.primary).map((e) => e.value).join(", "))],
        ["Phone", text((user.phoneNumbers || []).map((p) => p.value).join(", "))],
        ["Address", address ? [address.streetAddress, address.postalCode, address.locality, address.region, address.country].filter(Boolean).join(", ") : text(null)],
        ["Start date", text(ext.startDate)],
        ["Active", user.active === false ? "No" : "Yes"],
        ["Package", ext.packageId ? h("code", {}, ext.packageId) : text(null)],
        [
          "Effective package",
          ext.effectivePackageId
            ? h("span", {}, h("code", {}, ext.effectivePackageId), ext.packageId ? "" : h("span", { class: "sub" }, " (from a group)"))
            : text(null),
        ],
        ["Groups", (user.groups || []).length ? h("ul", { class: "chips" }, user.groups.map((g) => h("li", { class: "chip" }, g.display || g.value))) : text(null)],
        ["External id", text(user.externalId)],
        ["Person id", h("code", {}, user.id)],
        ["Created", time(user.meta?.created)],
        ["Last modified", time(user.meta?.lastModified)],
      ]),
    ),
    can("new-joiners:write") ? reminderSection(user) : null,
    can("inventory:read") ? itemsSection(user) : null,
    can("events:read") ? historySection(`/api/v1/people/${encodeURIComponent(user.id)}/history`) : null,
    personLifecycleLinks(user.id),
  );
  focusHeading();
}

function back() {
  return h("p", { class: "back" }, h("a", { href: href(["people"], null) }, "‹ People"));
}

function itemsSection(user) {
  const body = h("div", {}, loading("Loading their items…"));
  const section = h(
    "section",
    { class: "card", "aria-labelledby": "items-title" },
    h("h2", { id: "items-title" }, "Assigned items"),
    body,
  );
  const params = new URLSearchParams({ personId: user.id });
  request("GET", "/api/v1/inventory", { query: [["personId", user.id], ["size", "100"]] })
    .then(({ data, pagination }) =>
      fill(
        body,
        table({
          caption: "Items assigned to this person",
          empty: "No items are assigned to this person.",
          rows: data,
          columns: [
            { title: "Item", cell: (i) => h("a", { href: href(["inventory", i.id], null) }, i.skuTitle || i.id) },
            { title: "Serial number", cell: (i) => text(i.serialNumber) },
            { title: "Status", cell: (i) => badge(i.deployStatus) },
            { title: "Assigned", cell: (i) => time(i.assignedTo?.assignedAt) },
          ],
        }),
        pagination.totalRecords > data.length
          ? h("p", {}, h("a", { href: href(["inventory"], params) }, `All ${pagination.totalRecords} items in the inventory`))
          : null,
      ),
    )
    .catch((error) => fill(body, errorBox(error, "Loading their items")));
  return section;
}

function reminderSection(user) {
  const result = h("div", { class: "reminder-result" });
  const list = h("div", {});
  const button = h(
    "button",
    {
      type: "button",
      id: "send-reminder",
      onclick: async () => {
        button.disabled = true;
        fill(result, loading("Queuing the reminder…"));
        try {
          const { status, body: reminder } = await request("POST", `/api/v1/new-joiners/${encodeURIComponent(user.id)}/remind`, { body: {}, withStatus: true });
          fill(result, notice(`Reminder queued (HTTP ${status}): the email to ${user.userName} is ${label(reminder.status).toLowerCase()}; equip sends it in the background.`, "success"));
          loadReminders(user, list);
        } catch (error) {
          fill(result, errorBox(error, "Sending the reminder"));
        } finally {
          button.disabled = false;
        }
      },
    },
    "Send reminder",
  );
  const section = h(
    "section",
    { class: "card", "aria-labelledby": "reminders-title" },
    h("h2", { id: "reminders-title" }, "New-joiner reminder"),
    h(
      "p",
      { class: "help" },
      "Emails a new joiner a reminder to complete their equipment details. equip decides who is a new joiner, and says why when this person is not one.",
    ),
    button,
    result,
    list,
  );
  loadReminders(user, list);
  return section;
}

function loadReminders(user, list) {
  request("GET", `/api/v1/new-joiners/${encodeURIComponent(user.id)}/reminders`)
    .then(({ data }) =>
      fill(
        list,
        data.length
          ? table({
              caption: "Reminders sent to this person",
              rows: data,
              columns: [
                { title: "Asked", cell: (r) => time(r.createdAt) },
                { title: "Status", cell: (r) => badge(r.status) },
                { title: "Sent", cell: (r) => time(r.sentAt) },
                { title: "Attempts", cell: (r) => String(r.attempts ?? "") },
              ],
            })
          : h("p", { class: "muted" }, "No reminders yet."),
      ),
    )
    .catch((error) => fill(list, errorBox(error, "Loading the reminders")));
}
