//! The workflow conformance scenarios (`equip_domain::testing::conformance`)
//! over the Diesel store, on SQLite and PostgreSQL: the same scenarios the
//! domain's unit tests run over the in-memory store, with the same
//! expectations (docs/workflows.md, "The conformance suite").

use equip_domain::orders::order::Order;
use equip_domain::testing::conformance::{self, DynHarness, Harness};
use equip_domain::testing::fixtures::Seeded;
use equip_persistence::test_support::TestDatabase;
use equip_persistence::{Backend, Store};

use equip_domain::organization::{Organization, OrganizationName};
use equip_domain::ports::PersonRepository;

use crate::support::{person, seeded};

struct Diesel<'s>(&'s Store);

impl Harness for Diesel<'_> {
    type Store = Store;

    fn store(&self) -> &Store {
        self.0
    }

    fn seed(&self) -> Result<Seeded, String> {
        let (org, sku, warehouse) = seeded(self.0, "Conformance");
        Ok(Seeded {
            org,
            sku,
            warehouse,
        })
    }

    fn put_order(&self, order: &Order) -> Result<(), String> {
        // The order's person, as provisioning found them (no package of
        // their own: no order of the store's making).
        let mut joiner = person(
            &self.seed_org(order),
            &format!("{}@acme.example", order.person_id),
        );
        joiner.id = order.person_id;
        self.0
            .insert_person(&joiner)
            .map_err(|e| format!("store: {e}"))?;
        self.0
            .put_order_for_tests(order)
            .map_err(|e| format!("store: {e}"))
    }
}

impl Diesel<'_> {
    /// The organization of `order`, as the person builder wants it.
    fn seed_org(&self, order: &Order) -> Organization {
        Organization {
            id: order.organization_id,
            name: OrganizationName::parse("Conformance").expect("a valid name"),
            created_at: order.created_at,
        }
    }
}

fn run(store: &Store, name: &str) {
    let (_, scenario) = conformance::SCENARIOS
        .iter()
        .find(|(n, _)| *n == name)
        .copied()
        .unwrap_or_else(|| panic!("no scenario {name}"));
    let harness = Diesel(store);
    let harness: &dyn DynHarness = &harness;
    if let Err(why) = scenario(harness) {
        panic!("{name} ({:?}): {why}", store.backend());
    }
}

storage_tests!(
    a_created_item_fills_a_backorder,
    a_hold_release_fills_a_backorder,
    the_oldest_backorder_takes_the_one_item,
    an_allocation_below_a_minimum_records_one_crossing,
    every_scenario_has_its_test,
);

fn a_created_item_fills_a_backorder(_: &TestDatabase, store: &Store) {
    run(store, "a_created_item_fills_a_backorder");
}

fn a_hold_release_fills_a_backorder(_: &TestDatabase, store: &Store) {
    run(store, "a_hold_release_fills_a_backorder");
}

fn the_oldest_backorder_takes_the_one_item(_: &TestDatabase, store: &Store) {
    run(store, "the_oldest_backorder_takes_the_one_item");
}

fn an_allocation_below_a_minimum_records_one_crossing(_: &TestDatabase, store: &Store) {
    run(store, "an_allocation_below_a_minimum_records_one_crossing");
}

fn every_scenario_has_its_test(_: &TestDatabase, _: &Store) {
    // One test above per scenario: a scenario added without its test fails here.
    assert_eq!(conformance::SCENARIOS.len(), 4);
}
