//! People for the reminder tests: new joiners and people who are not, in two
//! organizations, with an equipment package; and the SMTP sink (a real SMTP
//! server: Python's aiosmtpd in a venv cached outside the clone).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{Days, Utc};
use equip_domain::catalog::Package;
use equip_domain::ids::{OrganizationId, PackageId, PersonId};
use equip_domain::import::ImportBatch;
use equip_domain::person::{Email, Person, PersonStatus};
use equip_domain::services::{admin, import};
use equip_persistence::Store;

/// The seeded people of the reminder tests.
#[derive(Debug, Clone)]
pub struct People {
    pub org: OrganizationId,
    pub other_org: OrganizationId,
    pub package: Package,
    /// Active, starts in ten days, package assigned.
    pub joiner: Person,
    /// Active, starts today.
    pub joiner_today: Person,
    /// Active, started ten days ago.
    pub started: Person,
    /// Offboarding (deleted over SCIM), start date in the future.
    pub offboarding: Person,
    /// Active, no start date.
    pub no_start: Person,
    /// A colleague who sends reminders.
    pub sender: Person,
    /// A new joiner of the other organization.
    pub other_org_joiner: Person,
}

/// A person of `org`.
pub fn person(org: OrganizationId, email: &str, given: &str, family: &str) -> Person {
    let now = Utc::now();
    Person {
        id: PersonId::new(),
        organization_id: org,
        external_id: None,
        user_name: email.into(),
        given_name: Some(given.into()),
        family_name: Some(family.into()),
        display_name: None,
        emails: vec![
            Email {
                value: email.into(),
                kind: Some("work".into()),
                primary: true,
            },
            Email {
                value: format!("private.{email}"),
                kind: Some("home".into()),
                primary: false,
            },
        ],
        phone_numbers: vec![],
        addresses: vec![],
        active: true,
        package_id: None,
        start_date: None,
        status: PersonStatus::Active,
        skip_user_activation: None,
        cpf_number: None,
        profile: Default::default(),
        created_at: now,
        updated_at: now,
        version: 1,
    }
}

/// Seeds the people into `org` (and one into `other_org`).
pub fn seed_people(store: &Store, org: OrganizationId, other_org: OrganizationId) -> People {
    let today = Utc::now().date_naive();
    let package = Package {
        id: PackageId::new(),
        organization_id: org,
        slug: "engineering-mac".into(),
        name: "Engineering Mac Kit".into(),
        items: Vec::new(),
    };
    let mut joiner = person(org, "ana.silva@acme.example", "Ana", "Silva");
    joiner.start_date = today.checked_add_days(Days::new(10));
    joiner.package_id = Some(package.id);
    let mut joiner_today = person(org, "ben.ode@acme.example", "Ben", "Ode");
    joiner_today.start_date = Some(today);
    let mut started = person(org, "cleo.park@acme.example", "Cleo", "Park");
    started.start_date = today.checked_sub_days(Days::new(10));
    let mut offboarding = person(org, "dan.roe@acme.example", "Dan", "Roe");
    offboarding.start_date = today.checked_add_days(Days::new(10));
    offboarding.status = PersonStatus::Offboarding;
    let no_start = person(org, "eve.lund@acme.example", "Eve", "Lund");
    let sender = person(org, "hr.lead@acme.example", "Hana", "Lead");
    let mut other_org_joiner = person(other_org, "zoe.b@other.example", "Zoe", "B");
    other_org_joiner.start_date = today.checked_add_days(Days::new(3));

    let batch = ImportBatch {
        packages: vec![package.clone()],
        people: vec![
            joiner.clone(),
            joiner_today.clone(),
            started.clone(),
            offboarding.clone(),
            no_start.clone(),
            sender.clone(),
        ],
        ..ImportBatch::default()
    };
    import::run_import(store, org, &batch, &mut |_| {}).expect("import people");
    let batch = ImportBatch {
        people: vec![other_org_joiner.clone()],
        ..ImportBatch::default()
    };
    import::run_import(store, other_org, &batch, &mut |_| {}).expect("import other org");
    People {
        org,
        other_org,
        package,
        joiner,
        joiner_today,
        started,
        offboarding,
        no_start,
        sender,
        other_org_joiner,
    }
}

/// Two fresh organizations with the people seeded.
pub fn seed_orgs_and_people(store: &Store) -> People {
    let now = Utc::now();
    let a = admin::create_organization(store, "Acme", now)
        .expect("org")
        .id;
    let b = admin::create_organization(store, "Other", now)
        .expect("org")
        .id;
    seed_people(store, a, b)
}

// ---------------------------------------------------------------------------
// The SMTP sink
// ---------------------------------------------------------------------------

/// The repository root (for `scripts/`).
/// The venv's Python with aiosmtpd, created by `scripts/smtp-venv.sh` when
/// missing. `None` (and a message) when it cannot be had outside CI; in CI a
/// missing venv fails the test.
pub fn smtp_python() -> Option<PathBuf> {
    super::venv_python("smtp-venv.sh", "SMTP")
}

/// A running SMTP sink: every accepted message lands in `dir` as
/// `<n>.eml` with `<n>.json` (envelope). Killed on drop.
pub struct SmtpSink {
    child: Child,
    _stdin: ChildStdin,
    pub port: u16,
    pub dir: PathBuf,
}

impl SmtpSink {
    /// Starts the sink; `refuse` first DATA commands are answered `451`
    /// (transient), and with `reject` every message is answered `550`.
    pub fn start(python: &Path, refuse: u32, reject: bool) -> SmtpSink {
        let dir =
            std::env::temp_dir().join(format!("equip-smtp-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("sink dir");
        let mut cmd = Command::new(python);
        cmd.arg(super::repo_root().join("scripts/smtp_sink.py"))
            .arg("--dir")
            .arg(&dir)
            .arg("--refuse")
            .arg(refuse.to_string());
        if reject {
            cmd.arg("--reject");
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the SMTP sink");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("sink ready line");
        let port = line
            .trim()
            .strip_prefix("READY ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("unexpected sink output: {line:?}"));
        SmtpSink {
            child,
            _stdin: stdin,
            port,
            dir,
        }
    }

    /// `smtp://127.0.0.1:<port>` (plain, no TLS).
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// The raw messages received so far, in arrival order, with their envelopes.
    pub fn received(&self) -> Vec<(serde_json::Value, Vec<u8>)> {
        let mut n = 1;
        let mut out = Vec::new();
        loop {
            let eml = self.dir.join(format!("{n}.eml"));
            let json = self.dir.join(format!("{n}.json"));
            let (Ok(raw), Ok(env)) = (std::fs::read(&eml), std::fs::read(&json)) else {
                return out;
            };
            out.push((serde_json::from_slice(&env).expect("envelope json"), raw));
            n += 1;
        }
    }

    /// Waits until at least `n` messages arrived (or `timeout`).
    pub fn wait_for(&self, n: usize, timeout: Duration) -> Vec<(serde_json::Value, Vec<u8>)> {
        let start = Instant::now();
        loop {
            let got = self.received();
            if got.len() >= n || start.elapsed() > timeout {
                return got;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
