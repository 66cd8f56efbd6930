//! Import benchmarks (ignored; run explicitly).

use crate::support::*;

/// 100,000 items (with tags, pricing on half, an active return on a tenth) and
/// 1,000 people, imported, then imported again (all upserts); each round must
/// take well under a minute. Ignored by default (slow in debug builds); run with
/// `cargo test -p equip-persistence --test storage --release -- --ignored --nocapture`.
#[test]
#[ignore = "benchmark; run explicitly"]
fn sqlite_import_100k_items_benchmark() {
    let db = TestDatabase::sqlite();
    import_100k_items(&db);
}

/// The same on PostgreSQL.
#[test]
#[ignore = "benchmark; run explicitly"]
fn postgres_import_100k_items_benchmark() {
    if let Some(db) = TestDatabase::postgres() {
        import_100k_items(&db);
    }
}

fn import_100k_items(db: &TestDatabase) {
    let store = db.store();
    let (org, s, w) = seeded(&store, "Big");
    let people: Vec<Person> = (0..1_000)
        .map(|i| person(&org, &format!("person{i}@example.com")))
        .collect();
    let inventory: Vec<InventoryItem> = (0..100_000i64)
        .map(|i| {
            let mut it = item(&org, &s, &w, at(15, i));
            it.tags = vec![
                Tag {
                    id: TagId::new(),
                    label: "fleet".into(),
                },
                Tag {
                    id: TagId::new(),
                    label: format!("batch-{}", i % 13),
                },
            ];
            if i % 2 == 0 {
                it.pricing = Some(Price {
                    region_code: "EU".into(),
                    price_option: "PURCHASE".into(),
                    price: 999.0,
                    currency_code: "EUR".into(),
                    discounted_price: 899.0,
                    discount_percentage: 10.0,
                });
            }
            if i % 10 == 0 {
                it.return_order = Some(ReturnInfo {
                    id: ReturnOrderId::new(),
                    status: ReturnStatus::Pending,
                    created_at: at(16, i),
                    return_order_item_id: ReturnOrderItemId::new(),
                    return_order_item_status: ReturnStatus::Pending,
                    retrieval: None,
                });
            }
            it
        })
        .collect();
    let batch = ImportBatch {
        people,
        inventory,
        ..ImportBatch::default()
    };
    let external = batch.validate(&org).unwrap();
    for round in ["insert", "upsert"] {
        let started = std::time::Instant::now();
        let summary = store
            .import_batch(org.id, &batch, &external, &mut |_| {})
            .unwrap()
            .unwrap();
        eprintln!(
            "{:?} {round}: {} items, {} people in {:.1?}",
            store.backend(),
            summary.inventory,
            summary.people,
            started.elapsed()
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
    }
    assert_eq!(db.count_rows("inventory_items"), 100_000);
    assert_eq!(db.count_rows("inventory_item_tags"), 200_000);
}
