// @ts-check
// Sign-in with an API key. The key is checked with `GET /api/v1/api-key`
// (which any valid key may call) and kept in this tab's sessionStorage.

import { signIn } from "./api.js";
import { errorBox, fill, h, notice } from "./ui.js";

export function signInView(main, { message, onSignedIn }) {
  document.title = "Sign in · equip console";
  const input = h("input", {
    id: "api-key",
    name: "api-key",
    type: "password",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    "aria-describedby": "api-key-help",
  });
  const status = h("div", { class: "form-status" });
  const button = h("button", { type: "submit" }, "Sign in");
  const form = h(
    "form",
    {
      class: "sign-in card",
      "aria-labelledby": "view-title",
      onsubmit: async (e) => {
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
    h("h1", { id: "view-title", tabindex: "-1" }, "Sign in to equip"),
    message ? notice(message) : null,
    h("label", { for: "api-key" }, "API key"),
    input,
    h(
      "p",
      { id: "api-key-help", class: "help" },
      "Paste an equip API key (equip_…). It stays in this browser tab only and is forgotten when you sign out or close the tab. What you can see depends on the key's scopes.",
    ),
    button,
    status,
  );
  fill(main, form);
  input.focus();
}
