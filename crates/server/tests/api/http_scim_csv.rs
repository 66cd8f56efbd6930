//! Black-box tests of `POST /scim/v2/Users/csv` through the real application
//! on SQLite and PostgreSQL: the file rules of docs/scim.md, "CSV upload",
//! each row as one Bulk operation, and a 50,000-row upload.
use crate::support::scim::{okta_user, package, EXT, SCIM};
use crate::support::{Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};

on_both_backends!(
    rows_become_creates_and_replaces,
    quoting_bom_and_line_endings_are_understood,
    a_bad_row_fails_alone_naming_its_column,
    the_same_file_twice_converges,
    the_header_must_be_the_documents_columns,
    rows_are_numbered_as_in_a_spreadsheet,
    every_header_problem_is_said_at_once,
    encoding_and_form_errors_are_refused_before_any_work,
    size_and_row_limits_are_413,
    another_organizations_ids_and_packages_do_not_resolve,
    fifty_thousand_rows,
);

const HEADER: &str = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number";
const BOUNDARY: &str = "equip-test-boundary-7MA4YWxkTrZu0gW";

/// A multipart/form-data body with `file` (and any extra fields first).
fn form(fields: &[(&str, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, bytes) in fields {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        body.extend_from_slice(
            format!(
                "Content-Disposition: form-data; name=\"{name}\"; filename=\"users.csv\"\r\n\
                 Content-Type: text/csv\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

fn upload_request(c: &Client, body: Vec<u8>) -> TestRequest {
    c.with(TestRequest::post().uri("/scim/v2/Users/csv"))
        .insert_header((
            "Content-Type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        ))
        .set_payload(body)
}

async fn upload_raw(app: &TestApp, c: &Client, csv: &[u8]) -> (StatusCode, Value) {
    app.call(upload_request(c, form(&[("file", csv)]))).await
}

/// Uploads `csv`, which must answer 200; the BulkResponse's operations.
async fn upload(app: &TestApp, c: &Client, csv: &str) -> Vec<Value> {
    let raw = app
        .call_raw(upload_request(c, form(&[("file", csv.as_bytes())])))
        .await;
    assert_eq!(
        raw.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&raw.body)
    );
    assert_eq!(raw.content_type.as_deref(), Some(SCIM));
    let body: Value = serde_json::from_slice(&raw.body).unwrap();
    assert_eq!(
        body["schemas"],
        json!(["urn:ietf:params:scim:api:messages:2.0:BulkResponse"])
    );
    body["Operations"].as_array().unwrap().clone()
}

fn csv(rows: &[&str]) -> String {
    let mut s = String::from(HEADER);
    for r in rows {
        s.push('\n');
        s.push_str(r);
    }
    s.push('\n');
    s
}

fn id_of(result: &Value) -> String {
    let location = result["location"].as_str().unwrap();
    location.rsplit('/').next().unwrap().to_owned()
}

async fn user(app: &TestApp, c: &Client, id: &str) -> Value {
    let (status, body) = app.call(c.get(&format!("/scim/v2/Users/{id}"))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn user_count(app: &TestApp, c: &Client) -> u64 {
    let (status, body) = app.call(c.get("/scim/v2/Users?count=0")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["totalResults"].as_u64().unwrap()
}

fn statuses(ops: &[Value]) -> Vec<&str> {
    ops.iter().map(|o| o["status"].as_str().unwrap()).collect()
}

// ---------------------------------------------------------------------------

async fn rows_become_creates_and_replaces(app: TestApp) {
    let w = app.world();
    let kit = package(&app.store, w.a_org, "eng-mac");
    let (status, existing) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("old@acme.example")))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let existing = existing["id"].as_str().unwrap().to_owned();
    let file = csv(&[
        ",Ada,Lovelace,ada@acme.example,ada@home.example,eng-mac,1 Main St,Floor 2,CA,San Francisco,US,94105,+1 555 0100,yes,",
        &format!("{existing},Grace,Hopper,old@acme.example,,,,,,,,,,No,"),
        ",João,Silva,joao@acme.example,,,\"Rua Augusta, 1500\",Apto 42,SP,São Paulo,BR,01304-001,,,529.982.247-25",
        ",Ann,Empty,ann@acme.example,,,,,,,,,,,",
    ]);
    let ops = upload(&app, &w.a, &file).await;
    assert_eq!(statuses(&ops), ["201", "200", "201", "201"], "{ops:?}");
    let bulk_ids: Vec<&str> = ops.iter().map(|o| o["bulkId"].as_str().unwrap()).collect();
    // Numbered as a spreadsheet shows them: the header is row 1.
    assert_eq!(bulk_ids, ["row-2", "row-3", "row-4", "row-5"]);
    assert_eq!(ops[0]["method"], "POST");
    assert_eq!(ops[1]["method"], "PUT");
    assert_eq!(id_of(&ops[1]), existing);
    assert_eq!(ops[1]["version"], "W/\"2\"");

    let ada = user(&app, &w.a, &id_of(&ops[0])).await;
    assert_eq!(ada["userName"], "ada@acme.example");
    assert_eq!(ada["name"]["givenName"], "Ada");
    assert_eq!(ada["name"]["familyName"], "Lovelace");
    let emails: Vec<(&str, bool)> = ada["emails"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["value"].as_str().unwrap(), e["primary"] == true))
        .collect();
    assert!(emails.contains(&("ada@acme.example", true)), "{emails:?}");
    assert!(emails.contains(&("ada@home.example", false)), "{emails:?}");
    assert_eq!(ada[EXT]["packageId"], kit.to_string());
    // send_activation_email yes → skipUserActivation false.
    assert_eq!(ada[EXT]["skipUserActivation"], false);
    let address = &ada["addresses"][0];
    assert_eq!(address["country"], "US");
    assert_eq!(address["locality"], "San Francisco");
    assert_eq!(address["region"], "CA");
    assert_eq!(address["postalCode"], "94105");
    assert!(address["streetAddress"]
        .as_str()
        .unwrap()
        .contains("1 Main St"));
    assert_eq!(ada["phoneNumbers"][0]["value"], "+1 555 0100");

    let grace = user(&app, &w.a, &existing).await;
    assert_eq!(grace["name"]["givenName"], "Grace");
    assert_eq!(grace[EXT]["skipUserActivation"], true, "No → skip");

    let joao = user(&app, &w.a, &id_of(&ops[2])).await;
    assert_eq!(joao[EXT]["cpfNumber"], "529.982.247-25");
    assert!(joao["addresses"][0]["streetAddress"]
        .as_str()
        .unwrap()
        .starts_with("Rua Augusta, 1500"));

    // Empty send_activation_email: not set.
    let ann = user(&app, &w.a, &id_of(&ops[3])).await;
    assert!(ann
        .get(EXT)
        .and_then(|e| e.get("skipUserActivation"))
        .is_none_or(Value::is_null));
    assert_eq!(user_count(&app, &w.a).await, 4);
}

async fn quoting_bom_and_line_endings_are_understood(app: TestApp) {
    let w = app.world();
    // A BOM, CRLF line ends, a quoted field with a comma, a quote and a line
    // break, and a row whose trailing empty columns are all present.
    let mut file = String::from("\u{feff}");
    file.push_str(&HEADER.to_uppercase().replace(',', " , "));
    file.push_str("\r\n");
    file.push_str(
        ",Ada,\"Love, \"\"the\"\" lace\",ada@acme.example,,,\"1 Main St\r\nFloor 2\",,,,US,,,,\r\n",
    );
    file.push_str(",Bob,Lee,bob@acme.example,,,,,,,,,,,\r\n");
    // A cell that looks like a Bulk reference is data, not a reference.
    file.push_str(",bulkId:row-1,Ref,ref@acme.example,,,,,,,,,,,\r\n");
    let ops = upload(&app, &w.a, &file).await;
    assert_eq!(statuses(&ops), ["201", "201", "201"], "{ops:?}");
    let literal = user(&app, &w.a, &id_of(&ops[2])).await;
    assert_eq!(literal["name"]["givenName"], "bulkId:row-1");
    let ada = user(&app, &w.a, &id_of(&ops[0])).await;
    assert_eq!(ada["name"]["familyName"], "Love, \"the\" lace");
    let street = ada["addresses"][0]["streetAddress"].as_str().unwrap();
    assert!(
        street.contains("1 Main St") && street.contains("Floor 2") && street.contains('\n'),
        "{street:?}"
    );
}

async fn a_bad_row_fails_alone_naming_its_column(app: TestApp) {
    let w = app.world();
    package(&app.store, w.a_org, "eng-mac");
    let file = csv(&[
        ",Ok,One,one@acme.example,,,,,,,,,,,",
        "not-a-uuid,Bad,Id,badid@acme.example,,,,,,,,,,,",
        ",Bad,Slug,slug@acme.example,,no-such-kit,,,,,,,,,",
        ",Bad,Flag,flag@acme.example,,,,,,,,,,maybe,",
        ",No,Cpf,nocpf@acme.example,,,Rua X,,SP,São Paulo,BR,,,,",
        ",Bad,Cpf,badcpf@acme.example,,,Rua X,,SP,São Paulo,BR,,,,111.111.111-11",
        ",Dup,Email,one@acme.example,,,,,,,,,,,",
        ",No,Email,,,,,,,,,,,,",
        ",Too,Few,columns@acme.example",
        ",Ok,Two,two@acme.example,,eng-mac,,,,,,,,true,",
    ]);
    let ops = upload(&app, &w.a, &file).await;
    assert_eq!(ops.len(), 10);
    assert_eq!(
        statuses(&ops),
        ["201", "400", "404", "400", "400", "400", "409", "400", "400", "201"],
        "{ops:#?}"
    );
    let detail = |i: usize| ops[i]["response"]["detail"].as_str().unwrap().to_owned();
    assert!(detail(1).contains("id"), "{}", detail(1));
    assert!(detail(2).contains("package_slug"), "{}", detail(2));
    assert!(detail(3).contains("send_activation_email"), "{}", detail(3));
    assert!(detail(4).contains("cpf_number"), "{}", detail(4));
    assert!(detail(5).to_uppercase().contains("CPF"), "{}", detail(5));
    assert_eq!(ops[6]["response"]["scimType"], "uniqueness");
    assert!(detail(7).contains("email"), "{}", detail(7));
    for (i, op) in ops.iter().enumerate() {
        assert_eq!(op["bulkId"], format!("row-{}", i + 2));
        if op["status"] != "201" {
            assert_eq!(op["response"]["status"], op["status"]);
        }
    }
    assert_eq!(user_count(&app, &w.a).await, 2);
}

async fn the_same_file_twice_converges(app: TestApp) {
    let w = app.world();
    let (_, existing) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("old@acme.example")))
        .await;
    let existing = existing["id"].as_str().unwrap().to_owned();
    let file = csv(&[
        ",Ada,Lovelace,ada@acme.example,,,,,,,,,,,",
        &format!("{existing},Grace,Hopper,old@acme.example,,,,,,,,,,,"),
    ]);
    let first = upload(&app, &w.a, &file).await;
    assert_eq!(statuses(&first), ["201", "200"]);
    let second = upload(&app, &w.a, &file).await;
    // Creates are refused as duplicates; rows with ids are replaced again.
    assert_eq!(statuses(&second), ["409", "200"]);
    assert_eq!(second[0]["response"]["scimType"], "uniqueness");
    assert_eq!(user_count(&app, &w.a).await, 2);
}

async fn the_header_must_be_the_documents_columns(app: TestApp) {
    let w = app.world();
    let wrong = HEADER.replace("package_slug", "package");
    let (status, body) = upload_raw(
        &app,
        &w.a,
        format!("{wrong}\n,Ada,L,ada@acme.example,,,,,,,,,,,\n").as_bytes(),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["status"], "400");
    let detail = body["detail"].as_str().unwrap();
    assert!(
        detail.contains("package_slug") && detail.contains('6'),
        "{detail}"
    );
    let short = HEADER.rsplit_once(',').unwrap().0;
    let (status, body) = upload_raw(&app, &w.a, format!("{short}\n").as_bytes()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["detail"].as_str().unwrap().contains("cpf_number"));
    let (status, _) = upload_raw(&app, &w.a, b"").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // A header alone is a file of no rows.
    let ops = upload(&app, &w.a, &format!("{HEADER}\n")).await;
    assert!(ops.is_empty());
    assert_eq!(user_count(&app, &w.a).await, 0);
}

async fn rows_are_numbered_as_in_a_spreadsheet(app: TestApp) {
    let w = app.world();
    // Row 1 the header, row 2 Ada (her address over two lines), row 3 blank,
    // row 4 a row with a bad id: the numbers a person sees in their spreadsheet.
    let file = format!(
        "{HEADER}\r\n,Ada,L,ada@acme.example,,,\"1 Main St\r\nFloor 2\",,,,,,,,\r\n\r\nnot-a-uuid,Bad,Id,bad@acme.example,,,,,,,,,,,\r\n"
    );
    let ops = upload(&app, &w.a, &file).await;
    let bulk_ids: Vec<&str> = ops.iter().map(|o| o["bulkId"].as_str().unwrap()).collect();
    assert_eq!(bulk_ids, ["row-2", "row-4"], "{ops:#?}");
    assert_eq!(statuses(&ops), ["201", "400"]);
    let detail = ops[1]["response"]["detail"].as_str().unwrap();
    assert!(detail.starts_with("row 4, column id: "), "{detail}");
}

async fn every_header_problem_is_said_at_once(app: TestApp) {
    let w = app.world();
    // A renamed column, a repeated one and one of the spreadsheet's own.
    let header = HEADER
        .replace("surname", "last_name")
        .replace("secondary_email", "email")
        .replace("cpf_number", "Notes");
    let (status, body) = upload_raw(
        &app,
        &w.a,
        format!("{header}\n,Ada,L,ada@acme.example,,,,,,,,,,,\n").as_bytes(),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["scimType"], "invalidSyntax");
    let detail = body["detail"].as_str().unwrap();
    for words in [
        "\"last_name\"",
        "\"Notes\"",
        "\"surname\" is missing",
        "\"secondary_email\" is missing",
        "\"cpf_number\" is missing",
        "\"email\" appears more than once (columns 4, 5)",
    ] {
        assert!(detail.contains(words), "{words:?} in {detail}");
    }
    assert_eq!(user_count(&app, &w.a).await, 0);
}

async fn encoding_and_form_errors_are_refused_before_any_work(app: TestApp) {
    let w = app.world();
    // Latin-1 "João" in the third row: nothing runs, not even the first rows.
    let mut latin1 = csv(&[",Ada,L,ada@acme.example,,,,,,,,,,,"]).into_bytes();
    latin1.extend_from_slice(b",Jo\xe3o,Silva,joao@acme.example,,,,,,,,,,,\n");
    let (status, body) = upload_raw(&app, &w.a, &latin1).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("UTF-8"));

    // No field named file.
    let (status, body) = app
        .call(upload_request(
            &w.a,
            form(&[("upload", csv(&[]).as_bytes())]),
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("file"));

    // Not multipart at all.
    let (status, body) = app
        .call(
            w.a.with(TestRequest::post().uri("/scim/v2/Users/csv"))
                .insert_header(("Content-Type", "text/csv"))
                .set_payload(csv(&[",Ada,L,ada@acme.example,,,,,,,,,,,"])),
        )
        .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
    assert_eq!(body["status"], "415");

    // Other fields beside file are ignored.
    let ops = app
        .call(upload_request(
            &w.a,
            form(&[
                ("note", b"hello"),
                (
                    "file",
                    csv(&[",Ada,L,ada@acme.example,,,,,,,,,,,"]).as_bytes(),
                ),
            ]),
        ))
        .await;
    assert_eq!(ops.0, StatusCode::OK, "{}", ops.1);
    assert_eq!(user_count(&app, &w.a).await, 1);

    // Without a key: 401, whatever the file.
    let anonymous = TestRequest::post()
        .uri("/scim/v2/Users/csv")
        .insert_header((
            "Content-Type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        ))
        .set_payload(form(&[("file", b"garbage")]));
    let (status, _) = app.call(anonymous).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = upload_raw(&app, &w.limited, csv(&[]).as_bytes()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

async fn size_and_row_limits_are_413(app: TestApp) {
    let w = app.world();
    let row = ",Ada,Lovelace,ada@acme.example,,,,,,,,,,,\n";
    let mut rows = String::from(HEADER);
    rows.push('\n');
    rows.push_str(&row.repeat(50_001));
    let (status, body) = upload_raw(&app, &w.a, rows.as_bytes()).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("50000"));

    let mut big = String::from(HEADER);
    big.push('\n');
    let padded = format!(",Ada,{},ada@acme.example,,,,,,,,,,,\n", "x".repeat(1000));
    while big.len() <= 10 * 1024 * 1024 {
        big.push_str(&padded);
    }
    let (status, body) = upload_raw(&app, &w.a, big.as_bytes()).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["status"], "413");
    assert_eq!(user_count(&app, &w.a).await, 0, "nothing ran");
}

async fn another_organizations_ids_and_packages_do_not_resolve(app: TestApp) {
    let w = app.world();
    package(&app.store, w.b_org, "their-kit");
    let (_, theirs) = app
        .call(w.b.scim_post("/scim/v2/Users", &okta_user("bea@other.example")))
        .await;
    let theirs = theirs["id"].as_str().unwrap().to_owned();
    let file = csv(&[
        &format!("{theirs},Bea,Taken,bea@other.example,,,,,,,,,,,"),
        ",Ada,L,ada@acme.example,,their-kit,,,,,,,,,",
    ]);
    let ops = upload(&app, &w.a, &file).await;
    assert_eq!(statuses(&ops), ["404", "404"], "{ops:?}");
    let (status, bea) = app.call(w.b.get(&format!("/scim/v2/Users/{theirs}"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(bea["meta"]["version"], "W/\"1\"");
    assert_eq!(user_count(&app, &w.a).await, 0);
}

async fn fifty_thousand_rows(app: TestApp) {
    let w = app.world();
    package(&app.store, w.a_org, "eng-mac");
    let mut file = String::with_capacity(6 * 1024 * 1024);
    file.push_str(HEADER);
    file.push('\n');
    for i in 0..50_000 {
        file.push_str(&format!(
            ",First{i},Last{i},user{i}@acme.example,,eng-mac,\"{i} Main St\nUnit {i}\",,CA,SF,US,94105,+1 555 {i:04},yes,\n"
        ));
    }
    assert!(file.len() < 10 * 1024 * 1024);
    let ops = upload(&app, &w.a, &file).await;
    assert_eq!(ops.len(), 50_000);
    assert!(ops.iter().all(|o| o["status"] == "201"));
    assert_eq!(ops[49_999]["bulkId"], "row-50001");
    assert_eq!(user_count(&app, &w.a).await, 50_000);
}
