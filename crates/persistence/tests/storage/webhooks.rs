//! Webhooks: management scoped to the organization, the delivery log, and the
//! dispatcher's queue (claims exclusive under concurrency, leases, progress
//! written only under the lease, pruned events skipped).

use std::collections::BTreeSet;

use equip_domain::event::EventType;
use equip_domain::event_feed::Cursor;
use equip_domain::ids::{EventId, WebhookId};
use equip_domain::ports::{WebhookQueue, WebhookRepository};
use equip_domain::webhook::{
    AttemptOutcome, DeliveryAttempt, DeliveryState, RotationOverlap, SecretChangedMeanwhile,
    Webhook, WebhookLimitReached, WebhookProgress, WebhookStatus, WebhookUrl,
    MAX_WEBHOOKS_PER_ORGANIZATION,
};

use crate::support::*;

storage_tests!(
    webhooks_are_scoped_to_their_organization,
    a_new_webhook_starts_after_the_last_event,
    claims_need_new_events_and_respect_leases,
    progress_is_written_with_its_attempts_only_under_the_lease,
    retries_scheduled_later_and_disabled_webhooks_are_not_claimed,
    pruned_events_are_skipped_when_claimed,
    concurrent_claims_never_share_a_webhook,
    old_attempts_are_pruned,
    the_backlog_dates_the_oldest_event_still_stored,
    concurrent_creates_never_pass_the_limit,
    a_rotation_replaces_only_the_secrets,
);

/// Sets the organization's last event sequence (what claims look at).
fn set_head(db: &TestDatabase, org: &Organization, last: i64, pruned: i64) {
    db.execute(&format!(
        "INSERT INTO event_sequences (organization_id, last_sequence, pruned_through) \
         VALUES ('{org}', {last}, {pruned}) ON CONFLICT (organization_id) DO UPDATE \
         SET last_sequence = excluded.last_sequence, pruned_through = excluded.pruned_through",
        org = org.id
    ));
}

fn webhook(store: &Store, org: &Organization, types: Vec<EventType>) -> Webhook {
    let url = WebhookUrl::parse("https://hooks.example.com/equip").unwrap();
    let w = Webhook::new(org.id, &url, types, at(2, 0)).unwrap();
    store.insert_webhook(&w).unwrap().unwrap()
}

fn attempt(w: &Webhook, number: i64, when: DateTime<Utc>, ok: bool) -> DeliveryAttempt {
    DeliveryAttempt {
        webhook_id: w.id,
        organization_id: w.organization_id,
        number,
        event_id: EventId::new(),
        sequence: number,
        attempted_at: when,
        status_code: ok.then_some(200),
        latency_ms: 12,
        error: (!ok).then(|| "connection refused".to_owned()),
        outcome: if ok {
            AttemptOutcome::Succeeded
        } else {
            AttemptOutcome::Retrying
        },
    }
}

fn progress(
    position: i64,
    attempts: Vec<DeliveryAttempt>,
    lease: Option<DateTime<Utc>>,
) -> WebhookProgress {
    WebhookProgress {
        delivery: DeliveryState {
            position,
            ..DeliveryState::default()
        },
        failing_since: None,
        disable: None,
        last_attempt_number: attempts.last().map_or(0, |a| a.number),
        attempts,
        lease_until: lease,
    }
}

fn webhooks_are_scoped_to_their_organization(_db: &TestDatabase, store: &Store) {
    let a = new_org(store, "A");
    let b = new_org(store, "B");
    let wa = webhook(
        store,
        &a,
        vec![EventType::ItemUpdated, EventType::PersonCreated],
    );
    let wb = webhook(store, &b, vec![]);
    assert_eq!(
        wa.types,
        vec![EventType::ItemUpdated, EventType::PersonCreated]
    );
    assert_eq!(wa.status, WebhookStatus::Active);
    assert!(wa.secret.starts_with("whsec_"));
    assert_eq!(store.list_webhooks(a.id).unwrap(), vec![wa.clone()]);
    assert_eq!(store.find_webhook(a.id, wa.id).unwrap(), Some(wa.clone()));
    assert_eq!(store.find_webhook(a.id, wb.id).unwrap(), None);
    assert_eq!(store.find_webhook(b.id, wa.id).unwrap(), None);
    // B's attempts are not A's to read.
    set_head(_db, &b, 1, 0);
    let now = Utc::now();
    let claimed = store
        .claim_webhooks(now, now + Duration::minutes(1), 10)
        .unwrap();
    assert_eq!(claimed.len(), 1);
    let token = claimed[0].claimed_until.unwrap();
    assert!(store
        .save_webhook_progress(
            wb.id,
            token,
            &progress(1, vec![attempt(&wb, 1, now, true)], None)
        )
        .unwrap());
    assert_eq!(
        store
            .list_webhook_attempts(b.id, wb.id, None, 10)
            .unwrap()
            .len(),
        1
    );
    assert!(store
        .list_webhook_attempts(a.id, wb.id, None, 10)
        .unwrap()
        .is_empty());
    // Deleting through the other organization does nothing.
    assert!(!store.delete_webhook(a.id, wb.id).unwrap());
    assert!(store.find_webhook(b.id, wb.id).unwrap().is_some());
    assert!(store.delete_webhook(b.id, wb.id).unwrap());
    assert!(!store.delete_webhook(b.id, wb.id).unwrap());
    assert_eq!(store.find_webhook(b.id, wb.id).unwrap(), None);
    assert_eq!(_db.count_rows("webhook_deliveries"), 0);
    assert_eq!(store.list_webhooks(a.id).unwrap().len(), 1);
}

fn a_new_webhook_starts_after_the_last_event(db: &TestDatabase, store: &Store) {
    let a = new_org(store, "A");
    assert_eq!(webhook(store, &a, vec![]).delivery.position, 0);
    set_head(db, &a, 42, 0);
    let w = webhook(store, &a, vec![]);
    assert_eq!(w.delivery.position, 42);
    assert_eq!(
        store
            .find_webhook(a.id, w.id)
            .unwrap()
            .unwrap()
            .delivery
            .position,
        42
    );
}

fn claims_need_new_events_and_respect_leases(db: &TestDatabase, store: &Store) {
    let a = new_org(store, "A");
    set_head(db, &a, 5, 0);
    let w = webhook(store, &a, vec![]);
    let now = Utc::now();
    // Nothing after its position: nothing to claim.
    assert!(!store.webhooks_due(now).unwrap());
    assert!(store
        .claim_webhooks(now, now + Duration::minutes(1), 10)
        .unwrap()
        .is_empty());
    set_head(db, &a, 6, 0);
    assert!(store.webhooks_due(now).unwrap());
    let lease = now + Duration::minutes(1);
    let claimed = store.claim_webhooks(now, lease, 10).unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].id, w.id);
    let token = claimed[0].claimed_until.unwrap();
    // Leased: not claimable again until the lease runs out.
    assert!(!store.webhooks_due(now).unwrap());
    assert!(store.claim_webhooks(now, lease, 10).unwrap().is_empty());
    let later = lease + Duration::seconds(1);
    let reclaimed = store
        .claim_webhooks(later, later + Duration::minutes(1), 10)
        .unwrap();
    assert_eq!(reclaimed.len(), 1);
    // The first claimer lost its lease: its progress is refused.
    assert!(!store
        .save_webhook_progress(w.id, token, &progress(6, vec![], None))
        .unwrap());
    assert_eq!(
        store
            .find_webhook(a.id, w.id)
            .unwrap()
            .unwrap()
            .delivery
            .position,
        5
    );
    // The new holder's is written.
    let token = reclaimed[0].claimed_until.unwrap();
    assert!(store
        .save_webhook_progress(w.id, token, &progress(6, vec![], None))
        .unwrap());
    let stored = store.find_webhook(a.id, w.id).unwrap().unwrap();
    assert_eq!(stored.delivery.position, 6);
    assert_eq!(stored.claimed_until, None);
    // Caught up: nothing to claim.
    assert!(store
        .claim_webhooks(later, later + Duration::minutes(1), 10)
        .unwrap()
        .is_empty());
}

fn progress_is_written_with_its_attempts_only_under_the_lease(db: &TestDatabase, store: &Store) {
    let a = new_org(store, "A");
    let w = webhook(store, &a, vec![]);
    set_head(db, &a, 300, 0);
    let now = Utc::now();
    let claimed = store
        .claim_webhooks(now, now + Duration::minutes(1), 1)
        .unwrap();
    let token = claimed[0].claimed_until.unwrap();
    // 250 attempts in one save (more than one insert chunk), with the lease renewed.
    let attempts: Vec<_> = (1..=250)
        .map(|n| attempt(&w, n, now + Duration::milliseconds(n), n % 2 == 0))
        .collect();
    let renewed = now + Duration::minutes(2);
    assert!(store
        .save_webhook_progress(w.id, token, &progress(250, attempts, Some(renewed)))
        .unwrap());
    let stored = store.find_webhook(a.id, w.id).unwrap().unwrap();
    assert_eq!(stored.delivery.position, 250);
    assert_eq!(stored.last_attempt_number, 250);
    let token = stored.claimed_until.unwrap();
    assert_eq!(token, renewed.trunc_subsecs_micros());
    // The log: newest first, paged by number.
    let page = store.list_webhook_attempts(a.id, w.id, None, 100).unwrap();
    assert_eq!(page.len(), 100);
    assert_eq!(page[0].number, 250);
    assert_eq!(page[0].status_code, Some(200));
    assert_eq!(page[0].error, None);
    assert_eq!(page[1].status_code, None);
    assert_eq!(page[1].error.as_deref(), Some("connection refused"));
    assert_eq!(page[1].outcome, AttemptOutcome::Retrying);
    let next = store
        .list_webhook_attempts(a.id, w.id, Some(Cursor(page[99].number)), 1000)
        .unwrap();
    assert_eq!(next.len(), 150);
    assert_eq!(next[0].number, 150);
    assert_eq!(next.last().unwrap().number, 1);
    // A failure with a retry later, the webhook failing: kept.
    let mut failing = progress(250, vec![], Some(renewed));
    failing.delivery.attempts = 3;
    failing.delivery.retry_since = Some(now);
    failing.delivery.next_attempt_at = Some(now + Duration::seconds(4));
    failing.failing_since = Some(now);
    failing.last_attempt_number = 250;
    assert!(store.save_webhook_progress(w.id, token, &failing).unwrap());
    let stored = store.find_webhook(a.id, w.id).unwrap().unwrap();
    assert_eq!(stored.delivery.attempts, 3);
    assert_eq!(
        stored.delivery.retry_since,
        Some(now.trunc_subsecs_micros())
    );
    assert_eq!(stored.failing_since, Some(now.trunc_subsecs_micros()));
    // A wrong token writes nothing, attempts included.
    let stray = progress(299, vec![attempt(&w, 251, now, true)], None);
    assert!(!store
        .save_webhook_progress(w.id, now + Duration::minutes(7), &stray)
        .unwrap());
    assert_eq!(db.count_rows("webhook_deliveries"), 250);
    // A deleted webhook's holder cannot write either.
    assert!(store.delete_webhook(a.id, w.id).unwrap());
    assert!(!store.save_webhook_progress(w.id, token, &stray).unwrap());
    assert_eq!(db.count_rows("webhook_deliveries"), 0);
}

fn retries_scheduled_later_and_disabled_webhooks_are_not_claimed(db: &TestDatabase, store: &Store) {
    let a = new_org(store, "A");
    let w = webhook(store, &a, vec![]);
    set_head(db, &a, 3, 0);
    let now = Utc::now();
    let token = store
        .claim_webhooks(now, now + Duration::minutes(1), 1)
        .unwrap()[0]
        .claimed_until
        .unwrap();
    let mut retry = progress(0, vec![attempt(&w, 1, now, false)], None);
    retry.delivery.attempts = 1;
    retry.delivery.retry_since = Some(now);
    retry.delivery.next_attempt_at = Some(now + Duration::seconds(30));
    assert!(store.save_webhook_progress(w.id, token, &retry).unwrap());
    assert!(!store.webhooks_due(now).unwrap());
    assert!(store
        .claim_webhooks(now, now + Duration::minutes(1), 1)
        .unwrap()
        .is_empty());
    let due = now + Duration::seconds(31);
    let claimed = store
        .claim_webhooks(due, due + Duration::minutes(1), 1)
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].delivery.attempts, 1);
    let mut disable = progress(1, vec![], None);
    disable.disable = Some((due, "failing for a day".into()));
    disable.last_attempt_number = 1;
    assert!(store
        .save_webhook_progress(w.id, claimed[0].claimed_until.unwrap(), &disable)
        .unwrap());
    let stored = store.find_webhook(a.id, w.id).unwrap().unwrap();
    assert_eq!(stored.status, WebhookStatus::Disabled);
    assert_eq!(stored.disabled_reason.as_deref(), Some("failing for a day"));
    assert_eq!(stored.disabled_at, Some(due.trunc_subsecs_micros()));
    let much_later = due + Duration::hours(1);
    assert!(!store.webhooks_due(much_later).unwrap());
    assert!(store
        .claim_webhooks(much_later, much_later + Duration::minutes(1), 1)
        .unwrap()
        .is_empty());
}

fn pruned_events_are_skipped_when_claimed(db: &TestDatabase, store: &Store) {
    let a = new_org(store, "A");
    let w = webhook(store, &a, vec![]);
    set_head(db, &a, 100, 40);
    let now = Utc::now();
    let claimed = store
        .claim_webhooks(now, now + Duration::minutes(1), 1)
        .unwrap();
    assert_eq!(claimed[0].delivery.position, 40);
    assert_eq!(
        store
            .find_webhook(a.id, w.id)
            .unwrap()
            .unwrap()
            .delivery
            .position,
        40
    );
}

fn concurrent_claims_never_share_a_webhook(db: &TestDatabase, store: &Store) {
    let orgs: Vec<Organization> = (0..4)
        .map(|i| new_org(store, &format!("Org {i}")))
        .collect();
    let mut all = BTreeSet::new();
    for org in &orgs {
        for _ in 0..10 {
            all.insert(webhook(store, org, vec![]).id);
        }
        set_head(db, org, 10, 0);
    }
    let threads = 6;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let store = store.clone();
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                let mut mine: Vec<WebhookId> = Vec::new();
                loop {
                    let now = Utc::now();
                    let got = store
                        .claim_webhooks(now, now + Duration::minutes(5), 3)
                        .unwrap();
                    if got.is_empty() {
                        return mine;
                    }
                    mine.extend(got.iter().map(|w| w.id));
                }
            })
        })
        .collect();
    let mut claimed: Vec<WebhookId> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let total = claimed.len();
    claimed.sort();
    claimed.dedup();
    assert_eq!(total, claimed.len(), "a webhook was claimed twice");
    assert_eq!(claimed.into_iter().collect::<BTreeSet<_>>(), all);
}

fn old_attempts_are_pruned(db: &TestDatabase, store: &Store) {
    let a = new_org(store, "A");
    let w1 = webhook(store, &a, vec![]);
    let w2 = webhook(store, &a, vec![]);
    set_head(db, &a, 10, 0);
    let now = Utc::now();
    for _ in 0..2 {
        let claimed = store
            .claim_webhooks(now, now + Duration::minutes(1), 1)
            .unwrap();
        let token = claimed[0].claimed_until.unwrap();
        let w = &claimed[0];
        let attempts: Vec<_> = (1..=10)
            .map(|n| attempt(w, n, now - Duration::days(100 - n), true))
            .collect();
        assert!(store
            .save_webhook_progress(w.id, token, &progress(10, attempts, None))
            .unwrap());
    }
    assert_eq!(db.count_rows("webhook_deliveries"), 20);
    // Attempts older than the cutoff: numbers 1..=4 of each.
    let cutoff = now - Duration::days(95) - Duration::seconds(1);
    assert_eq!(store.prune_webhook_attempts(cutoff, 3).unwrap(), 3);
    assert_eq!(store.prune_webhook_attempts(cutoff, 1000).unwrap(), 5);
    assert_eq!(store.prune_webhook_attempts(cutoff, 1000).unwrap(), 0);
    for w in [&w1, &w2] {
        let left = store.list_webhook_attempts(a.id, w.id, None, 100).unwrap();
        assert_eq!(left.len(), 6);
        assert_eq!(left.last().unwrap().number, 5);
    }
}

trait Micros {
    fn trunc_subsecs_micros(self) -> Self;
}

impl Micros for DateTime<Utc> {
    fn trunc_subsecs_micros(self) -> Self {
        use chrono::SubsecRound;
        self.trunc_subsecs(6)
    }
}

/// The metrics' webhook backlog: webhooks behind their organization's head,
/// and the time of the oldest event one of them has yet to deliver, also
/// when the event right after its position was pruned.
fn the_backlog_dates_the_oldest_event_still_stored(db: &TestDatabase, store: &Store) {
    use equip_domain::event_feed::{FeedQuery, FeedRead};
    use equip_domain::ports::EventRepository;

    let (org, s, w) = seeded(store, "A");
    let hook = webhook(store, &org, vec![]);
    let start = hook.delivery.position;
    for hour in 3..6 {
        store
            .insert_inventory_item(&item(&org, &s, &w, at(hour, 0)))
            .unwrap();
    }
    let query = FeedQuery {
        after: Some(Cursor(start)),
        types: vec![],
        subject_id: None,
        size: 10,
    };
    let FeedRead::Events { events, .. } = store.read_feed(org.id, &query).unwrap() else {
        panic!("the feed expired");
    };
    assert_eq!(events.len(), 3);
    let backlog = store.webhook_backlog().unwrap();
    assert_eq!(backlog.behind, 1);
    assert_eq!(backlog.oldest_undelivered_at, Some(events[0].occurred_at));
    // The event right after the webhook's position is pruned: the next one
    // still stored dates the backlog.
    db.execute(&format!(
        "DELETE FROM events WHERE organization_id = '{}' AND sequence = {}",
        org.id, events[0].sequence
    ));
    let backlog = store.webhook_backlog().unwrap();
    assert_eq!(backlog.behind, 1);
    assert_eq!(backlog.oldest_undelivered_at, Some(events[1].occurred_at));
}

/// Twelve threads create webhooks at once for an organization 5 short of the
/// limit: exactly 5 are added, the others refused, and the count read then
/// is the limit (before, each create counted outside its transaction and
/// PostgreSQL ended with 104–108).
fn concurrent_creates_never_pass_the_limit(_db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Busy");
    let other = new_org(store, "Other");
    for _ in 0..MAX_WEBHOOKS_PER_ORGANIZATION - 5 {
        webhook(store, &org, vec![]);
    }
    let threads = 12;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let store = store.clone();
            let barrier = Arc::clone(&barrier);
            let org = org.id;
            std::thread::spawn(move || {
                let url = WebhookUrl::parse("https://hooks.example.com/equip").unwrap();
                let w = Webhook::new(org, &url, vec![], at(2, 0)).unwrap();
                barrier.wait();
                store.insert_webhook(&w).unwrap()
            })
        })
        .collect();
    let results: Vec<Result<Webhook, WebhookLimitReached>> =
        handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 5);
    assert_eq!(
        store.list_webhooks(org.id).unwrap().len(),
        MAX_WEBHOOKS_PER_ORGANIZATION
    );
    // Another organization is not limited by this one's webhooks.
    webhook(store, &other, vec![]);
    assert_eq!(store.list_webhooks(other.id).unwrap().len(), 1);
}

/// A rotation writes the two secrets and nothing else: a lease, the
/// position and the retries stay; the dispatcher's read under its lease
/// sees the new secrets; a rotation from a stale secret writes nothing; a
/// webhook of another organization is unknown.
fn a_rotation_replaces_only_the_secrets(db: &TestDatabase, store: &Store) {
    let org = new_org(store, "A");
    let other = new_org(store, "B");
    let w = webhook(store, &org, vec![]);
    set_head(db, &org, 7, 0);
    let lease = Utc::now() + Duration::seconds(60);
    let claimed = store.claim_webhooks(Utc::now(), lease, 10).unwrap();
    assert_eq!(claimed.len(), 1);
    let mut state = progress(3, vec![attempt(&w, 1, at(2, 1), true)], Some(lease));
    state.delivery.attempts = 2;
    state.delivery.retry_since = Some(at(2, 2));
    assert!(store.save_webhook_progress(w.id, lease, &state).unwrap());
    let before = store.find_webhook(org.id, w.id).unwrap().unwrap();
    assert_eq!(
        store.leased_webhook_secrets(w.id, lease).unwrap(),
        Some(before.signing_secrets())
    );

    let now = at(3, 0);
    let rotated = before.signing_secrets().rotated(
        "whsec_new".into(),
        now,
        RotationOverlap::parse(Some(3600)).unwrap(),
    );
    let stored = store
        .replace_webhook_secrets(org.id, w.id, &before.secret, &rotated)
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(stored.secret, "whsec_new");
    let previous = stored.previous_secret.clone().unwrap();
    assert_eq!(previous.secret, before.secret);
    assert_eq!(previous.until, now + Duration::seconds(3600));
    // Everything else as it was.
    assert_eq!(
        Webhook {
            secret: before.secret.clone(),
            previous_secret: None,
            ..stored.clone()
        },
        before
    );
    assert_eq!(
        store.find_webhook(org.id, w.id).unwrap(),
        Some(stored.clone())
    );
    assert_eq!(
        store.leased_webhook_secrets(w.id, lease).unwrap(),
        Some(rotated.clone())
    );
    assert_eq!(
        store
            .leased_webhook_secrets(w.id, lease + Duration::seconds(1))
            .unwrap(),
        None
    );

    // From a stale secret: nothing written.
    let stale = before.signing_secrets().rotated(
        "whsec_lost".into(),
        now,
        RotationOverlap::parse(Some(0)).unwrap(),
    );
    assert_eq!(
        store
            .replace_webhook_secrets(org.id, w.id, &before.secret, &stale)
            .unwrap(),
        Some(Err(SecretChangedMeanwhile))
    );
    assert_eq!(
        store.find_webhook(org.id, w.id).unwrap(),
        Some(stored.clone())
    );
    // A zero overlap clears the previous secret.
    let at_once = stored.signing_secrets().rotated(
        "whsec_third".into(),
        now,
        RotationOverlap::parse(Some(0)).unwrap(),
    );
    let third = store
        .replace_webhook_secrets(org.id, w.id, "whsec_new", &at_once)
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(
        (third.secret.as_str(), third.previous_secret),
        ("whsec_third", None)
    );
    // Another organization's, or unknown: None.
    assert_eq!(
        store
            .replace_webhook_secrets(other.id, w.id, "whsec_third", &at_once)
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .replace_webhook_secrets(org.id, WebhookId::new(), "x", &at_once)
            .unwrap(),
        None
    );
}
