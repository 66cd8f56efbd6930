// @ts-check
// CSV as equip's upload reads it (RFC 4180: quoted fields may hold commas,
// quotes and line breaks; a quote inside an unquoted field is text; CRLF or
// LF; an optional UTF-8 BOM; rows whose cells are all blank are skipped and
// not numbered), so the console can give back the very rows that failed.

/// The records of `text`, blank rows dropped: [header, row 1, row 2, …].
export function parse(text) {
  const records = [];
  let record = [];
  let field = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endField = () => {
    record.push(field);
    field = "";
  };
  const endRecord = () => {
    endField();
    if (record.some((cell) => cell.trim() !== "")) records.push(record);
    record = [];
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
