// CSV upload of users (`POST /scim/v2/Users/csv`): drag and drop or choose a
// file, progress while it uploads, then each row's result from the
// BulkResponse, failures first, and the failed rows as a CSV to fix and
// upload again.

import { upload } from "./api.js";
import { format, inert, parse } from "./csv.js";
import { announce, errorBox, fill, focusHeading, h, heading, notice, table } from "./ui.js";

const MAX_BYTES = 10 * 1024 * 1024;

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
      "UTF-8 CSV with the header id, forename, surname, email, secondary_email, package_slug, address_line_1, addressLine2, state/region, city_code, country_code, postal_code, phone_number, send_activation_email, cpf_number. At most 10 MiB and 50,000 rows. Rows without an id create people; rows with an id replace them.",
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
    const button = document.getElementById("start-upload");
    if (button) button.disabled = true;
    const bar = h("progress", { max: "100", value: "0", id: "upload-progress", "aria-label": "Upload progress" });
    const status = h("p", { role: "status", id: "upload-status" }, "Uploading…");
    fill(progress, bar, status);
    fill(result);
    const rows = f.text().then(parse).catch(() => null);
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
  fill(main, heading("CSV upload"), h("p", {}, "Provision people from a spreadsheet: each row creates or replaces one person, and every row succeeds or fails on its own."), zone, chosen, progress, result);
  focusHeading();
}

function sizeOf(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

const OUTCOME = { 200: "Updated", 201: "Created", 204: "Done" };

/// The per-row table of a BulkResponse; `records`: the file as parsed here
/// (header first), to give back the failed rows.
function showReport(result, name, response, records) {
  const ops = (response.Operations || []).map((op) => {
    const row = Number.parseInt(String(op.bulkId || "").replace(/^row-/, ""), 10);
    const status = Number.parseInt(op.status, 10);
    return {
      row,
      status,
      ok: status >= 200 && status < 300,
      error: op.response && op.response.detail ? op.response.detail : "",
    };
  });
  const failed = ops.filter((o) => !o.ok).sort((a, b) => a.row - b.row);
  const succeeded = ops.filter((o) => o.ok).sort((a, b) => a.row - b.row);
  const downloads = [];
  if (failed.length) {
    const header = records && records[0];
    if (header && records.length - 1 === ops.length) {
      const rows = failed.map((o) => records[o.row]).filter(Boolean);
      downloads.push(download(`failed-rows-${stem(name)}.csv`, format([header, ...rows]), "Download the failed rows (CSV, to fix and upload again)", "download-failed"));
    }
    downloads.push(
      download(
        `errors-${stem(name)}.csv`,
        format([["row", "status", "error"], ...failed.map((o) => [String(o.row), String(o.status), inert(o.error)])]),
        "Download the errors (CSV)",
        "download-errors",
      ),
    );
  }
  const summary = `${ops.length} rows: ${succeeded.length} succeeded, ${failed.length} failed.`;
  fill(
    result,
    h("h2", { id: "report-title", tabindex: "-1" }, "Result"),
    notice(summary, failed.length ? "warning" : "success"),
    downloads.length ? h("div", { class: "downloads" }, downloads) : null,
    table({
      caption: "Result of each row, failed rows first",
      rows: [...failed, ...succeeded],
      columns: [
        { title: "Row", cell: (o) => String(o.row) },
        { title: "Status", cell: (o) => h("span", { class: o.ok ? "badge badge-ok" : "badge badge-failed" }, `${o.status} ${o.ok ? OUTCOME[o.status] || "OK" : "Failed"}`) },
        { title: "Error", cell: (o) => o.error || "" },
      ],
    }),
  );
  announce(summary);
  document.getElementById("report-title").focus();
}

function stem(name) {
  return String(name || "upload").replace(/\.csv$/i, "");
}

function download(filename, csv, title, id) {
  const url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
  return h("a", { href: url, download: filename, class: "button secondary", id }, title);
}
