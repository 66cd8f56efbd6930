// @ts-check
// CSV export of a filtered list: the list is read page by page (the same
// requests the screen makes, so the file holds exactly what the filters
// select), with progress, and handed to the browser as a download. A cell a
// spreadsheet would run as a formula is neutralised as the upload report does.
// The file starts with a UTF-8 byte order mark, so that Excel reads it as UTF-8.

import { BOM, format, inert } from "./csv.js";
import { announce, h } from "./ui.js";

/**
 * @template T
 * @typedef {{header: string, value: (row: T) => string | number | null | undefined}} Column
 */

/**
 * @template T
 * @param {{
 *   filename: string,
 *   columns: Column<T>[],
 *   fetchPage: (page: number) => Promise<{rows: T[], totalPages: number}>,
 *   progress?: (done: number, total: number) => void,
 *   signal?: AbortSignal,
 *   maxPages?: number,
 * }} options
 * @returns {Promise<{rows: number, url: string}>} the rows written, and the file's object URL (already downloaded)
 */
export async function exportCsv({ filename, columns, fetchPage, progress, signal, maxPages = 2000 }) {
  /** @type {string[][]} */
  const records = [columns.map((c) => c.header)];
  let page = 1;
  let total = 1;
  do {
    if (signal?.aborted) throw new DOMException("export cancelled", "AbortError");
    const { rows, totalPages } = await fetchPage(page);
    total = Math.min(Math.max(totalPages, 1), maxPages);
    for (const row of rows) records.push(columns.map((c) => inert(c.value(row) ?? "")));
    if (progress) progress(page, total);
    page += 1;
  } while (page <= total);
  // A UTF-8 byte order mark first: Excel then reads the file as UTF-8 ("São Paulo", not "SÃ£o Paulo").
  const url = URL.createObjectURL(new Blob([BOM, format(records)], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { rows: records.length - 1, url };
}

/**
 * An "Export CSV" button for a filtered listing: reads every page of the
 * listing with the screen's filters (as many rows a request as the API's
 * `size` allows, spec.js), with progress,
 * and downloads the file (export.js).
 * @param {{noun: string, filename: string, columns: {header: string, value: (row: any) => string | number | null | undefined}[], fetchPage: (page: number) => Promise<{rows: any[], totalPages: number}>}} spec
 * @returns {HTMLElement}
 */
export function exportButton({ noun, filename, columns, fetchPage }) {
  const status = h("span", { class: "sub export-status", role: "status" });
  const button = /** @type {HTMLButtonElement} */ (
    h(
      "button",
      {
        type: "button",
        class: "secondary small",
        onclick: async () => {
          button.disabled = true;
          status.textContent = "Preparing…";
          try {
            const done = await exportCsv({
              filename,
              columns,
              fetchPage,
              progress: (page, total) => {
                status.textContent = `Page ${page} of ${total}…`;
              },
            });
            status.textContent = `Exported ${done.rows} ${noun}.`;
            announce(`Exported ${done.rows} ${noun}`);
          } catch (error) {
            status.textContent = `The export failed: ${/** @type {any} */ (error).detail || /** @type {any} */ (error).message}`;
          } finally {
            button.disabled = false;
          }
        },
      },
      "Export CSV",
    )
  );
  return h("div", { class: "export" }, button, " ", status);
}
