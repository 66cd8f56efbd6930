// @ts-check
// CSV as equip's upload reads it (RFC 4180: quoted fields may hold commas,
// quotes and line breaks; a quote inside an unquoted field is text; CRLF or
// LF or CR; an optional UTF-8 BOM; rows whose cells are all blank are
// skipped but keep their number), so the console can give back the very rows
// that failed. Rows are numbered as a spreadsheet shows them (the header is
// row 1), as equip's `row-<n>` bulkIds are.

/**
 * The records of `text`, blank rows dropped: [header, first data row, …].
 * `rows`, when given, receives each record's spreadsheet row number.
 * @param {string} text
 * @param {number[]} [rows]
 * @returns {string[][]}
 */
export function parse(text, rows) {
  /** @type {string[][]} */
  const records = [];
  /** @type {string[]} */
  let record = [];
  let field = "";
  let quoted = false;
  let sheetRow = 1;
  let start = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endField = () => {
    record.push(field);
    field = "";
  };
  const endRecord = () => {
    endField();
    if (record.some((cell) => cell.trim() !== "")) {
      records.push(record);
      if (rows) rows.push(start);
    }
    record = [];
    sheetRow += 1;
    start = sheetRow;
  };
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c === '"' && field === "") {
      quoted = true;
    } else if (c === ",") {
      endField();
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRecord();
    } else {
      field += c;
    }
  }
  if (field !== "" || record.length) endRecord();
  return records;
}

/** The UTF-8 byte order mark every CSV file the console writes starts with:
 * Excel then reads it as UTF-8 ("São Paulo", not "SÃ£o Paulo"); equip's
 * upload skips it. */
export const BOM = "\uFEFF";

/** @param {unknown} value */
function cell(value) {
  const v = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(v) || v !== v.trim() ? `"${v.replaceAll('"', '""')}"` : v;
}

/// CSV text of `records` (CRLF line ends).
export function format(records) {
  return `${records.map((r) => r.map(cell).join(",")).join("\r\n")}\r\n`;
}

/// A text for a spreadsheet cell that a spreadsheet will not run as a formula.
export function inert(value) {
  const v = String(value ?? "");
  return /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
}
