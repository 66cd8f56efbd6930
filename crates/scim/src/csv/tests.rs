use super::*;
use std::collections::HashMap;

const HEADER: &str = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number";
const PACKAGE: &str = "9d8c7b6a-5f4e-4d3c-8b2a-1a0f9e8d7c6b";
const USER_ID: &str = "6f1c2f4e-8d1b-4a53-9a43-3c1c8a0f4b11";

fn packages() -> HashMap<String, String> {
    HashMap::from([("laptop-basic".to_owned(), PACKAGE.to_owned())])
}

/// All rows of `file`, with the `laptop-basic` package known.
fn rows_of(file: &[u8]) -> Vec<CsvRow> {
    let map = packages();
    let upload = CsvUpload::parse(file).expect("the file is accepted");
    let rows: Vec<CsvRow> = upload.operations(|s: &str| map.get(s).cloned()).collect();
    assert_eq!(rows.len(), upload.rows(), "rows() matches what is yielded");
    rows
}

fn file(rows: &[&str]) -> String {
    let mut text = format!("{HEADER}\n");
    for row in rows {
        text.push_str(row);
        text.push('\n');
    }
    text
}

fn op(row: &CsvRow) -> &CsvOperation {
    match row {
        CsvRow::Operation(op) => op,
        CsvRow::Invalid(err) => panic!("row failed: {err:?}"),
    }
}

fn invalid(row: &CsvRow) -> &RowError {
    match row {
        CsvRow::Invalid(err) => err,
        CsvRow::Operation(op) => panic!("row converted: {op:?}"),
    }
}

#[test]
fn plain_rows_become_posts_with_row_bulk_ids() {
    let text = file(&[
        ",João,Silva,joao@acme.example,joao@home.example,laptop-basic,\"Rua Augusta, 1500\",Apto 42,SP,São Paulo,BR,01304-001,+55 11 91234-5678,yes,529.982.247-25",
        ",Ana,Lima,ana@acme.example,,,,,,,,,,,",
    ]);
    let rows = rows_of(text.as_bytes());
    assert_eq!(rows.len(), 2);
    let first = op(&rows[0]).clone();
    assert_eq!(
        first.into_json(),
        json!({
            "method": "POST",
            "bulkId": "row-2",
            "path": "/Users",
            "data": {
                "schemas": [schemas::USER, schemas::EQUIP_USER_EXTENSION],
                "userName": "joao@acme.example",
                "name": {"givenName": "João", "familyName": "Silva"},
                "emails": [
                    {"value": "joao@acme.example", "type": "work", "primary": true},
                    {"value": "joao@home.example", "type": "other", "primary": false}
                ],
                "phoneNumbers": [{"value": "+55 11 91234-5678", "primary": true}],
                "addresses": [{
                    "type": "home", "primary": true,
                    "streetAddress": "Rua Augusta, 1500\nApto 42",
                    "locality": "São Paulo", "region": "SP",
                    "postalCode": "01304-001", "country": "BR"
                }],
                "urn:ietf:params:scim:schemas:extension:equip:1.0:User": {
                    "packageId": PACKAGE,
                    "skipUserActivation": false,
                    "cpfNumber": "529.982.247-25"
                }
            }
        })
    );
    let second = op(&rows[1]);
    assert_eq!((second.bulk_id.as_str(), second.method), ("row-3", "POST"));
    assert_eq!(
        second.data,
        json!({
            "schemas": [schemas::USER, schemas::EQUIP_USER_EXTENSION],
            "userName": "ana@acme.example",
            "name": {"givenName": "Ana", "familyName": "Lima"},
            "emails": [{"value": "ana@acme.example", "type": "work", "primary": true}]
        })
    );
}

#[test]
fn the_user_is_what_scim_user_reads_and_the_domain_accepts() {
    let text = file(&[
        &format!("{USER_ID},João,Silva,joao@acme.example,joao@home.example,laptop-basic,Rua Augusta 1500,Apto 42,SP,São Paulo,br,01304-001,+55 11 91234-5678,no,529.982.247-25"),
    ]);
    let rows = rows_of(text.as_bytes());
    let user: crate::user::ScimUser = serde_json::from_value(op(&rows[0]).data.clone()).unwrap();
    let org =
        equip_domain::ids::OrganizationId::parse("0b3c6a8e-1d5f-4a8e-9a0c-2f1e3d4c5b6a").unwrap();
    let id = equip_domain::ids::PersonId::parse(USER_ID).unwrap();
    let person = user.into_person(org, id, chrono::Utc::now()).unwrap();
    person.validate().unwrap();
    assert_eq!(person.user_name, "joao@acme.example");
    assert_eq!(person.emails.len(), 2);
    assert_eq!(person.skip_user_activation, Some(true));
    assert_eq!(
        person.package_id.map(|p| p.to_string()).as_deref(),
        Some(PACKAGE)
    );
    assert_eq!(
        person.addresses[0].street_address.as_deref(),
        Some("Rua Augusta 1500\nApto 42")
    );
    assert!(person.lives_in_brazil());
}

#[test]
fn an_id_makes_a_put_on_its_path() {
    let upper = USER_ID.to_uppercase();
    let text = file(&[
        &format!("{USER_ID},Ana,Lima,ana@acme.example,,,,,,,,,,,"),
        &format!("  {upper} ,Bia,Reis,bia@acme.example,,,,,,,,,,,"),
    ]);
    let rows = rows_of(text.as_bytes());
    let put = op(&rows[0]);
    assert_eq!(
        (put.bulk_id.as_str(), put.method, put.path.as_str()),
        ("row-2", "PUT", format!("/Users/{USER_ID}").as_str())
    );
    assert_eq!(put.data["id"], USER_ID);
    let json = put.clone().into_json();
    assert_eq!(json["method"], "PUT");
    assert_eq!(json["bulkId"], "row-2");
    assert_eq!(json["path"], format!("/Users/{USER_ID}"));
    // Trimmed, and written in the canonical (lower-case) form.
    assert_eq!(op(&rows[1]).path, format!("/Users/{USER_ID}"));
    assert_eq!(op(&rows[1]).method, "PUT");
}

#[test]
fn a_bom_is_skipped() {
    let mut bytes = BOM.to_vec();
    bytes.extend_from_slice(file(&[",Ana,Lima,ana@acme.example,,,,,,,,,,,"]).as_bytes());
    let rows = rows_of(&bytes);
    assert_eq!(rows.len(), 1);
    assert_eq!(op(&rows[0]).data["userName"], "ana@acme.example");
    // Also before a quoted first cell (the BOM is taken off before the
    // CSV reader sees it, so the quote opens the cell).
    let mut quoted = BOM.to_vec();
    quoted.extend_from_slice(b"\"id\"");
    quoted.extend_from_slice(HEADER.trim_start_matches("id").as_bytes());
    quoted.extend_from_slice(b"\r\n,Ana,Lima,ana@acme.example,,,,,,,,,,,\r\n");
    assert_eq!(rows_of(&quoted), rows);
}

#[test]
fn crlf_lf_and_cr_line_ends_read_the_same() {
    let lf = file(&[
        ",Ana,Lima,ana@acme.example,,,,,,,,,,,",
        ",Bia,Reis,bia@acme.example,,,,,,,,,,,",
    ]);
    let crlf = lf.replace('\n', "\r\n");
    let cr = lf.replace('\n', "\r");
    let no_final_newline = lf.trim_end().to_owned();
    let expected = rows_of(lf.as_bytes());
    assert_eq!(expected.len(), 2);
    assert_eq!(rows_of(crlf.as_bytes()), expected);
    assert_eq!(rows_of(cr.as_bytes()), expected);
    assert_eq!(rows_of(no_final_newline.as_bytes()), expected);
    assert_eq!(op(&expected[1]).data["name"]["familyName"], "Reis");
}

#[test]
fn quoted_commas_and_quotes_stay_in_their_cell() {
    let text = file(&[
        ",\"Ana, Maria\",\"O\"\"Brien\",ana@acme.example,,,\"Rua A, 10, fundos\",,,\"Rio de Janeiro, RJ\",,,,,",
    ]);
    let rows = rows_of(text.as_bytes());
    let data = &op(&rows[0]).data;
    assert_eq!(data["name"]["givenName"], "Ana, Maria");
    assert_eq!(data["name"]["familyName"], "O\"Brien");
    assert_eq!(data["addresses"][0]["streetAddress"], "Rua A, 10, fundos");
    assert_eq!(data["addresses"][0]["locality"], "Rio de Janeiro, RJ");
}

#[test]
fn line_breaks_inside_an_address_are_kept() {
    let lf = file(&[
        ",Ana,Lima,ana@acme.example,,,\"Rua Augusta, 1500\nBloco B\",\"Apto 42\",SP,São Paulo,BR,01304-001,,,529.982.247-25",
        ",Bia,Reis,bia@acme.example,,,,,,,,,,,",
    ]);
    let rows = rows_of(lf.as_bytes());
    assert_eq!(rows.len(), 2, "the quoted line break does not start a row");
    assert_eq!(
        op(&rows[0]).data["addresses"][0]["streetAddress"],
        "Rua Augusta, 1500\nBloco B\nApto 42"
    );
    assert_eq!(op(&rows[1]).bulk_id, "row-3");
    // A CRLF file (Excel) with a CRLF inside the quoted cell gives the same street.
    let crlf = lf.replace('\n', "\r\n");
    assert_eq!(rows_of(crlf.as_bytes()), rows);
}

#[test]
fn empty_trailing_columns_are_absent() {
    let text = file(&[",Ana,,ana@acme.example,, ,,,,,,, ,,"]);
    let rows = rows_of(text.as_bytes());
    let data = op(&rows[0]).data.as_object().unwrap().clone();
    let keys: Vec<&str> = data.keys().map(String::as_str).collect();
    assert_eq!(keys, ["emails", "name", "schemas", "userName"]);
    assert_eq!(data["name"], json!({"givenName": "Ana"}));
}

#[test]
fn an_address_appears_when_any_of_its_columns_is_set() {
    let text = file(&[
        ",Ana,Lima,ana@acme.example,,,,,,,,01304-001,,,",
        ",Bia,Reis,bia@acme.example,,,,,,,PT,,,,",
    ]);
    let rows = rows_of(text.as_bytes());
    assert_eq!(
        op(&rows[0]).data["addresses"],
        json!([{"type": "home", "primary": true, "postalCode": "01304-001"}])
    );
    assert_eq!(
        op(&rows[1]).data["addresses"],
        json!([{"type": "home", "primary": true, "country": "PT"}])
    );
}

fn header_problems(header: &str) -> Vec<HeaderProblem> {
    let text = format!("{header}\n,Ana,Lima,ana@acme.example,,,,,,,,,,,\n");
    match CsvUpload::parse(text.as_bytes()).unwrap_err() {
        CsvError::Header { problems } => problems,
        other => panic!("not a header error: {other:?}"),
    }
}

#[test]
fn a_wrong_header_names_each_wrong_column() {
    for k in 0..COLUMNS.len() {
        let mut names: Vec<&str> = COLUMNS.to_vec();
        names[k] = "nope";
        assert_eq!(
            header_problems(&names.join(",")),
            [
                HeaderProblem::Unknown {
                    position: k + 1,
                    found: "nope".to_owned()
                },
                HeaderProblem::Missing { column: COLUMNS[k] }
            ],
            "column {k}"
        );
    }
    // Two columns swapped: both are named, each with the one that belongs there.
    let swapped = HEADER.replace("forename,surname", "surname,forename");
    let err = CsvUpload::parse(swapped.as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the header row (row 1) is not the one equip reads: column 2 must be \"forename\", not \"surname\"; \
         column 3 must be \"surname\", not \"forename\". The columns are, in this order: \
         id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,\
         city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number (and, optionally, start_date last)"
    );
    assert_eq!(
        (err.status(), err.scim_type()),
        (400, Some(ScimType::InvalidSyntax))
    );
    // Too short: the missing column.
    let short = HEADER.replace(",cpf_number", "");
    assert_eq!(
        header_problems(&short),
        [HeaderProblem::Missing {
            column: "cpf_number"
        }]
    );
    // A column that is not one of equip's, after the others or after start_date.
    assert_eq!(
        header_problems(&format!("{HEADER},notes")),
        [HeaderProblem::Unknown {
            position: 16,
            found: "notes".to_owned()
        }]
    );
    assert_eq!(
        header_problems(&format!("{HEADER},start_date,")),
        [HeaderProblem::Unknown {
            position: 17,
            found: String::new()
        }]
    );
}

#[test]
fn every_header_problem_is_said_at_once() {
    // A spreadsheet's own header: a renamed column, a repeated one, a missing
    // one and a column of its own, all in one answer.
    let header = HEADER
        .replace("surname", "last_name")
        .replace("secondary_email", "email")
        .replace(",cpf_number", ",Notes");
    let problems = header_problems(&header);
    assert_eq!(
        problems,
        [
            HeaderProblem::Unknown {
                position: 3,
                found: "last_name".to_owned()
            },
            HeaderProblem::Unknown {
                position: 15,
                found: "Notes".to_owned()
            },
            HeaderProblem::Missing { column: "surname" },
            HeaderProblem::Repeated {
                column: "email",
                positions: vec![4, 5]
            },
            HeaderProblem::Missing {
                column: "secondary_email"
            },
            HeaderProblem::Missing {
                column: "cpf_number"
            },
        ]
    );
    let text = format!("{header}\n");
    let said = CsvUpload::parse(text.as_bytes()).unwrap_err().to_string();
    for words in [
        "column 3, \"last_name\", is not a column equip reads",
        "column 15, \"Notes\", is not a column equip reads",
        "the column \"surname\" is missing",
        "the column \"email\" appears more than once (columns 4, 5)",
        "the column \"cpf_number\" is missing",
    ] {
        assert!(said.contains(words), "{words} in {said}");
    }
    // A start_date before the last column is out of place, as is what it displaced.
    let early = HEADER.replace("id,", "start_date,id,");
    let problems = header_problems(&early);
    assert_eq!(problems.len(), 16, "{problems:?}");
    assert_eq!(
        problems[0],
        HeaderProblem::OutOfPlace {
            position: 1,
            expected: "id",
            found: START_DATE
        }
    );
}

#[test]
fn rows_are_numbered_as_a_spreadsheet_shows_them() {
    // Row 1 the header, row 2 Ana (over three lines: one row), row 3 blank,
    // row 4 Bia; CRLF, LF and CR line ends number the same.
    let text = format!(
        "{HEADER}\n,Ana,Lima,ana@acme.example,,,\"Rua A\n10\nfundos\",,,,,,,,\n\n,Bia,Reis,nope,,,,,,,,,,,,\n"
    );
    for ends in ["\n", "\r\n", "\r"] {
        let file = text.replace('\n', ends);
        let rows = rows_of(file.as_bytes());
        assert_eq!(rows[0].bulk_id(), "row-2", "{ends:?}");
        let err = invalid(&rows[1]);
        assert_eq!((err.bulk_id.as_str(), err.row), ("row-4", 4), "{ends:?}");
        assert!(err.detail.starts_with("row 4: "), "{}", err.detail);
    }
    // A quote inside an unquoted cell is text: the next line is still the next row.
    let literal = format!("{HEADER}\n,An\"a,Lima,ana@acme.example,,,,,,,,,,,\n,Bia,Reis,bia@acme.example,,,,,,,,,,,\n");
    let rows = rows_of(literal.as_bytes());
    assert_eq!(rows[1].bulk_id(), "row-3");
    // Blank lines above the header move every row down.
    let low = format!("\n\n{}", file(&[",Ana,Lima,ana@acme.example,,,,,,,,,,,"]));
    assert_eq!(rows_of(low.as_bytes())[0].bulk_id(), "row-4");
}

#[test]
fn an_optional_start_date_column_sets_the_start_date() {
    let text = format!(
        "{HEADER}, Start_Date \n,Ana,Lima,ana@acme.example,,,,,,,,,,,,2026-12-01\n\
         ,Bia,Reis,bia@acme.example,,,,,,,,,,,,\n\
         ,Caio,Melo,caio@acme.example,,,,,,,,,,,,01/12/2026\n\
         ,Davi,Lopes,davi@acme.example,,,,,,,,,,,\n"
    );
    let rows = rows_of(text.as_bytes());
    assert_eq!(rows.len(), 4);
    assert_eq!(
        op(&rows[0]).data[schemas::EQUIP_USER_EXTENSION]["startDate"],
        "2026-12-01"
    );
    // Empty: no start date.
    assert!(op(&rows[1])
        .data
        .get(schemas::EQUIP_USER_EXTENSION)
        .is_none());
    let err = invalid(&rows[2]);
    assert_eq!(err.column, Some(START_DATE));
    assert_eq!(
        (err.status, err.scim_type),
        (400, Some(ScimType::InvalidValue))
    );
    assert!(err.detail.contains("YYYY-MM-DD"), "{}", err.detail);
    // With the 16th column in the header, every row has 16 fields.
    let err = invalid(&rows[3]);
    assert_eq!((err.column, err.status), (None, 400));
    assert!(err.detail.contains("expected 16 fields"), "{}", err.detail);
}

#[test]
fn header_names_ignore_case_and_surrounding_spaces() {
    let header = " ID , Forename,SURNAME,Email ,Secondary_Email,PACKAGE_SLUG,Address_Line_1,ADDRESSLINE2, State/Region ,City_Code,Country_Code,Postal_Code,Phone_Number,Send_Activation_Email,\"CPF_Number \"";
    let text = format!("{header}\r\n,Ana,Lima,ana@acme.example,,,,,,,,,,,\r\n");
    let rows = rows_of(text.as_bytes());
    assert_eq!(op(&rows[0]).bulk_id, "row-2");
}

#[test]
fn an_empty_file_has_no_header() {
    for empty in [&b""[..], BOM, b"\n\n", b"\r\n", b" , ,\n"] {
        assert_eq!(
            CsvUpload::parse(empty).unwrap_err(),
            CsvError::MissingHeader,
            "{empty:?}"
        );
    }
    // A header alone is a valid file with no rows.
    let upload = CsvUpload::parse(HEADER.as_bytes()).unwrap();
    assert_eq!(upload.rows(), 0);
    assert_eq!(upload.operations(|_: &str| None).count(), 0);
}

#[test]
fn non_utf8_input_is_refused_with_its_place() {
    // Latin-1 "João" in row 3 of the spreadsheet, line 3.
    let mut bytes = file(&[",Ana,Lima,ana@acme.example,,,,,,,,,,,"]).into_bytes();
    let at = bytes.len() + 3;
    bytes.extend_from_slice(b",Jo\xe3o,Silva,joao@acme.example,,,,,,,,,,,\n");
    let err = CsvUpload::parse(&bytes).unwrap_err();
    assert_eq!(
        err,
        CsvError::NotUtf8 {
            byte: at,
            line: 3,
            row: Some(3)
        }
    );
    assert_eq!(err.status(), 400);
    assert!(err.to_string().contains("row 3"), "{err}");

    // With a BOM, the offset counts it.
    let mut with_bom = BOM.to_vec();
    with_bom.extend_from_slice(&bytes);
    assert_eq!(
        CsvUpload::parse(&with_bom).unwrap_err(),
        CsvError::NotUtf8 {
            byte: at + 3,
            line: 3,
            row: Some(3)
        }
    );

    // In a row after a multi-line quoted cell: the row, not the line.
    let mut multi = file(&[",Ana,Lima,ana@acme.example,,,\"a\nb\nc\",,,,,,,,"]).into_bytes();
    multi.extend_from_slice(b",Bia,Reis,bia@acme.example,,,,,,,,,,,\xff\n");
    assert!(matches!(
        CsvUpload::parse(&multi).unwrap_err(),
        CsvError::NotUtf8 {
            line: 5,
            row: Some(3),
            ..
        }
    ));

    // In the header.
    let header = b"id,foren\xc3me,surname\n";
    let err = CsvUpload::parse(header).unwrap_err();
    assert_eq!(
        err,
        CsvError::NotUtf8 {
            byte: 8,
            line: 1,
            row: None
        }
    );
    assert!(err.to_string().contains("header"), "{err}");
}

fn many_rows(n: usize) -> Vec<u8> {
    let mut text = format!("{HEADER}\n");
    for i in 0..n {
        text.push_str(&format!(",A,B,user{i}@acme.example,,,,,,,,,,,\n"));
    }
    text.into_bytes()
}

#[test]
fn more_than_50000_rows_are_refused_before_any_row() {
    let over = many_rows(MAX_CSV_ROWS + 1);
    let err = CsvUpload::parse(&over).unwrap_err();
    assert_eq!(
        err,
        CsvError::TooManyRows {
            rows: MAX_CSV_ROWS + 1,
            max: MAX_CSV_ROWS
        }
    );
    assert_eq!((err.status(), err.scim_type()), (413, None));

    let at_limit = many_rows(MAX_CSV_ROWS);
    let upload = CsvUpload::parse(&at_limit).unwrap();
    assert_eq!(upload.rows(), MAX_CSV_ROWS);
    // Taken in chunks of the Bulk limit, lazily.
    let mut ops = upload.operations(|_: &str| None);
    assert_eq!(ops.size_hint(), (MAX_CSV_ROWS, Some(MAX_CSV_ROWS)));
    let mut chunks = 0;
    let mut last = None;
    loop {
        let chunk: Vec<CsvRow> = ops.by_ref().take(1000).collect();
        if chunk.is_empty() {
            break;
        }
        assert_eq!(chunk.len(), 1000);
        chunks += 1;
        last = chunk.last().map(|r| r.bulk_id().to_owned());
    }
    assert_eq!(chunks, 50);
    assert_eq!(last.as_deref(), Some("row-50001"));
}

#[test]
fn a_file_over_10_mib_is_refused() {
    let big = vec![b' '; MAX_CSV_BYTES + 1];
    let err = CsvUpload::parse(&big).unwrap_err();
    assert_eq!(
        err,
        CsvError::TooLarge {
            bytes: MAX_CSV_BYTES + 1,
            max: MAX_CSV_BYTES
        }
    );
    assert_eq!(err.status(), 413);
}

/// Converts `bad` as row 3 (the header is row 1) between two good rows; the good ones convert.
fn lone_failure(bad: &str) -> RowError {
    let text = file(&[
        ",Ana,Lima,ana@acme.example,,laptop-basic,,,,,,,,,",
        bad,
        ",Bia,Reis,bia@acme.example,,,,,,,,,,,",
    ]);
    let rows = rows_of(text.as_bytes());
    assert_eq!(rows.len(), 3);
    assert_eq!(op(&rows[0]).bulk_id, "row-2");
    assert_eq!(op(&rows[2]).bulk_id, "row-4");
    let err = invalid(&rows[1]).clone();
    assert_eq!((err.bulk_id.as_str(), err.row), ("row-3", 3));
    err
}

#[test]
fn a_bad_uuid_fails_its_row_only() {
    let err = lone_failure("not-a-uuid,Ana,Lima,x@acme.example,,,,,,,,,,,");
    assert_eq!(err.column, Some("id"));
    assert_eq!((err.method, err.path.as_str()), ("POST", "/Users"));
    assert_eq!(
        (err.status, err.scim_type),
        (400, Some(ScimType::InvalidValue))
    );
    assert_eq!(err.detail, "row 3, column id: \"not-a-uuid\" is not a UUID");
    let body = serde_json::to_value(err.error_body()).unwrap();
    assert_eq!(body["status"], "400");
    assert_eq!(body["scimType"], "invalidValue");
}

#[test]
fn an_unknown_package_slug_fails_its_row_only() {
    let err = lone_failure(&format!(
        "{USER_ID},Ana,Lima,x@acme.example,,laptop-pro,,,,,,,,,"
    ));
    assert_eq!(err.column, Some("package_slug"));
    assert_eq!(
        (err.method, err.path.as_str()),
        ("PUT", format!("/Users/{USER_ID}").as_str())
    );
    assert_eq!((err.status, err.scim_type), (404, None));
    assert_eq!(
        err.detail,
        "row 3, column package_slug: no package with slug \"laptop-pro\""
    );
    assert!(serde_json::to_value(err.error_body())
        .unwrap()
        .get("scimType")
        .is_none());
}

#[test]
fn a_bad_send_activation_email_fails_its_row_only() {
    let err = lone_failure(",Ana,Lima,x@acme.example,,,,,,,,,,maybe,");
    assert_eq!(err.column, Some("send_activation_email"));
    assert_eq!((err.method, err.path.as_str()), ("POST", "/Users"));
    assert_eq!(
        (err.status, err.scim_type),
        (400, Some(ScimType::InvalidValue))
    );
    assert!(
        err.detail
            .starts_with("row 3, column send_activation_email: \"maybe\""),
        "{}",
        err.detail
    );
}

#[test]
fn brazil_without_cpf_fails_its_row_only() {
    for country in ["BR", "br", " Br "] {
        let err = lone_failure(&format!(",Ana,Lima,x@acme.example,,,,,,,{country},,,, "));
        assert_eq!(err.column, Some("cpf_number"), "{country}");
        assert_eq!(
            (err.status, err.scim_type),
            (400, Some(ScimType::InvalidValue))
        );
        assert!(
            err.detail.starts_with("row 3, column cpf_number: "),
            "{}",
            err.detail
        );
    }
    // Outside Brazil no CPF is needed; in Brazil its check digits are the domain's job.
    let text = file(&[
        ",Ana,Lima,ana@acme.example,,,,,,,PT,,,,",
        ",Bia,Reis,bia@acme.example,,,,,,,BR,,,,123",
    ]);
    let rows = rows_of(text.as_bytes());
    op(&rows[0]);
    assert_eq!(
        op(&rows[1]).data[schemas::EQUIP_USER_EXTENSION]["cpfNumber"],
        "123"
    );
}

#[test]
fn a_missing_email_fails_its_row_only() {
    let err = lone_failure(&format!("{USER_ID},Ana,Lima,  ,ana@home.example,,,,,,,,,,"));
    assert_eq!(err.column, Some("email"));
    assert_eq!(err.method, "PUT");
    assert_eq!(
        (err.status, err.scim_type),
        (400, Some(ScimType::InvalidValue))
    );
    assert!(
        err.detail.starts_with("row 3, column email: "),
        "{}",
        err.detail
    );
}

#[test]
fn a_wrong_field_count_fails_its_row_only() {
    for bad in [
        ",Ana,Lima,x@acme.example,,,,,,,,,,",   // 14
        ",Ana,Lima,x@acme.example,,,,,,,,,,,,", // 16
        "Ana Lima",                             // 1
    ] {
        let err = lone_failure(bad);
        assert_eq!(err.column, None);
        assert_eq!((err.method, err.path.as_str()), ("POST", "/Users"));
        assert_eq!(
            (err.status, err.scim_type),
            (400, Some(ScimType::InvalidSyntax))
        );
        assert!(
            err.detail.starts_with("row 3: expected 15 fields"),
            "{}",
            err.detail
        );
    }
}

#[test]
fn send_activation_email_values() {
    let cases = [
        ("true", Some(false)),
        ("TRUE", Some(false)),
        ("Yes", Some(false)),
        (" yes ", Some(false)),
        ("false", Some(true)),
        ("False", Some(true)),
        ("no", Some(true)),
        ("NO", Some(true)),
        ("null", None),
        ("NULL", None),
        ("", None),
        ("  ", None),
    ];
    for (cell, expected) in cases {
        let text = file(&[&format!(",Ana,Lima,ana@acme.example,,,,,,,,,,{cell},")]);
        let rows = rows_of(text.as_bytes());
        let data = &op(&rows[0]).data;
        let got = data
            .get(schemas::EQUIP_USER_EXTENSION)
            .and_then(|e| e.get("skipUserActivation"))
            .map(|v| v.as_bool().unwrap());
        assert_eq!(got, expected, "{cell:?}");
    }
    for bad in ["1", "0", "y", "n", "on", "nil", "true!"] {
        assert!(skip_user_activation(Some(bad)).is_err(), "{bad}");
    }
}

#[test]
fn duplicated_emails_both_convert_with_their_own_bulk_ids() {
    let text = file(&[
        ",Ana,Lima,ana@acme.example,,,,,,,,,,,",
        ",Ana,Lima,ANA@acme.example,,,,,,,,,,,",
    ]);
    let rows = rows_of(text.as_bytes());
    let (a, b) = (op(&rows[0]), op(&rows[1]));
    assert_eq!((a.bulk_id.as_str(), b.bulk_id.as_str()), ("row-2", "row-3"));
    assert_eq!((a.method, b.method), ("POST", "POST"));
    assert_eq!(a.data["userName"], "ana@acme.example");
    assert_eq!(b.data["userName"], "ANA@acme.example");
}

#[test]
fn a_secondary_email_equal_to_the_primary_is_left_out() {
    let text = file(&[",Ana,Lima,ana@acme.example,Ana@Acme.example,,,,,,,,,,"]);
    let rows = rows_of(text.as_bytes());
    assert_eq!(op(&rows[0]).data["emails"].as_array().unwrap().len(), 1);
}

#[test]
fn blank_rows_are_skipped_and_keep_their_row_numbers() {
    let text = format!(
        "{HEADER}\n\n,Ana,Lima,ana@acme.example,,,,,,,,,,,\n,,,,,,,,,,,,,,\n  \n,Bia,Reis,bia@acme.example,,,,,,,,,,,\n,,,,,,,,,,,,,,\n"
    );
    let upload = CsvUpload::parse(text.as_bytes()).unwrap();
    assert_eq!(upload.rows(), 2);
    let rows = rows_of(text.as_bytes());
    let ids: Vec<&str> = rows.iter().map(CsvRow::bulk_id).collect();
    assert_eq!(
        ids,
        ["row-3", "row-6"],
        "the rows a spreadsheet shows them on"
    );
    assert_eq!(op(&rows[1]).data["userName"], "bia@acme.example");
}

#[test]
fn csv_error_bodies() {
    let body = serde_json::to_value(CsvError::MissingHeader.error_body()).unwrap();
    assert_eq!(body["status"], "400");
    assert_eq!(body["scimType"], "invalidSyntax");
    assert!(body["detail"]
        .as_str()
        .unwrap()
        .contains("id,forename,surname"));
    let body = serde_json::to_value(
        CsvError::TooManyRows {
            rows: 50_001,
            max: 50_000,
        }
        .error_body(),
    )
    .unwrap();
    assert_eq!(body["status"], "413");
    assert!(body.get("scimType").is_none());
    assert_eq!(
        body["detail"],
        "the file has 50001 data rows; at most 50000 are accepted"
    );
}
