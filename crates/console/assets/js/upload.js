// @ts-check
// CSV upload of users (`POST /scim/v2/Users/csv`): a template to start from
// and the package slugs the file may name; drag and drop or choose a file,
// progress while it uploads, then each row's result from the BulkResponse,
// named by the person on the row and the CSV column at fault, failures
// first, rows whose person exists already said so (not failures), and the
// failed rows as a CSV to fix and upload again.

import { upload } from "./api.js";
import { BOM, format, inert, parse } from "./csv.js";
import { packages } from "./names.js";
import { can } from "./scopes.js";
import { announce, errorBox, fill, focusHeading, h, heading, loading, notice, table } from "./ui.js";

const MAX_BYTES = 10 * 1024 * 1024;

/** The header the upload takes (docs/scim.md, "CSV upload"), start_date included. */
export const HEADER = [
  "id",
  "forename",
  "surname",
  "email",
  "secondary_email",
  "package_slug",
  "address_line_1",
  "addressLine2",
  "state/region",
  "city_code",
  "country_code",
  "postal_code",
  "phone_number",
  "send_activation_email",
  "cpf_number",
  "start_date",
];

/**
 * The CSV column that carries a User attribute the API names in an error
 * (crates/scim/src/csv.rs maps columns to attributes; this is the way back).
 * Longest names first, so that `emails.value` wins over `emails`.
 */
const COLUMN_OF = [
  ["name.givenName", "forename"],
  ["name.familyName", "surname"],
  ["givenName", "forename"],
  ["familyName", "surname"],
  ["userName", "email"],
  ["emails.value", "email"],
  ["emails", "email"],
  ["phoneNumbers.value", "phone_number"],
  ["phoneNumbers", "phone_number"],
  ["addresses.streetAddress", "address_line_1"],
  ["streetAddress", "address_line_1"],
  ["addresses.postalCode", "postal_code"],
  ["postalCode", "postal_code"],
  ["addresses.locality", "city_code"],
  ["locality", "city_code"],
  ["addresses.region", "state/region"],
  ["region", "state/region"],
  ["addresses.country", "country_code"],
  ["country", "country_code"],
  ["addresses", "address_line_1"],
  ["cpfNumber", "cpf_number"],
  ["packageId", "package_slug"],
  ["startDate", "start_date"],
  ["skipUserActivation", "send_activation_email"],
  ["externalId", "id"],
];

/**
 * The column an error is about, and its text in the file's words: a row's
 * own "row n, column c: …" prefix is dropped (the row is shown beside it),
 * and an attribute the API names becomes the column that carries it.
 * @param {string} detail
 * @returns {{column: string, message: string}}
 */
export function inFileWords(detail) {
  let message = String(detail || "").replace(/^row \d+,\s*/, "");
  const named = /^column ([^:]+):\s*/.exec(message);
  if (named) return { column: named[1], message: message.slice(named[0].length) };
  for (const [attribute, column] of COLUMN_OF) {
    const at = new RegExp(`(^|[^A-Za-z.])${attribute.replaceAll(".", "\\.")}(?![A-Za-z])`);
    if (at.test(message)) {
      message = message.replace(at, (_m, before) => `${before}${column}`);
      return { column, message };
    }
  }
  return { column: "", message };
}

/** @returns {string} the template: the header and one example row */
export function template() {
  return format([
    HEADER,
    ["", "Ada", "Lovelace", "ada.lovelace@example.com", "", "", "1 Main St", "Floor 2", "CA", "San Francisco", "US", "94105", "+1 555 0100", "yes", "", "2027-01-04"],
  ]);
}

/** @param {HTMLElement} main */
export default async function uploadView(main) {
  const input = h("input", { id: "csv-file", type: "file", accept: ".csv,text/csv", class: "file-input", "aria-describedby": "csv-help" });
  const chosen = h("div", { class: "chosen" });
  const progress = h("div", { class: "progress-area" });
  const result = h("div", { class: "upload-result" });
  const zone = h(
    "div",
    { class: "drop-zone", id: "drop-zone" },
    h("p", { class: "drop-title" }, "Drop a CSV file here"),
    h("p", {}, "or ", h("label", { for: "csv-file", class: "file-label" }, "choose a file"), input),
    h(
      "p",
      { id: "csv-help", class: "help" },
      `UTF-8 CSV with the header ${HEADER.join(", ")} (start_date may be left out). At most 10 MiB and 50,000 rows. Rows without an id create people; rows with an id replace them.`,
    ),
  );
  let file = null;
  const choose = (f) => {
    file = f;
    fill(result);
    fill(progress);
    if (!f) {
      fill(chosen);
      return;
    }
    if (f.size > MAX_BYTES) {
      fill(chosen, errorBox({ detail: `${f.name} is ${sizeOf(f.size)}; the upload takes at most 10 MiB. Split it into smaller files.` }, "Checking the file"));
      file = null;
      return;
    }
    fill(
      chosen,
      h("p", {}, "Ready to upload ", h("strong", {}, f.name), ` (${sizeOf(f.size)}).`),
      h("button", { type: "button", id: "start-upload", onclick: () => start() }, `Upload ${f.name}`),
    );
  };
  const start = async () => {
    const f = file;
    if (!f) return;
    const button = /** @type {HTMLButtonElement | null} */ (document.getElementById("start-upload"));
    if (button) button.disabled = true;
    const bar = h("progress", { max: "100", value: "0", id: "upload-progress", "aria-label": "Upload progress" });
    const status = h("p", { role: "status", id: "upload-status" }, "Uploading…");
    fill(progress, bar, status);
    fill(result);
    const rows = f
      .text()
      .then((text) => {
        /** @type {number[]} */
        const numbers = [];
        const records = parse(text, numbers);
        return { records, numbers };
      })
      .catch(() => null);
    try {
      const response = await upload("/scim/v2/Users/csv", f, (sent, total, done) => {
        if (done) {
          bar.removeAttribute("value");
          status.textContent = "Uploaded. equip is processing the rows…";
        } else {
          const percent = total ? Math.round((sent / total) * 100) : 0;
          bar.value = percent;
          status.textContent = `Uploading… ${percent}%`;
        }
      });
      bar.value = 100;
      status.textContent = "Done.";
      showReport(result, f.name, response, await rows);
    } catch (error) {
      fill(progress);
      fill(result, errorBox(error, `Uploading ${f.name}`));
    } finally {
      if (button) button.disabled = false;
    }
  };
  input.addEventListener("change", () => choose(input.files[0] || null));
  zone.addEventListener("dragover", (e) => {
    e.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f) choose(f);
  });
  const templateUrl = URL.createObjectURL(new Blob([BOM, template()], { type: "text/csv;charset=utf-8" }));
  const slugs = h("div", { id: "package-slugs" });
  fill(
    main,
    heading("CSV upload"),
    h("p", {}, "Provision people from a spreadsheet: each row creates or replaces one person, and every row succeeds or fails on its own."),
    h(
      "div",
      { class: "upload-help" },
      h(
        "section",
        { class: "card", "aria-labelledby": "template-title" },
        h("h2", { id: "template-title" }, "Start from the template"),
        h("p", {}, "The columns equip reads, in order, and one example row to replace with your people. Dates are YYYY-MM-DD; start_date is the first working day, which a new-joiner reminder needs."),
        h("a", { href: templateUrl, download: "equip-people-template.csv", class: "button secondary", id: "download-template" }, "Download the template (CSV)"),
      ),
      h("section", { class: "card", "aria-labelledby": "slugs-title" }, h("h2", { id: "slugs-title" }, "Package slugs"), slugs),
    ),
    zone,
    chosen,
    progress,
    result,
  );
  focusHeading();
  if (!can("inventory:read")) {
    fill(slugs, h("p", { class: "help" }, "The package_slug column names a package by its slug. This key cannot read packages (inventory:read) to list them here."));
    return;
  }
  fill(slugs, loading("Loading the packages…"));
  const list = await packages();
  if (!slugs.isConnected) return;
  const all = [...list.values()].sort((a, b) => a.name.localeCompare(b.name));
  fill(
    slugs,
    h("p", { class: "help" }, "What the package_slug column may hold (or leave it empty):"),
    all.length
      ? h("ul", { class: "slugs", id: "slug-list" }, all.map((p) => h("li", {}, h("code", { class: "slug" }, p.slug), ` ${p.name}`)))
      : h("p", { class: "muted" }, "The organization has no packages."),
  );
}

/** @param {number} bytes */
function sizeOf(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

const OUTCOME = { 200: "Updated", 201: "Created", 204: "Done" };

/**
 * Who a row is about, from the file: "forename surname (email)".
 * @param {string[] | undefined} header
 * @param {string[] | undefined} record
 * @returns {string}
 */
function personOf(header, record) {
  if (!header || !record) return "";
  const cell = (/** @type {string} */ name) => (record[header.findIndex((c) => c.trim().toLowerCase() === name)] || "").trim();
  const name = `${cell("forename")} ${cell("surname")}`.trim();
  const email = cell("email");
  return name && email ? `${name} (${email})` : name || email;
}

/**
 * The per-row table of a BulkResponse; `file`: the file as parsed here
 * (records, header first, and each one's spreadsheet row number, which
 * equip's `row-<n>` names), to name each row's person and give back the
 * failed rows.
 * @param {HTMLElement} result
 * @param {string} name
 * @param {any} response
 * @param {{records: string[][], numbers: number[]} | null} file
 */
function showReport(result, name, response, file) {
  const records = file ? file.records : null;
  const header = records ? records[0] : undefined;
  /** @type {Map<number, string[]>} spreadsheet row → its record */
  const byRow = new Map();
  if (file) file.numbers.forEach((n, i) => i > 0 && byRow.set(n, file.records[i]));
  const aligned = Boolean(records && records.length - 1 === (response.Operations || []).length);
  const ops = (response.Operations || []).map((/** @type {any} */ op) => {
    const row = Number.parseInt(String(op.bulkId || "").replace(/^row-/, ""), 10);
    const status = Number.parseInt(op.status, 10);
    const detail = op.response && op.response.detail ? op.response.detail : "";
    const exists = status === 409 && (op.response?.scimType === "uniqueness" || /userName/.test(detail));
    const words = inFileWords(detail);
    return {
      row,
      status,
      ok: status >= 200 && status < 300,
      exists,
      error: detail,
      column: words.column,
      message: exists ? "a person with this email already exists; nothing changed" : words.message,
      person: aligned && byRow.has(row) ? personOf(header, byRow.get(row)) : "",
    };
  });
  const failed = ops.filter((/** @type {any} */ o) => !o.ok && !o.exists).sort((/** @type {any} */ a, /** @type {any} */ b) => a.row - b.row);
  const existing = ops.filter((/** @type {any} */ o) => o.exists).sort((/** @type {any} */ a, /** @type {any} */ b) => a.row - b.row);
  const succeeded = ops.filter((/** @type {any} */ o) => o.ok).sort((/** @type {any} */ a, /** @type {any} */ b) => a.row - b.row);
  const downloads = [];
  if (failed.length) {
    if (header && aligned && records) {
      const rows = failed.map((/** @type {any} */ o) => byRow.get(o.row)).filter(Boolean);
      downloads.push(download(`failed-rows-${stem(name)}.csv`, format([header, ...rows]), "Download the failed rows (CSV, to fix and upload again)", "download-failed"));
    }
    downloads.push(
      download(
        `errors-${stem(name)}.csv`,
        format([["row", "person", "status", "column", "error"], ...failed.map((/** @type {any} */ o) => [String(o.row), inert(o.person), String(o.status), o.column, inert(o.message)])]),
        "Download the errors (CSV)",
        "download-errors",
      ),
    );
  }
  const created = succeeded.filter((/** @type {any} */ o) => o.status === 201).length;
  const updated = succeeded.length - created;
  const parts = [`${created} created`];
  if (updated) parts.push(`${updated} updated`);
  if (existing.length) parts.push(`${existing.length} already ${existing.length === 1 ? "exists" : "exist"}`);
  parts.push(`${failed.length} failed`);
  const summary = `${ops.length} ${ops.length === 1 ? "row" : "rows"}: ${parts.join(", ")}.`;
  fill(
    result,
    h("h2", { id: "report-title", tabindex: "-1" }, "Result"),
    notice(summary, failed.length ? "warning" : "success"),
    downloads.length ? h("div", { class: "downloads" }, downloads) : null,
    table({
      caption: "Result of each row, failed rows first",
      sorted: null,
      rows: [...failed, ...existing, ...succeeded],
      columns: [
        { title: "Row", cell: (/** @type {any} */ o) => String(o.row) },
        { title: "Person", cell: (/** @type {any} */ o) => o.person || h("span", { class: "muted" }, "—") },
        {
          title: "Result",
          cell: (/** @type {any} */ o) =>
            h(
              "span",
              { class: o.ok ? "badge badge-ok" : o.exists ? "badge badge-exists" : "badge badge-failed" },
              o.ok ? `${o.status} ${OUTCOME[/** @type {200|201|204} */ (o.status)] || "OK"}` : o.exists ? "Already exists" : `${o.status} Failed`,
            ),
        },
        { title: "Column", cell: (/** @type {any} */ o) => (o.column ? h("code", {}, o.column) : "") },
        { title: "What happened", cell: (/** @type {any} */ o) => o.message || "" },
      ],
    }),
  );
  announce(summary);
  document.getElementById("report-title")?.focus();
}

/** @param {string} name */
function stem(name) {
  return String(name || "upload").replace(/\.csv$/i, "");
}

/**
 * @param {string} filename
 * @param {string} csv
 * @param {string} title
 * @param {string} id
 */
function download(filename, csv, title, id) {
  const url = URL.createObjectURL(new Blob([BOM, csv], { type: "text/csv;charset=utf-8" }));
  return h("a", { href: url, download: filename, class: "button secondary", id }, title);
}
