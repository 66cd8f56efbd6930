use super::*;

#[test]
fn no_text_may_hold_a_nul() {
    let field = |f: &dyn Fn(&mut Person)| {
        let mut p = person("ada@example.com");
        f(&mut p);
        match p.validate() {
            Err(DomainError::Invalid { field, .. }) => field,
            other => panic!("expected Invalid, got {other:?}"),
        }
    };
    assert_eq!(
        field(&|p| p.display_name = Some("A\0".into())),
        "displayName"
    );
    assert_eq!(
        field(&|p| p.user_name = "ada\0@example.com".into()),
        "userName"
    );
    assert_eq!(field(&|p| p.emails[0].kind = Some("\0".into())), "emails");
    assert_eq!(
        field(&|p| p.addresses.push(Address {
            kind: None,
            primary: false,
            country: Some("DE".into()),
            street_address: Some("Main St\0".into()),
            postal_code: None,
            region: None,
            locality: None,
        })),
        "addresses"
    );
    assert!(person("ada@example.com").validate().is_ok());
}

pub(crate) fn person(user_name: &str) -> Person {
    let now = Utc::now();
    Person {
        id: PersonId::new(),
        organization_id: OrganizationId::new(),
        external_id: None,
        user_name: user_name.into(),
        given_name: Some("Ada".into()),
        family_name: Some("Lovelace".into()),
        display_name: None,
        emails: vec![Email {
            value: user_name.into(),
            kind: Some("work".into()),
            primary: true,
        }],
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

#[test]
fn user_name_must_equal_primary_email_case_insensitively() {
    let mut p = person("ada@example.com");
    p.user_name = "ADA@Example.com".into();
    assert!(p.validate().is_ok());
    p.user_name = "someone@example.com".into();
    let err = p.validate().unwrap_err();
    assert!(matches!(err, DomainError::Invalid { ref field, .. } if field == "userName"));
}

fn invalid_field(p: &Person) -> String {
    match p.validate() {
        Err(DomainError::Invalid { field, .. }) => field,
        other => panic!("expected Invalid, got {other:?}"),
    }
}

#[test]
fn user_name_equals_primary_email_under_unicode_folding() {
    // ASCII-only folding refused this (review finding 10).
    let mut p = person("\u{c4}d\u{e4}@x.example");
    p.emails[0].value = "\u{e4}D\u{c4}@x.example".into();
    assert!(p.validate().is_ok());
    // NFD email, NFC userName.
    let mut p = person("caf\u{e9}@x.example");
    p.emails[0].value = "cafe\u{301}@x.example".into();
    assert!(p.validate().is_ok());
}

#[test]
fn identifiers_refuse_invisible_and_control_characters() {
    let mut p = person("ada\u{200b}@x.example");
    assert_eq!(invalid_field(&p), "userName");
    p = person("ada@x.example");
    p.external_id = Some("00u\u{200d}1".into());
    assert_eq!(invalid_field(&p), "externalId");
    p.external_id = Some("00u\u{1b}1".into());
    assert_eq!(invalid_field(&p), "externalId");
    p.external_id = Some("00u1".into());
    p.emails.push(Email {
        value: "ada\u{2060}@home.example".into(),
        kind: None,
        primary: false,
    });
    assert_eq!(invalid_field(&p), "emails.value");
}

#[test]
fn addresses_are_plain_addr_specs() {
    for bad in [
        "Attacker<attacker@evil.example>",
        "a,b@a.example",
        "\"a\u{7}\"@x.example",
        "x@[127.0.0.1]",
    ] {
        let p = person(bad);
        assert_eq!(invalid_field(&p), "userName", "{bad:?}");
        let mut p = person("ada@x.example");
        p.emails.push(Email {
            value: bad.into(),
            kind: Some("home".into()),
            primary: false,
        });
        assert_eq!(invalid_field(&p), "emails.value", "{bad:?}");
    }
}

#[test]
fn every_text_has_a_length_limit() {
    use crate::text::{EMAIL_MAX, LONG_TEXT_MAX, PHONE_MAX, SHORT_TEXT_MAX};
    let long = |n: usize| "x".repeat(n + 1);
    type Change = (&'static str, Box<dyn Fn(&mut Person)>);
    let cases: Vec<Change> = vec![
        (
            "displayName",
            Box::new(move |p| p.display_name = Some(long(SHORT_TEXT_MAX))),
        ),
        (
            "name.givenName",
            Box::new(move |p| p.given_name = Some(long(SHORT_TEXT_MAX))),
        ),
        (
            "name.familyName",
            Box::new(move |p| p.family_name = Some(long(SHORT_TEXT_MAX))),
        ),
        (
            "externalId",
            Box::new(move |p| p.external_id = Some(long(SHORT_TEXT_MAX))),
        ),
        (
            "cpfNumber",
            Box::new(move |p| p.cpf_number = Some(long(SHORT_TEXT_MAX))),
        ),
        (
            "userName",
            Box::new(move |p| p.user_name = format!("{}@x.example", long(EMAIL_MAX))),
        ),
        (
            "phoneNumbers.value",
            Box::new(move |p| {
                p.phone_numbers.push(PhoneNumber {
                    value: long(PHONE_MAX),
                    kind: None,
                    primary: false,
                });
            }),
        ),
        (
            "addresses.streetAddress",
            Box::new(move |p| {
                p.addresses.push(Address {
                    street_address: Some(long(LONG_TEXT_MAX)),
                    ..Address::default()
                });
            }),
        ),
        (
            "addresses.locality",
            Box::new(move |p| {
                p.addresses.push(Address {
                    locality: Some(long(SHORT_TEXT_MAX)),
                    ..Address::default()
                });
            }),
        ),
    ];
    for (field, change) in cases {
        let mut p = person("ada@x.example");
        change(&mut p);
        assert_eq!(invalid_field(&p), field);
    }
    let mut p = person("ada@x.example");
    p.display_name = Some("x".repeat(SHORT_TEXT_MAX));
    p.phone_numbers.push(PhoneNumber {
        value: "1".repeat(PHONE_MAX),
        kind: None,
        primary: false,
    });
    assert!(p.validate().is_ok(), "the limits themselves are allowed");
}

#[test]
fn at_most_one_primary_email() {
    let mut p = person("ada@example.com");
    p.emails.push(Email {
        value: "ada@home.example".into(),
        kind: Some("home".into()),
        primary: true,
    });
    assert!(matches!(p.validate(), Err(DomainError::Invalid { field, .. }) if field == "emails"));
}

#[test]
fn a_single_unflagged_email_counts_as_primary() {
    let mut p = person("ada@example.com");
    p.emails[0].primary = false;
    assert!(p.validate().is_ok());
    p.emails.clear();
    assert!(p.validate().is_err());
}

#[test]
fn a_person_without_emails_gets_the_user_name_as_primary_email() {
    let mut p = person("ada@example.com");
    p.emails.clear();
    p.default_primary_email();
    assert_eq!(p.emails.len(), 1);
    assert!(p.emails[0].primary && p.validate().is_ok());
    let mut q = person("not-an-address");
    q.emails.clear();
    q.default_primary_email();
    assert!(q.emails.is_empty() && q.validate().is_err());
}

#[test]
fn cpf_check_digits() {
    assert!(is_valid_cpf("529.982.247-25"));
    assert!(is_valid_cpf("52998224725"));
    assert!(!is_valid_cpf("529.982.247-26"));
    assert!(!is_valid_cpf("111.111.111-11"));
    assert!(!is_valid_cpf("1234"));
    assert!(!is_valid_cpf("5299822472a"));
}

#[test]
fn brazilian_address_needs_a_valid_cpf() {
    let mut p = person("joao@example.com.br");
    p.addresses.push(Address {
        country: Some("br".into()),
        ..Address::default()
    });
    assert!(
        matches!(p.validate(), Err(DomainError::Invalid { field, .. }) if field == "cpfNumber")
    );
    p.cpf_number = Some("529.982.247-26".into());
    assert!(p.validate().is_err());
    p.cpf_number = Some("529.982.247-25".into());
    assert!(p.validate().is_ok());
}

#[test]
fn new_joiner_is_active_with_a_start_date_not_yet_past() {
    let today = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
    let mut p = person("ada@example.com");
    assert!(!p.is_new_joiner(today), "no start date");
    p.start_date = today.succ_opt();
    assert!(p.is_new_joiner(today));
    p.start_date = Some(today);
    assert!(p.is_new_joiner(today));
    p.start_date = today.pred_opt();
    assert!(!p.is_new_joiner(today), "already started");
    p.start_date = today.succ_opt();
    p.status = PersonStatus::Offboarding;
    assert!(!p.is_new_joiner(today), "offboarding");
}

#[test]
fn person_status_names_and_message() {
    assert_eq!(
        PersonStatus::parse(" offboarding").unwrap(),
        PersonStatus::Offboarding
    );
    assert_eq!(PersonStatus::Offboarded.as_str(), "OFFBOARDED");
    match PersonStatus::parse("GONE") {
        Err(DomainError::Invalid { field, message }) => {
            assert_eq!(field, "status");
            assert_eq!(
                message,
                "unknown status 'GONE'; expected ACTIVE, OFFBOARDING or OFFBOARDED"
            );
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
}
