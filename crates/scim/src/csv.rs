//! The CSV upload of `POST /scim/v2/Users/csv` (docs/scim.md, "CSV upload"),
//! turned into SCIM Bulk operations. Pure: no I/O, no storage.
//!
//! Over 500 lines on purpose: a third of it is the column-by-column reference
//! of the upload below, and the checking pass and the converting pass share
//! one reader.
//!
//! # Use
//!
//! ```
//! use equip_scim::csv::{CsvRow, CsvUpload};
//!
//! let file = "id,forename,surname,email,secondary_email,package_slug,address_line_1,\
//!             addressLine2,state/region,city_code,country_code,postal_code,phone_number,\
//!             send_activation_email,cpf_number\n\
//!             ,Ana,Lima,ana@acme.example,,,,,,,,,,,\n";
//! let upload = CsvUpload::parse(file.as_bytes())?; // header, UTF-8 and row-count checks
//! assert_eq!(upload.rows(), 1);
//! let packages = |_slug: &str| None; // slug → package id, loaded once per organization
//! for row in upload.operations(packages) {
//!     match row {
//!         CsvRow::Operation(op) => assert_eq!(op.bulk_id, "row-2"), // the header is row 1
//!         CsvRow::Invalid(err) => panic!("{err}"),
//!     }
//! }
//! # Ok::<(), equip_scim::csv::CsvError>(())
//! ```
//!
//! [`CsvUpload::parse`] checks the whole file in one cheap pass before any row
//! is handed out: at most [`MAX_CSV_BYTES`], UTF-8 only ([`CsvError::NotUtf8`]
//! says at which byte, line and row), an optional UTF-8 BOM, the header row
//! ([`COLUMNS`], in order, optionally followed by [`START_DATE`]; names
//! compared case-insensitively, surrounding spaces ignored; otherwise
//! [`CsvError::Header`] naming every unknown, missing and repeated column at
//! once, or, when each is there once, every column out of its place), and at most [`MAX_CSV_ROWS`] data rows ([`CsvError::TooManyRows`],
//! 413). [`CsvUpload::operations`] then reads the file a second time and yields
//! one [`CsvRow`] per data row, lazily: memory stays bounded by one record and
//! one user, whatever the file size, and the caller takes the rows in chunks of
//! the Bulk limit (`iter.by_ref().take(1000)`).
//!
//! Reading: RFC 4180 (double quotes, `""` inside quotes, commas and line breaks
//! inside quoted fields), CRLF, LF or CR line ends. Every cell is trimmed of
//! surrounding whitespace, and an empty cell is absent. Empty lines and rows
//! whose cells are all empty (what spreadsheets export below the data) are
//! skipped. Rows are numbered as a spreadsheet shows the file: the header is
//! row 1 (so the first data row is row 2), a skipped blank row still has its
//! number, and a line break inside a quoted cell does not start a row:
//! `row-<n>` and "row n" name the row a person finds in their spreadsheet.
//!
//! # From a row to a Bulk operation
//!
//! Row n becomes `{"method":"PUT","bulkId":"row-n","path":"/Users/<id>","data":<User>}`
//! when `id` holds a UUID, else `{"method":"POST","bulkId":"row-n","path":"/Users","data":<User>}`.
//! The User (the shape [`crate::user::ScimUser`] reads) has:
//!
//! | column | User attribute |
//! |---|---|
//! | `id` | `id` (PUT only) and the path |
//! | `email` (required) | `userName`, and `emails[0]` `{value, type: "work", primary: true}` |
//! | `secondary_email` | `emails[1]` `{value, type: "other", primary: false}`; left out when it equals `email` (case-insensitively) |
//! | `forename`, `surname` | `name.givenName`, `name.familyName` |
//! | `address_line_1`, `addressLine2` | `addresses[0].streetAddress`: the two lines joined by a line break; line breaks inside a cell are kept (CRLF becomes LF) |
//! | `state/region`, `city_code`, `country_code`, `postal_code` | `addresses[0].region`, `.locality`, `.country`, `.postalCode` |
//! | `phone_number` | `phoneNumbers[0]` `{value, primary: true}` (no type: the file does not say) |
//! | `package_slug` | extension `packageId`, through the caller's slug resolver |
//! | `send_activation_email` | extension `skipUserActivation`: `true`/`yes` → `false`, `false`/`no` → `true`, `null`/empty → not set (case-insensitive) |
//! | `cpf_number` | extension `cpfNumber` |
//! | `start_date` (optional 16th column) | extension `startDate` (`YYYY-MM-DD`): the first working day, which a new-joiner reminder needs |
//!
//! The address, present only when one of its six columns is not empty, has
//! `type` `"home"` and `primary` `true`: the address in an equipment roster is
//! where the equipment is shipped to, and `home` is the type identity providers
//! send for it. `active` is not set, so it takes its default (`true`), also for a PUT.
//!
//! # Rows that fail alone
//!
//! A row that cannot be converted becomes [`CsvRow::Invalid`] with a
//! [`RowError`] naming the column; the other rows still convert:
//!
//! | problem | status | `scimType` |
//! |---|---|---|
//! | not as many fields as the header (15, or 16 with `start_date`) | 400 | `invalidSyntax` |
//! | `id` not a UUID | 400 | `invalidValue` |
//! | `email` empty | 400 | `invalidValue` |
//! | `package_slug` unknown to the resolver | 404 (as the single-user endpoints answer a `packageId` outside the organization) | none |
//! | `send_activation_email` not one of the accepted words | 400 | `invalidValue` |
//! | `country_code` `BR` (any case) and `cpf_number` empty | 400 | `invalidValue` |
//! | `start_date` not a date `YYYY-MM-DD` | 400 | `invalidValue` |
//!
//! Only these are checked here; everything else (an email that does not look
//! like one, CPF check digits, uniqueness) is checked by the domain when the
//! operation runs, exactly as for a single `POST`/`PUT`. In particular two
//! rows with the same email both convert (with their own bulkIds); when they
//! run, the store answers the second with 409 `uniqueness` (a create) or
//! applies both in order (replaces of the same id).

use crate::user::{ScimAddress, ScimEmail, ScimName, ScimPhoneNumber, ScimUser, ScimUserExtension};
use ::csv::{ReaderBuilder, StringRecord};
use chrono::NaiveDate;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::error::{ScimErrorBody, ScimType};
use crate::schemas;

/// Largest accepted upload, in bytes (10 MiB; docs/scim.md, "CSV upload").
pub const MAX_CSV_BYTES: usize = 10 * 1024 * 1024;

/// Largest accepted number of data rows (docs/scim.md, "CSV upload").
pub const MAX_CSV_ROWS: usize = 50_000;

/// The header row's columns, in order (docs/scim.md, "CSV upload"); a 16th,
/// [`START_DATE`], may follow them.
pub const COLUMNS: [&str; 15] = [
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
];

/// The optional column after [`COLUMNS`]: the first working day, `YYYY-MM-DD`.
pub const START_DATE: &str = "start_date";

/// Every column a header may have: [`COLUMNS`], then [`START_DATE`].
const ALL_COLUMNS: [&str; 16] = [
    COLUMNS[0],
    COLUMNS[1],
    COLUMNS[2],
    COLUMNS[3],
    COLUMNS[4],
    COLUMNS[5],
    COLUMNS[6],
    COLUMNS[7],
    COLUMNS[8],
    COLUMNS[9],
    COLUMNS[10],
    COLUMNS[11],
    COLUMNS[12],
    COLUMNS[13],
    COLUMNS[14],
    START_DATE,
];

const ID: usize = 0;
const FORENAME: usize = 1;
const SURNAME: usize = 2;
const EMAIL: usize = 3;
const SECONDARY_EMAIL: usize = 4;
const PACKAGE_SLUG: usize = 5;
const ADDRESS_LINE_1: usize = 6;
const ADDRESS_LINE_2: usize = 7;
const REGION: usize = 8;
const CITY_CODE: usize = 9;
const COUNTRY_CODE: usize = 10;
const POSTAL_CODE: usize = 11;
const PHONE_NUMBER: usize = 12;
const SEND_ACTIVATION_EMAIL: usize = 13;
const CPF_NUMBER: usize = 14;
const START_DATE_CELL: usize = 15;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Why a whole upload is refused (nothing of it runs).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CsvError {
    /// The file is larger than [`MAX_CSV_BYTES`] (413).
    #[error("the file has {bytes} bytes; at most {max} are accepted")]
    TooLarge {
        /// Size of the upload.
        bytes: usize,
        /// [`MAX_CSV_BYTES`].
        max: usize,
    },
    /// The file is not UTF-8 (400).
    #[error("{}", not_utf8_message(*.byte, *.line, *.row))]
    NotUtf8 {
        /// Offset of the first invalid byte in the upload (0-based, a BOM included).
        byte: usize,
        /// Line of the file holding it (1-based).
        line: usize,
        /// Spreadsheet row holding it (the header is row 1, as in `row-<n>`); `None` for the header.
        row: Option<usize>,
    },
    /// The file is empty: no header row (400).
    #[error("the file is empty; its first row must be the header: {}", COLUMNS.join(","))]
    MissingHeader,
    /// The header row is not [`COLUMNS`], optionally followed by
    /// [`START_DATE`] (400): everything wrong with it, in one answer.
    #[error("{}", header_message(problems))]
    Header {
        /// Every unknown, missing and repeated column; when there is none of
        /// those, every column out of its place. Never empty.
        problems: Vec<HeaderProblem>,
    },
    /// More than [`MAX_CSV_ROWS`] data rows (413).
    #[error("the file has {rows} data rows; at most {max} are accepted")]
    TooManyRows {
        /// Data rows in the file.
        rows: usize,
        /// [`MAX_CSV_ROWS`].
        max: usize,
    },
    /// The CSV reader failed (400). Not expected for in-memory input: the
    /// reader accepts any byte sequence.
    #[error("the file cannot be read as CSV: {0}")]
    Malformed(String),
}

fn not_utf8_message(byte: usize, line: usize, row: Option<usize>) -> String {
    let place = match row {
        Some(n) => format!("row {n}"),
        None => "the header row".to_owned(),
    };
    format!("the file is not UTF-8: invalid byte at offset {byte} (line {line}, {place}); save it as CSV UTF-8")
}

/// One thing wrong with the header row (spreadsheet columns are 1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderProblem {
    /// A name that is none of the columns (trimmed; empty for a column without a name).
    Unknown {
        /// Its column.
        position: usize,
        /// The name found there.
        found: String,
    },
    /// A required column (one of [`COLUMNS`]) the header does not have.
    Missing {
        /// The column's name.
        column: &'static str,
    },
    /// A column named more than once.
    Repeated {
        /// The column's name.
        column: &'static str,
        /// Every column holding it.
        positions: Vec<usize>,
    },
    /// Every column is there once, but this one is not in its place.
    OutOfPlace {
        /// Its column.
        position: usize,
        /// The column that belongs there.
        expected: &'static str,
        /// The column found there.
        found: &'static str,
    },
}

impl std::fmt::Display for HeaderProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unknown { position, found } if found.is_empty() => {
                write!(f, "column {position} has no name")
            }
            Self::Unknown { position, found } => {
                write!(
                    f,
                    "column {position}, {found:?}, is not a column equip reads"
                )
            }
            Self::Missing { column } => write!(f, "the column {column:?} is missing"),
            Self::Repeated { column, positions } => {
                let at: Vec<String> = positions.iter().map(ToString::to_string).collect();
                write!(
                    f,
                    "the column {column:?} appears more than once (columns {})",
                    at.join(", ")
                )
            }
            Self::OutOfPlace {
                position,
                expected,
                found,
            } => write!(f, "column {position} must be {expected:?}, not {found:?}"),
        }
    }
}

fn header_message(problems: &[HeaderProblem]) -> String {
    let said: Vec<String> = problems.iter().map(ToString::to_string).collect();
    format!(
        "the header row (row 1) is not the one equip reads: {}. The columns are, in this order: {} (and, optionally, {START_DATE} last)",
        said.join("; "),
        COLUMNS.join(",")
    )
}

impl CsvError {
    /// The HTTP status to answer: 413 for [`CsvError::TooLarge`] and
    /// [`CsvError::TooManyRows`], 400 otherwise.
    #[must_use]
    pub const fn status(&self) -> u16 {
        match self {
            Self::TooLarge { .. } | Self::TooManyRows { .. } => 413,
            _ => 400,
        }
    }

    /// The `scimType`: `invalidSyntax` for a 400, none for a 413.
    #[must_use]
    pub const fn scim_type(&self) -> Option<ScimType> {
        match self {
            Self::TooLarge { .. } | Self::TooManyRows { .. } => None,
            _ => Some(ScimType::InvalidSyntax),
        }
    }

    /// The RFC 7644 error body for this error.
    #[must_use]
    pub fn error_body(&self) -> ScimErrorBody {
        ScimErrorBody::new(self.status(), self.scim_type(), self.to_string())
    }
}

/// An upload refused whole: 400 / 413 about `file`.
impl From<CsvError> for crate::error::ScimError {
    fn from(e: CsvError) -> Self {
        let err = Self::new(e.status(), "file", e.to_string());
        match e.scim_type() {
            Some(t) => err.with_scim_type(t),
            None => err,
        }
    }
}

/// A data row that cannot become an operation. It fails alone: the handler
/// answers it in the BulkResponse as the operation it would have been.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct RowError {
    /// `row-<n>`.
    pub bulk_id: String,
    /// n: the row as a spreadsheet numbers it (the header is row 1, the first data row 2).
    pub row: usize,
    /// The column at fault (one of [`COLUMNS`]); `None` for a wrong field count.
    pub column: Option<&'static str>,
    /// The method the row would have had: `PUT` when `id` is a UUID, else `POST`.
    pub method: &'static str,
    /// The path it would have had: `/Users/<id>` or `/Users`.
    pub path: String,
    /// HTTP status: 400, or 404 for an unknown package slug.
    pub status: u16,
    /// `invalidValue`, `invalidSyntax` for a wrong field count, none with 404.
    pub scim_type: Option<ScimType>,
    /// Says the row and the column, e.g. `row 3, column package_slug: no package with slug "x"`.
    pub detail: String,
}

impl RowError {
    /// The RFC 7644 error body for this row (the `response` of its BulkResponse entry).
    #[must_use]
    pub fn error_body(&self) -> ScimErrorBody {
        ScimErrorBody::new(self.status, self.scim_type, self.detail.clone())
    }
}

/// One Bulk operation built from a data row.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvOperation {
    /// `row-<n>`.
    pub bulk_id: String,
    /// `POST` (no `id`) or `PUT`.
    pub method: &'static str,
    /// `/Users` or `/Users/<id>`.
    pub path: String,
    /// The User resource.
    pub data: Value,
}

impl CsvOperation {
    /// The operation as a BulkRequest `Operations` entry:
    /// `{"method","bulkId","path","data"}`.
    #[must_use]
    pub fn into_json(self) -> Value {
        json!({
            "method": self.method,
            "bulkId": self.bulk_id,
            "path": self.path,
            "data": self.data,
        })
    }
}

/// What one data row became.
#[derive(Debug, Clone, PartialEq)]
pub enum CsvRow {
    /// A Bulk operation to run.
    Operation(CsvOperation),
    /// A row that fails on its own.
    Invalid(RowError),
}

impl CsvRow {
    /// The row's `bulkId`, `row-<n>`.
    #[must_use]
    pub fn bulk_id(&self) -> &str {
        match self {
            Self::Operation(op) => &op.bulk_id,
            Self::Invalid(err) => &err.bulk_id,
        }
    }
}

/// A CSV upload whose size, encoding, header and row count have been checked.
/// Borrows the uploaded bytes; holds nothing else.
#[derive(Debug, Clone, Copy)]
pub struct CsvUpload<'a> {
    /// The file without its BOM; valid UTF-8.
    data: &'a [u8],
    /// Non-blank data rows.
    rows: usize,
    /// Columns of the header: 15, or 16 with [`START_DATE`].
    columns: usize,
}

impl<'a> CsvUpload<'a> {
    /// Checks `bytes` (the uploaded file) in one pass that keeps a single
    /// record in memory.
    ///
    /// # Errors
    /// [`CsvError::TooLarge`] past [`MAX_CSV_BYTES`], [`CsvError::NotUtf8`],
    /// [`CsvError::MissingHeader`] for an empty file, [`CsvError::Header`]
    /// naming the first wrong column, [`CsvError::TooManyRows`] past
    /// [`MAX_CSV_ROWS`].
    pub fn parse(bytes: &'a [u8]) -> Result<Self, CsvError> {
        if bytes.len() > MAX_CSV_BYTES {
            return Err(CsvError::TooLarge {
                bytes: bytes.len(),
                max: MAX_CSV_BYTES,
            });
        }
        // csv-core skips a leading BOM as well; taking it off here keeps
        // `data` BOM-free whatever reads it, and the offsets exact.
        let (data, bom) = match bytes.strip_prefix(BOM) {
            Some(rest) => (rest, BOM.len()),
            None => (bytes, 0),
        };
        if let Err(e) = std::str::from_utf8(data) {
            return Err(not_utf8(data, e.valid_up_to(), bom));
        }
        let mut reader = reader(data);
        let mut record = StringRecord::new();
        if !next_non_blank(&mut reader, &mut record)? {
            return Err(CsvError::MissingHeader);
        }
        let columns = check_header(&record)?;
        let mut rows = 0;
        while next_non_blank(&mut reader, &mut record)? {
            rows += 1;
        }
        if rows > MAX_CSV_ROWS {
            return Err(CsvError::TooManyRows {
                rows,
                max: MAX_CSV_ROWS,
            });
        }
        Ok(Self {
            data,
            rows,
            columns,
        })
    }

    /// The number of data rows: as many as [`CsvUpload::operations`] yields.
    #[must_use]
    pub const fn rows(&self) -> usize {
        self.rows
    }

    /// The rows as Bulk operations, in file order, converted one at a time
    /// as the iterator advances. `packages` resolves a `package_slug` (trimmed)
    /// to the package id of the caller's organization, e.g.
    /// `|slug| by_slug.get(slug).cloned()` over a map loaded once.
    pub fn operations<F>(&self, packages: F) -> CsvOperations<'a, F>
    where
        F: Fn(&str) -> Option<String>,
    {
        let mut reader = reader(self.data);
        let mut record = StringRecord::new();
        let mut sheet = SheetRows::default();
        // The header, checked by `parse`.
        if let Ok(true) = next_non_blank(&mut reader, &mut record) {
            sheet.row_at(self.data, record_start(&record));
        }
        CsvOperations {
            reader,
            record,
            data: self.data,
            sheet,
            row: sheet.row,
            yielded: 0,
            rows: self.rows,
            columns: self.columns,
            packages,
            failed: false,
        }
    }
}

/// The iterator of [`CsvUpload::operations`]: one [`CsvRow`] per data row.
pub struct CsvOperations<'a, F> {
    reader: ::csv::Reader<&'a [u8]>,
    record: StringRecord,
    /// The file, to number its rows as a spreadsheet does.
    data: &'a [u8],
    sheet: SheetRows,
    /// The spreadsheet row of the last record read.
    row: usize,
    /// Data rows handed out.
    yielded: usize,
    rows: usize,
    columns: usize,
    packages: F,
    failed: bool,
}

impl<F> std::fmt::Debug for CsvOperations<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvOperations")
            .field("row", &self.row)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl<F> Iterator for CsvOperations<'_, F>
where
    F: Fn(&str) -> Option<String>,
{
    type Item = CsvRow;

    fn next(&mut self) -> Option<CsvRow> {
        if self.failed {
            return None;
        }
        match next_non_blank(&mut self.reader, &mut self.record) {
            Ok(false) => None,
            Ok(true) => {
                self.row = self.sheet.row_at(self.data, record_start(&self.record));
                self.yielded += 1;
                Some(convert(
                    self.row,
                    &self.record,
                    self.columns,
                    &self.packages,
                ))
            }
            Err(err) => {
                // Not reachable after `parse` read the same bytes; fail this row
                // and stop rather than loop.
                self.failed = true;
                self.row += 1;
                Some(CsvRow::Invalid(RowError {
                    bulk_id: format!("row-{}", self.row),
                    row: self.row,
                    column: None,
                    method: "POST",
                    path: "/Users".to_owned(),
                    status: 400,
                    scim_type: Some(ScimType::InvalidSyntax),
                    detail: format!("row {}: {err}", self.row),
                }))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = if self.failed {
            0
        } else {
            self.rows.saturating_sub(self.yielded)
        };
        (left, Some(left))
    }
}

/// Where `record` starts in the file (0 when the reader did not say).
fn record_start(record: &StringRecord) -> usize {
    record
        .position()
        .map_or(0, |p| usize::try_from(p.byte()).unwrap_or(usize::MAX))
}

/// Numbers records as a spreadsheet shows their rows: the line breaks
/// (LF, CRLF or CR) outside quoted cells before a record's start, plus one.
/// Asked in file order, it reads each byte once.
#[derive(Debug, Clone, Copy)]
struct SheetRows {
    /// Bytes counted so far (always the start of a line).
    offset: usize,
    /// The row at `offset`.
    row: usize,
}

impl Default for SheetRows {
    fn default() -> Self {
        Self { offset: 0, row: 1 }
    }
}

impl SheetRows {
    /// The row of the record starting at byte `start` (at or after the start
    /// of the last record asked about).
    fn row_at(&mut self, data: &[u8], start: usize) -> usize {
        let end = start.min(data.len());
        let mut quoted = false;
        let mut field_start = true;
        let mut i = self.offset;
        while i < end {
            let b = data.get(i).copied().unwrap_or(b'\n');
            let next = data.get(i + 1).copied();
            i += 1;
            if quoted {
                if b == b'"' {
                    if next == Some(b'"') {
                        i += 1;
                    } else {
                        quoted = false;
                    }
                }
                continue;
            }
            match b {
                b'"' if field_start => quoted = true,
                b',' => {
                    field_start = true;
                    continue;
                }
                b'\n' => {
                    self.row += 1;
                    field_start = true;
                    continue;
                }
                b'\r' => {
                    if next != Some(b'\n') {
                        self.row += 1;
                    }
                    field_start = true;
                    continue;
                }
                _ => {}
            }
            field_start = false;
        }
        // A record never starts with a line break: any at `start` are blank
        // lines the reader skipped before it.
        while let Some(&b) = data.get(i) {
            match b {
                b'\n' => self.row += 1,
                b'\r' if data.get(i + 1) != Some(&b'\n') => self.row += 1,
                b'\r' => {}
                _ => break,
            }
            i += 1;
        }
        self.offset = i;
        self.row
    }
}

fn reader(data: &[u8]) -> ::csv::Reader<&[u8]> {
    ReaderBuilder::new()
        .has_headers(false)
        // Rows with the wrong number of fields fail alone, not the file.
        .flexible(true)
        .from_reader(data)
}

/// Reads the next record that has a non-empty cell; `false` at the end.
fn next_non_blank(
    reader: &mut ::csv::Reader<&[u8]>,
    record: &mut StringRecord,
) -> Result<bool, CsvError> {
    loop {
        if !reader
            .read_record(record)
            .map_err(|e| CsvError::Malformed(e.to_string()))?
        {
            return Ok(false);
        }
        if record.iter().any(|cell| !cell.trim().is_empty()) {
            return Ok(true);
        }
    }
}

/// Checks the header row; the number of its columns (15, or 16 with
/// [`START_DATE`]). Every problem is said at once.
fn check_header(record: &StringRecord) -> Result<usize, CsvError> {
    let names: Vec<&str> = record.iter().map(str::trim).collect();
    let column_of = |name: &str| {
        ALL_COLUMNS
            .iter()
            .copied()
            .find(|c| c.eq_ignore_ascii_case(name))
    };
    let mut problems = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if column_of(name).is_none() {
            problems.push(HeaderProblem::Unknown {
                position: i + 1,
                found: (*name).to_owned(),
            });
        }
    }
    for column in ALL_COLUMNS {
        let positions: Vec<usize> = names
            .iter()
            .enumerate()
            .filter(|(_, name)| name.eq_ignore_ascii_case(column))
            .map(|(i, _)| i + 1)
            .collect();
        if positions.len() > 1 {
            problems.push(HeaderProblem::Repeated { column, positions });
        } else if positions.is_empty() && column != START_DATE {
            problems.push(HeaderProblem::Missing { column });
        }
    }
    if problems.is_empty() {
        // Each column is there once: each must be in its place.
        for (i, name) in names.iter().enumerate() {
            let (Some(expected), Some(found)) = (ALL_COLUMNS.get(i), column_of(name)) else {
                continue;
            };
            if *expected != found {
                problems.push(HeaderProblem::OutOfPlace {
                    position: i + 1,
                    expected,
                    found,
                });
            }
        }
    }
    if problems.is_empty() {
        Ok(names.len())
    } else {
        Err(CsvError::Header { problems })
    }
}

/// Locates the invalid byte at `offset` of `data` (the file after a BOM of
/// `bom` bytes): its line, and the record holding it.
fn not_utf8(data: &[u8], offset: usize, bom: usize) -> CsvError {
    let prefix = data.get(..offset).unwrap_or(data);
    let line = 1 + prefix.iter().filter(|&&b| b == b'\n').count();
    // Count the records that start at or before the bad byte (byte records:
    // the reader itself does not care about UTF-8 there).
    let mut reader = reader(data);
    let mut record = ::csv::ByteRecord::new();
    let mut started = 0usize; // non-blank records started at or before `offset`
    let mut sheet = SheetRows::default();
    let mut row = 1;
    while let Ok(true) = reader.read_byte_record(&mut record) {
        let start = record
            .position()
            .map_or(0, |p| usize::try_from(p.byte()).unwrap_or(usize::MAX));
        if start > offset {
            break;
        }
        if record.iter().any(|cell| !cell.trim_ascii().is_empty()) {
            started += 1;
            row = sheet.row_at(data, start);
        }
    }
    CsvError::NotUtf8 {
        byte: bom + offset,
        line,
        // The first non-blank record is the header; the invalid byte is not
        // blank, so its record counts.
        row: (started > 1).then_some(row),
    }
}

/// `send_activation_email` → `skipUserActivation`: `Ok(None)` when not set.
fn skip_user_activation(raw: Option<&str>) -> Result<Option<bool>, ()> {
    let Some(raw) = raw else { return Ok(None) };
    match raw.to_ascii_lowercase().as_str() {
        "true" | "yes" => Ok(Some(false)),
        "false" | "no" => Ok(Some(true)),
        "null" => Ok(None),
        _ => Err(()),
    }
}

/// `address_line_1` and `addressLine2` as one `streetAddress`, line breaks kept
/// (CRLF and CR as LF).
fn street_address(line1: Option<&str>, line2: Option<&str>) -> Option<String> {
    let joined = match (line1, line2) {
        (Some(a), Some(b)) => format!("{a}\n{b}"),
        (Some(a), None) | (None, Some(a)) => a.to_owned(),
        (None, None) => return None,
    };
    Some(joined.replace("\r\n", "\n").replace('\r', "\n"))
}

fn convert<F>(row: usize, record: &StringRecord, columns: usize, packages: &F) -> CsvRow
where
    F: Fn(&str) -> Option<String>,
{
    let bulk_id = format!("row-{row}");
    let fail = |column: Option<&'static str>,
                method: &'static str,
                path: String,
                status: u16,
                scim_type: Option<ScimType>,
                message: String| {
        let detail = match column {
            Some(column) => format!("row {row}, column {column}: {message}"),
            None => format!("row {row}: {message}"),
        };
        CsvRow::Invalid(RowError {
            bulk_id: bulk_id.clone(),
            row,
            column,
            method,
            path,
            status,
            scim_type,
            detail,
        })
    };
    if record.len() != columns {
        return fail(
            None,
            "POST",
            "/Users".to_owned(),
            400,
            Some(ScimType::InvalidSyntax),
            format!(
                "expected {columns} fields (the header's columns), found {}",
                record.len()
            ),
        );
    }
    let cell = |i: usize| record.get(i).map(str::trim).filter(|c| !c.is_empty());

    let id = match cell(ID) {
        None => None,
        Some(raw) => match Uuid::parse_str(raw) {
            Ok(id) => Some(id.to_string()),
            Err(_) => {
                return fail(
                    Some(COLUMNS[ID]),
                    "POST",
                    "/Users".to_owned(),
                    400,
                    Some(ScimType::InvalidValue),
                    format!("{raw:?} is not a UUID"),
                )
            }
        },
    };
    let (method, path) = match &id {
        Some(id) => ("PUT", format!("/Users/{id}")),
        None => ("POST", "/Users".to_owned()),
    };
    let invalid = |column: usize, message: String| {
        fail(
            Some(ALL_COLUMNS[column]),
            method,
            path.clone(),
            400,
            Some(ScimType::InvalidValue),
            message,
        )
    };

    let Some(email) = cell(EMAIL) else {
        return invalid(EMAIL, "required (it is the user's userName)".to_owned());
    };
    let package_id = match cell(PACKAGE_SLUG) {
        None => None,
        Some(slug) => match packages(slug) {
            Some(id) => Some(id),
            None => {
                return fail(
                    Some(COLUMNS[PACKAGE_SLUG]),
                    method,
                    path.clone(),
                    404,
                    None,
                    format!("no package with slug {slug:?}"),
                )
            }
        },
    };
    let Ok(skip_user_activation) = skip_user_activation(cell(SEND_ACTIVATION_EMAIL)) else {
        return invalid(
            SEND_ACTIVATION_EMAIL,
            format!(
                "{:?} is not one of true, false, yes, no, null",
                cell(SEND_ACTIVATION_EMAIL).unwrap_or_default()
            ),
        );
    };
    let country = cell(COUNTRY_CODE);
    let cpf_number = cell(CPF_NUMBER);
    if cpf_number.is_none() && country.is_some_and(|c| c.eq_ignore_ascii_case("BR")) {
        return invalid(
            CPF_NUMBER,
            "required for users in Brazil (country_code BR)".to_owned(),
        );
    }

    let start_date = match cell(START_DATE_CELL) {
        None => None,
        Some(raw) => match NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
            Ok(date) => Some(date.format("%Y-%m-%d").to_string()),
            Err(_) => {
                return invalid(
                    START_DATE_CELL,
                    format!("{raw:?} is not a date of the form YYYY-MM-DD"),
                )
            }
        },
    };

    let extension = ScimUserExtension {
        package_id,
        start_date,
        skip_user_activation,
        cpf_number: cpf_number.map(str::to_owned),
        ..ScimUserExtension::default()
    };
    let user = user_of_row(&cell, id, email, extension);
    match serde_json::to_value(&user) {
        Ok(data) => CsvRow::Operation(CsvOperation {
            bulk_id: bulk_id.clone(),
            method,
            path,
            data,
        }),
        // Strings and booleans always serialize; kept as a row failure rather than a panic.
        Err(e) => fail(
            None,
            method,
            path.clone(),
            500,
            None,
            format!("cannot build the user: {e}"),
        ),
    }
}

/// The User of a row whose checks passed; `cell(i)` is the trimmed, non-empty
/// cell `i`. Built as the [`ScimUser`] the single-user endpoints read, so the
/// operation's data has exactly their shape.
fn user_of_row<'r>(
    cell: &impl Fn(usize) -> Option<&'r str>,
    id: Option<String>,
    email: &'r str,
    extension: ScimUserExtension,
) -> ScimUser {
    let owned = |i: usize| cell(i).map(str::to_owned);
    let mut emails = vec![ScimEmail {
        value: Some(email.to_owned()),
        kind: Some("work".to_owned()),
        primary: Some(true),
    }];
    if let Some(secondary) = cell(SECONDARY_EMAIL).filter(|s| !s.eq_ignore_ascii_case(email)) {
        emails.push(ScimEmail {
            value: Some(secondary.to_owned()),
            kind: Some("other".to_owned()),
            primary: Some(false),
        });
    }
    let (given_name, family_name) = (owned(FORENAME), owned(SURNAME));
    let name = (given_name.is_some() || family_name.is_some()).then_some(ScimName {
        given_name,
        family_name,
        ..ScimName::default()
    });
    let has_address = [
        ADDRESS_LINE_1,
        ADDRESS_LINE_2,
        REGION,
        CITY_CODE,
        COUNTRY_CODE,
        POSTAL_CODE,
    ]
    .into_iter()
    .any(|i| cell(i).is_some());
    let addresses = if has_address {
        vec![ScimAddress {
            kind: Some("home".to_owned()),
            primary: Some(true),
            street_address: street_address(cell(ADDRESS_LINE_1), cell(ADDRESS_LINE_2)),
            locality: owned(CITY_CODE),
            region: owned(REGION),
            postal_code: owned(POSTAL_CODE),
            country: owned(COUNTRY_CODE),
        }]
    } else {
        Vec::new()
    };
    let phone_numbers = owned(PHONE_NUMBER)
        .map(|value| ScimPhoneNumber {
            value: Some(value),
            kind: None,
            primary: Some(true),
        })
        .into_iter()
        .collect();
    let empty_extension = extension == ScimUserExtension::default();
    ScimUser {
        schemas: vec![
            schemas::USER.to_owned(),
            schemas::EQUIP_USER_EXTENSION.to_owned(),
        ],
        id,
        user_name: Some(email.to_owned()),
        name,
        emails,
        phone_numbers,
        addresses,
        extension: (!empty_extension).then_some(extension),
        ..ScimUser::default()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
