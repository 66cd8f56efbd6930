// @ts-check
// Choosing by name: labelled selects whose options show names and whose
// values are the ids (or codes) the API takes.

import { h } from "./ui.js";

/** @typedef {{value: string, text: string}} Option */

/**
 * A labelled `<select>`; with `multiple`, several values. An empty first
 * option ("any") unless `required`.
 * @param {{label: string, name: string, options: Option[], value?: string | string[], multiple?: boolean, required?: boolean, any?: string, id?: string}} spec
 * @returns {HTMLElement} the label wrapping the select
 */
export function picker({ label, name, options, value, multiple = false, required = false, any = "Any", id }) {
  const chosen = new Set(Array.isArray(value) ? value : value ? [value] : []);
  const opts = options.map((o) => h("option", { value: o.value, selected: chosen.has(o.value) ? "" : null }, o.text));
  if (!multiple && !required) opts.unshift(h("option", { value: "", selected: chosen.size ? null : "" }, any));
  const select = h(
    "select",
    { name, id: id || `pick-${name}`, multiple: multiple ? "" : null, required: required ? "" : null, size: multiple ? String(Math.min(6, Math.max(2, options.length))) : null },
    opts,
  );
  return h("label", { class: "picker" }, h("span", {}, label), select);
}

/**
 * Options from a map of id → object, by `text(object)`.
 * @template T
 * @param {Map<string, T>} map
 * @param {(item: T) => string} text
 * @returns {Option[]}
 */
export function optionsOf(map, text) {
  return [...map.entries()].map(([value, item]) => ({ value, text: text(item) })).sort((a, b) => a.text.localeCompare(b.text));
}
