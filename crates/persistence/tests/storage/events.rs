//! Events: written with their change (and only then), attributed, read as a
//! feed without holes under concurrent writers, as histories, and pruned.

use std::collections::BTreeSet;

use equip_domain::event::{Actor, Event, EventType, Subject, SubjectType};
use equip_domain::event_feed::{Cursor, FeedPage, FeedQuery, FeedRead, RawFeedQuery};
use equip_domain::group::{Group, GroupFields, GroupFieldsChange, MembersChange};
use equip_domain::ids::GroupId;
use equip_domain::ports::{Acting, EventRepository, GroupChange, GroupRepository};
use equip_domain::services::events::read_feed;
use equip_domain::DomainError;

use crate::support::*;

storage_tests!(
    changes_are_recorded_with_their_fields_and_actor,
    a_refused_or_failed_write_records_nothing,
    feed_filters_and_cursors,
    histories_are_newest_first_and_scoped,
    pruning_removes_the_oldest_and_expires_their_cursors,
    concurrent_writers_never_make_a_reader_skip,
    group_writes_record_one_event_per_member_who_joins_or_leaves,
    people_inserted_together_are_each_written_or_refused,
    a_cursor_at_the_pruned_boundary_is_still_checked,
);

#[test]
fn sqlite_a_cursor_from_before_a_restore_is_refused_never_skips() {
    a_cursor_from_before_a_restore_is_refused_never_skips(&TestDatabase::sqlite());
}

#[test]
fn postgres_a_cursor_from_before_a_restore_is_refused_never_skips() {
    if let Some(db) = TestDatabase::postgres() {
        a_cursor_from_before_a_restore_is_refused_never_skips(&db);
    }
}

fn query(after: i64, size: usize) -> FeedQuery {
    FeedQuery {
        after: Some(Cursor(after)),
        types: vec![],
        subject_id: None,
        size,
    }
}

fn feed(store: &Store, org: &Organization, q: &FeedQuery) -> FeedPage {
    match store.read_feed(org.id, q).unwrap() {
        FeedRead::Events { events, head, .. } => FeedPage::from_read(q, events, head),
        refused => panic!("cursor {:?}: {refused:?}", q.after),
    }
}

/// Every event of the organization, following `next` from the start.
pub(crate) fn all_events(store: &Store, org: &Organization) -> Vec<Event> {
    let mut out = Vec::new();
    let mut q = FeedQuery {
        after: None,
        ..query(0, 1000)
    };
    loop {
        let page = feed(store, org, &q);
        if page.events.is_empty() {
            return out;
        }
        q.after = Some(page.next);
        out.extend(page.events);
    }
}

fn kinds(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(|e| e.kind.as_str()).collect()
}

fn changes_are_recorded_with_their_fields_and_actor(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let key = ApiKeyId::new();
    let api = store.acting_as(Actor::ApiKey(key));
    let before = all_events(store, &org).len();

    let ada = person(&org, "ada@example.com");
    api.insert_person(&ada).unwrap();
    let mut it = item(&org, &s, &w, at(3, 0));
    api.insert_inventory_item(&it).unwrap();
    let current = it.clone();
    it.deploy_status = DeployStatus::Deployed;
    it.assignment = Some(Assignment {
        assignee: Assignee::Person(ada.id),
        assigned_at: Some(at(3, 5)),
    });
    it.description = Some("dented lid".into());
    it.updated_at = at(3, 10);
    assert!(api.update_inventory_item(&current, &it).unwrap().written());
    // A rename of the person.
    let mut renamed = ada.clone();
    renamed.given_name = Some("Augusta".into());
    renamed.version = 2;
    api.update_person(&ada, &renamed).unwrap();
    // Offboarding (as the CLI): the item gets a return order.
    store
        .acting_as(Actor::Cli)
        .offboard_person(org.id, ada.id, None, at(4, 0))
        .unwrap();

    let events = all_events(store, &org);
    let events = &events[before..];
    assert_eq!(
        kinds(events),
        [
            "person.created",
            "inventory.item.created",
            "inventory.item.updated",
            "person.updated",
            "person.offboarding_started",
            "return_order.created",
            "inventory.item.updated",
        ]
    );
    // Sequences are dense and increasing.
    for pair in events.windows(2) {
        assert_eq!(pair[1].sequence, pair[0].sequence + 1);
    }
    assert!(events[..4].iter().all(|e| e.actor == Actor::ApiKey(key)));
    assert!(events[4..].iter().all(|e| e.actor == Actor::Cli));
    // A creation lists what the subject has; an update only what changed.
    let created = &events[0];
    assert_eq!(
        created.subject,
        Subject {
            kind: SubjectType::Person,
            id: *ada.id.as_uuid()
        }
    );
    assert_eq!(created.changes()["userName"].to, "ada@example.com");
    assert_eq!(created.changes()["userName"].from, serde_json::Value::Null);
    let update = &events[2];
    let update_changes = update.changes();
    let changed: Vec<&str> = update_changes.keys().map(String::as_str).collect();
    assert_eq!(changed, ["assignedTo", "deployStatus", "description"]);
    assert_eq!(update.changes()["deployStatus"].from, "AVAILABLE");
    assert_eq!(update.changes()["deployStatus"].to, "DEPLOYED");
    assert_eq!(update.occurred_at, at(3, 10));
    let rename = &events[3];
    assert_eq!(
        rename.changes().keys().collect::<Vec<_>>(),
        ["name.givenName"]
    );
    assert_eq!(events[4].changes()["status"].to, "OFFBOARDING");
    assert_eq!(events[5].subject.kind, SubjectType::ReturnOrder);
    assert_eq!(events[5].changes()["status"].to, "PENDING");
    assert_eq!(events[5].changes()["personId"].to, ada.id.to_string());
    assert_eq!(events[6].subject.id, *it.id.as_uuid());
    assert_eq!(events[6].changes()["returnOrder"].to["status"], "PENDING");
    // The JSON form (the feed's and the webhooks'), from the stored text.
    let json = serde_json::to_value(equip_api_types::event::EventBody::from(update)).unwrap();
    assert_eq!(json["type"], "inventory.item.updated");
    assert_eq!(json["actor"]["type"], "API_KEY");
    assert_eq!(json["actor"]["id"], key.to_string());
    assert_eq!(json["subject"]["type"], "INVENTORY_ITEM");
    assert_eq!(json["changes"]["description"]["to"], "dented lid");
}

fn a_refused_or_failed_write_records_nothing(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let ada = person(&org, "ada@example.com");
    store.insert_person(&ada).unwrap();
    let count = all_events(store, &org).len();
    // A clash of userNames: the insert fails, and so does its event.
    let twin = person(&org, "ADA@example.com");
    assert!(matches!(
        store.insert_person(&twin),
        Err(StoreError::Duplicate { .. })
    ));
    // A stale update.
    let it = item(&org, &s, &w, at(3, 0));
    store.insert_inventory_item(&it).unwrap();
    let mut stale = it.clone();
    stale.updated_at = at(1, 0);
    let mut changed = it.clone();
    changed.description = Some("x".into());
    assert!(!store
        .update_inventory_item(&stale, &changed)
        .unwrap()
        .written());
    // A level deactivated twice records once.
    let l = level(&org, &s, &w, at(3, 0));
    store.insert_inventory_level(&l).unwrap();
    assert!(store
        .mark_inventory_level_deactivated(org.id, l.id, at(4, 0))
        .unwrap());
    assert!(!store
        .mark_inventory_level_deactivated(org.id, l.id, at(5, 0))
        .unwrap());
    let events = all_events(store, &org);
    assert_eq!(
        kinds(&events[count..]),
        [
            "inventory.item.created",
            "inventory_level.created",
            "inventory_level.deactivated"
        ]
    );
}

fn feed_filters_and_cursors(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let (other, os, ow) = seeded(store, "Other");
    let items: Vec<InventoryItem> = (0..5).map(|i| item(&org, &s, &w, at(3, i))).collect();
    for it in &items {
        store.insert_inventory_item(it).unwrap();
    }
    store
        .insert_inventory_item(&item(&other, &os, &ow, at(3, 0)))
        .unwrap();
    store
        .insert_person(&person(&org, "ada@example.com"))
        .unwrap();
    let all = all_events(store, &org);
    // Another organization's events are never in this feed.
    assert!(all.iter().all(|e| e.organization_id == org.id));
    let head = all.last().unwrap().sequence;
    // Paging by two.
    let first = feed(store, &org, &query(0, 2));
    assert_eq!(first.events.len(), 2);
    assert_eq!(first.next, Cursor(first.events[1].sequence));
    // A type filter; a page that is not full moves `next` to the head.
    let people = feed(
        store,
        &org,
        &FeedQuery {
            types: vec![EventType::PersonCreated],
            ..query(0, 10)
        },
    );
    assert_eq!(kinds(&people.events), ["person.created"]);
    assert_eq!(people.next, Cursor(head));
    // A subject filter.
    let one = feed(
        store,
        &org,
        &FeedQuery {
            subject_id: Some(*items[3].id.as_uuid()),
            ..query(0, 10)
        },
    );
    assert_eq!(one.events.len(), 1);
    assert_eq!(one.events[0].subject.id, *items[3].id.as_uuid());
    // At the head: nothing, and `next` stays.
    let end = feed(store, &org, &query(head, 10));
    assert!(end.events.is_empty());
    assert_eq!(end.next, Cursor(head));
    // A cursor past the head (not given by this feed) is refused.
    assert_eq!(
        store.read_feed(org.id, &query(head + 1, 10)).unwrap(),
        FeedRead::Ahead
    );
}

fn histories_are_newest_first_and_scoped(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let (other, _, _) = seeded(store, "Other");
    let mut it = item(&org, &s, &w, at(3, 0));
    store.insert_inventory_item(&it).unwrap();
    for n in 1..=4 {
        let current = it.clone();
        it.description = Some(format!("note {n}"));
        it.updated_at = at(3, n);
        assert!(store
            .update_inventory_item(&current, &it)
            .unwrap()
            .written());
    }
    let subject = Subject {
        kind: SubjectType::InventoryItem,
        id: *it.id.as_uuid(),
    };
    let newest = store.read_history(org.id, subject, None, 3).unwrap();
    assert_eq!(newest.len(), 3);
    assert_eq!(newest[0].changes()["description"].to, "note 4");
    assert!(newest.windows(2).all(|p| p[0].sequence > p[1].sequence));
    let older = store
        .read_history(org.id, subject, Some(Cursor(newest[2].sequence)), 3)
        .unwrap();
    assert_eq!(
        kinds(&older),
        ["inventory.item.updated", "inventory.item.created"]
    );
    // Another organization sees none of it.
    assert!(store
        .read_history(other.id, subject, None, 10)
        .unwrap()
        .is_empty());
}

fn pruning_removes_the_oldest_and_expires_their_cursors(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let old = Utc::now() - Duration::days(100);
    let start = all_events(store, &org).last().map_or(0, |e| e.sequence);
    for i in 0..3 {
        store
            .insert_inventory_item(&item(&org, &s, &w, old + Duration::seconds(i)))
            .unwrap();
    }
    store
        .insert_inventory_item(&item(&org, &s, &w, Utc::now()))
        .unwrap();
    let deleted = store
        .prune_events(Utc::now() - Duration::days(90), 1000)
        .unwrap();
    assert!(deleted >= 3, "{deleted}");
    let left = all_events(store, &org);
    assert_eq!(kinds(&left), ["inventory.item.created"]);
    // A cursor before the pruned events is expired; one after them is not.
    assert_eq!(
        store.read_feed(org.id, &query(start, 10)).unwrap(),
        FeedRead::Expired
    );
    assert_eq!(
        store.read_feed(org.id, &query(0, 10)).unwrap(),
        FeedRead::Expired
    );
    // Without a cursor, the feed starts at the oldest event kept.
    let at_boundary = feed(store, &org, &query(left[0].sequence - 1, 10));
    assert_eq!(at_boundary.events, left);
    // Nothing left to prune.
    assert_eq!(
        store
            .prune_events(Utc::now() - Duration::days(90), 1000)
            .unwrap(),
        0
    );
}

/// Writers commit concurrently while a reader follows `next`: the reader sees
/// every committed event once, in sequence order. (The end-to-end version
/// with two `equip serve` instances is in the HTTP suite.)
fn concurrent_writers_never_make_a_reader_skip(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let start = all_events(store, &org).last().map_or(0, |e| e.sequence);
    let writers = 6;
    let per_writer: i64 = 60;
    let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let handles: Vec<_> = (0..writers)
        .map(|_| {
            let (store, org, s, w, done) = (
                store.clone(),
                org.clone(),
                s.clone(),
                w.clone(),
                Arc::clone(&done),
            );
            std::thread::spawn(move || {
                for i in 0..per_writer {
                    store
                        .insert_inventory_item(&item(&org, &s, &w, at(3, i)))
                        .unwrap();
                }
                done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            })
        })
        .collect();
    let mut seen: Vec<i64> = Vec::new();
    let mut after = start;
    loop {
        let finished = done.load(std::sync::atomic::Ordering::SeqCst) == writers;
        let page = feed(store, &org, &query(after, 7));
        seen.extend(page.events.iter().map(|e| e.sequence));
        after = page.next.0;
        if finished && page.events.is_empty() {
            break;
        }
    }
    for h in handles {
        h.join().unwrap();
    }
    let expected: Vec<i64> = ((start + 1)..=(start + writers as i64 * per_writer)).collect();
    assert_eq!(seen, expected, "the reader saw every event once, in order");
    let distinct: BTreeSet<i64> = seen.iter().copied().collect();
    assert_eq!(distinct.len(), seen.len());
}

fn group_writes_record_one_event_per_member_who_joins_or_leaves(_db: &TestDatabase, store: &Store) {
    let (org, _, _) = seeded(store, "Acme");
    let people: Vec<Person> = ["a", "b", "c"]
        .iter()
        .map(|n| {
            let p = person(&org, &format!("{n}@groups.example"));
            store.insert_person(&p).unwrap();
            p
        })
        .collect();
    let start = all_events(store, &org).len();
    let fields = |name: &str| GroupFields {
        external_id: None,
        display_name: name.into(),
        package_id: None,
        precedence: 0,
    };
    let g = Group::new(GroupId::new(), org.id, fields("Sales"), at(5, 0));
    let members: BTreeSet<PersonId> = [people[0].id, people[1].id].into_iter().collect();
    store.insert_group(&g, &members).unwrap();
    // Add c (and a again, already in), remove b; rename.
    let change = GroupChange {
        fields: fields("Sales EMEA").into(),
        members: MembersChange::Delta {
            add: [people[0].id, people[2].id].into_iter().collect(),
            remove: [people[1].id].into_iter().collect(),
        },
        expected_version: None,
        at: at(5, 1),
    };
    store.update_group(org.id, g.id, &change).unwrap();
    // The same change again changes nothing: no event.
    let again = GroupChange {
        at: at(5, 2),
        ..change
    };
    store.update_group(org.id, g.id, &again).unwrap();
    // A replace by the same set: nothing either.
    let same = GroupChange {
        fields: GroupFieldsChange::default(),
        members: MembersChange::Replace([people[0].id, people[2].id].into_iter().collect()),
        expected_version: None,
        at: at(5, 3),
    };
    store.update_group(org.id, g.id, &same).unwrap();
    // Offboarding c removes them from the group.
    store
        .offboard_person(org.id, people[2].id, None, at(5, 4))
        .unwrap();
    store.delete_group(org.id, g.id, None).unwrap();
    let events = all_events(store, &org);
    let events = &events[start..];
    assert_eq!(
        kinds(events),
        [
            "group.created",
            "group.member_added",
            "group.member_added",
            "group.updated",
            "group.member_added",
            "group.member_removed",
            "person.offboarding_started",
            "group.member_removed",
            // c held nothing: the offboarding completes at once.
            "person.offboarded",
            "group.deleted",
        ]
    );
    let member = |e: &Event| {
        let changes = e.changes();
        let c = &changes["member"];
        if c.to.is_null() {
            c.from.clone()
        } else {
            c.to.clone()
        }
    };
    let joined: BTreeSet<String> = events[1..3]
        .iter()
        .map(|e| member(e).as_str().unwrap().to_owned())
        .collect();
    assert_eq!(joined, members.iter().map(ToString::to_string).collect());
    assert_eq!(events[3].changes()["displayName"].to, "Sales EMEA");
    assert_eq!(member(&events[4]), people[2].id.to_string());
    assert_eq!(member(&events[5]), people[1].id.to_string());
    assert_eq!(member(&events[7]), people[2].id.to_string());
    assert!(events
        .iter()
        .filter(|e| {
            e.kind != EventType::PersonOffboardingStarted && e.kind != EventType::PersonOffboarded
        })
        .all(|e| e.subject.kind == SubjectType::Group));
}

/// `insert_people` (SCIM Bulk and CSV creates): a person refused (a clash
/// of userNames, within the call or with a stored person; a package of
/// nobody) leaves the others written; each written one has its event, in
/// the order of the call, and a refused one has none.
fn people_inserted_together_are_each_written_or_refused(_db: &TestDatabase, store: &Store) {
    use equip_domain::ids::PackageId;
    use equip_domain::ports::PersonRepository;

    let (org, _, _) = seeded(store, "Acme");
    store
        .insert_person(&person(&org, "stored@example.com"))
        .unwrap();
    let before = all_events(store, &org).len();
    let ada = person(&org, "ada@example.com");
    let twin = person(&org, "ADA@example.com");
    let stored_twin = person(&org, "Stored@example.com");
    let mut packaged = person(&org, "pkg@example.com");
    packaged.package_id = Some(PackageId::new());
    let grace = person(&org, "grace@example.com");
    let results = store.insert_people(&[ada.clone(), twin, stored_twin, packaged, grace.clone()]);
    assert!(results[0].is_ok(), "{:?}", results[0]);
    assert!(matches!(results[1], Err(StoreError::Duplicate { .. })));
    assert!(matches!(results[2], Err(StoreError::Duplicate { .. })));
    assert!(
        matches!(results[3], Err(StoreError::MissingReference { .. })),
        "{:?}",
        results[3]
    );
    assert!(results[4].is_ok());
    assert_eq!(
        store
            .find_person(org.id, ada.id)
            .unwrap()
            .unwrap()
            .user_name,
        "ada@example.com"
    );
    assert!(store.find_person(org.id, grace.id).unwrap().is_some());
    let events = all_events(store, &org);
    let created: Vec<uuid::Uuid> = events[before..].iter().map(|e| e.subject.id).collect();
    assert_eq!(created, [*ada.id.as_uuid(), *grace.id.as_uuid()]);
    assert_eq!(
        kinds(&events[before..]),
        ["person.created", "person.created"]
    );
}

/// PostgreSQL: a create whose own write waits for another transaction (an
/// uncommitted person with the same userName) does not hold its
/// organization's event sequence meanwhile, so the organization's other
/// writes go on. A create is one statement (`write_recorded_pg`); were its
/// sequence taken before its writes, the item below would wait for the
/// person, and two writers waiting for each other's rows would deadlock.
#[test]
fn postgres_a_create_takes_the_sequence_only_after_its_writes() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let store = db.store();
    let (org, s, w) = seeded(&store, "Acme");
    let grace = person(&org, "grace@example.com");
    store.insert_person(&grace).unwrap();
    // Another transaction inserts (a copy of Grace as) ada@example.com and
    // stays open.
    let blocker = format!(
        "INSERT INTO people SELECT (jsonb_populate_record(NULL::people, to_jsonb(p) \
         || jsonb_build_object('id', '{}', 'user_name', 'ada@example.com', \
         'user_name_lower', 'ada@example.com'))).* FROM people p WHERE p.id = '{}'",
        uuid::Uuid::new_v4(),
        grace.id
    );
    let ada = person(&org, "ada@example.com");
    waits_without_the_sequence(&db, &store, (&org, &s, &w), &blocker, ada);
}

/// PostgreSQL: as above, for the package a person names, whose foreign key
/// is checked at the end of the create's statement: an import updating the
/// package (here its row locked `FOR UPDATE`) makes the create wait before
/// it takes the sequence, not after.
#[test]
fn postgres_a_create_locks_its_package_before_the_sequence() {
    use equip_domain::catalog::Package;
    use equip_domain::ids::PackageId;
    use equip_domain::import::ImportBatch;

    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let store = db.store();
    let (org, s, w) = seeded(&store, "Acme");
    let kit = Package {
        id: PackageId::new(),
        organization_id: org.id,
        slug: "kit".into(),
        name: "Kit".into(),
        items: Vec::new(),
    };
    let batch = ImportBatch {
        packages: vec![kit.clone()],
        ..ImportBatch::default()
    };
    import(&store, &org, &batch).unwrap();
    let blocker = format!("SELECT 1 FROM packages WHERE id = '{}' FOR UPDATE", kit.id);
    let mut ada = person(&org, "ada@example.com");
    ada.package_id = Some(kit.id);
    waits_without_the_sequence(&db, &store, (&org, &s, &w), &blocker, ada);
}

/// Runs `blocker` in an open transaction of its own, then creates `creating`
/// (which must wait for it) and, while it waits, an item of the same
/// organization, which must not; then ends the blocker and checks both
/// writes and their events.
fn waits_without_the_sequence(
    db: &TestDatabase,
    store: &Store,
    (org, s, w): (&Organization, &Sku, &Warehouse),
    blocker: &str,
    creating: Person,
) {
    use diesel::connection::SimpleConnection;
    use diesel::Connection;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    let mut other = diesel::PgConnection::establish(db.url()).unwrap();
    other.batch_execute(&format!("BEGIN; {blocker}")).unwrap();
    let creating = {
        let store = store.clone();
        std::thread::spawn(move || store.insert_person(&creating))
    };
    let waiting =
        "pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()";
    let deadline = Instant::now() + Duration::from_secs(10);
    while db.count_rows(waiting) == 0 {
        assert!(Instant::now() < deadline, "the create never waited");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (tx, rx) = mpsc::channel();
    {
        let store = store.clone();
        let it = item(org, s, w, at(3, 0));
        std::thread::spawn(move || tx.send(store.insert_inventory_item(&it)));
    }
    let item_written = rx.recv_timeout(Duration::from_secs(10));
    other.batch_execute("ROLLBACK").unwrap();
    creating.join().unwrap().unwrap();
    assert!(
        matches!(item_written, Ok(Ok(()))),
        "the item's write waited for the person's create: {item_written:?}"
    );
    let events = all_events(store, org);
    assert_eq!(
        kinds(&events[events.len() - 2..]),
        ["inventory.item.created", "person.created"]
    );
}

/// A client's page of the feed through the use case (cursors as the API
/// gives them), or its refusal.
fn client_page(
    store: &Store,
    org: &Organization,
    after: Option<&str>,
) -> Result<(Vec<Event>, String), DomainError> {
    let raw = RawFeedQuery {
        after: after.map(str::to_owned),
        size: Some("1000".into()),
        ..RawFeedQuery::default()
    };
    read_feed(store, org.id, &raw).map(|page| (page.events, page.next.encode(org.id)))
}

fn assert_resynchronize(refused: Result<(Vec<Event>, String), DomainError>) {
    match refused {
        Err(DomainError::Gone { field, message }) => {
            assert_eq!(field, "after");
            assert!(message.contains("Resynchronize"), "{message}");
        }
        other => panic!("expected Gone (resynchronize), got {other:?}"),
    }
}

/// A restore brings back an older database: its sequences go on from the
/// backup's, so new events reuse numbers a client has already seen. A client
/// whose cursor is past the restore point is refused, both before the
/// restored feed reaches its number and after (when, unchecked, it would
/// silently skip every event in between); a client whose cursor is before
/// the restore point goes on and sees every event of the restored database.
fn a_cursor_from_before_a_restore_is_refused_never_skips(db: &TestDatabase) {
    let live = db.store();
    let (org, s, w) = seeded(&live, "Acme");
    for i in 0..2 {
        live.insert_inventory_item(&item(&org, &s, &w, at(3, i)))
            .unwrap();
    }
    // A client caught up before the backup.
    let (seen, early) = client_page(&live, &org, None).unwrap();
    assert!(!seen.is_empty());
    drop(live);
    let backup = db.backup();

    // After the backup: more events, which a second client reads.
    let live = db.store();
    for i in 0..3 {
        live.insert_inventory_item(&item(&org, &s, &w, at(4, i)))
            .unwrap();
    }
    let (lost, late) = client_page(&live, &org, Some(&early)).unwrap();
    assert_eq!(lost.len(), 3);
    drop(live);

    // The database is restored from the backup.
    let restored = backup.store();
    // "Refused at first": the late cursor is past the restored head.
    assert_resynchronize(client_page(&restored, &org, Some(&late)));
    // New events pass the late client's position ...
    for i in 0..5 {
        restored
            .insert_inventory_item(&item(&org, &s, &w, at(5, i)))
            .unwrap();
    }
    let (new, _) = client_page(&restored, &org, Some(&early)).unwrap();
    assert_eq!(new.len(), 5);
    assert!(new.last().unwrap().sequence > lost.last().unwrap().sequence);
    // ... and reuse the sequences the late client saw, with other events.
    assert_eq!(new[0].sequence, lost[0].sequence);
    assert_ne!(new[0].id, lost[0].id);
    // Still refused: accepting it would skip the new events up to its
    // position.
    assert_resynchronize(client_page(&restored, &org, Some(&late)));
    // The early client (before the restore point) skips nothing: every event
    // of the restored database after its position, once.
    let whole = all_events(&restored, &org);
    assert_eq!(new, whole[seen.len()..]);
    // Resynchronizing (no `after`) gives a cursor that works.
    let (_, fresh) = client_page(&restored, &org, None).unwrap();
    assert!(client_page(&restored, &org, Some(&fresh))
        .unwrap()
        .0
        .is_empty());
}

/// Once the event at a cursor's position is pruned, the id kept of the last
/// event pruned still checks the cursor.
fn a_cursor_at_the_pruned_boundary_is_still_checked(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let old = Utc::now() - Duration::days(100);
    for i in 0..2 {
        store
            .insert_inventory_item(&item(&org, &s, &w, old + Duration::seconds(i)))
            .unwrap();
    }
    let (_, boundary) = client_page(store, &org, None).unwrap();
    assert!(
        store
            .prune_events(Utc::now() - Duration::days(90), 1000)
            .unwrap()
            > 0
    );
    store
        .insert_inventory_item(&item(&org, &s, &w, Utc::now()))
        .unwrap();
    // The cursor's event is gone, but it is the last one pruned: accepted.
    let (after, _) = client_page(store, &org, Some(&boundary)).unwrap();
    assert_eq!(kinds(&after), ["inventory.item.created"]);
    // A cursor at the same position naming another event is refused.
    let (sequence, _) = boundary.rsplit_once('.').unwrap();
    let forged = format!("{sequence}.{}", Uuid::new_v4().simple());
    assert_resynchronize(client_page(store, &org, Some(&forged)));
}
