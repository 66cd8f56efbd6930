// @ts-check
// One person, whatever their status: from the directory
// (`GET /api/v1/people/{id}`, `people:read`) so a leaver's page opens, else
// from SCIM (active people only); their status in words, their package (a
// link) and its contents, their joiner's order (or how one is made), a
// leaver's returns, the items assigned to them, reminders for new joiners,
// offboarding, and their history.

import { request } from "./api.js";
import { historySection } from "./history.js";
import { categories, packages, skus, statusWords } from "./names.js";
import { contentsList } from "./packages.js";
import { displayName, EXTENSION } from "./people.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { maxPageSize } from "./spec.js";
import { announce, badge, errorBox, facts, fill, focusHeading, h, heading, loading, notice, table, text, time } from "./ui.js";
import { personLifecycleLinks } from "./lifecycle.js";
import { DEPLOY_STATUS_WORDS, ORDER_STATUS_WORDS, REMINDER_STATUS_WORDS, RETURN_STATUS_WORDS, say } from "./words.js";

/**
 * Today on the UTC calendar, `YYYY-MM-DD` (the API judges new joiners by it).
 * @returns {string}
 */
function today() {
  return new Date().toISOString().slice(0, 10);
}

/**
 * A new joiner as the API decides it (docs/reminders.md): ACTIVE, with a
 * start date today or later.
 * @param {any} user
 * @returns {boolean}
 */
export function isNewJoiner(user) {
  const ext = user[EXTENSION] || {};
  return ext.status === "ACTIVE" && Boolean(ext.startDate) && ext.startDate >= today();
}

/**
 * A SCIM user in the directory's shape (`GET /api/v1/people/{id}`), for a
 * key that reads people only over SCIM.
 * @param {any} user
 */
function fromScim(user) {
  const ext = user[EXTENSION] || {};
  return {
    id: user.id,
    userName: user.userName,
    name: user.name || {},
    displayName: user.displayName ?? null,
    emails: user.emails || [],
    status: ext.status,
    startDate: ext.startDate ?? null,
    packageId: ext.packageId ?? null,
    effectivePackageId: ext.effectivePackageId ?? null,
    offboardingStartedAt: null,
    offboardedAt: null,
  };
}

/**
 * The person: from the directory with `people:read` (every status, so a
 * leaver's page opens), else from SCIM; and the SCIM user too when the key
 * may read it and SCIM still shows them (active), for what only SCIM holds
 * (phones, addresses, groups, the provider's `active`).
 * @param {string} id
 * @param {AbortSignal} signal
 * @returns {Promise<{person: any, user: any}>}
 */
async function load(id, signal) {
  const scim = () => request("GET", `/scim/v2/Users/${encodeURIComponent(id)}`, { signal });
  if (!can("people:read")) {
    const user = await scim();
    return { person: fromScim(user), user };
  }
  const person = await request("GET", `/api/v1/people/${encodeURIComponent(id)}`, { signal });
  let user = null;
  if (can("scim") && person.status === "ACTIVE") {
    user = await scim().catch((e) => {
      if (e.name === "AbortError") throw e;
      return null;
    });
  }
  return { person, user };
}

/**
 * The person's status in words, with when it changed: "Active", "Leaving
 * since …", "Left on …".
 * @param {any} person
 * @param {any} user the SCIM user, if read
 */
function statusFact(person, user) {
  const words = statusWords(person.status);
  if (person.status === "OFFBOARDING") return h("span", { class: "person-status" }, `${words} since `, time(person.offboardingStartedAt));
  if (person.status === "OFFBOARDED") return h("span", { class: "person-status" }, `${words} on `, time(person.offboardedAt));
  return h("span", { class: "person-status" }, words, user && user.active === false ? h("span", { class: "sub" }, " (deactivated by the identity provider)") : null);
}

/**
 * @param {HTMLElement} main
 * @param {{path: string[], params: URLSearchParams}} route
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
export default async function personView(main, route, ctx) {
  const id = route.path[1];
  fill(main, back(), heading("Person"), loading("Loading the person…"));
  focusHeading();
  let person;
  let user;
  try {
    ({ person, user } = await load(id, ctx.signal));
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(main, back(), heading("Person"), errorBox(error, "Loading the person"));
    focusHeading();
    return;
  }
  if (!ctx.isCurrent()) return;
  const packageNames = await packages();
  const [skuNames, categoryNames] = await Promise.all([skus(), categories()]);
  if (!ctx.isCurrent()) return;
  const packageName = (/** @type {string} */ id) => {
    const p = packageNames.get(id);
    return h("a", { href: href(["packages", id], null), class: "package-link" }, p ? [p.name, h("span", { class: "sub" }, ` (${p.slug})`)] : "a package");
  };
  const effective = person.effectivePackageId;
  const contents = effective ? packageNames.get(effective) : null;
  const address = (user?.addresses || [])[0];
  fill(
    main,
    back(),
    heading(displayName(person)),
    h(
      "section",
      { class: "card", "aria-label": "Details" },
      facts([
        ["Status", statusFact(person, user)],
        ["Email", text(person.userName)],
        ["Other emails", text((person.emails || []).filter((/** @type {any} */ e) => !e.primary).map((/** @type {any} */ e) => e.value).join(", "))],
        user ? ["Phone", text((user.phoneNumbers || []).map((/** @type {any} */ p) => p.value).join(", "))] : null,
        user ? ["Address", address ? [address.streetAddress, address.postalCode, address.locality, address.region, address.country].filter(Boolean).join(", ") : text(null)] : null,
        ["Start date", text(person.startDate)],
        ["Package", person.packageId ? packageName(person.packageId) : text(null)],
        [
          "Effective package",
          effective
            ? h("span", {}, packageName(effective), person.packageId ? "" : h("span", { class: "sub" }, " (from a group)"))
            : text(null),
        ],
        effective ? ["Package contents", contents ? contentsList(contents.items || [], skuNames, categoryNames) : h("span", { class: "muted" }, "This key cannot read packages.")] : null,
        user ? ["Groups", (user.groups || []).length ? h("ul", { class: "chips" }, user.groups.map((/** @type {any} */ g) => h("li", { class: "chip" }, g.display || g.value))) : text(null)] : null,
        user ? ["External id", text(user.externalId)] : null,
        ["Person id", h("code", {}, person.id)],
        user ? ["Created", time(user.meta?.created)] : null,
        user ? ["Last modified", time(user.meta?.lastModified)] : null,
      ].filter(Boolean)),
    ),
    can("new-joiners:write") && isNewJoiner(user || { [EXTENSION]: person }) ? reminderSection(person) : null,
    can("orders:read") ? orderSection(person) : null,
    can("returns:read") && person.status !== "ACTIVE" ? returnsSection(person) : null,
    can("inventory:read") ? itemsSection(person) : null,
    can("scim") && person.status === "ACTIVE" ? offboardSection(person) : null,
    can("events:read") ? historySection(`/api/v1/people/${encodeURIComponent(person.id)}/history`) : null,
    personLifecycleLinks(person.id),
  );
  focusHeading();
}

/**
 * Their joiner's order: a link to each, with its status; none yet says how
 * one is made (equip makes it when the person is given a package with
 * contents; there is no endpoint to create one) and links to the orders.
 * @param {any} person
 */
function orderSection(person) {
  const body = h("div", {}, loading("Loading their order…"));
  const params = new URLSearchParams({ personId: person.id });
  request("GET", "/api/v1/orders", { query: [["personId", person.id], ["size", "20"]] })
    .then(({ data }) =>
      fill(
        body,
        data.length
          ? h(
              "ul",
              { class: "plain order-links" },
              data.map((/** @type {any} */ o) =>
                h("li", {}, h("a", { href: href(["orders", o.id], null), class: "order-link" }, `Order of ${o.lines.length} ${o.lines.length === 1 ? "item" : "items"}`), " ", badge(o.status, ORDER_STATUS_WORDS), " ", time(o.createdAt)),
              ),
            )
          : [
              h("p", { class: "no-order" }, "No order."),
              h(
                "p",
                { class: "help" },
                person.status === "ACTIVE"
                  ? "equip makes a joiner's order when the person is given a package with contents (over SCIM, or through a group's package); it cannot be created by hand. "
                  : "A leaver gets no new order. ",
                h("a", { href: href(["orders"], params), class: "person-orders-link" }, "Orders of this person"),
              ),
            ],
      ),
    )
    .catch((error) => fill(body, errorBox(error, "Loading their order")));
  return h("section", { class: "card", "aria-labelledby": "order-title" }, h("h2", { id: "order-title" }, "Joiner's order"), body);
}

/**
 * A leaver's return orders, each a link with its status.
 * @param {any} person
 */
function returnsSection(person) {
  const body = h("div", {}, loading("Loading their returns…"));
  request("GET", "/api/v1/return-orders", { query: [["personId", person.id], ["size", "20"]] })
    .then(({ data }) =>
      fill(
        body,
        data.length
          ? h(
              "ul",
              { class: "plain return-links" },
              data.map((/** @type {any} */ o) =>
                h("li", {}, h("a", { href: href(["returns", o.id], null), class: "return-link" }, `Return order of ${o.lines.length} ${o.lines.length === 1 ? "item" : "items"}`), " ", badge(o.status, RETURN_STATUS_WORDS)),
              ),
            )
          : h("p", { class: "muted" }, "No return order: they held no equipment."),
      ),
    )
    .catch((error) => fill(body, errorBox(error, "Loading their returns")));
  return h("section", { class: "card", "aria-labelledby": "returns-title" }, h("h2", { id: "returns-title" }, "Returns"), body);
}

/** @returns {HTMLElement} */
function back() {
  return h("p", { class: "back" }, h("a", { href: href(["people"], null) }, "‹ People"));
}

/** @param {any} user */
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
          sorted: null,
          empty: "No items are assigned to this person.",
          rows: data,
          columns: [
            { title: "Item", cell: (i) => h("a", { href: href(["inventory", i.id], null) }, i.skuTitle || i.id) },
            { title: "Serial number", cell: (i) => text(i.serialNumber) },
            { title: "Status", cell: (i) => badge(i.deployStatus, DEPLOY_STATUS_WORDS) },
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

/** @param {any} user */
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
          const reminder = await request("POST", `/api/v1/new-joiners/${encodeURIComponent(user.id)}/remind`, { body: {} });
          fill(result, notice(`Reminder queued: the email to ${user.userName} is ${say(REMINDER_STATUS_WORDS, reminder.status).toLowerCase()}; equip sends it in the background.`, "success"));
          loadReminders(user, list, reminder.id);
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

/**
 * The reminders' table; with `watch` (a reminder just queued), read again
 * every 2 seconds while that one is PENDING, for up to a minute, so that its
 * status changes on screen when equip has sent it.
 * @param {any} user
 * @param {HTMLElement} list
 * @param {string} [watch]
 * @param {number} [round]
 */
function loadReminders(user, list, watch, round = 0) {
  request("GET", `/api/v1/new-joiners/${encodeURIComponent(user.id)}/reminders`)
    .then(({ data }) => {
      if (!list.isConnected && round > 0) return;
      fill(
        list,
        data.length
          ? table({
              caption: "Reminders sent to this person",
              sorted: null,
              rows: data,
              columns: [
                { title: "Asked", cell: (/** @type {any} */ r) => time(r.createdAt) },
                { title: "Status", cell: (/** @type {any} */ r) => h("span", { class: "reminder-status", "data-reminder": r.id }, badge(r.status, REMINDER_STATUS_WORDS)) },
                { title: "Sent", cell: (/** @type {any} */ r) => time(r.sentAt) },
                { title: "Attempts", cell: (/** @type {any} */ r) => String(r.attempts ?? "") },
              ],
            })
          : h("p", { class: "muted" }, "No reminders yet."),
      );
      if (!watch) return;
      const mine = data.find((/** @type {any} */ r) => r.id === watch);
      if (mine && mine.status === "PENDING" && round < 30) {
        window.setTimeout(() => list.isConnected && loadReminders(user, list, watch, round + 1), 2000);
      } else if (mine && round > 0) {
        announce(`The reminder is ${say(REMINDER_STATUS_WORDS, mine.status).toLowerCase()}`);
      }
    })
    .catch((error) => fill(list, errorBox(error, "Loading the reminders")));
}

/**
 * Offboarding (SCIM DELETE): a confirmation that says what happens to the
 * person's equipment, then the outcome with their return order.
 * @param {any} user
 */
function offboardSection(user) {
  const result = h("div", { class: "offboard-result", tabindex: "-1" });
  const name = displayName(user);
  const button = h("button", { type: "button", class: "danger", id: "offboard" }, "Offboard…");
  button.addEventListener("click", async () => {
    button.disabled = true;
    fill(result, loading("Reading their equipment…"));
    /** @type {any[]} */
    let items = [];
    try {
      if (can("inventory:read")) {
        const answer = await request("GET", "/api/v1/inventory", { query: [["personId", user.id], ["size", String(await maxPageSize("/api/v1/inventory"))]] });
        items = answer.data;
      }
    } catch (error) {
      fill(result, errorBox(error, "Reading their equipment"));
      button.disabled = false;
      return;
    }
    fill(result);
    const returning = items.filter((i) => i.deployStatus === "DEPLOYED" && !i.returnOrder);
    const onReturn = items.filter((i) => i.deployStatus === "DEPLOYED" && i.returnOrder);
    const yes = await offboardDialog(name, returning, onReturn, can("inventory:read"));
    if (!yes) {
      button.disabled = false;
      return;
    }
    fill(result, loading(`Offboarding ${name}…`));
    try {
      await request("DELETE", `/scim/v2/Users/${encodeURIComponent(user.id)}`);
    } catch (error) {
      fill(result, errorBox(error, `Offboarding ${name}`));
      button.disabled = false;
      result.focus();
      return;
    }
    button.remove();
    const shown = document.querySelector(".person-status");
    if (shown) shown.replaceWith(h("span", { class: "person-status" }, statusWords(returning.length || onReturn.length ? "OFFBOARDING" : "OFFBOARDED")));
    /** @type {any[]} */
    let orders = [];
    if (can("returns:read")) {
      try {
        orders = (await request("GET", "/api/v1/return-orders", { query: [["personId", user.id], ["size", "20"]] })).data;
      } catch {
        orders = [];
      }
    }
    const open = orders.filter((o) => !["COMPLETED", "PARTIALLY_COMPLETED", "NOT_COMPLETED", "CANCELLED"].includes(o.status));
    const said = returning.length
      ? `Offboarding started: ${name} is offboarding, and a return order was created for ${returning.length} ${returning.length === 1 ? "item" : "items"}.`
      : onReturn.length
        ? `Offboarding started: ${name} is offboarding until their items already on a return come back.`
        : `${name} held no equipment and is offboarded.`;
    fill(
      result,
      notice(said, "success"),
      open.length
        ? h(
            "ul",
            { class: "return-links" },
            open.map((o) =>
              h("li", {}, h("a", { href: href(["returns", o.id], null), class: "return-link" }, `Return order of ${o.lines.length} ${o.lines.length === 1 ? "item" : "items"}`), " ", badge(o.status, RETURN_STATUS_WORDS)),
            ),
          )
        : null,
      h(
        "p",
        { class: "help" },
        can("people:read")
          ? "SCIM no longer lists them; this page, their history and their items stay readable."
          : "From now on the person is no longer listed under People; their history and items stay readable.",
      ),
    );
    announce(said);
    result.focus();
  });
  return h(
    "section",
    { class: "card", "aria-labelledby": "offboard-title" },
    h("h2", { id: "offboard-title" }, "Offboarding"),
    h(
      "p",
      { class: "help" },
      "When someone leaves: they leave every group, their unshipped order lines are cancelled, and the equipment they hold gets a return order. They are offboarded once every item is received or written off.",
    ),
    button,
    result,
  );
}

/**
 * The offboarding confirmation: a modal dialog listing the equipment that
 * will be asked back. Answers true to go ahead.
 * @param {string} name
 * @param {any[]} returning items that get a line on a new return order
 * @param {any[]} onReturn items already on a return
 * @param {boolean} known whether the key could read their items
 * @returns {Promise<boolean>}
 */
function offboardDialog(name, returning, onReturn, known) {
  const n = returning.length;
  const what = !known
    ? "A return order will be created for every item deployed to them (this key cannot read the inventory to list them)."
    : n
      ? `A return order will be created for ${n} ${n === 1 ? "item" : "items"}:`
      : onReturn.length
        ? "No new return order: their items are already on a return."
        : "They hold no equipment, so they are offboarded at once.";
  const cancel = h("button", { type: "button", class: "secondary", id: "offboard-cancel" }, "Cancel");
  const ok = h("button", { type: "button", class: "danger", id: "offboard-confirm" }, `Offboard ${name}`);
  const list = (/** @type {any[]} */ items) =>
    h("ul", { class: "offboard-items" }, items.map((i) => h("li", {}, i.skuTitle || i.id, i.serialNumber ? h("span", { class: "sub" }, ` serial ${i.serialNumber}`) : null)));
  const dialog = h(
    "dialog",
    { id: "offboard-dialog", "aria-labelledby": "offboard-dialog-title", "aria-describedby": "offboard-dialog-what" },
    h("h2", { id: "offboard-dialog-title" }, `Offboard ${name}?`),
    h("p", {}, `${name} becomes Offboarding and leaves every group; their order lines not yet shipped are cancelled.`),
    h("p", { id: "offboard-dialog-what" }, what),
    n ? list(returning) : null,
    onReturn.length ? [h("p", {}, "Already on a return:"), list(onReturn)] : null,
    h("p", { class: "help" }, "This cannot be undone from the console."),
    h("div", { class: "actions" }, cancel, ok),
  );
  document.body.append(dialog);
  const opener = /** @type {HTMLElement | null} */ (document.activeElement);
  return new Promise((resolve) => {
    /** @param {boolean} answer */
    const finish = (answer) => {
      if (dialog.open) dialog.close();
      dialog.remove();
      if (opener && opener.isConnected) opener.focus();
      resolve(answer);
    };
    ok.addEventListener("click", () => finish(true));
    cancel.addEventListener("click", () => finish(false));
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      finish(false);
    });
    /** @type {HTMLDialogElement} */ (dialog).showModal();
    cancel.focus();
  });
}
