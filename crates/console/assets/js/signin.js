// @ts-check
// Sign-in, two ways. First, single sign-on: the organization's id (from the
// link `/console/?org=ID`, else the one this browser used last, kept in
// the browser's local storage, `equip.ssoOrg`) and off to `/sso/{org}/login`, which sends the
// browser to the organization's identity provider and back with a session
// cookie. Then an API key, for organizations without single sign-on: checked
// with `GET /api/v1/api-key` (which any valid key may call) and kept in this
// tab's sessionStorage.

import { signIn } from "./api.js";
import { errorBox, fill, h, notice } from "./ui.js";

/** Where the organization last used for single sign-on is remembered. */
const SSO_ORG = "equip.ssoOrg";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function signInView(main, { message, onSignedIn }) {
  document.title = "Sign in · equip console";
  const sso = ssoForm();
  const key = keyForm(onSignedIn);
  fill(
    main,
    h(
      "div",
      { class: "sign-in" },
      h("h1", { id: "view-title", tabindex: "-1" }, "Sign in to equip"),
      message ? notice(message) : null,
      sso.form,
      key.form,
    ),
  );
  if (sso.input.value) sso.button.focus();
  else sso.input.focus();
}

/** The organization id to offer: `?org=` of the page's URL, else the one used last. */
function rememberedOrg() {
  const fromUrl = new URLSearchParams(location.search).get("org");
  if (fromUrl) return fromUrl.trim();
  try {
    return localStorage.getItem(SSO_ORG) || "";
  } catch {
    return "";
  }
}

/**
 * Where the identity provider should send the browser back to: the console's
 * current view (equip takes only a `/console/` path, else its default).
 * @returns {string}
 */
function nextQuery() {
  const view = location.hash;
  return view && view !== "#" && view !== "#/" ? `?next=${encodeURIComponent(`/console/${view}`)}` : "";
}

/** "Sign in with your identity provider": the organization's id, then `/sso/{org}/login`. */
function ssoForm() {
  const input = /** @type {HTMLInputElement} */ (
    h("input", {
      id: "sso-org",
      name: "org",
      type: "text",
      autocomplete: "off",
      spellcheck: "false",
      autocapitalize: "off",
      required: true,
      "aria-describedby": "sso-org-help",
    })
  );
  input.value = rememberedOrg();
  const status = h("div", { class: "form-status" });
  const button = h("button", { type: "submit" }, "Continue to your identity provider");
  const form = h(
    "form",
    {
      class: "card",
      id: "sso-form",
      "aria-labelledby": "sso-title",
      novalidate: true,
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        const org = input.value.trim();
        if (!UUID.test(org)) {
          input.setAttribute("aria-invalid", "true");
          fill(
            status,
            h(
              "div",
              { class: "error", role: "alert" },
              h("strong", {}, "Check the organization id"),
              h(
                "p",
                { class: "error-detail" },
                org
                  ? `“${org}” is not an organization id. It looks like 3f2a9c1e-0b7d-4e55-9a61-2c8d4f0e7b13 (a UUID); ask your IT team for it.`
                  : "Enter your organization's id first (a UUID such as 3f2a9c1e-0b7d-4e55-9a61-2c8d4f0e7b13); ask your IT team for it.",
              ),
            ),
          );
          input.focus();
          return;
        }
        input.removeAttribute("aria-invalid");
        try {
          localStorage.setItem(SSO_ORG, org);
        } catch {
          // Remembering is a convenience; signing in works without it.
        }
        fill(status, h("p", { class: "loading", role: "status" }, "Going to your identity provider…"));
        location.assign(`/sso/${encodeURIComponent(org)}/login${nextQuery()}`);
      },
    },
    h("h2", { id: "sso-title" }, "Sign in with your identity provider"),
    h("label", { for: "sso-org" }, "Organization id"),
    input,
    h(
      "p",
      { id: "sso-org-help", class: "help" },
      "Your organization's id in equip (your IT team has it, or sends a link that fills it in). You sign in at your organization's identity provider and come back here; what you can see depends on your groups there.",
    ),
    button,
    status,
  );
  return { form, input, button };
}

/** "Sign in with an API key", for organizations without single sign-on. */
function keyForm(onSignedIn) {
  const input = /** @type {HTMLInputElement} */ (
    h("input", {
      id: "api-key",
      name: "api-key",
      type: "password",
      autocomplete: "off",
      spellcheck: "false",
      required: true,
      "aria-describedby": "api-key-help",
    })
  );
  const status = h("div", { class: "form-status" });
  const button = h("button", { type: "submit" }, "Sign in");
  const form = h(
    "form",
    {
      class: "card",
      id: "key-form",
      // Not named by its heading: "API key" names the key's field alone.
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        const key = input.value.trim();
        if (!key) return;
        button.disabled = true;
        fill(status, h("p", { class: "loading", role: "status" }, "Checking the key…"));
        try {
          await signIn(key);
          input.value = "";
          onSignedIn();
        } catch (error) {
          fill(status, errorBox(error, "Sign-in"));
          button.disabled = false;
          input.focus();
          input.select();
        }
      },
    },
    h("h2", { id: "key-title" }, "Sign in with an API key"),
    h("label", { for: "api-key" }, "API key"),
    input,
    h(
      "p",
      { id: "api-key-help", class: "help" },
      "For organizations without single sign-on. Paste an equip API key (equip_…). It stays in this browser tab only and is forgotten when you sign out or close the tab. What you can see depends on the key's scopes.",
    ),
    button,
    status,
  );
  return { form };
}
