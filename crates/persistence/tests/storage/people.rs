//! People: the maintained count of active people.

use crate::support::*;

storage_tests!(unfiltered_people_totals_follow_every_write,);

/// The total of an unfiltered people list comes from a count kept by
/// triggers (`people_active_counts`); after creates, offboardings, a person
/// written in a rolled-back session and another organization's people, it
/// equals a real count of the organization's active people (a filter every
/// person matches, which counts them).
fn unfiltered_people_totals_follow_every_write(db: &TestDatabase, store: &Store) {
    use equip_domain::person_query::{PersonField, PersonFilter, PersonQuery};
    let org = new_org(store, "Counted");
    let other = new_org(store, "Other");
    let totals = |org: &Organization| {
        let all = store.list_people(org.id, &PersonQuery::default()).unwrap();
        let matched = store
            .list_people(
                org.id,
                &PersonQuery {
                    filter: Some(PersonFilter::Present(PersonField::UserName)),
                    ..PersonQuery::default()
                },
            )
            .unwrap();
        (all.total, matched.total)
    };
    assert_eq!(totals(&org), (0, 0));
    let people: Vec<Person> = (0..7)
        .map(|n| person(&org, &format!("p{n}@counted.example")))
        .collect();
    for p in &people {
        store.insert_person(p).unwrap();
    }
    store
        .insert_person(&person(&other, "elsewhere@other.example"))
        .unwrap();
    assert_eq!(totals(&org), (7, 7));
    assert_eq!(totals(&other), (1, 1));
    // Offboarded people are not active: both counts drop, once each.
    for p in &people[..3] {
        store
            .offboard_person(org.id, p.id, None, Utc::now())
            .unwrap();
    }
    store
        .offboard_person(org.id, people[0].id, None, Utc::now())
        .unwrap();
    assert_eq!(totals(&org), (4, 4));
    // An update that keeps the person active changes nothing.
    let mut renamed = people[5].clone();
    renamed.given_name = Some("Renamed".into());
    store.update_person(&people[5], &renamed).unwrap();
    assert_eq!(totals(&org), (4, 4));
    // A page past the first still reports the whole total.
    let second = store
        .list_people(
            org.id,
            &PersonQuery {
                start_index: 3,
                count: 1,
                ..PersonQuery::default()
            },
        )
        .unwrap();
    assert_eq!((second.total, second.people.len()), (4, 1));
    // Rows deleted behind equip's back are counted out too.
    db.execute(&format!(
        "DELETE FROM person_emails WHERE person_id = '{}'",
        people[6].id
    ));
    db.execute(&format!("DELETE FROM people WHERE id = '{}'", people[6].id));
    assert_eq!(totals(&org), (3, 3));
    assert_eq!(totals(&other), (1, 1));
}

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------
