//! The exact SQL each backend gets for representative people queries.

use equip_domain::person_query::{
    CompareOp, EmailField, EmailFilter, FilterValue, PersonField, PersonFilter, PersonQuery,
    SortOrder,
};

use super::{from_where, order_and_page};
use crate::connection::Backend;
use crate::sql_builder::{Bind, Sql};

fn text(s: &str) -> FilterValue {
    FilterValue::Text(s.to_owned())
}

/// The page statement of `q`, as the repository writes it.
fn page(backend: Backend, q: &PersonQuery) -> Sql {
    let mut sql = Sql::default();
    sql.push_sql("SELECT p.id AS id");
    from_where(&mut sql, backend, "org", q);
    order_and_page(&mut sql, backend, q);
    sql
}

#[test]
fn and_or_not_filter() {
    // userName eq "Ada@X.example" and (not (displayName co "Love") or active eq true)
    let q = PersonQuery {
        filter: Some(PersonFilter::And(
            Box::new(PersonFilter::compare(
                PersonField::UserName,
                CompareOp::Eq,
                text("Ada@X.example"),
            )),
            Box::new(PersonFilter::Or(
                Box::new(PersonFilter::Not(Box::new(PersonFilter::compare(
                    PersonField::DisplayName,
                    CompareOp::Co,
                    text("Love"),
                )))),
                Box::new(PersonFilter::compare(
                    PersonField::Active,
                    CompareOp::Eq,
                    FilterValue::Bool(true),
                )),
            )),
        )),
        ..PersonQuery::default()
    };
    let lite = page(Backend::Sqlite, &q);
    assert_eq!(
        lite.rendered(Backend::Sqlite),
        "SELECT p.id AS id FROM people p WHERE p.organization_id = ? AND \
        p.status = 'ACTIVE' AND ((p.user_name_lower IS NOT NULL AND \
        p.user_name_lower = ?) AND ((NOT (equip_lower(p.display_name) IS NOT \
        NULL AND instr(equip_lower(p.display_name), ?) > 0)) OR (p.active IS \
        NOT NULL AND p.active = ?))) ORDER BY p.created_at ASC, p.id ASC LIMIT \
        ? OFFSET ? -- binds: [\"org\", \"ada@x.example\", \"love\", true, 50, \
        0]"
    );
    let pg = page(Backend::Postgres, &q);
    assert_eq!(
        pg.rendered(Backend::Postgres),
        "SELECT p.id AS id FROM people p WHERE p.organization_id = $1 AND \
        p.status = 'ACTIVE' AND ((p.user_name_lower IS NOT NULL AND \
        p.user_name_lower = $2) AND ((NOT (LOWER(p.display_name) IS NOT NULL \
        AND strpos(LOWER(p.display_name), $3) > 0)) OR (p.active IS NOT NULL \
        AND p.active = $4))) ORDER BY p.created_at ASC, p.id ASC LIMIT $5 \
        OFFSET $6 -- binds: [\"org\", \"ada@x.example\", \"love\", true, 50, \
        0]"
    );
    // Two conditions: shapes without bound, not kept prepared.
    assert!(!pg.is_cacheable());
}

#[test]
fn email_filter() {
    let q = PersonQuery {
        filter: Some(PersonFilter::any_email(EmailFilter::compare(
            EmailField::Value,
            CompareOp::Eq,
            text("Ada@X.example"),
        ))),
        ..PersonQuery::default()
    };
    let lite = page(Backend::Sqlite, &q);
    assert_eq!(
        lite.rendered(Backend::Sqlite),
        "SELECT p.id AS id FROM people p WHERE p.organization_id = ? AND \
        p.status = 'ACTIVE' AND p.id IN (SELECT e.person_id FROM person_emails \
        e WHERE e.organization_id = ? AND (e.value_lower IS NOT NULL AND \
        e.value_lower = ?)) ORDER BY p.created_at ASC, p.id ASC LIMIT ? OFFSET \
        ? -- binds: [\"org\", \"org\", \"ada@x.example\", 50, 0]"
    );
    // SQLite statements are not kept prepared; PostgreSQL keeps one-condition
    // statements in the default order.
    assert!(!lite.is_cacheable());
    let pg = page(Backend::Postgres, &q);
    assert_eq!(
        pg.rendered(Backend::Postgres),
        "SELECT p.id AS id FROM people p WHERE p.organization_id = $1 AND \
        p.status = 'ACTIVE' AND p.id IN (SELECT e.person_id FROM person_emails \
        e WHERE e.organization_id = $2 AND (e.value_lower IS NOT NULL AND \
        e.value_lower = $3)) ORDER BY p.created_at ASC, p.id ASC LIMIT $4 \
        OFFSET $5 -- binds: [\"org\", \"org\", \"ada@x.example\", 50, 0]"
    );
    assert!(pg.is_cacheable());
}

#[test]
fn sort_by_a_text_field() {
    let q = PersonQuery {
        filter: Some(PersonFilter::present(PersonField::FamilyName)),
        sort: Some(PersonField::FamilyName),
        order: SortOrder::Descending,
        start_index: 11,
        count: 5,
    };
    let lite = page(Backend::Sqlite, &q);
    assert_eq!(
        lite.rendered(Backend::Sqlite),
        "SELECT p.id AS id FROM people p WHERE p.organization_id = ? AND \
        p.status = 'ACTIVE' AND (equip_lower(p.family_name) IS NOT NULL AND \
        equip_lower(p.family_name) <> '') ORDER BY (equip_lower(p.family_name) \
        IS NULL) DESC, equip_lower(p.family_name) DESC, p.created_at ASC, p.id \
        ASC LIMIT ? OFFSET ? -- binds: [\"org\", 5, 10]"
    );
    let pg = page(Backend::Postgres, &q);
    assert_eq!(
        pg.rendered(Backend::Postgres),
        "SELECT p.id AS id FROM people p WHERE p.organization_id = $1 AND \
        p.status = 'ACTIVE' AND (LOWER(p.family_name) IS NOT NULL AND \
        LOWER(p.family_name) <> '') ORDER BY (LOWER(p.family_name) IS NULL) \
        DESC, LOWER(p.family_name) COLLATE \"C\" DESC, p.created_at ASC, p.id \
        ASC LIMIT $2 OFFSET $3 -- binds: [\"org\", 5, 10]"
    );
    // A sorted query is not kept prepared.
    assert!(!pg.is_cacheable());
}

#[test]
fn values_are_bound_never_spliced() {
    let q = PersonQuery {
        filter: Some(PersonFilter::any_email(EmailFilter::compare(
            EmailField::Value,
            CompareOp::Co,
            text("'; DROP TABLE people; --"),
        ))),
        ..PersonQuery::default()
    };
    let pg = page(Backend::Postgres, &q);
    assert!(!pg.text(Backend::Postgres).contains("DROP"));
    assert!(pg
        .binds()
        .contains(&Bind::Text("'; drop table people; --".into())));
}

#[test]
fn equality_keeps_the_column_collation_and_ordering_compares_bytes() {
    let query = |op| PersonQuery {
        filter: Some(PersonFilter::compare(
            PersonField::UserName,
            op,
            text("ada@x.example"),
        )),
        ..PersonQuery::default()
    };
    let mut eq = Sql::default();
    from_where(&mut eq, Backend::Postgres, "org", &query(CompareOp::Eq));
    // The unique index (organization_id, user_name_lower) is in the
    // database's collation: `COLLATE "C"` here would keep it out.
    let eq_text = eq.text(Backend::Postgres);
    assert!(!eq_text.contains("COLLATE"), "{eq_text}");
    assert!(eq.is_cacheable());
    let mut gt = Sql::default();
    from_where(&mut gt, Backend::Postgres, "org", &query(CompareOp::Gt));
    let gt_text = gt.text(Backend::Postgres);
    assert!(gt_text.contains("COLLATE \"C\""), "{gt_text}");
}
