// An item's or a person's history: `GET /api/v1/{inventory|people}/{id}/history`,
// newest first, with "Show older" following the `next` cursor.

import { request } from "./api.js";
import { errorBox, fill, h, label, loading, time } from "./ui.js";

/// The history section of `path` (e.g. `/api/v1/inventory/<id>/history`).
export function historySection(path) {
  const list = h("ol", { class: "history" });
  const more = h("div", { class: "history-more" });
  const section = h("section", { class: "card", "aria-labelledby": "history-title" }, h("h2", { id: "history-title" }, "History"), list, more);
  const page = async (after) => {
    fill(more, loading("Loading history…"));
    try {
      const answer = await request("GET", path, { query: [["size", "20"], ["after", after]] });
      const entries = answer.data.map(entry);
      list.append(...entries);
      // "Show older" is replaced: the keyboard goes on at the first older change.
      if (after && entries.length) entries[0].focus();
      if (!list.firstChild) list.replaceWith(h("p", { class: "empty" }, "No recorded changes."));
      fill(
        more,
        answer.next
          ? h("button", { type: "button", class: "secondary", onclick: () => page(answer.next) }, "Show older changes")
          : null,
      );
    } catch (error) {
      fill(more, errorBox(error, "Loading the history"));
    }
  };
  page(null);
  return section;
}

function entry(event) {
  const changes = event.changes ? Object.entries(event.changes) : [];
  const actor = event.actor ? `${label(event.actor.type)}${event.actor.id ? ` ${event.actor.id.slice(0, 8)}` : ""}` : "";
  return h(
    "li",
    { tabindex: "-1" },
    h("div", { class: "event-head" }, h("strong", {}, event.type), " · ", time(event.occurredAt), actor ? h("span", { class: "sub" }, ` by ${actor}`) : null),
    changes.length
      ? h(
          "ul",
          { class: "changes" },
          changes.map(([field, change]) =>
            h("li", {}, h("code", {}, field), ": ", value(change && change.from), " → ", value(change && change.to)),
          ),
        )
      : null,
  );
}

function value(v) {
  if (v === null || v === undefined) return h("span", { class: "muted" }, "none");
  if (typeof v === "object") return h("code", { class: "json" }, JSON.stringify(v));
  return h("span", { class: "value" }, String(v));
}
