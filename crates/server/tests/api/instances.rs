//! Two `equip serve` processes on one PostgreSQL database, no proxy in front,
//! both running their outbox dispatchers.
//!
//! - Conflicting SCIM creates: every userName is POSTed four times at once,
//!   twice to each instance, in different letter cases. Exactly one create
//!   answers 201, the others 409 `uniqueness` (never a 500), and the database
//!   holds one person per userName.
//! - Reminders: every new joiner is reminded several times at once, half
//!   through each instance: all 202 (every request is a reminder of its own).
//!   Once both dispatchers drained the outbox and the processes stopped
//!   (SIGTERM: each finishes its pass, so no send is under way), each queued
//!   email was delivered exactly once: one message per outbox row
//!   (Message-ID), the same number per recipient, each row `SENT` after one
//!   attempt, and the two logs together record each send once.
//!
//! Delivered twice over: to one SMTP server (aiosmtpd, which records every
//! message it accepts, so a duplicate shows as a second message), and to one
//! spool directory per instance (a duplicate sent by both shows in both
//! directories; one shared directory would hide it, as the same message
//! overwrites the same file). Spool sends take about a millisecond, so the
//! two dispatchers claim in the same instants far more often than with SMTP.
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use crate::support::process::{Api, Response, Serve};
use crate::support::reminders::{smtp_python, SmtpSink};
use chrono::{Days, Utc};
use equip_persistence::test_support::TestDatabase;
use mail_parser::MessageParser;
use serde_json::{json, Value};

/// userNames created concurrently.
const PEOPLE: usize = 20;
/// Concurrent creates per userName (half through each instance).
const CREATES: usize = 4;

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

/// Where the two instances deliver.
enum Delivery {
    /// Both to one SMTP server.
    Smtp(SmtpSink),
    /// Each to a spool directory of its own.
    Spools([PathBuf; 2]),
}

impl Delivery {
    /// The mail arguments of instance `n`.
    fn args(&self, n: usize) -> Vec<String> {
        match self {
            Delivery::Smtp(sink) => vec!["--smtp-url".into(), sink.url()],
            Delivery::Spools(dirs) => {
                vec!["--spool-dir".into(), dirs[n].to_string_lossy().into_owned()]
            }
        }
    }

    /// Every delivered message: (outbox message id from the Message-ID,
    /// recipient).
    fn delivered(&self) -> Vec<(String, String)> {
        let raw: Vec<(Vec<u8>, Option<String>)> = match self {
            Delivery::Smtp(sink) => sink
                .received()
                .into_iter()
                .map(|(envelope, raw)| {
                    let rcpt = envelope["rcpt_tos"].as_array().unwrap();
                    assert_eq!(rcpt.len(), 1, "{envelope}");
                    (raw, Some(rcpt[0].as_str().unwrap().to_owned()))
                })
                .collect(),
            Delivery::Spools(dirs) => dirs
                .iter()
                .flat_map(|dir| std::fs::read_dir(dir).unwrap())
                .map(|entry| entry.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "eml"))
                .map(|p| (std::fs::read(p).unwrap(), None))
                .collect(),
        };
        raw.into_iter()
            .map(|(raw, envelope_to)| {
                let msg = MessageParser::default().parse(&raw).unwrap();
                let id = msg.message_id().unwrap();
                let outbox_id = id.split_once('@').unwrap().0.to_owned();
                let to: Vec<_> = msg
                    .to()
                    .unwrap()
                    .iter()
                    .filter_map(|a| a.address())
                    .collect();
                assert_eq!(to.len(), 1, "one recipient");
                if let Some(envelope_to) = envelope_to {
                    assert_eq!(envelope_to, to[0]);
                }
                (outbox_id, to[0].to_ascii_lowercase())
            })
            .collect()
    }
}

impl Drop for Delivery {
    fn drop(&mut self) {
        if let Delivery::Spools(dirs) = self {
            for dir in dirs {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}

#[test]
fn two_instances_keep_user_names_unique_and_send_each_email_once_over_smtp() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let Some(python) = smtp_python() else {
        return;
    };
    two_instances(&db, &Delivery::Smtp(SmtpSink::start(&python, 0, false)), 6);
}

#[test]
fn two_instances_keep_user_names_unique_and_send_each_email_once_to_spools() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let dirs = [0, 1].map(|n| {
        std::env::temp_dir().join(format!(
            "equip-instances-{n}-{}",
            uuid::Uuid::new_v4().simple()
        ))
    });
    two_instances(&db, &Delivery::Spools(dirs), 30);
}

/// The scenario: conflicting creates, then `reminders` reminders per person,
/// through two instances delivering to `delivery`.
fn two_instances(db: &TestDatabase, delivery: &Delivery, reminders: usize) {
    let started = Instant::now();
    let key = crate::support::process::organization_with_key(db, "Two Instances");

    let mut instances = [0, 1].map(|n| {
        let mut args = vec![
            "--workers".to_owned(),
            "2".into(),
            "--dispatch-interval".into(),
            "1".into(),
            // Every request of the bursts below at once, from one
            // organization: far past its share of the store calls, whose
            // 429s are fairness.rs's subject, not this test's.
            "--max-store-calls-per-organization".into(),
            "0".into(),
        ];
        args.extend(delivery.args(n));
        Serve::start(
            db.url(),
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        )
    });
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
        for r in 0..reminders {
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
    let queued = PEOPLE * reminders;
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

    // 4. Each queued email was delivered once.
    let delivered = delivery.delivered();
    let message_ids: HashSet<String> = delivered.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(
        message_ids.len(),
        delivered.len(),
        "a message delivered twice"
    );
    assert_eq!(delivered.len(), queued, "messages delivered");
    let mut per_recipient: HashMap<&str, usize> = HashMap::new();
    for (_, to) in &delivered {
        *per_recipient.entry(to.as_str()).or_default() += 1;
    }
    for (_, name) in &people {
        assert_eq!(
            per_recipient.get(name.to_ascii_lowercase().as_str()),
            Some(&reminders),
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
        "every delivered message is a queued reminder's, sent after one attempt"
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
