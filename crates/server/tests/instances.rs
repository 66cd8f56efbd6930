//! Two `equip serve` processes on one PostgreSQL database, no proxy in front,
//! both running their outbox dispatchers against one SMTP server (aiosmtpd,
//! which records every message it accepts).
//!
//! - Conflicting SCIM creates: every userName is POSTed four times at once,
//!   twice to each instance, in different letter cases. Exactly one create
//!   answers 201, the others 409 `uniqueness` (never a 500), and the database
//!   holds one person per userName.
//! - Reminders: every new joiner is reminded six times at once, three times
//!   through each instance: all 202 (every request is a reminder of its own).
//!   Once both dispatchers drained the outbox and the processes stopped
//!   (SIGTERM: each finishes its pass), the SMTP server received each queued
//!   email exactly once: one message per outbox row (Message-ID), six per
//!   recipient, each row `SENT` after one attempt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use chrono::{Days, Utc};
use equip_domain::api_key::Scopes;
use equip_domain::services::admin;
use equip_persistence::test_support::TestDatabase;
use mail_parser::MessageParser;
use serde_json::{json, Value};
use support::process::{Api, Response, Serve};
use support::reminders::{smtp_python, SmtpSink};

/// userNames created concurrently.
const PEOPLE: usize = 20;
/// Concurrent creates per userName (half through each instance).
const CREATES: usize = 4;
/// Concurrent reminders per person (half through each instance).
const REMINDERS: usize = 6;

const EXTENSION: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:User";

/// The `variant`-th spelling of person `i`'s userName (all equal ignoring case).
fn user_name(i: usize, variant: usize) -> String {
    match variant % 4 {
        0 => format!("joiner{i}@acme.example"),
        1 => format!("Joiner{i}@Acme.example"),
        2 => format!("JOINER{i}@ACME.EXAMPLE"),
        _ => format!("joiner{i}@ACME.example"),
    }
}

/// A new joiner starting in two weeks.
fn new_joiner(user_name: &str) -> Value {
    let start = Utc::now()
        .date_naive()
        .checked_add_days(Days::new(14))
        .unwrap();
    json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", EXTENSION],
        "userName": user_name,
        "name": {"givenName": "Nia", "familyName": "Okafor"},
        "emails": [{"primary": true, "type": "work", "value": user_name}],
        "active": true,
        EXTENSION: {"startDate": start.format("%Y-%m-%d").to_string()}
    })
}

/// Runs every call at once (one thread each, released together); the
/// responses in the order of `calls`.
fn all_at_once<F>(calls: Vec<F>) -> Vec<Response>
where
    F: FnOnce() -> std::io::Result<Response> + Send + 'static,
{
    let barrier = Arc::new(Barrier::new(calls.len()));
    let threads: Vec<_> = calls
        .into_iter()
        .map(|call| {
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                call()
            })
        })
        .collect();
    threads
        .into_iter()
        .map(|t| t.join().unwrap().expect("a complete response"))
        .collect()
}

/// The outbox message ids that `log` says were sent.
fn sent_in_log(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| l.contains(") sent, attempt "))
        .filter_map(|l| l.split("outbox message ").nth(1))
        .filter_map(|rest| rest.split(' ').next())
        .map(str::to_owned)
        .collect()
}

fn quoted_list(values: impl IntoIterator<Item = String>) -> String {
    values
        .into_iter()
        .map(|v| format!("'{}'", v.replace('\'', "''")))
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn two_instances_keep_user_names_unique_and_send_each_email_once() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let Some(python) = smtp_python() else {
        return;
    };
    let started = Instant::now();
    let sink = SmtpSink::start(&python, 0, false);
    let store = db.store();
    let now = Utc::now();
    let org = admin::create_organization(&store, "Two Instances", now)
        .unwrap()
        .id;
    let key = admin::issue_api_key(&store, org, Scopes::all(), None, now)
        .unwrap()
        .secret;
    drop(store);

    let smtp_url = sink.url();
    let args = [
        "--workers",
        "2",
        "--dispatch-interval",
        "1",
        "--smtp-url",
        smtp_url.as_str(),
    ];
    let mut instances = [Serve::start(db.url(), &args), Serve::start(db.url(), &args)];
    let apis: Vec<Api> = instances.iter().map(|s| s.client(&key)).collect();

    // 1. Conflicting creates, all at once, on both instances.
    let mut calls = Vec::new();
    for i in 0..PEOPLE {
        for v in 0..CREATES {
            let api = apis[v % 2].clone();
            let body = new_joiner(&user_name(i, v));
            calls.push(move || api.scim_post("/scim/v2/Users", &body));
        }
    }
    let responses = all_at_once(calls);
    let mut people = Vec::new(); // (id, userName as created)
    for (i, answers) in responses.chunks(CREATES).enumerate() {
        let created: Vec<&Response> = answers.iter().filter(|r| r.status == 201).collect();
        assert_eq!(
            created.len(),
            1,
            "userName {i}: {:?}",
            answers
                .iter()
                .map(|r| (r.status, r.text()))
                .collect::<Vec<_>>()
        );
        for r in answers.iter().filter(|r| r.status != 201) {
            assert_eq!(r.status, 409, "{}", r.text());
            assert_eq!(r.json()["scimType"], "uniqueness", "{}", r.text());
        }
        let body = created[0].json();
        people.push((
            body["id"].as_str().unwrap().to_owned(),
            body["userName"].as_str().unwrap().to_owned(),
        ));
        assert_eq!(
            db.count_rows(&format!(
                "people WHERE user_name_lower = '{}'",
                user_name(i, 0)
            )),
            1,
            "one person for userName {i}"
        );
    }
    assert_eq!(db.count_rows("people"), i64::try_from(PEOPLE).unwrap());
    assert_eq!(
        db.count_rows("person_emails"),
        i64::try_from(PEOPLE).unwrap()
    );

    // 2. Reminders for the same people, all at once, on both instances.
    let mut calls = Vec::new();
    for (id, _) in &people {
        for r in 0..REMINDERS {
            let api = apis[r % 2].clone();
            let path = format!("/api/v1/new-joiners/{id}/remind");
            calls.push(move || api.post(&path, "", b""));
        }
    }
    let responses = all_at_once(calls);
    let mut reminder_ids = HashSet::new();
    for r in &responses {
        assert_eq!(r.status, 202, "{}", r.text());
        reminder_ids.insert(r.json()["id"].as_str().unwrap().to_owned());
    }
    let queued = PEOPLE * REMINDERS;
    assert_eq!(reminder_ids.len(), queued, "one reminder per request");

    // 3. Wait until the outbox is drained, then stop both instances: each
    //    dispatcher finishes its pass, so no send is still under way.
    let drain_start = Instant::now();
    while db.count_rows("outbox_messages WHERE status = 'SENT'") < i64::try_from(queued).unwrap() {
        assert!(
            drain_start.elapsed() < Duration::from_secs(30),
            "outbox not drained: {} of {queued} sent, {} dead",
            db.count_rows("outbox_messages WHERE status = 'SENT'"),
            db.count_rows("outbox_messages WHERE status = 'DEAD'")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let drained_in = drain_start.elapsed();
    for instance in &mut instances {
        instance.terminate(Duration::from_secs(30));
    }

    // 4. Each queued email arrived once.
    let received = sink.received();
    assert_eq!(
        received.len(),
        queued,
        "messages received by the SMTP server"
    );
    let mut message_ids = HashSet::new();
    let mut per_recipient: HashMap<String, usize> = HashMap::new();
    for (envelope, raw) in &received {
        let msg = MessageParser::default().parse(raw).unwrap();
        let id = msg.message_id().unwrap();
        let outbox_id = id.split_once('@').unwrap().0.to_owned();
        assert!(message_ids.insert(outbox_id), "received twice: {id}");
        let rcpt = envelope["rcpt_tos"].as_array().unwrap();
        assert_eq!(rcpt.len(), 1, "{envelope}");
        *per_recipient
            .entry(rcpt[0].as_str().unwrap().to_ascii_lowercase())
            .or_default() += 1;
    }
    for (_, name) in &people {
        assert_eq!(
            per_recipient.get(&name.to_ascii_lowercase()),
            Some(&REMINDERS),
            "{name}"
        );
    }
    assert_eq!(per_recipient.len(), PEOPLE);
    assert_eq!(
        db.count_rows(&format!(
            "outbox_messages WHERE id IN ({}) AND reminder_id IN ({}) \
             AND status = 'SENT' AND attempts = 1",
            quoted_list(message_ids.iter().cloned()),
            quoted_list(reminder_ids.iter().cloned())
        )),
        i64::try_from(queued).unwrap(),
        "every received message is a queued reminder's, sent after one attempt"
    );
    assert_eq!(
        db.count_rows("outbox_messages"),
        i64::try_from(queued).unwrap()
    );
    assert_eq!(
        db.count_rows("reminders WHERE status = 'SENT'"),
        i64::try_from(queued).unwrap()
    );

    // The two logs agree: together they sent each message once.
    let sent: Vec<Vec<String>> = instances.iter().map(|s| sent_in_log(&s.log())).collect();
    let all: Vec<&String> = sent.iter().flatten().collect();
    let distinct: HashSet<&String> = all.iter().copied().collect();
    assert_eq!(all.len(), queued, "sends logged by the two instances");
    assert_eq!(distinct.len(), queued);
    for instance in &instances {
        assert!(
            !instance.log().contains("lease was lost"),
            "{}",
            instance.log()
        );
    }
    eprintln!(
        "{PEOPLE} userNames × {CREATES} creates; {queued} reminders drained in {drained_in:?}, \
         sent {} by the first instance and {} by the second; {:?} in all",
        sent[0].len(),
        sent[1].len(),
        started.elapsed()
    );
}
