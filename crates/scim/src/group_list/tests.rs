use super::*;
use equip_domain::filter::Condition;
use equip_domain::group_query::MAX_PAGE_SIZE;
use equip_domain::person_query::{FilterValue, SortOrder};

const ADA: &str = "6f1c2f4e-8d1b-4a53-9a43-3c1c8a0f4b11";

fn text(s: &str) -> FilterValue {
    FilterValue::Text(s.into())
}

fn has(op: CompareOp, v: &str) -> GroupFilter {
    GroupFilter::any_member(MemberFilter::compare(MemberField::Value, op, text(v)))
}

#[test]
fn group_fields_translate_in_any_case_and_with_the_urn() {
    assert_eq!(
        parse_group_filter(r#"DisplayName eq "Engineering""#).unwrap(),
        GroupFilter::compare(GroupField::DisplayName, CompareOp::Eq, text("Engineering"))
    );
    assert_eq!(
        parse_group_filter(r#"urn:ietf:params:scim:schemas:core:2.0:Group:externalId sw "00g""#)
            .unwrap(),
        GroupFilter::compare(GroupField::ExternalId, CompareOp::Sw, text("00g"))
    );
    assert_eq!(
        parse_group_filter(&format!(r#"id eq "{ADA}""#)).unwrap(),
        GroupFilter::compare(GroupField::Id, CompareOp::Eq, text(ADA))
    );
    for (raw, op) in [
        ("co", CompareOp::Co),
        ("ew", CompareOp::Ew),
        ("ne", CompareOp::Ne),
    ] {
        assert_eq!(
            parse_group_filter(&format!(r#"displayName {raw} "x""#)).unwrap(),
            GroupFilter::compare(GroupField::DisplayName, op, text("x"))
        );
    }
    assert_eq!(
        parse_group_filter("externalId pr").unwrap(),
        GroupFilter::present(GroupField::ExternalId)
    );
    assert_eq!(
        parse_group_filter("externalId eq null").unwrap(),
        GroupFilter::Not(Box::new(GroupFilter::present(GroupField::ExternalId)))
    );
}

#[test]
fn times_compare_in_order_at_the_millisecond_shown() {
    let f = parse_group_filter(
        r#"meta.lastModified gt "2026-01-01T00:00:00Z" and meta.created le "2026-02-01T00:00:00+01:00""#,
    )
    .unwrap();
    let GroupFilter::And(a, b) = f else {
        panic!("{f:?}")
    };
    // gt: from the next millisecond on; le: before the next millisecond.
    assert!(matches!(
        *a,
        GroupFilter::Leaf(GroupLeaf::Field(Condition::Compare(
            GroupField::LastModified,
            CompareOp::Ge,
            FilterValue::Time(t)
        ))) if t.to_rfc3339() == "2026-01-01T00:00:00.001+00:00"
    ));
    assert!(matches!(
        *b,
        GroupFilter::Leaf(GroupLeaf::Field(Condition::Compare(GroupField::Created, CompareOp::Lt, FilterValue::Time(t))))
            if t.to_rfc3339() == "2026-01-31T23:00:00.001+00:00"
    ));
    // eq: within the millisecond shown.
    let eq = parse_group_filter(r#"meta.created eq "2026-01-01T00:00:00.250Z""#).unwrap();
    let GroupFilter::And(from, until) = eq else {
        panic!("{eq:?}")
    };
    assert!(
        matches!(*from, GroupFilter::Leaf(GroupLeaf::Field(Condition::Compare(GroupField::Created, CompareOp::Ge, FilterValue::Time(t))))
        if t.to_rfc3339() == "2026-01-01T00:00:00.250+00:00")
    );
    assert!(
        matches!(*until, GroupFilter::Leaf(GroupLeaf::Field(Condition::Compare(GroupField::Created, CompareOp::Lt, FilterValue::Time(t))))
        if t.to_rfc3339() == "2026-01-01T00:00:00.251+00:00")
    );
    assert!(parse_group_filter(r#"meta.created co "2026""#).is_err());
    assert!(parse_group_filter(r#"meta.created gt "yesterday""#).is_err());
}

#[test]
fn member_conditions_become_conditions_on_some_member() {
    let eq = has(CompareOp::Eq, ADA);
    assert_eq!(
        parse_group_filter(&format!(r#"members.value eq "{ADA}""#)).unwrap(),
        eq
    );
    assert_eq!(
        parse_group_filter(&format!(r#"members eq "{ADA}""#)).unwrap(),
        eq
    );
    assert_eq!(
        parse_group_filter(&format!(r#"members[value eq "{ADA}"]"#)).unwrap(),
        eq
    );
    assert_eq!(
        parse_group_filter("members pr").unwrap(),
        GroupFilter::any_member(MemberFilter::present(MemberField::Value))
    );
    assert_eq!(
        parse_group_filter("members eq null").unwrap(),
        GroupFilter::Not(Box::new(GroupFilter::any_member(MemberFilter::present(
            MemberField::Value
        ))))
    );
    // ne: no member is the one named.
    assert_eq!(
        parse_group_filter(&format!(r#"members.value ne "{ADA}""#)).unwrap(),
        GroupFilter::Not(Box::new(eq.clone()))
    );
    let bob = "0b0b0b0b-0000-4000-8000-000000000002";
    assert_eq!(
        parse_group_filter(&format!(
            r#"displayName eq "Eng" and not (members[value eq "{ADA}" or value eq "{bob}"])"#
        ))
        .unwrap(),
        GroupFilter::And(
            Box::new(GroupFilter::compare(
                GroupField::DisplayName,
                CompareOp::Eq,
                text("Eng")
            )),
            Box::new(GroupFilter::Not(Box::new(GroupFilter::any_member(
                MemberFilter::Or(
                    Box::new(MemberFilter::compare(
                        MemberField::Value,
                        CompareOp::Eq,
                        text(ADA)
                    )),
                    Box::new(MemberFilter::compare(
                        MemberField::Value,
                        CompareOp::Eq,
                        text(bob)
                    ))
                )
            ))))
        )
    );
    // Conditions the membership index cannot answer are refused.
    for bad in [
        r#"members.value sw "0""#,
        r#"members.value gt "0""#,
        r#"members[value co "0"]"#,
        r#"members[not (value eq "0")]"#,
        r#"members[value ne "0"]"#,
    ] {
        let err = parse_group_filter(bad).unwrap_err();
        assert!(matches!(err, ListError::Filter(_)), "{bad}: {err:?}");
    }
}

#[test]
fn other_attributes_are_invalid_filters() {
    for bad in [
        r#"userName eq "a""#,
        r#"members.display eq "a@b.example""#,
        r#"members[display eq "a"]"#,
        r#"members[type eq "User"]"#,
        r#"urn:ietf:params:scim:schemas:extension:equip:1.0:Group:packageId eq "x""#,
        r#"displayName[value eq "x"]"#,
        r#"displayName eq true"#,
        r#"members.value eq 1"#,
        r#"displayName eq"#,
    ] {
        assert!(
            matches!(parse_group_filter(bad), Err(ListError::Filter(_))),
            "{bad}"
        );
    }
}

#[test]
fn group_queries_sort_and_page() {
    let q = ListInputs {
        filter: Some(r#"displayName sw "E""#.into()),
        start_index: Some("3".into()),
        count: Some("500".into()),
        sort_by: Some("meta.lastModified".into()),
        sort_order: Some("Descending".into()),
        ..ListInputs::default()
    }
    .group_query(MAX_PAGE_SIZE)
    .unwrap();
    assert_eq!(q.sort, Some(GroupField::LastModified));
    assert_eq!(q.order, SortOrder::Descending);
    assert_eq!((q.start_index, q.count), (3, MAX_PAGE_SIZE));
    assert!(q.filter.is_some());
    for by in ["displayName", "externalId", "id", "meta.created"] {
        let q = ListInputs {
            sort_by: Some(by.into()),
            ..ListInputs::default()
        };
        assert!(q.group_query(MAX_PAGE_SIZE).is_ok(), "{by}");
    }
    for by in ["members", "members.value", "userName", "precedence"] {
        let q = ListInputs {
            sort_by: Some(by.into()),
            ..ListInputs::default()
        };
        assert!(
            matches!(
                q.group_query(MAX_PAGE_SIZE),
                Err(ListError::Param {
                    param: "sortBy",
                    ..
                })
            ),
            "{by}"
        );
    }
}
