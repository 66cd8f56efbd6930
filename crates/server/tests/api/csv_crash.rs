//! A CSV upload interrupted by SIGKILL: `equip serve` (the real binary) is
//! killed while it runs the rows of a 5,000-row upload, on SQLite and on
//! PostgreSQL. Afterwards every committed row is a whole user (person and
//! email together), SQLite's integrity check passes, and uploading the same
//! file again after a restart converges: the rows that had committed answer
//! 409, the others 201, and all 5,000 users exist once.
use std::time::{Duration, Instant};

use crate::support::consistency::assert_whole_people;
use crate::support::process::{Api, Serve};
use equip_persistence::test_support::TestDatabase;

const ROWS: usize = 5_000;
const HEADER: &str = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number";

#[test]
fn sqlite_killed_mid_upload_keeps_whole_rows_and_converges() {
    killed_mid_upload(TestDatabase::sqlite());
}

#[test]
fn postgres_killed_mid_upload_keeps_whole_rows_and_converges() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    killed_mid_upload(db);
}

/// `equip serve` on `db`, one worker, no dispatcher.
fn serve(db: &TestDatabase) -> Serve {
    Serve::start(db.url(), &["--workers", "1", "--no-dispatcher"])
}

/// Uploads `csv` as the multipart form `POST /scim/v2/Users/csv` takes.
fn upload(api: &Api, csv: &str) -> std::io::Result<crate::support::process::Response> {
    let (content_type, body) = crate::support::process::csv_form(csv);
    api.post("/scim/v2/Users/csv", &content_type, &body)
}

fn killed_mid_upload(db: TestDatabase) {
    let key = crate::support::process::organization_with_key(&db, "Crash Org");
    let mut csv = String::from(HEADER);
    csv.push('\n');
    for i in 0..ROWS {
        csv.push_str(&format!(
            ",First{i},Last{i},crash{i}@acme.example,,,\"{i} Main St\nUnit {i}\",,CA,SF,US,94105,,yes,\n"
        ));
    }

    // 1. Upload, and kill the server once some rows have committed.
    let mut server = serve(&db);
    let uploading = {
        let (api, csv) = (server.client(&key), csv.clone());
        std::thread::spawn(move || upload(&api, &csv))
    };
    let start = Instant::now();
    while db.count_rows("people") < 100 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the upload did not start"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    server.kill(); // SIGKILL
                   // A row PostgreSQL was writing when equip died may still commit.
    db.wait_until_unused(Duration::from_secs(30));
    let committed = db.count_rows("people");
    assert!(
        committed >= 100 && committed < i64::try_from(ROWS).unwrap(),
        "killed mid-run: {committed} of {ROWS} rows committed"
    );
    assert_whole_people(&db, 1);
    let answer = uploading.join().unwrap();
    assert!(answer.is_err(), "the killed server answered: {answer:?}");

    // 2. Restart on the same database; the same file again converges.
    let mut server = serve(&db);
    let response = upload(&server.client(&key), &csv).unwrap();
    server.kill();
    assert_eq!(response.status, 200, "{}", response.text());
    let body = response.json();
    let ops = body["Operations"].as_array().unwrap();
    assert_eq!(ops.len(), ROWS);
    let conflicts = ops.iter().filter(|o| o["status"] == "409").count();
    let created = ops.iter().filter(|o| o["status"] == "201").count();
    assert_eq!(conflicts, usize::try_from(committed).unwrap());
    assert_eq!(created + conflicts, ROWS);
    assert_eq!(db.count_rows("people"), i64::try_from(ROWS).unwrap());
    assert_whole_people(&db, 1);
}
