// @ts-check
// A person picker: a combobox that searches the SCIM users by name or email
// as you type (`GET /scim/v2/Users?filter=…`) and keeps the chosen person's
// id. Needs the `scim` scope (the caller checks `can("scim")`).

import { request } from "./api.js";
import { personName } from "./names.js";
import { debounce, h } from "./ui.js";

let counter = 0;

/**
 * @typedef {{id: string, name: string, email: string}} Person
 * @typedef {{element: HTMLElement, input: HTMLInputElement, value: () => Person | null, set: (p: Person | null) => void}} PersonPicker
 */

/**
 * A SCIM filter string literal.
 * @param {string} text
 * @returns {string}
 */
export function scimString(text) {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * Searches people by name or email.
 * @param {string} term
 * @param {AbortSignal} [signal]
 * @param {boolean} [activeOnly] only active people (default): whom items can go to
 * @returns {Promise<Person[]>}
 */
export async function searchPeople(term, signal, activeOnly = true) {
  const t = scimString(term);
  const names = `userName co ${t} or name.givenName co ${t} or name.familyName co ${t}`;
  const answer = await request("GET", "/scim/v2/Users", {
    query: [["filter", activeOnly ? `(${names}) and active eq true` : names], ["count", "8"], ["sortBy", "name.familyName"]],
    signal,
  });
  return (answer.Resources || []).map((/** @type {any} */ u) => ({ id: u.id, name: personName(u), email: u.userName }));
}

/**
 * A labelled person picker.
 * @param {{label: string, id?: string, value?: Person | null, onChange?: (p: Person | null) => void, help?: string, activeOnly?: boolean}} options
 *   `activeOnly` (default true): offer only active people, to whom items can go; a filter offers everyone
 * @returns {PersonPicker}
 */
export function personPicker({ label, id, value = null, onChange = () => {}, help, activeOnly = true }) {
  const n = ++counter;
  const inputId = id || `person-picker-${n}`;
  const listId = `${inputId}-list`;
  const helpId = `${inputId}-help`;
  /** @type {Person | null} */
  let chosen = value;
  /** @type {Person[]} */
  let found = [];
  let active = -1;
  /** @type {AbortController | null} */
  let controller = null;
  const input = /** @type {HTMLInputElement} */ (
    h("input", {
      id: inputId,
      type: "text",
      role: "combobox",
      autocomplete: "off",
      spellcheck: "false",
      "aria-autocomplete": "list",
      "aria-expanded": "false",
      "aria-controls": listId,
      "aria-describedby": helpId,
      placeholder: "Name or email",
    })
  );
  const list = h("ul", { id: listId, role: "listbox", class: "picker-list", hidden: true, "aria-label": `${label}: matches` });
  const status = h("small", { id: helpId, class: "help" }, help || "Type a name or email, then choose a person.");
  const element = h("div", { class: "field person-picker" }, h("label", { for: inputId }, label), input, list, status);

  const close = () => {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  };
  /** @param {Person | null} p */
  const set = (p) => {
    chosen = p;
    input.value = p ? `${p.name} (${p.email})` : "";
    status.textContent = p ? `Chosen: ${p.name}, ${p.email}` : help || "Type a name or email, then choose a person.";
  };
  /** @param {Person} p */
  const choose = (p) => {
    set(p);
    close();
    onChange(p);
  };
  const highlight = (/** @type {number} */ i) => {
    active = i;
    [...list.children].forEach((li, j) => li.setAttribute("aria-selected", String(j === i)));
    if (i >= 0 && list.children[i]) input.setAttribute("aria-activedescendant", list.children[i].id);
    else input.removeAttribute("aria-activedescendant");
  };
  const search = debounce(async () => {
    const term = input.value.trim();
    if (controller) controller.abort();
    if (term.length < 2) {
      close();
      return;
    }
    controller = new AbortController();
    try {
      found = await searchPeople(term, controller.signal, activeOnly);
    } catch (e) {
      if (/** @type {any} */ (e).name === "AbortError") return;
      status.textContent = `Searching failed: ${/** @type {any} */ (e).detail || e}`;
      return;
    }
    list.replaceChildren(
      ...found.map((p, i) =>
        h(
          "li",
          { id: `${listId}-${i}`, role: "option", "aria-selected": "false", class: "picker-option", "data-person": p.id, onmousedown: (/** @type {Event} */ ev) => ev.preventDefault(), onclick: () => choose(p) },
          h("span", {}, p.name),
          " ",
          h("span", { class: "sub" }, p.email),
        ),
      ),
    );
    status.textContent = found.length ? `${found.length} people match; use the arrow keys and Enter to choose.` : "Nobody matches.";
    list.hidden = !found.length;
    input.setAttribute("aria-expanded", String(found.length > 0));
    highlight(-1);
  }, 250);
  input.addEventListener("input", () => {
    if (chosen) {
      chosen = null;
      onChange(null);
    }
    search();
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" && found.length) {
      e.preventDefault();
      if (list.hidden) {
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
      }
      highlight(Math.min(active + 1, found.length - 1));
    } else if (e.key === "ArrowUp" && found.length) {
      e.preventDefault();
      highlight(Math.max(active - 1, 0));
    } else if (e.key === "Enter") {
      if (!list.hidden && active >= 0 && found[active]) {
        e.preventDefault();
        choose(found[active]);
      } else if (!list.hidden && found.length === 1) {
        e.preventDefault();
        choose(found[0]);
      }
    } else if (e.key === "Escape" && !list.hidden) {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  });
  input.addEventListener("blur", () => window.setTimeout(close, 150));
  set(value);
  return { element, input, value: () => chosen, set };
}
