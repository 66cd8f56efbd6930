//! The exact SQL each backend gets for representative group queries.

use equip_domain::group_query::{GroupField, GroupFilter, GroupQuery, MemberField, MemberFilter};
use equip_domain::person_query::{CompareOp, FilterValue, SortOrder};

use super::{from_where, order_and_page};
use crate::connection::Backend;
use crate::sql_builder::Sql;

fn text(s: &str) -> FilterValue {
    FilterValue::Text(s.to_owned())
}

fn page(backend: Backend, q: &GroupQuery) -> Sql {
    let mut sql = Sql::default();
    sql.push_sql("SELECT g.id");
    from_where(&mut sql, backend, "org", q);
    order_and_page(&mut sql, backend, q);
    sql
}

#[test]
fn display_name_eq_compares_the_folded_key() {
    let q = GroupQuery {
        filter: Some(GroupFilter::compare(
            GroupField::DisplayName,
            CompareOp::Eq,
            text("ÉQUIPE Sales"),
        )),
        ..GroupQuery::default()
    };
    let pg = page(Backend::Postgres, &q);
    assert_eq!(
        pg.rendered(Backend::Postgres),
        "SELECT g.id FROM groups g WHERE g.organization_id = $1 AND \
         (g.display_name_key IS NOT NULL AND g.display_name_key = $2) \
         ORDER BY g.created_at ASC, g.id ASC LIMIT $3 OFFSET $4 \
         -- binds: [\"org\", \"équipe sales\", 50, 0]"
    );
    // One condition in the default order: kept prepared on PostgreSQL only.
    assert!(pg.is_cacheable());
    assert!(!page(Backend::Sqlite, &q).is_cacheable());
}

#[test]
fn member_conditions_are_an_exists_over_the_membership_key() {
    // not (members[value eq "p1" or value ne "p2"]) and externalId pr,
    // sorted by displayName descending.
    let q = GroupQuery {
        filter: Some(GroupFilter::And(
            Box::new(GroupFilter::Not(Box::new(GroupFilter::any_member(
                MemberFilter::Or(
                    Box::new(MemberFilter::compare(
                        MemberField::Value,
                        CompareOp::Eq,
                        text("p1"),
                    )),
                    Box::new(MemberFilter::compare(
                        MemberField::Value,
                        CompareOp::Ne,
                        text("p2"),
                    )),
                ),
            )))),
            Box::new(GroupFilter::present(GroupField::ExternalId)),
        )),
        sort: Some(GroupField::DisplayName),
        order: SortOrder::Descending,
        start_index: 3,
        count: 2,
    };
    let pg = page(Backend::Postgres, &q);
    assert_eq!(
        pg.text(Backend::Postgres),
        "SELECT g.id FROM groups g WHERE g.organization_id = $1 AND \
         ((NOT EXISTS (SELECT 1 FROM group_members gm WHERE gm.group_id = g.id AND \
         ((gm.person_id IS NOT NULL AND gm.person_id = $2) OR \
         (gm.person_id IS NULL OR gm.person_id <> $3)))) AND \
         (g.external_id IS NOT NULL)) \
         ORDER BY (g.display_name_key IS NULL) DESC, g.display_name_key COLLATE \"C\" DESC, \
         g.created_at ASC, g.id ASC LIMIT $4 OFFSET $5"
    );
    assert!(!pg.is_cacheable());
    assert!(page(Backend::Sqlite, &q)
        .text(Backend::Sqlite)
        .contains("ORDER BY (g.display_name_key IS NULL) DESC, g.display_name_key DESC,"));
}

#[test]
fn a_value_of_another_type_or_a_substring_of_a_time_matches_only_an_absent_field_with_ne() {
    let q = |f| GroupQuery {
        filter: Some(f),
        ..GroupQuery::default()
    };
    let never = [
        GroupFilter::compare(
            GroupField::DisplayName,
            CompareOp::Eq,
            FilterValue::Bool(true),
        ),
        GroupFilter::compare(
            GroupField::Created,
            CompareOp::Co,
            FilterValue::Time(chrono::Utc::now()),
        ),
        GroupFilter::any_member(MemberFilter::compare(
            MemberField::Value,
            CompareOp::Gt,
            FilterValue::Bool(false),
        )),
    ];
    for f in never {
        let sql = page(Backend::Postgres, &q(f)).text(Backend::Postgres);
        assert!(sql.contains("(1 = 0)"), "{sql}");
        assert!(!sql.contains(" > "), "{sql}");
    }
    // `ne` with a value of another type: where the field is absent.
    let ne = GroupFilter::compare(
        GroupField::ExternalId,
        CompareOp::Ne,
        FilterValue::Bool(true),
    );
    let sql = page(Backend::Sqlite, &q(ne)).text(Backend::Sqlite);
    assert!(
        sql.contains("AND (g.external_id IS NULL) ORDER BY"),
        "{sql}"
    );
}
