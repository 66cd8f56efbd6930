//! The CSV upload (`equip_scim::csv`): any bytes are refused as a whole with
//! a `CsvError` other than `Malformed` (documented as unreachable for
//! in-memory input), or accepted; an accepted upload yields exactly `rows()`
//! rows, numbered as a spreadsheet numbers them (`row-2` at the earliest: the
//! header is row 1) and increasing, each either a `RowError` with a
//! 400/404 status or an operation that the Bulk reader accepts (all of them
//! together form a valid BulkRequest), whose `data` reads back as a user
//! whose `userName` is its first email, and whose method matches its path.
#![no_main]

use chrono::Utc;
use equip_domain::ids::{OrganizationId, PersonId};
use equip_scim::bulk::{BulkMethod, BulkOperation, BulkRequest, BulkTarget};
use equip_scim::csv::{CsvError, CsvRow, CsvUpload};
use equip_scim::user::ScimUser;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

const PACKAGE: &str = "9d8c7b6a-5f4e-4d3c-8b2a-1a0f9e8d7c6b";

fuzz_target!(|data: &[u8]| {
    let upload = match CsvUpload::parse(data) {
        Ok(upload) => upload,
        Err(CsvError::Malformed(e)) => panic!("the CSV reader failed on in-memory input: {e}"),
        Err(CsvError::NotUtf8 { byte, .. }) => {
            assert!(byte < data.len(), "invalid byte {byte} past the end");
            assert!(std::str::from_utf8(data).is_err());
            return;
        }
        Err(_) => return,
    };
    let packages = |slug: &str| (slug == "laptop-basic").then(|| PACKAGE.to_owned());
    let mut operations = Vec::new();
    let mut n = 0;
    let mut last_row = 1;
    for row in upload.operations(packages) {
        n += 1;
        let sheet_row: usize = row
            .bulk_id()
            .strip_prefix("row-")
            .and_then(|r| r.parse().ok())
            .unwrap_or_else(|| panic!("bulkId {:?} is not row-<n>", row.bulk_id()));
        assert!(sheet_row > last_row, "row {sheet_row} after row {last_row}");
        last_row = sheet_row;
        match row {
            CsvRow::Invalid(err) => {
                assert_eq!(err.row, sheet_row);
                assert!(matches!(err.status, 400 | 404), "{err:?}");
                assert!(
                    err.detail.starts_with(&format!("row {sheet_row}")),
                    "{err:?}"
                );
            }
            CsvRow::Operation(op) => {
                let user: ScimUser = serde_json::from_value(op.data.clone())
                    .unwrap_or_else(|e| panic!("row {n}'s data is not a user: {e}"));
                let user_name = user.user_name.clone().unwrap_or_default();
                assert!(!user_name.is_empty() && user_name.trim() == user_name);
                assert_eq!(
                    user.emails.first().and_then(|e| e.value.as_ref()),
                    Some(&user_name)
                );
                let json = op.into_json();
                let parsed = BulkOperation::from_json(n - 1, json.clone())
                    .unwrap_or_else(|e| panic!("row {n}'s operation is refused: {e}"));
                match (parsed.method, BulkTarget::parse(&parsed.path)) {
                    (BulkMethod::Post, Some(BulkTarget::Users)) => assert!(user.id.is_none()),
                    (BulkMethod::Put, Some(BulkTarget::User(id))) => {
                        assert_eq!(user.id.as_deref(), Some(id));
                    }
                    other => panic!("row {n}: {other:?}"),
                }
                // What running the operation does first; it may refuse, not panic.
                let _ = user.into_person(OrganizationId::new(), PersonId::new(), Utc::now());
                operations.push(json);
            }
        }
    }
    assert_eq!(n, upload.rows(), "rows() and the rows yielded differ");
    if operations.len() <= equip_scim::bulk::MAX_OPERATIONS {
        let request = json!({
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
            "Operations": Value::Array(operations),
        });
        if let Err(e) = BulkRequest::parse(request) {
            panic!("the rows' operations are not a valid BulkRequest: {e}");
        }
    }
});
