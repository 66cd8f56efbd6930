//! The outbox dispatcher end to end: the spool transport writing a parseable
//! `.eml`, SMTP to a real SMTP server (aiosmtpd, started by the test), retries
//! after refusals, dead messages, two dispatchers sharing one database with 200
//! queued messages (each delivered exactly once), `equip dispatch --once`, and
//! `equip serve` delivering a reminder asked for over HTTP.
use std::collections::HashSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::process::Serve;
use crate::support::reminders::{seed_orgs_and_people, smtp_python, People, SmtpSink};
use chrono::Utc;
use equip_delivery::mail::{
    DispatchReport, Dispatcher, DispatcherOptions, MailTransport, SendError, Sender, SmtpMailer,
    SpoolDir, DEFAULT_FROM,
};
use equip_domain::api_key::Scopes;
use equip_domain::ids::OutboxMessageId;
use equip_domain::ports::{OutboxRepository, ReminderRepository};
use equip_domain::reminder::{
    DeliveryStatus, OutboxMessage, Reminder, ReminderDelivery, RetryPolicy,
};
use equip_domain::services::{admin, reminders};
use equip_persistence::test_support::TestDatabase;
use equip_persistence::{PoolOptions, Store};
use mail_parser::MessageParser;

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(super::TestDatabase::sqlite());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    let Some(db) = super::TestDatabase::postgres() else { return };
                    super::$name(db);
                }
            )*
        }
    };
}

on_both_backends!(
    spool_writes_a_parseable_eml_once,
    smtp_delivers_the_reminder_to_a_real_server,
    smtp_refusals_are_retried_until_one_message_is_accepted,
    a_permanent_refusal_makes_the_message_dead_at_once,
    an_unreachable_server_gives_up_after_the_last_attempt,
    two_dispatchers_deliver_200_messages_exactly_once,
);

fn temp_dir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("equip-{what}-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fast_options() -> DispatcherOptions {
    DispatcherOptions {
        batch: 10,
        send_timeout: Duration::from_secs(5),
        lease: Duration::from_secs(120),
        poll_interval: Duration::from_millis(20),
        report_interval: Duration::from_secs(60),
        retry: RetryPolicy {
            base: chrono::Duration::milliseconds(30),
            cap: chrono::Duration::milliseconds(200),
            max_attempts: 5,
        },
    }
}

fn remind(store: &Store, p: &People) -> Reminder {
    reminders::send_reminder(store, p.org, p.joiner.id, Some(p.sender.id), Utc::now()).unwrap()
}

fn delivery(store: &Store, p: &People, reminder: &Reminder) -> ReminderDelivery {
    store
        .list_reminders(p.org, p.joiner.id)
        .unwrap()
        .into_iter()
        .find(|d| d.reminder.id == reminder.id)
        .unwrap()
}

/// Runs passes until `done` says so (or ten seconds pass).
fn run_until(dispatcher: &Dispatcher, done: impl Fn(&DispatchReport) -> bool) -> DispatchReport {
    let start = Instant::now();
    let mut total = DispatchReport::default();
    loop {
        let r = dispatcher.run_once().unwrap();
        total.sent += r.sent;
        total.retried += r.retried;
        total.dead += r.dead;
        total.lost += r.lost;
        if done(&total) {
            return total;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "gave up: {total:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Checks a reminder email as a mail client reads it.
fn assert_reminder_email(raw: &[u8], p: &People, from_address: &str, message_domain: &str) {
    let text = String::from_utf8_lossy(raw);
    let msg = MessageParser::default()
        .parse(raw)
        .expect("a parseable message");
    let from = msg.from().and_then(|a| a.first()).expect("From");
    assert_eq!(from.address(), Some(from_address), "{text}");
    let to: Vec<_> = msg
        .to()
        .unwrap()
        .iter()
        .filter_map(|a| a.address())
        .collect();
    assert_eq!(
        to,
        ["ana.silva@acme.example"],
        "only the new joiner: {text}"
    );
    assert!(msg.subject().unwrap().contains("Ana Silva"), "{text}");
    let id = msg.message_id().expect("Message-ID");
    let (local, domain) = id.split_once('@').expect("id@domain");
    assert!(OutboxMessageId::parse(local).is_ok(), "{id}");
    assert_eq!(domain, message_domain);
    let date = msg.date().expect("Date");
    assert!(
        (date.to_timestamp() - Utc::now().timestamp()).abs() < 600,
        "{text}"
    );
    assert_eq!(msg.text_body_count(), 1, "{text}");
    assert_eq!(msg.html_body_count(), 1, "{text}");
    let start = equip_domain::email::long_date(p.joiner.start_date.unwrap());
    let plain = msg.body_text(0).unwrap();
    let html = msg.body_html(0).unwrap();
    for body in [&plain, &html] {
        assert!(body.contains("Ana Silva"), "{body}");
        assert!(body.contains(&start), "{body}");
        assert!(body.contains("Engineering Mac Kit"), "{body}");
        assert!(!body.contains("private."), "{body}");
        assert!(!body.contains("Hana"), "no sender data: {body}");
    }
    assert!(
        html.contains("<strong>Engineering Mac Kit</strong>"),
        "{html}"
    );
}

fn spool_writes_a_parseable_eml_once(db: TestDatabase) {
    let store = Arc::new(db.store());
    let p = seed_orgs_and_people(&store);
    let reminder = remind(&store, &p);
    let dir = temp_dir("spool");
    let spool = SpoolDir::new(&dir, Sender::parse(DEFAULT_FROM).unwrap()).unwrap();
    let dispatcher = Dispatcher::new(store.clone(), Box::new(spool), fast_options());
    let report = dispatcher.run_once().unwrap();
    assert_eq!(report.sent, 1, "{report:?}");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].extension().and_then(|e| e.to_str()), Some("eml"));
    let raw = std::fs::read(&files[0]).unwrap();
    assert_reminder_email(&raw, &p, "no-reply@equip.localhost", "equip.localhost");

    let d = delivery(&store, &p, &reminder);
    assert_eq!(d.reminder.status, DeliveryStatus::Sent);
    assert_eq!(d.attempts, 1);
    assert!(d.sent_at.is_some());
    // Nothing left: a second pass sends nothing.
    assert_eq!(dispatcher.run_once().unwrap(), DispatchReport::default());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    assert_eq!(store.outbox_stats().unwrap().pending, 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn smtp_delivers_the_reminder_to_a_real_server(db: TestDatabase) {
    let Some(python) = smtp_python() else { return };
    let sink = SmtpSink::start(&python, 0, false);
    let store = Arc::new(db.store());
    let p = seed_orgs_and_people(&store);
    let reminder = remind(&store, &p);
    let from = Sender::parse("People Team <people@acme.example>").unwrap();
    let smtp = SmtpMailer::new(&sink.url(), &sink.url(), from, Duration::from_secs(5)).unwrap();
    let dispatcher = Dispatcher::new(store.clone(), Box::new(smtp), fast_options());
    assert_eq!(dispatcher.run_once().unwrap().sent, 1);
    let got = sink.wait_for(1, Duration::from_secs(5));
    assert_eq!(got.len(), 1);
    let (envelope, raw) = &got[0];
    assert_eq!(envelope["mail_from"], "people@acme.example");
    assert_eq!(
        envelope["rcpt_tos"],
        serde_json::json!(["ana.silva@acme.example"])
    );
    assert_reminder_email(raw, &p, "people@acme.example", "acme.example");
    assert_eq!(
        delivery(&store, &p, &reminder).reminder.status,
        DeliveryStatus::Sent
    );
}

fn smtp_refusals_are_retried_until_one_message_is_accepted(db: TestDatabase) {
    let Some(python) = smtp_python() else { return };
    let sink = SmtpSink::start(&python, 2, false);
    let store = Arc::new(db.store());
    let p = seed_orgs_and_people(&store);
    let reminder = remind(&store, &p);
    let smtp = SmtpMailer::new(
        &sink.url(),
        &sink.url(),
        Sender::parse(DEFAULT_FROM).unwrap(),
        Duration::from_secs(5),
    )
    .unwrap();
    let dispatcher = Dispatcher::new(store.clone(), Box::new(smtp), fast_options());
    let total = run_until(&dispatcher, |t| t.sent == 1);
    assert_eq!(total.retried, 2, "{total:?}");
    let d = delivery(&store, &p, &reminder);
    assert_eq!(d.reminder.status, DeliveryStatus::Sent);
    assert_eq!(d.attempts, 3);
    assert!(
        d.last_error.as_deref().is_some_and(|e| e.contains("451")),
        "{d:?}"
    );
    // Exactly one message arrived, and no more come.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(dispatcher.run_once().unwrap(), DispatchReport::default());
    assert_eq!(sink.received().len(), 1);
}

fn a_permanent_refusal_makes_the_message_dead_at_once(db: TestDatabase) {
    let Some(python) = smtp_python() else { return };
    let sink = SmtpSink::start(&python, 0, true);
    let store = Arc::new(db.store());
    let p = seed_orgs_and_people(&store);
    let reminder = remind(&store, &p);
    let smtp = SmtpMailer::new(
        &sink.url(),
        &sink.url(),
        Sender::parse(DEFAULT_FROM).unwrap(),
        Duration::from_secs(5),
    )
    .unwrap();
    let dispatcher = Dispatcher::new(store.clone(), Box::new(smtp), fast_options());
    let report = dispatcher.run_once().unwrap();
    assert_eq!(report.dead, 1, "{report:?}");
    let d = delivery(&store, &p, &reminder);
    assert_eq!(d.reminder.status, DeliveryStatus::Dead);
    assert_eq!(d.attempts, 1);
    assert!(
        d.last_error.as_deref().is_some_and(|e| e.contains("550")),
        "{d:?}"
    );
    let stats = store.outbox_stats().unwrap();
    assert_eq!((stats.pending, stats.dead), (0, 1));
    assert!(sink.received().is_empty());
}

fn an_unreachable_server_gives_up_after_the_last_attempt(db: TestDatabase) {
    // A port nobody listens on: connection refused, a transient failure.
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let store = Arc::new(db.store());
    let p = seed_orgs_and_people(&store);
    let reminder = remind(&store, &p);
    let url = format!("smtp://127.0.0.1:{port}");
    let smtp = SmtpMailer::new(
        &url,
        &url,
        Sender::parse(DEFAULT_FROM).unwrap(),
        Duration::from_secs(2),
    )
    .unwrap();
    let mut options = fast_options();
    options.retry.max_attempts = 3;
    let dispatcher = Dispatcher::new(store.clone(), Box::new(smtp), options);
    let stats = store.outbox_stats().unwrap();
    assert_eq!(stats.pending, 1);
    assert!(stats.oldest_pending_created_at.is_some());
    let total = run_until(&dispatcher, |t| t.dead == 1);
    assert_eq!(total.retried, 2, "{total:?}");
    let d = delivery(&store, &p, &reminder);
    assert_eq!(d.reminder.status, DeliveryStatus::Dead);
    assert_eq!(d.attempts, 3);
    assert!(d.last_error.as_deref().is_some_and(|e| !e.is_empty()));
    assert_eq!(store.outbox_stats().unwrap().pending, 0);
}

/// Records every send; slow enough that two dispatchers overlap.
struct Recorder {
    who: usize,
    sent: Arc<Mutex<Vec<(usize, OutboxMessageId)>>>,
}

impl MailTransport for Recorder {
    fn send(&self, message: &OutboxMessage) -> Result<(), SendError> {
        std::thread::sleep(Duration::from_millis(2));
        self.sent.lock().unwrap().push((self.who, message.id));
        Ok(())
    }

    fn describe(&self) -> String {
        format!("recorder {}", self.who)
    }
}

fn two_dispatchers_deliver_200_messages_exactly_once(db: TestDatabase) {
    let store = db.store();
    let p = seed_orgs_and_people(&store);
    let now = Utc::now();
    for _ in 0..200 {
        reminders::send_reminder(&store, p.org, p.joiner.id, None, now).unwrap();
    }
    assert_eq!(store.outbox_stats().unwrap().pending, 200);
    let sent = Arc::new(Mutex::new(Vec::new()));
    let mut options = fast_options();
    options.batch = 7;
    // Two stores, two pools: as two `equip serve` processes would have.
    let threads: Vec<_> = (0..2)
        .map(|who| {
            let store = Arc::new(Store::connect(db.url(), PoolOptions::default()).unwrap());
            let transport = Recorder {
                who,
                sent: Arc::clone(&sent),
            };
            let dispatcher = Dispatcher::new(store, Box::new(transport), options);
            std::thread::spawn(move || dispatcher.run_once().unwrap())
        })
        .collect();
    let reports: Vec<DispatchReport> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let sent = sent.lock().unwrap();
    let unique: HashSet<OutboxMessageId> = sent.iter().map(|(_, id)| *id).collect();
    assert_eq!(sent.len(), 200, "each message sent exactly once");
    assert_eq!(unique.len(), 200);
    assert_eq!(
        reports.iter().map(|r| r.sent).sum::<usize>(),
        200,
        "{reports:?}"
    );
    let by_first = sent.iter().filter(|(who, _)| *who == 0).count();
    eprintln!(
        "dispatcher 0 sent {by_first}, dispatcher 1 sent {}",
        200 - by_first
    );
    let stats = store.outbox_stats().unwrap();
    assert_eq!((stats.pending, stats.dead), (0, 0));
    let listed = store.list_reminders(p.org, p.joiner.id).unwrap();
    assert_eq!(listed.len(), 200);
    assert!(listed
        .iter()
        .all(|d| d.reminder.status == DeliveryStatus::Sent && d.attempts == 1));
}

// ---------------------------------------------------------------------------
// The binary
// ---------------------------------------------------------------------------

fn eml_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("eml"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn equip_dispatch_once_flushes_the_outbox_into_the_spool() {
    let db = TestDatabase::sqlite();
    let store = db.store();
    let p = seed_orgs_and_people(&store);
    remind(&store, &p);
    remind(&store, &p);
    let spool = temp_dir("dispatch-once");
    let out = Command::new(env!("CARGO_BIN_EXE_equip"))
        .args(["dispatch", "--once", "--spool-dir"])
        .arg(&spool)
        .env("DATABASE_URL", db.url())
        .env_remove("EQUIP_SMTP_URL")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(stderr.contains("2 sent"), "{stderr}");
    assert!(stderr.contains("outbox: 0 pending"), "{stderr}");
    assert!(
        !stderr.contains("ana.silva"),
        "no addresses in the output: {stderr}"
    );
    assert_eq!(eml_files(&spool).len(), 2);
    std::fs::remove_dir_all(&spool).unwrap();
}

#[test]
fn equip_serve_delivers_a_reminder_asked_for_over_http() {
    let db = TestDatabase::sqlite();
    let store = db.store();
    let p = seed_orgs_and_people(&store);
    let key = admin::issue_api_key(&store, p.org, Scopes::all(), None, Utc::now())
        .unwrap()
        .secret;
    let spool = temp_dir("serve-spool");
    let spool_arg = spool.to_string_lossy().into_owned();
    let mut server = Serve::start(
        db.url(),
        &[
            "--workers",
            "1",
            "--dispatch-interval",
            "1",
            "--spool-dir",
            &spool_arg,
        ],
    );
    let path = format!("/api/v1/new-joiners/{}/remind", p.joiner.id);
    let response = server.client(&key).post(&path, "", b"").unwrap();
    assert_eq!(response.status, 202, "{}", response.text());

    // Marked sent after the file is written: wait for the mark.
    let start = Instant::now();
    let sent = || {
        store.list_reminders(p.org, p.joiner.id).unwrap()[0]
            .reminder
            .status
    };
    while sent() != DeliveryStatus::Sent && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    server.kill();
    assert_eq!(sent(), DeliveryStatus::Sent);
    assert_eq!(
        eml_files(&spool).len(),
        1,
        "the dispatcher in serve delivered it"
    );
    let log = server.log();
    assert!(
        !log.contains("ana.silva"),
        "no recipient addresses in logs: {log}"
    );
    std::fs::remove_dir_all(&spool).unwrap();
}
