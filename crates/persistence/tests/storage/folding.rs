//! Non-ASCII text: listing and people folding agree with the in-memory reference.

use crate::support::*;

storage_tests!(non_ascii_text_folds_like_the_reference,);

/// An organization holding SKUs, labels, serials and people whose texts
/// differ only in the case of non-ASCII letters (`Éb` / `éa` sort apart only
/// when `É` folds to `é`), stored by `store` and by a fresh in-memory
/// reference store.
fn seed_non_ascii(store: &Store) -> (OrganizationId, equip_domain::testing::InMemoryStore) {
    use equip_domain::services::import::run_import;
    let org = new_org(store, "Société Générale");
    let o = &org;
    let mk = |title: &str, category: &str, vendor_sku: &str| Sku {
        category_code: category.into(),
        category_name: format!("Catégorie {category}"),
        vendor_sku: vendor_sku.into(),
        ..sku(o, title)
    };
    let skus = vec![
        mk("Éb", "ÉCRAN", "ÄB-1"),
        mk("éa", "écran", "äb-1"),
        mk("Ec", "LAPTOP", "AB-1"),
        mk("ÉA", "Écran", "ÄB-2"),
        mk("Ölfass STRAẞE", "ÖL", "Ö"),
        // `ſ` (long s) is lowercase already: `sab` must not find it, although
        // SQLite's trigram index folds it to `s`.
        mk("ſab", "LAPTOP", "ſ-1"),
        mk("ЖУК Δέλτα", "ЖУК", "Ж-1"),
    ];
    let warehouses = vec![owned_warehouse(o, "Évora"), owned_warehouse(o, "éa depot")];
    let office = Office {
        id: OfficeId::new(),
        organization_id: o.id,
        name: "Ålesund".into(),
    };
    let people: Vec<Person> = [("Émile@example.com", "Éb"), ("ebba@example.com", "éa")]
        .iter()
        .map(|(user, given)| Person {
            given_name: Some((*given).into()),
            family_name: Some(format!("Öz{given}")),
            display_name: Some(format!("{given} ÖZ")),
            ..person(o, user)
        })
        .collect();
    let serials = [
        Some("ÉSN-1"),
        Some("ésn-0"),
        Some("ÉSN-2"),
        Some("SN-Ä"),
        None,
    ];
    let inventory: Vec<InventoryItem> = (0..21)
        .map(|i| {
            let mut it = item(o, &skus[i % skus.len()], &warehouses[0], at(3, i as i64));
            it.serial_number = serials[i % serials.len()].map(str::to_owned);
            it.description = (i % 4 == 0).then(|| "Écran cassé".to_owned());
            let (kind, id, status) = match i % 4 {
                0 => (
                    AssigneeType::Warehouse,
                    *warehouses[0].id.as_uuid(),
                    DeployStatus::Available,
                ),
                1 => (
                    AssigneeType::Warehouse,
                    *warehouses[1].id.as_uuid(),
                    DeployStatus::Available,
                ),
                2 => (
                    AssigneeType::Office,
                    *office.id.as_uuid(),
                    DeployStatus::OnHold,
                ),
                _ => (
                    AssigneeType::Person,
                    *people[i % 2].id.as_uuid(),
                    DeployStatus::Deployed,
                ),
            };
            it.deploy_status = status;
            it.deploy_reason = (status == DeployStatus::OnHold).then_some(DeployReason::DataHold);
            it.assignment = Some(Assignment {
                assignee: Assignee::new(kind, id),
                assigned_at: None,
            });
            it
        })
        .collect();
    let batch = ImportBatch {
        skus,
        warehouses,
        offices: vec![office],
        people,
        inventory,
        ..ImportBatch::default()
    };
    run_import(store, org.id, &batch, &mut |_| {}).unwrap();
    let reference = equip_domain::testing::InMemoryStore::default();
    reference.state().organizations.push(org.clone());
    run_import(&reference, org.id, &batch, &mut |_| {}).unwrap();
    (org.id, reference)
}

/// The ids and total of one listing page of `raw` (page 1 of 100).
fn listing(
    store: &dyn InventoryRepository,
    org: OrganizationId,
    raw: RawInventoryQuery,
) -> (Vec<String>, u64) {
    let q = InventoryQuery::parse(&RawInventoryQuery {
        size: Some("100".into()),
        ..raw
    })
    .unwrap();
    let page = store.list_inventory(org, &q).unwrap();
    (
        page.items.iter().map(|i| i.id.to_string()).collect(),
        page.total_records,
    )
}

/// The listing's sorts, searches and filters over non-ASCII text agree with
/// the reference; returns the differences (empty when all agree).
fn non_ascii_listing_differences(
    store: &Store,
    reference: &equip_domain::testing::InMemoryStore,
    org: OrganizationId,
) -> Vec<String> {
    let mut queries: Vec<(String, RawInventoryQuery)> = Vec::new();
    for key in ["product", "serialNumber", "assignee", "category"] {
        for dir in ["ASC", "DESC"] {
            queries.push((
                format!("sortBy={key} {dir}"),
                RawInventoryQuery {
                    sort_by: Some(key.into()),
                    sort_direction: Some(dir.into()),
                    ..RawInventoryQuery::default()
                },
            ));
        }
    }
    // Short ones take the LIKE path on SQLite, longer ones the trigram index.
    for search in [
        "éb",
        "é",
        "ÉA",
        "É",
        "écran cassé",
        "sab",
        "ſab",
        "straße",
        "STRAẞE",
        "жук",
        "δέλτα",
        "catégorie écran",
        "ésn-",
        "sn-ä",
        "ölf",
    ] {
        queries.push((
            format!("searchString={search}"),
            RawInventoryQuery {
                search_string: Some(search.into()),
                ..RawInventoryQuery::default()
            },
        ));
    }
    type MakeQuery = fn(Vec<String>) -> RawInventoryQuery;
    let lists: [(&str, MakeQuery); 3] = [
        ("categories", |v| RawInventoryQuery {
            categories: v,
            ..RawInventoryQuery::default()
        }),
        ("vendorSku", |v| RawInventoryQuery {
            vendor_skus: v,
            ..RawInventoryQuery::default()
        }),
        ("serialNumber", |v| RawInventoryQuery {
            serial_numbers: v,
            ..RawInventoryQuery::default()
        }),
    ];
    for (name, make) in lists {
        for values in [
            vec!["écran"],
            vec!["ÉCRAN"],
            vec!["Öl", "жук"],
            vec!["äb-1"],
            vec!["ÄB-2", "ſ-1"],
            vec!["ésn-1"],
            vec!["ÉSN-2", "sn-ä"],
        ] {
            let values: Vec<String> = values.into_iter().map(str::to_owned).collect();
            queries.push((format!("{name}={}", values.join(",")), make(values)));
        }
        // Also with a status, which the maintained counts answer.
        queries.push((
            format!("{name}=écran&deployStatuses=AVAILABLE"),
            RawInventoryQuery {
                deploy_statuses: vec!["AVAILABLE".into()],
                ..make(vec!["écran".into()])
            },
        ));
    }
    let mut differences = Vec::new();
    let mut non_empty = 0;
    for (what, raw) in queries {
        let got = listing(store, org, raw.clone());
        let expected = listing(reference, org, raw);
        if !expected.0.is_empty() {
            non_empty += 1;
        }
        if got != expected {
            differences.push(format!(
                "{what}: {} items, expected {} ({} in reference order)",
                got.1,
                expected.1,
                if got.0 == expected.0 {
                    "same ids"
                } else {
                    "not"
                }
            ));
        }
    }
    // The inputs do select something: the comparison is not vacuous.
    assert!(non_empty >= 30, "only {non_empty} queries match any item");
    differences
}

/// SCIM people filters and sorts over non-ASCII names agree with the
/// reference; returns the differences.
fn non_ascii_people_differences(
    store: &Store,
    reference: &equip_domain::testing::InMemoryStore,
    org: OrganizationId,
) -> Vec<String> {
    use equip_domain::person_query::{
        CompareOp, FilterValue, PersonField, PersonFilter, PersonQuery, SortOrder,
    };
    let mut differences = Vec::new();
    let fields = [
        PersonField::GivenName,
        PersonField::FamilyName,
        PersonField::DisplayName,
    ];
    for field in fields {
        for (op, value) in [
            (CompareOp::Eq, "ÉB"),
            (CompareOp::Eq, "éa"),
            (CompareOp::Sw, "öz"),
            (CompareOp::Co, "É"),
            (CompareOp::Ew, "b öz"),
        ] {
            for order in [SortOrder::Ascending, SortOrder::Descending] {
                let q = PersonQuery {
                    filter: Some(PersonFilter::compare(
                        field,
                        op,
                        FilterValue::Text(value.into()),
                    )),
                    sort: Some(field),
                    order,
                    start_index: 1,
                    count: 50,
                };
                let names = |s: &dyn PersonRepository| {
                    let page = s.list_people(org, &q).unwrap();
                    let names: Vec<String> =
                        page.people.iter().map(|p| p.user_name.clone()).collect();
                    (names, page.total)
                };
                let (got, expected) = (names(store), names(reference));
                if got != expected {
                    differences.push(format!(
                        "{field:?} {op:?} {value:?} {order:?}: {got:?}, expected {expected:?}"
                    ));
                }
            }
        }
    }
    differences
}

/// SQLite's built-in `lower()` folds ASCII only; the listing's keys and the
/// people filter's name comparisons fold non-ASCII letters too, as the
/// reference (and PostgreSQL) do.
fn non_ascii_text_folds_like_the_reference(_db: &TestDatabase, store: &Store) {
    let (org, reference) = seed_non_ascii(store);
    let mut differences = non_ascii_listing_differences(store, &reference, org);
    differences.extend(non_ascii_people_differences(store, &reference, org));
    assert_eq!(differences, Vec::<String>::new());
}
