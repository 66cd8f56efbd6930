//! Sign-in with an identity provider: configurations, role mappings,
//! attempts taken once, sessions found by their token's hash and ended, and
//! the PERSON actor of the events a session's writes record.

use equip_domain::event::{Actor, PersonActor};
use equip_domain::ids::SessionId;
use equip_domain::ports::{Acting, SsoRepository};
use equip_domain::sso::{
    hash_token, ClientSecret, LoginAttempt, ProviderIdentity, RoleMapping, Session, SessionLimits,
    SsoConfig,
};

use crate::events::all_events;
use crate::support::*;

storage_tests!(
    a_configuration_is_replaced_and_cleared_with_everything_it_had,
    role_mappings_are_replaced_per_group,
    an_attempt_is_taken_once_even_by_concurrent_callbacks,
    sessions_are_found_by_hash_touched_pruned_and_ended,
    a_person_writes_events_with_their_subject_and_email,
    ended_sessions_and_expired_attempts_of_every_organization_are_pruned,
);

fn config(org: &Organization, issuer: &str) -> SsoConfig {
    SsoConfig::new(
        org.id,
        issuer,
        "equip-client",
        ClientSecret::new("s3cret").unwrap(),
        &[],
        None,
        at(3, 0),
    )
    .unwrap()
}

fn attempt(org: &Organization, state: &str, created_at: DateTime<Utc>) -> LoginAttempt {
    LoginAttempt {
        state_hash: hash_token(state),
        organization_id: org.id,
        nonce: format!("nonce-{state}"),
        pkce_verifier: format!("verifier-{state}"),
        next: Some("/console/#/people".into()),
        created_at,
    }
}

fn session(org: &Organization, email: &str, now: DateTime<Utc>) -> (Session, String) {
    let identity = ProviderIdentity {
        subject: format!("sub-{email}"),
        email: Some(email.into()),
        name: Some("Ana".into()),
        groups: vec!["IT Admins".into()],
        ..ProviderIdentity::default()
    };
    let scopes = Scopes::from_list([Scope::InventoryRead, Scope::Scim]);
    let (s, token) =
        Session::open(org.id, &identity, scopes, now, SessionLimits::default()).unwrap();
    (s, token.expose().to_owned())
}

fn a_configuration_is_replaced_and_cleared_with_everything_it_had(
    _db: &TestDatabase,
    store: &Store,
) {
    let org = new_org(store, "Acme");
    let other = new_org(store, "Globex");
    assert_eq!(store.sso_config(org.id).unwrap(), None);
    store
        .put_sso_config(&config(&org, "https://a.example"))
        .unwrap();
    store
        .put_sso_config(&config(&other, "https://b.example"))
        .unwrap();
    let replaced = config(&org, "https://c.example");
    store.put_sso_config(&replaced).unwrap();
    assert_eq!(store.sso_config(org.id).unwrap(), Some(replaced));
    assert!(matches!(
        store.put_sso_config(&SsoConfig {
            organization_id: OrganizationId::new(),
            ..config(&org, "https://x.example")
        }),
        Err(StoreError::MissingReference { .. })
    ));

    store
        .put_sso_role(
            org.id,
            &RoleMapping::new("IT Admins", Scopes::all()).unwrap(),
        )
        .unwrap();
    store
        .insert_login_attempt(&attempt(&org, "s1", at(3, 0)), at(2, 0))
        .unwrap();
    let (s, _) = session(&org, "ana@acme.example", at(3, 0));
    store.insert_session(&s, at(3, 0), at(2, 0)).unwrap();
    let (theirs, _) = session(&other, "bo@globex.example", at(3, 0));
    store.insert_session(&theirs, at(3, 0), at(2, 0)).unwrap();

    assert!(store.clear_sso(org.id).unwrap());
    assert_eq!(store.sso_config(org.id).unwrap(), None);
    assert!(store.sso_roles(org.id).unwrap().is_empty());
    assert!(store.list_sessions(org.id).unwrap().is_empty());
    assert_eq!(store.take_login_attempt(&hash_token("s1")).unwrap(), None);
    assert!(!store.clear_sso(org.id).unwrap());
    // The other organization keeps its own.
    assert!(store.sso_config(other.id).unwrap().is_some());
    assert_eq!(store.list_sessions(other.id).unwrap(), [theirs]);
}

fn role_mappings_are_replaced_per_group(_db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Acme");
    let other = new_org(store, "Globex");
    let readers = RoleMapping::new("Readers", Scopes::from_list([Scope::InventoryRead])).unwrap();
    let admins = RoleMapping::new("IT Admins", Scopes::all()).unwrap();
    store.put_sso_role(org.id, &readers).unwrap();
    store.put_sso_role(org.id, &admins).unwrap();
    store.put_sso_role(other.id, &admins).unwrap();
    let wider = RoleMapping::new(
        "Readers",
        Scopes::from_list([Scope::InventoryRead, Scope::OrdersRead]),
    )
    .unwrap();
    store.put_sso_role(org.id, &wider).unwrap();
    assert_eq!(store.sso_roles(org.id).unwrap(), [admins.clone(), wider]);
    assert!(store.remove_sso_role(org.id, "Readers").unwrap());
    assert!(!store.remove_sso_role(org.id, "Readers").unwrap());
    assert_eq!(
        store.sso_roles(org.id).unwrap(),
        std::slice::from_ref(&admins)
    );
    assert_eq!(store.sso_roles(other.id).unwrap(), [admins]);
}

fn an_attempt_is_taken_once_even_by_concurrent_callbacks(_db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Acme");
    let first = attempt(&org, "old", at(3, 0));
    store.insert_login_attempt(&first, at(2, 0)).unwrap();
    // A later attempt deletes the organization's expired ones.
    store
        .insert_login_attempt(&attempt(&org, "new", at(4, 0)), at(3, 1))
        .unwrap();
    assert_eq!(store.take_login_attempt(&hash_token("old")).unwrap(), None);

    let contested = attempt(&org, "contested", at(4, 0));
    store.insert_login_attempt(&contested, at(3, 1)).unwrap();
    let store = Arc::new(store.clone());
    let barrier = Arc::new(Barrier::new(4));
    let takers: Vec<_> = (0..4)
        .map(|_| {
            let (store, barrier) = (Arc::clone(&store), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                store.take_login_attempt(&hash_token("contested")).unwrap()
            })
        })
        .collect();
    let taken: Vec<LoginAttempt> = takers
        .into_iter()
        .filter_map(|t| t.join().unwrap())
        .collect();
    assert_eq!(taken, [contested]);
}

fn sessions_are_found_by_hash_touched_pruned_and_ended(_db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Acme");
    let other = new_org(store, "Globex");
    let (old, old_token) = session(&org, "old@acme.example", at(1, 0));
    store.insert_session(&old, at(1, 0), at(1, 0)).unwrap();
    let (ana, ana_token) = session(&org, "ana@acme.example", at(3, 0));
    // Inserting a session deletes the organization's idle ones.
    store.insert_session(&ana, at(3, 0), at(2, 0)).unwrap();
    assert_eq!(store.find_session(&hash_token(&old_token)).unwrap(), None);
    let found = store
        .find_session(&hash_token(&ana_token))
        .unwrap()
        .unwrap();
    assert_eq!(found, ana);
    assert_eq!(store.find_session(&ana_token).unwrap(), None, "kept hashed");

    store.touch_session(ana.id, at(3, 90)).unwrap();
    assert_eq!(
        store
            .find_session(&hash_token(&ana_token))
            .unwrap()
            .unwrap()
            .last_seen_at,
        at(3, 90)
    );
    store.touch_session(SessionId::new(), at(3, 90)).unwrap();

    let (bo, _) = session(&org, "bo@acme.example", at(3, 5));
    store.insert_session(&bo, at(3, 5), at(2, 0)).unwrap();
    let listed: Vec<SessionId> = store
        .list_sessions(org.id)
        .unwrap()
        .iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(listed, [bo.id, ana.id], "newest first");
    // Another organization cannot end them.
    assert_eq!(store.delete_sessions(other.id, Some(ana.id)).unwrap(), 0);
    assert_eq!(store.delete_sessions(org.id, Some(ana.id)).unwrap(), 1);
    assert_eq!(store.find_session(&hash_token(&ana_token)).unwrap(), None);
    assert_eq!(store.delete_sessions(org.id, None).unwrap(), 1);
    assert!(store.list_sessions(org.id).unwrap().is_empty());
}

fn a_person_writes_events_with_their_subject_and_email(_db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Acme");
    let ana = Actor::Person(PersonActor {
        subject: "00u1abcd".into(),
        email: "ana@acme.example".into(),
    });
    let as_ana = store.acting_as(ana.clone());
    as_ana
        .insert_person(&person(&org, "joiner@acme.example"))
        .unwrap();
    let together = as_ana.insert_people(&[
        person(&org, "second@acme.example"),
        person(&org, "third@acme.example"),
    ]);
    assert!(together.iter().all(Result::is_ok), "{together:?}");
    let events = all_events(store, &org);
    assert_eq!(events.len(), 3);
    assert!(events.iter().all(|e| e.actor == ana), "{events:?}");
}

fn ended_sessions_and_expired_attempts_of_every_organization_are_pruned(
    _db: &TestDatabase,
    store: &Store,
) {
    let acme = new_org(store, "Acme");
    let globex = new_org(store, "Globex");
    let (idle, _) = session(&acme, "idle@acme.example", at(1, 0));
    store.insert_session(&idle, at(1, 0), at(1, 0)).unwrap();
    let (live, live_token) = session(&globex, "live@globex.example", at(3, 0));
    store.insert_session(&live, at(3, 0), at(2, 0)).unwrap();
    store
        .insert_login_attempt(&attempt(&acme, "old", at(1, 0)), at(1, 0))
        .unwrap();
    store
        .insert_login_attempt(&attempt(&globex, "fresh", at(3, 0)), at(1, 0))
        .unwrap();
    // Sessions last used before day 2 idled out; attempts begun before day 2
    // expired.
    assert_eq!(store.prune_sso(at(3, 1), at(2, 0), at(2, 0)).unwrap(), 2);
    assert!(store.list_sessions(acme.id).unwrap().is_empty());
    assert!(store
        .find_session(&hash_token(&live_token))
        .unwrap()
        .is_some());
    assert_eq!(store.take_login_attempt(&hash_token("old")).unwrap(), None);
    assert!(store
        .take_login_attempt(&hash_token("fresh"))
        .unwrap()
        .is_some());
    // Past its absolute end, a session is pruned however recently used.
    assert_eq!(
        store
            .prune_sso(live.expires_at, at(2, 0), at(2, 0))
            .unwrap(),
        1
    );
}
