//! PostgreSQL change notifications, and the memo of API keys they keep valid.
//!
//! Every authenticated request reads its API key (see
//! `equip_domain::ports::ApiKeyRepository::find_api_key_by_prefix`). On
//! PostgreSQL that is a round trip per request. With
//! [`crate::Store::watch_changes`], the store keeps the keys it read in a
//! [`Memo`] and answers from it while it is known to be current:
//!
//! - Triggers on `api_keys` (PostgreSQL baseline migration, "Change
//!   notifications") send the organization id on the channel [`CHANNEL`]
//!   with every change; PostgreSQL delivers a notification when its
//!   transaction commits.
//! - A listener thread holds its own connection, `LISTEN`s, and drops the
//!   memo's entries of each notified organization. It polls the connection
//!   (Diesel offers no blocking wait on it): every millisecond while
//!   organizations' changes arrive, backing off to every [`POLL_IDLE`] when
//!   none do, so an idle service barely wakes. It sends itself a
//!   notification every second; the
//!   memo answers only while the last one that came back is younger than
//!   [`STALE_AFTER`] (so a connection that silently stopped delivering, or a
//!   pooler that does not keep the session's `LISTEN`, turns it off). When the
//!   connection fails, the memo is emptied and stays off until the listener
//!   has reconnected and listens again.
//! - A write made by this store empties the memo when its call returns
//!   (before the caller can answer anyone), so a process always reads its own
//!   writes. Another instance's writes are seen once their notification
//!   is polled: within a millisecond or two while changes flow, within
//!   [`POLL_IDLE`] after a quiet spell.
//! - An entry is kept only if no change of its organization was noted while it
//!   was being read ([`Memo::ticket`]), so a read that raced with a write
//!   cannot bring back what the write replaced.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel::PgConnection;

use equip_domain::api_key::ApiKey;
use equip_domain::ids::OrganizationId;

/// The notification channel (see the migration).
pub(crate) const CHANNEL: &str = "equip_organization_changed";

/// Payload of the notifications a listener sends itself.
const HEARTBEAT_PREFIX: &str = "heartbeat:";
/// The memo answers only while the listener's last heartbeat is younger.
pub(crate) const STALE_AFTER: Duration = Duration::from_secs(3);
const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);
/// The pause between polls while changes arrive.
const POLL_BUSY: Duration = Duration::from_millis(1);
/// The longest pause between polls, reached when no change arrives (the
/// pause doubles per quiet poll). Bounds how late another instance's change
/// is seen by an idle process.
pub(crate) const POLL_IDLE: Duration = Duration::from_millis(40);
const RECONNECT_AFTER: Duration = Duration::from_millis(500);
/// Entries of each kind kept at most; the kind is emptied when it is full.
const MAX_ENTRIES: usize = 10_000;

/// What this process read and may answer again while no change was noted.
#[derive(Default)]
pub(crate) struct Memo {
    state: Mutex<State>,
    /// A listener was started ([`Self::watch`]).
    watching: AtomicBool,
    /// The listener is connected and listening.
    live: AtomicBool,
    /// 1 + milliseconds since `epoch` when the listener's last heartbeat came
    /// back; 0 when none did since it (re)connected.
    heartbeat_ms: AtomicU64,
    epoch: OnceInstant,
    /// Answers given from the memo (for the metrics and tests).
    hits: AtomicU64,
    /// Lookups the memo could not answer (off, or not remembered).
    misses: AtomicU64,
}

#[derive(Default)]
struct State {
    /// Bumped by every change noted.
    seq: u64,
    /// `seq` of the last time everything was dropped.
    cleared_at: u64,
    /// `seq` of the last change noted per organization.
    changed_at: HashMap<OrganizationId, u64>,
    /// API keys by prefix.
    keys: HashMap<String, ApiKey>,
}

/// A monotonic origin fixed at construction.
struct OnceInstant(Instant);

impl Default for OnceInstant {
    fn default() -> Self {
        Self(Instant::now())
    }
}

/// Taken before a read whose result may be kept: [`Memo::ticket`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ticket(u64);

impl Memo {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.0.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Whether the memo may answer: the listener listens and its heartbeat is
    /// recent.
    pub(crate) fn is_live(&self) -> bool {
        let heartbeat = self.heartbeat_ms.load(Ordering::Acquire);
        self.live.load(Ordering::Acquire)
            && heartbeat != 0
            && (self.now_ms() + 1).saturating_sub(heartbeat)
                < u64::try_from(STALE_AFTER.as_millis()).unwrap_or(u64::MAX)
    }

    /// Marks the memo as watched; `true` the first time (the caller starts
    /// the listener).
    pub(crate) fn watch(&self) -> bool {
        !self.watching.swap(true, Ordering::AcqRel)
    }

    /// Whether a listener was started: writes must then empty the memo.
    pub(crate) fn watching(&self) -> bool {
        self.watching.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Answers given from the memo so far.
    pub(crate) fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Lookups the memo did not answer so far.
    pub(crate) fn misses(&self) -> u64 {
        self.misses.load(Ordering::Relaxed)
    }

    /// Before reading what [`Self::keep_key`] will be given; `None` while the
    /// memo is off.
    pub(crate) fn ticket(&self) -> Option<Ticket> {
        if !self.is_live() {
            return None;
        }
        Some(Ticket(self.lock().seq))
    }

    /// The key of `prefix`, if remembered. Counts a hit or a miss.
    pub(crate) fn key(&self, prefix: &str) -> Option<ApiKey> {
        let found = if self.is_live() {
            self.lock().keys.get(prefix).cloned()
        } else {
            None
        };
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Whether nothing of `org` changed since `ticket` was taken.
    fn unchanged(state: &State, ticket: Ticket, org: OrganizationId) -> bool {
        ticket.0 >= state.cleared_at && state.changed_at.get(&org).is_none_or(|&at| at <= ticket.0)
    }

    /// Remembers a key read after `ticket` was taken, unless its organization
    /// changed since.
    pub(crate) fn keep_key(&self, ticket: Ticket, key: &ApiKey) {
        let mut state = self.lock();
        if !Self::unchanged(&state, ticket, key.organization_id) {
            return;
        }
        if state.keys.len() >= MAX_ENTRIES {
            state.keys.clear();
        }
        state.keys.insert(key.prefix.clone(), key.clone());
    }

    /// Drops what is remembered of `org`.
    pub(crate) fn changed(&self, org: OrganizationId) {
        let mut state = self.lock();
        state.seq += 1;
        let seq = state.seq;
        if state.changed_at.len() >= MAX_ENTRIES {
            // Forgetting when organizations changed is safe only together
            // with everything read before.
            Self::clear_locked(&mut state);
            return;
        }
        state.changed_at.insert(org, seq);
        state.keys.retain(|_, k| k.organization_id != org);
    }

    /// Drops everything.
    pub(crate) fn clear(&self) {
        Self::clear_locked(&mut self.lock());
    }

    fn clear_locked(state: &mut State) {
        state.seq += 1;
        state.cleared_at = state.seq;
        state.changed_at.clear();
        state.keys.clear();
    }

    /// Listening (answers start with the first heartbeat), or not.
    fn set_live(&self, live: bool) {
        if !live {
            self.heartbeat_ms.store(0, Ordering::Release);
        }
        self.live.store(live, Ordering::Release);
    }

    fn heartbeat(&self) {
        self.heartbeat_ms
            .store(self.now_ms() + 1, Ordering::Release);
    }
}

/// Starts the listener thread for `memo` on its own connection to `url`. The
/// thread ends when the memo is dropped (the last clone of its store).
pub(crate) fn spawn_listener(url: String, memo: &Arc<Memo>) -> std::io::Result<()> {
    let weak = Arc::downgrade(memo);
    std::thread::Builder::new()
        .name("equip-change-feed".into())
        .spawn(move || listen(&url, &weak))
        .map(|_| ())
}

fn listen(url: &str, memo: &Weak<Memo>) {
    let mut failures = 0u32;
    loop {
        match connect(url) {
            Ok(mut conn) => {
                let Some(m) = memo.upgrade() else { return };
                // Whatever changed while nobody listened is unknown.
                m.clear();
                m.set_live(true);
                if failures > 0 {
                    tracing::info!("change notifications: listening again");
                }
                failures = 0;
                drop(m);
                let err = follow(&mut conn, memo);
                let Some(m) = memo.upgrade() else { return };
                m.set_live(false);
                m.clear();
                match err {
                    Some(e) => {
                        tracing::warn!("change notifications: connection lost ({e}); reconnecting")
                    }
                    None => return,
                }
            }
            Err(e) => {
                failures += 1;
                if failures == 1 || failures.is_multiple_of(60) {
                    tracing::warn!("change notifications: cannot listen ({e}); retrying");
                }
            }
        }
        if memo.strong_count() == 0 {
            return;
        }
        std::thread::sleep(RECONNECT_AFTER);
    }
}

fn connect(url: &str) -> Result<PgConnection, String> {
    // libpq's message may quote parts of the URL: never its password.
    let mut conn = PgConnection::establish(url)
        .map_err(|e| crate::database_url::Secrets::of(url).scrub(&e.to_string()))?;
    diesel::sql_query("SET application_name = 'equip-change-feed'")
        .execute(&mut conn)
        .map_err(|e| e.to_string())?;
    diesel::sql_query(format!("LISTEN {CHANNEL}"))
        .execute(&mut conn)
        .map_err(|e| e.to_string())?;
    Ok(conn)
}

/// Applies notifications until the connection fails (`Some(error)`) or the
/// memo is gone (`None`).
fn follow(conn: &mut PgConnection, memo: &Weak<Memo>) -> Option<String> {
    let token = format!("{HEARTBEAT_PREFIX}{}", uuid::Uuid::new_v4().simple());
    let mut last_heartbeat = Instant::now()
        .checked_sub(HEARTBEAT_EVERY)
        .unwrap_or_else(Instant::now);
    let mut pause = POLL_BUSY;
    loop {
        let m = memo.upgrade()?;
        let mut changes = false;
        for notification in conn.notifications_iter() {
            match notification {
                Ok(n) if n.payload == token => m.heartbeat(),
                // Another instance's heartbeat.
                Ok(n) if n.payload.starts_with(HEARTBEAT_PREFIX) => {}
                // An organization id; anything else drops everything.
                Ok(n) => {
                    changes = true;
                    match OrganizationId::parse(&n.payload) {
                        Ok(org) => m.changed(org),
                        Err(_) => m.clear(),
                    }
                }
                Err(e) => return Some(e.to_string()),
            }
        }
        pause = next_pause(pause, changes);
        if last_heartbeat.elapsed() >= HEARTBEAT_EVERY {
            // Through the database and back: the memo stays on only while
            // notifications really arrive (not, say, behind a pooler that
            // does not keep this session's LISTEN).
            if let Err(e) = diesel::sql_query("SELECT pg_notify($1, $2)")
                .bind::<diesel::sql_types::Text, _>(CHANNEL)
                .bind::<diesel::sql_types::Text, _>(&token)
                .execute(conn)
            {
                return Some(e.to_string());
            }
            last_heartbeat = Instant::now();
        }
        drop(m);
        std::thread::sleep(pause);
    }
}

/// The pause before the next poll: short while changes arrive, doubling to
/// [`POLL_IDLE`] while none do.
fn next_pause(pause: Duration, changes: bool) -> Duration {
    if changes {
        POLL_BUSY
    } else {
        (pause * 2).min(POLL_IDLE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polls_back_off_when_idle_and_speed_up_on_a_change() {
        let mut pause = POLL_BUSY;
        for _ in 0..10 {
            pause = next_pause(pause, false);
        }
        assert_eq!(pause, POLL_IDLE);
        assert_eq!(next_pause(pause, true), POLL_BUSY);
    }

    use equip_domain::api_key::{ApiKey, Scopes};
    use equip_domain::ids::ApiKeyId;

    fn key(org: OrganizationId, prefix: &str) -> ApiKey {
        ApiKey {
            id: ApiKeyId::new(),
            organization_id: org,
            prefix: prefix.into(),
            hash: "h".into(),
            scopes: Scopes::all(),
            label: None,
            created_at: chrono::Utc::now(),
            revoked_at: None,
        }
    }

    fn live() -> Memo {
        let memo = Memo::default();
        memo.set_live(true);
        memo.heartbeat();
        memo
    }

    #[test]
    fn remembers_what_was_read_until_its_organization_changes() {
        let memo = live();
        let (a, b) = (OrganizationId::new(), OrganizationId::new());
        let t = memo.ticket().unwrap();
        memo.keep_key(t, &key(a, "ka"));
        memo.keep_key(t, &key(b, "kb"));
        assert_eq!(memo.key("ka").unwrap().organization_id, a);
        assert!(memo.key("kc").is_none());
        memo.changed(a);
        assert!(memo.key("ka").is_none());
        assert_eq!(memo.key("kb").unwrap().organization_id, b);
        assert_eq!(memo.hits(), 2);
        // kc, then ka after its organization changed.
        assert_eq!(memo.misses(), 2);
    }

    #[test]
    fn a_read_that_raced_with_a_change_is_not_kept() {
        let memo = live();
        let org = OrganizationId::new();
        let before = memo.ticket().unwrap();
        memo.changed(org);
        memo.keep_key(before, &key(org, "k"));
        assert!(memo.key("k").is_none());
        // Another organization's change does not matter.
        let other = OrganizationId::new();
        let t = memo.ticket().unwrap();
        memo.changed(other);
        memo.keep_key(t, &key(org, "k"));
        assert!(memo.key("k").is_some());
        // A clear does.
        let t = memo.ticket().unwrap();
        memo.clear();
        memo.keep_key(t, &key(org, "k2"));
        assert!(memo.key("k2").is_none());
    }

    #[test]
    fn answers_nothing_unless_the_listener_is_live_and_recent() {
        // As if the process had run for a minute.
        let memo = Memo {
            epoch: OnceInstant(Instant::now().checked_sub(Duration::from_secs(60)).unwrap()),
            ..Memo::default()
        };
        assert!(memo.ticket().is_none());
        memo.set_live(true);
        // Listening, but no heartbeat came back yet.
        assert!(memo.ticket().is_none());
        memo.heartbeat();
        let t = memo.ticket().unwrap();
        memo.keep_key(t, &key(OrganizationId::new(), "k"));
        assert!(memo.key("k").is_some());
        // A heartbeat a minute old.
        memo.heartbeat_ms.store(1, Ordering::Release);
        assert!(!memo.is_live());
        assert!(memo.key("k").is_none());
        memo.heartbeat();
        assert!(memo.key("k").is_some());
        memo.set_live(false);
        assert!(memo.key("k").is_none());
        memo.set_live(true);
        assert!(memo.key("k").is_none(), "not before a heartbeat came back");
    }
}
