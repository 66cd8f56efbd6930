// @ts-check
// The console's shell: sign-in state (a key in this tab, or a session of the
// organization's single sign-on), navigation by scope, and the router that
// picks a view for the URL's fragment.

import { forget, keyInfo, resume, sessionInfo, signedIn, signOutSession, whenSignedOut } from "./api.js";
import { current, go } from "./router.js";
import { can, scopes, SCOPES } from "./scopes.js";
import { announce, errorBox, fill, focusHeading, h, viewDrawn } from "./ui.js";
import overviewView from "./overview.js";

const main = document.getElementById("main");

/// Views by the first segment of the path; each is loaded when first used,
/// except the overview, the first screen.
const VIEWS = {
  overview: { needs: "inventory:read", load: async () => overviewView },
  inventory: { needs: "inventory:read", load: async (route) => (route.path[1] ? (await import("./item.js")).itemView : (await import("./inventory.js")).inventoryView) },
  people: { needs: ["people:read", "scim"], load: async (route) => (await import(route.path[1] ? "./person.js" : "./people.js")).default },
  upload: { needs: "scim", load: async () => (await import("./upload.js")).default },
  warehouses: { needs: "warehouses:read", load: async () => (await import("./warehouses.js")).default },
  levels: { needs: "inventory:read", load: async () => (await import("./levels.js")).default },
  search: { needs: ["scim", "inventory:read"], load: async () => (await import("./search.js")).default },
  returns: { needs: "returns:read", load: async (route) => (await import(route.path[1] ? "./return.js" : "./returns.js")).default },
  receipt: { needs: "returns:write", load: async () => (await import("./receipt.js")).default },
  orders: { needs: "orders:read", load: async (route) => (await import(route.path[1] ? "./order.js" : "./orders.js")).default },
  packages: { needs: "inventory:read", load: async (route) => (await import(route.path[1] ? "./package.js" : "./packages.js")).default },
};

let signOutMessage = "";
/// Each render gets a number; a slower earlier render never draws over a later one.
let generation = 0;
let controller = null;

/// A view's `needs`: a scope, or a list of which any one will do.
function allowed(needs) {
  return Array.isArray(needs) ? needs.some((s) => can(s)) : can(needs);
}

function isCurrent(token) {
  return token === generation;
}

function showSession() {
  const info = keyInfo();
  const on = signedIn();
  document.getElementById("nav").hidden = !on;
  document.getElementById("session").hidden = !on;
  document.getElementById("global-search").hidden = true;
  document.getElementById("org-name").hidden = true;
  if (!on) return;
  for (const a of /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll("#nav a[data-area]"))) {
    a.closest("li").hidden = !allowed(VIEWS[a.dataset.area].needs);
  }
  showOrganization(info);
  const { summary, sentence, scopesTitle } = whoWords(info);
  document.getElementById("key-summary").textContent = summary;
  document.getElementById("key-label").textContent = sentence;
  document.getElementById("scopes-title").textContent = scopesTitle;
  const list = scopes();
  fill(
    document.getElementById("key-scopes"),
    list.length
      ? list.map((s) => h("li", { class: "chip", title: SCOPES[s] || "" }, s))
      : h("li", { class: "muted" }, "none"),
  );
}

/**
 * Who is signed in, in words: the key's label and prefix, or the person's
 * email with a session.
 * @param {any} info what keyInfo() answers
 * @returns {{summary: string, sentence: string, scopesTitle: string}}
 */
function whoWords(info) {
  const person = sessionInfo();
  if (person) {
    const email = person.email || person.subject;
    return {
      summary: email,
      sentence: `Signed in as ${person.name && person.name !== email ? `${person.name} (${email})` : email} with your organization's identity provider.`,
      scopesTitle: "Scopes your groups give you:",
    };
  }
  const name = info.label ? `${info.label} (${info.prefix})` : `key ${info.prefix}`;
  return { summary: name, sentence: `Signed in with ${name}.`, scopesTitle: "Scopes of this key:" };
}

/// The first area the key may open.
function home() {
  return Object.entries(VIEWS).find(([, v]) => allowed(v.needs))?.[0];
}

function markCurrentArea(area) {
  for (const a of /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll("#nav a[data-area]"))) {
    if (a.dataset.area === area) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

async function render() {
  const token = ++generation;
  if (controller) controller.abort();
  controller = new AbortController();
  const signal = controller.signal;
  showSession();
  const route = current();
  const area = route.path[0];
  if (!signedIn()) {
    markCurrentArea(null);
    try {
      const { signInView } = await import("./signin.js");
      if (!isCurrent(token)) return;
      signInView(main, { message: signOutMessage, onSignedIn: afterSignIn });
      viewDrawn();
    } catch (e) {
      if (isCurrent(token)) failed(e);
    }
    return;
  }
  const view = VIEWS[area];
  if (!view) {
    const first = home();
    if (first) {
      go([first], null, { replace: true });
      return;
    }
    markCurrentArea(null);
    noScopes();
    return;
  }
  markCurrentArea(area);
  if (!allowed(view.needs)) {
    const needs = [view.needs].flat().join(" or ");
    fill(
      main,
      ...(sessionInfo()
        ? [
            h("h1", { tabindex: "-1", id: "view-title" }, "Not available to you"),
            h("p", {}, `This part of the console needs the scope ${needs}, which your groups do not give you. Your IT team maps groups to scopes.`),
          ]
        : [
            h("h1", { tabindex: "-1", id: "view-title" }, "Not available with this key"),
            h("p", {}, `This part of the console needs the scope ${needs}, which the signed-in key does not have.`),
          ]),
    );
    focusHeading();
    return;
  }
  try {
    const draw = await view.load(route);
    if (!isCurrent(token)) return;
    await draw(main, route, { token, signal, isCurrent: () => isCurrent(token) });
  } catch (e) {
    if (e.name === "AbortError" || !isCurrent(token)) return;
    failed(e);
  }
}

/// A screen that could not be drawn (its module did not load, say): never a
/// blank page.
function failed(e) {
  fill(
    main,
    h(
      "div",
      { class: "error", role: "alert" },
      h("strong", {}, "This screen could not be shown"),
      h("p", {}, e.detail || e.message || String(e)),
      h("p", {}, "Reload the page to try again."),
    ),
  );
}

function noScopes() {
  document.title = "No scopes · equip console";
  const bySession = Boolean(sessionInfo());
  fill(
    main,
    h("h1", { tabindex: "-1", id: "view-title" }, bySession ? "Your groups give you no scopes" : "This key has no scopes"),
    h(
      "p",
      {},
      bySession
        ? "You are signed in, but your groups may not read or change anything in equip. Ask your IT team to map one of your groups to the scopes you need:"
        : "The key is valid, but it may not read or change anything in equip. Ask the administrator of equip for a key with the scopes you need:",
    ),
    h(
      "ul",
      { class: "scope-list", id: "scope-list" },
      Object.entries(SCOPES).map(([scope, what]) => h("li", {}, h("code", {}, scope), ` — ${what}`)),
    ),
  );
  focusHeading();
  // The scopes equip has, from its OpenAPI document; the descriptions are the console's.
  import("./spec.js")
    .then(({ scopeList }) => scopeList())
    .then((list) => {
      const ul = document.getElementById("scope-list");
      if (ul) fill(ul, list.map((scope) => h("li", {}, h("code", {}, scope), SCOPES[scope] ? ` — ${SCOPES[scope]}` : "")));
    });
}

function afterSignIn() {
  signOutMessage = "";
  const first = home();
  if (current().path[0] && VIEWS[current().path[0]]) render();
  else if (first) go([first]);
  else render();
}

/// The organization's name in the header (the key's `organizationName`).
function showOrganization(info) {
  const org = document.getElementById("org-name");
  org.textContent = info.organizationName || "";
  org.hidden = !info.organizationName;
  const search = document.getElementById("global-search");
  search.hidden = !allowed(VIEWS.search.needs);
  const box = /** @type {HTMLInputElement} */ (document.getElementById("global-q"));
  const q = current().path[0] === "search" ? current().params.get("q") || "" : "";
  if (box !== document.activeElement) box.value = q;
  box.placeholder = can("scim") && can("inventory:read") ? "People, serials, products" : can("scim") ? "People by name or email" : "Serials, products";
}

document.getElementById("global-search").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = /** @type {HTMLInputElement} */ (document.getElementById("global-q")).value.trim();
  if (q) go(["search"], new URLSearchParams({ q }));
});

document.getElementById("sign-out").addEventListener("click", async (e) => {
  const button = /** @type {HTMLButtonElement} */ (e.currentTarget);
  if (sessionInfo()) {
    button.disabled = true;
    try {
      await signOutSession();
    } catch (error) {
      // The session may still be live: say so and stay signed in.
      main.prepend(errorBox(error, "Signing out"));
      announce("Signing out failed.");
      return;
    } finally {
      button.disabled = false;
    }
    signOutMessage = "Signed out. Your session was ended in equip.";
  } else {
    forget();
    signOutMessage = "Signed out. The key was removed from this browser tab.";
  }
  history.replaceState(null, "", location.pathname);
  render();
});

document.getElementById("skip-link").addEventListener("click", (e) => {
  e.preventDefault();
  main.focus();
});

whenSignedOut((detail, bySession) => {
  signOutMessage = bySession
    ? `equip ended your session (401: ${detail}). Sign in again.`
    : `The API refused the key (401: ${detail}). It was removed from this tab; sign in again.`;
  render();
});

// A key kept in this tab, else a session of the browser (`GET /sso/session`),
// before the first screen.
resume().then(() => {
  window.addEventListener("hashchange", render);
  render();
});
