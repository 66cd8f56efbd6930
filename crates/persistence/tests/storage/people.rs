//! People: the maintained count of active people; time filters at the
//! precision SCIM shows; the profile (title, languages, roles…) stored,
//! replaced and filtered.

use crate::support::*;

storage_tests!(
    unfiltered_people_totals_follow_every_write,
    times_compare_at_the_millisecond_shown,
    profiles_are_stored_replaced_and_filtered_as_the_reference,
);

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
                    filter: Some(PersonFilter::present(PersonField::UserName)),
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

/// A time filter built for the millisecond SCIM shows
/// (`PersonFilter::time_as_shown`) selects in SQL exactly what the
/// reference selects, and a client's `eq` on the time it was shown finds
/// the person although the stored time has microseconds.
fn times_compare_at_the_millisecond_shown(_db: &TestDatabase, store: &Store) {
    use equip_domain::person_query::{CompareOp, PersonField, PersonFilter, PersonQuery};
    let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
    let org = new_org(store, "Timed");
    let mut stored = Vec::new();
    for (i, (created, modified)) in [
        ("2026-03-04T05:06:07.123456Z", "2026-03-04T05:06:07.999999Z"),
        ("2026-03-04T05:06:07.124000Z", "2026-03-04T05:06:08.000001Z"),
        ("2026-03-04T05:06:07.122999Z", "2026-03-04T05:06:07.999000Z"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut p = person(&org, &format!("p{i}@timed.example"));
        p.created_at = t(created);
        p.updated_at = t(modified);
        store.insert_person(&p).unwrap();
        stored.push(p);
    }
    let selected = |filter: &PersonFilter| -> Vec<PersonId> {
        let query = PersonQuery {
            filter: Some(filter.clone()),
            ..PersonQuery::default()
        };
        let mut ids: Vec<PersonId> = store
            .list_people(org.id, &query)
            .unwrap()
            .people
            .iter()
            .map(|p| p.id)
            .collect();
        ids.sort();
        ids
    };
    let ops = [
        CompareOp::Eq,
        CompareOp::Ne,
        CompareOp::Gt,
        CompareOp::Ge,
        CompareOp::Lt,
        CompareOp::Le,
    ];
    let givens = [
        "2026-03-04T05:06:07.122Z",
        "2026-03-04T05:06:07.123Z",
        "2026-03-04T05:06:07.1235Z",
        "2026-03-04T05:06:07.124Z",
        "2026-03-04T05:06:07.999Z",
        "2026-03-04T05:06:08Z",
    ];
    for field in [PersonField::Created, PersonField::LastModified] {
        for op in ops {
            for given in givens {
                let filter = PersonFilter::time_as_shown(field, op, t(given), 3);
                let mut expected: Vec<PersonId> = stored
                    .iter()
                    .filter(|p| filter.matches(p))
                    .map(|p| p.id)
                    .collect();
                expected.sort();
                assert_eq!(selected(&filter), expected, "{field:?} {op:?} {given}");
            }
        }
    }
    // The shown time finds its person only; gt excludes it, le includes it.
    let shown = |op, given: &str| {
        selected(&PersonFilter::time_as_shown(
            PersonField::Created,
            op,
            t(given),
            3,
        ))
    };
    assert_eq!(
        shown(CompareOp::Eq, "2026-03-04T05:06:07.123Z"),
        [stored[0].id]
    );
    assert!(!shown(CompareOp::Gt, "2026-03-04T05:06:07.123Z").contains(&stored[0].id));
    assert!(shown(CompareOp::Le, "2026-03-04T05:06:07.123Z").contains(&stored[0].id));
    let modified = |op, given: &str| {
        selected(&PersonFilter::time_as_shown(
            PersonField::LastModified,
            op,
            t(given),
            3,
        ))
    };
    let mut both = vec![stored[0].id, stored[2].id];
    both.sort();
    assert_eq!(modified(CompareOp::Eq, "2026-03-04T05:06:07.999Z"), both);
    assert_eq!(
        modified(CompareOp::Gt, "2026-03-04T05:06:07.999Z"),
        [stored[1].id]
    );
}

/// A person's profile comes back as it was written, by a single insert, a
/// batch insert (Bulk and CSV creates) and an update (which also clears what
/// the replacement omits); every filterable profile text selects in SQL
/// exactly what the reference selects, case-insensitively, and sorts as the
/// reference does.
fn profiles_are_stored_replaced_and_filtered_as_the_reference(_db: &TestDatabase, store: &Store) {
    use equip_domain::person::{Profile, ProfileEntry};
    use equip_domain::person_query::{
        sort_people, CompareOp, FilterValue, PersonField, PersonFilter, PersonQuery, ProfileText,
    };
    let org = new_org(store, "Profiled");
    let entry = |value: &str, kind: Option<&str>, primary: bool| ProfileEntry {
        value: value.into(),
        display: Some(format!("Display {value}")),
        kind: kind.map(str::to_owned),
        primary,
    };
    let full = Profile {
        formatted_name: Some("Dr. Ada K. Lovelace III".into()),
        middle_name: Some("King".into()),
        honorific_prefix: Some("Dr.".into()),
        honorific_suffix: Some("III".into()),
        nick_name: Some("Ada".into()),
        title: Some("Senior Engineer".into()),
        user_type: Some("Employee".into()),
        preferred_language: Some("en-GB".into()),
        locale: Some("en-GB".into()),
        timezone: Some("Europe/London".into()),
        profile_url: Some("https://people.example/ada".into()),
        ims: vec![entry("ada@im.example", Some("xmpp"), true)],
        photos: vec![
            entry("https://photos.example/ada.jpg", Some("photo"), false),
            entry(
                "https://photos.example/ada-small.jpg",
                Some("thumbnail"),
                true,
            ),
        ],
        entitlements: vec![entry("laptop-admin", None, false)],
        roles: vec![
            entry("engineering", Some("department"), true),
            entry("on-call", None, false),
        ],
        x509_certificates: vec![entry("MIIDQTCCAimgAwIBAgITBmyf", None, false)],
    };
    let mut ada = person(&org, "ada@profiled.example");
    ada.profile = full.clone();
    store.insert_person(&ada).unwrap();
    assert_eq!(
        store.find_person(org.id, ada.id).unwrap(),
        Some(ada.clone())
    );

    // The batch path of Bulk and CSV creates.
    let mut batch = Vec::new();
    for (i, (title, lang)) in [
        ("senior engineer", "de-DE"),
        ("Engineering Manager", "EN-gb"),
        ("Designer", "fr"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut p = person(&org, &format!("b{i}@profiled.example"));
        p.profile.title = Some(title.into());
        p.profile.preferred_language = Some(lang.into());
        p.profile.roles = vec![entry(&format!("role-{i}"), None, i == 0)];
        batch.push(p);
    }
    let mut plain = person(&org, "plain@profiled.example");
    plain.profile = Profile::default();
    batch.push(plain);
    for result in store.insert_people(&batch) {
        result.unwrap();
    }
    for p in &batch {
        assert_eq!(store.find_person(org.id, p.id).unwrap().as_ref(), Some(p));
    }

    // A replace keeps what it sends and clears what it omits.
    let mut replaced = ada.clone();
    replaced.version += 1;
    replaced.profile = Profile {
        title: Some("Principal Engineer".into()),
        roles: vec![entry("architecture", None, false)],
        ..Profile::default()
    };
    store.update_person(&ada, &replaced).unwrap();
    assert_eq!(
        store.find_person(org.id, ada.id).unwrap(),
        Some(replaced.clone())
    );
    let mut everyone = vec![replaced];
    everyone.extend(batch);

    let texts = [
        ProfileText::FormattedName,
        ProfileText::MiddleName,
        ProfileText::HonorificPrefix,
        ProfileText::HonorificSuffix,
        ProfileText::NickName,
        ProfileText::Title,
        ProfileText::UserType,
        ProfileText::PreferredLanguage,
        ProfileText::Locale,
        ProfileText::Timezone,
        ProfileText::ProfileUrl,
    ];
    let selected = |query: &PersonQuery| -> Vec<PersonId> {
        store
            .list_people(org.id, query)
            .unwrap()
            .people
            .iter()
            .map(|p| p.id)
            .collect()
    };
    let sorted = |mut ids: Vec<PersonId>| {
        ids.sort();
        ids
    };
    let text = |v: &str| FilterValue::Text(v.into());
    for t in texts {
        let field = PersonField::Profile(t);
        let mut filters = vec![PersonFilter::present(field)];
        for (op, value) in [
            (CompareOp::Eq, "PRINCIPAL ENGINEER"),
            (CompareOp::Eq, "en-gb"),
            (CompareOp::Ne, "designer"),
            (CompareOp::Co, "ENGINEER"),
            (CompareOp::Sw, "senior"),
            (CompareOp::Ew, "GB"),
        ] {
            filters.push(PersonFilter::compare(field, op, text(value)));
        }
        for filter in filters {
            let query = PersonQuery {
                filter: Some(filter.clone()),
                ..PersonQuery::default()
            };
            let expected: Vec<PersonId> = everyone
                .iter()
                .filter(|p| filter.matches(p))
                .map(|p| p.id)
                .collect();
            assert_eq!(sorted(selected(&query)), sorted(expected), "{filter:?}");
        }
        let query = PersonQuery {
            sort: Some(field),
            ..PersonQuery::default()
        };
        let mut reference = everyone.clone();
        sort_people(&mut reference, &query);
        let expected: Vec<PersonId> = reference.iter().map(|p| p.id).collect();
        assert_eq!(selected(&query), expected, "sorted by {t:?}");
    }
    // The two spellings of the title "senior engineer" and "Principal
    // Engineer" are found by one case-insensitive co.
    let engineers = PersonFilter::compare(
        PersonField::Profile(ProfileText::Title),
        CompareOp::Co,
        text("engineer"),
    );
    let query = PersonQuery {
        filter: Some(engineers),
        ..PersonQuery::default()
    };
    assert_eq!(selected(&query).len(), 3);
}
