//! Organizations and API keys, and the PostgreSQL change feed that keeps remembered keys current.

use crate::support::*;

storage_tests!(organizations_round_trip, api_keys_insert_find_revoke,);

fn organizations_round_trip(_db: &TestDatabase, store: &Store) {
    assert_eq!(store.count_organizations().unwrap(), 0);
    let org = new_org(store, "Acme");
    assert_eq!(store.count_organizations().unwrap(), 1);
    assert_eq!(store.find_organization(org.id).unwrap(), Some(org.clone()));
    assert_eq!(
        store.find_organization(OrganizationId::new()).unwrap(),
        None
    );
    assert!(matches!(
        store.insert_organization(&org),
        Err(StoreError::Duplicate { .. })
    ));

    // Listed oldest first, then by id.
    let older = Organization {
        id: OrganizationId::new(),
        name: OrganizationName::parse("Older").unwrap(),
        created_at: org.created_at - chrono::Duration::days(1),
    };
    store.insert_organization(&older).unwrap();
    assert_eq!(store.list_organizations().unwrap(), [older, org]);
}

fn api_keys_insert_find_revoke(_db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Acme");
    let key = ApiKey {
        id: ApiKeyId::new(),
        organization_id: org.id,
        prefix: "0123456789abcdef".into(),
        hash: "ab".repeat(32),
        scopes: Scopes::all(),
        label: Some("Okta provisioning".into()),
        created_at: at(3, 5),
        revoked_at: None,
    };
    store.insert_api_key(&key).unwrap();
    assert_eq!(
        store.find_api_key_by_prefix("0123456789abcdef").unwrap(),
        Some(key.clone())
    );
    assert_eq!(
        store.find_api_key_by_prefix("ffffffffffffffff").unwrap(),
        None
    );

    // Scopes other than "all" survive too.
    let narrow = ApiKey {
        id: ApiKeyId::new(),
        prefix: "1111111111111111".into(),
        scopes: Scopes::from_list([Scope::Scim, Scope::InventoryRead]),
        label: None,
        ..key.clone()
    };
    store.insert_api_key(&narrow).unwrap();
    assert_eq!(
        store.find_api_key_by_prefix(&narrow.prefix).unwrap(),
        Some(narrow)
    );

    // Same prefix, another id: duplicate.
    let clash = ApiKey {
        id: ApiKeyId::new(),
        ..key.clone()
    };
    assert!(matches!(
        store.insert_api_key(&clash),
        Err(StoreError::Duplicate {
            entity: "apiKey",
            ..
        })
    ));
    // Unknown organization: missing reference.
    let orphan = ApiKey {
        id: ApiKeyId::new(),
        organization_id: OrganizationId::new(),
        prefix: "2222222222222222".into(),
        ..key.clone()
    };
    assert!(matches!(
        store.insert_api_key(&orphan),
        Err(StoreError::MissingReference { .. })
    ));

    // By id, within its organization only; revoked or not.
    assert_eq!(
        store.find_api_key(org.id, key.id).unwrap(),
        Some(key.clone())
    );
    assert_eq!(store.find_api_key(org.id, ApiKeyId::new()).unwrap(), None);
    let other = new_org(store, "Other");
    assert_eq!(store.find_api_key(other.id, key.id).unwrap(), None);
    let none = ApiKey {
        id: ApiKeyId::new(),
        prefix: "3333333333333333".into(),
        scopes: Scopes::default(),
        ..key.clone()
    };
    store.insert_api_key(&none).unwrap();
    assert_eq!(
        store.find_api_key(org.id, none.id).unwrap(),
        Some(none.clone()),
        "a key without scopes"
    );

    // Revocation keeps the first time.
    store.revoke_api_key(key.id, at(4, 1)).unwrap();
    store.revoke_api_key(key.id, at(5, 1)).unwrap();
    let stored = store.find_api_key_by_prefix(&key.prefix).unwrap().unwrap();
    assert_eq!(stored.revoked_at, Some(at(4, 1)));
    assert_eq!(store.find_api_key(org.id, key.id).unwrap(), Some(stored));
    assert!(matches!(
        store.revoke_api_key(ApiKeyId::new(), at(4, 1)),
        Err(StoreError::NotFound { entity: "apiKey" })
    ));
}

/// PostgreSQL: a store that watches the database's change notifications
/// answers API keys from memory, and drops them when any writer changes them:
/// another process (here a plain connection), its own writes (seen at once),
/// and whatever happened while its listener was cut off.
#[test]
fn postgres_remembered_keys_follow_every_writer() {
    use diesel::prelude::*;
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let store = db.store();
    let (org, _sku, _warehouse) = seeded(&store, "Acme");
    let key = ApiKey {
        id: ApiKeyId::new(),
        organization_id: org.id,
        prefix: "feedfeedfeedfeed".into(),
        hash: "ab".repeat(32),
        scopes: Scopes::all(),
        label: None,
        created_at: at(1, 0),
        revoked_at: None,
    };
    store.insert_api_key(&key).unwrap();
    let label = |store: &Store| {
        store
            .find_api_key_by_prefix(&key.prefix)
            .unwrap()
            .unwrap()
            .label
    };
    store.watch_changes().unwrap();
    eventually("the listener listens", || store.watching_changes());
    // The first read is kept; the next ones are answered from memory.
    assert_eq!(label(&store), None);
    let hits = store.memo_hits();
    assert_eq!(
        store.find_api_key_by_prefix(&key.prefix).unwrap(),
        Some(key.clone())
    );
    assert_eq!(label(&store), None);
    assert_eq!(store.memo_hits(), hits + 2, "answered from memory");

    // Another writer: seen once its notification arrives.
    let mut other = PgConnection::establish(db.url()).unwrap();
    let relabel = |to: &str| format!("UPDATE api_keys SET label = '{to}' WHERE id = '{}'", key.id);
    diesel::sql_query(relabel("other writer"))
        .execute(&mut other)
        .unwrap();
    eventually("another writer's change", || {
        label(&store).as_deref() == Some("other writer")
    });

    // Its own writes: seen at once, without waiting for the notification.
    label(&store);
    store.revoke_api_key(key.id, at(2, 0)).unwrap();
    assert!(store
        .find_api_key_by_prefix(&key.prefix)
        .unwrap()
        .is_some_and(|k| k.revoked_at.is_some()));

    // The listener is cut off; what changes until it listens again is not
    // answered from memory (the memo is emptied when it reconnects).
    label(&store);
    diesel::sql_query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = 'equip-change-feed' AND datname = current_database()",
    )
    .execute(&mut other)
    .unwrap();
    diesel::sql_query(relabel("while nobody listened"))
        .execute(&mut other)
        .unwrap();
    eventually("the change made while nobody listened", || {
        label(&store).as_deref() == Some("while nobody listened")
    });
    eventually("listening again", || store.watching_changes());
    let hits = store.memo_hits();
    label(&store);
    label(&store);
    assert!(store.memo_hits() > hits, "answered from memory again");
}
