#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use chrono::{TimeZone, Utc};

use equip_domain::inventory::{AssigneeType, DeployStatus};
use equip_domain::person::{is_valid_cpf, PersonStatus};
use equip_domain::services::admin::create_organization;
use equip_domain::testing::InMemoryStore;

use super::*;

fn config(organization: OrganizationId, items: usize) -> DemoConfig {
    DemoConfig {
        organization,
        organization_name: "Demo Org".into(),
        seed: 7,
        items,
        now: Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap(),
    }
}

fn everything(config: DemoConfig) -> ImportBatch {
    let mut g = Generator::new(config);
    let mut batch = g.base();
    loop {
        let items = g.next_items(97);
        if items.is_empty() {
            return batch;
        }
        batch.inventory.extend(items);
    }
}

#[test]
fn same_seed_same_data() {
    let org = OrganizationId::new();
    assert_eq!(everything(config(org, 300)), everything(config(org, 300)));
    let mut other = config(org, 300);
    other.seed = 8;
    assert_ne!(everything(config(org, 300)), everything(other));
}

#[test]
fn ids_depend_on_the_organization_but_content_does_not() {
    let a = everything(config(OrganizationId::new(), 50));
    let b = everything(config(OrganizationId::new(), 50));
    assert_ne!(a.inventory[0].id, b.inventory[0].id);
    assert_ne!(a.warehouses[0].id, b.warehouses[0].id);
    assert_eq!(a.people[0].user_name, b.people[0].user_name);
    assert_eq!(a.inventory[9].serial_number, b.inventory[9].serial_number);
}

#[test]
fn the_default_demo_is_realistic_and_obeys_the_rules() {
    let store = InMemoryStore::default();
    let now = Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap();
    let org = create_organization(&store, "Demo Org", now).unwrap();
    let batch = everything(config(org.id, 400));
    assert_eq!(batch.warehouses.len(), 4);
    assert_eq!(
        batch
            .warehouses
            .iter()
            .filter(|w| w.owner == WarehouseOwner::Shared)
            .count(),
        1
    );
    assert_eq!(batch.offices.len(), 2);
    assert_eq!(batch.skus.len(), 12);
    assert_eq!(batch.packages.len(), 3);
    // Every package has contents: a laptop and more, each preferred SKU of
    // its entry's category (the import's rules check that too).
    for p in &batch.packages {
        assert!(p.items.len() >= 2, "{}", p.slug);
        assert_eq!(p.items[0].category_code, "LAPTOP");
        for item in &p.items {
            assert!(batch
                .skus
                .iter()
                .any(|s| s.category_code == item.category_code));
            for id in &item.sku_ids {
                let sku = batch.skus.iter().find(|s| s.id == *id).unwrap();
                assert_eq!(sku.category_code, item.category_code, "{}", p.slug);
            }
        }
    }
    assert_eq!(batch.people.len(), 40);
    assert_eq!(batch.inventory.len(), 400);
    assert!(batch.inventory_levels.iter().any(|l| !l.is_active()));

    let today = now.date_naive();
    let brazilians: Vec<_> = batch
        .people
        .iter()
        .filter(|p| p.lives_in_brazil())
        .collect();
    assert!(!brazilians.is_empty(), "a few Brazilians");
    assert!(brazilians
        .iter()
        .all(|p| is_valid_cpf(p.cpf_number.as_deref().unwrap())));
    assert!(batch.people.iter().any(|p| p.is_new_joiner(today)));
    assert!(batch
        .people
        .iter()
        .any(|p| p.status == PersonStatus::Offboarding));
    let emails: HashSet<_> = batch.people.iter().map(|p| p.user_name.clone()).collect();
    assert_eq!(emails.len(), 40);
    assert!(batch.people[0].user_name.ends_with("@demo-org.example"));

    for status in DeployStatus::ALL {
        assert!(
            batch.inventory.iter().any(|i| i.deploy_status == *status),
            "no {status} item"
        );
    }
    for item in &batch.inventory {
        item.validate().unwrap();
        if item.deploy_status == DeployStatus::Deployed {
            assert_eq!(
                item.assignment.unwrap().assignee.kind(),
                AssigneeType::Person
            );
        }
    }
    let inv = &batch.inventory;
    assert!(inv.iter().any(|i| !i.imei.is_empty()));
    assert!(inv.iter().any(|i| i.serial_number.is_none()));
    assert!(inv.iter().any(|i| !i.tags.is_empty()));
    assert!(inv.iter().any(|i| i.pricing.is_some()));
    assert!(inv.iter().any(|i| i.device_program.is_some()));
    assert!(inv.iter().any(|i| i.hold_start_date.is_some()));
    assert!(inv.iter().any(|i| i
        .assignment
        .is_some_and(|a| a.assignee.kind() == AssigneeType::Office)));
    let retrievals: Vec<_> = inv
        .iter()
        .filter_map(|i| i.return_order.as_ref())
        .filter_map(|r| r.retrieval.as_ref())
        .map(|r| r.kind.type_name())
        .collect();
    for kind in ["RETURN_KIT", "INBOUND_LABEL", "PHYSICAL"] {
        assert!(retrievals.contains(&kind), "no {kind} retrieval");
    }
    let serials: HashSet<_> = inv.iter().filter_map(|i| i.serial_number.clone()).collect();
    assert_eq!(
        serials.len(),
        inv.iter().filter(|i| i.serial_number.is_some()).count(),
        "serial numbers are unique"
    );

    let mut calls = 0;
    let summary = load(&store, config(org.id, 400), CHUNK, &mut |_| calls += 1).unwrap();
    assert_eq!(summary.inventory, 400);
    assert_eq!(summary.people, 40);
    assert_eq!(summary.groups, 3);
    assert_eq!(store.state().inventory.len(), 400);
    // Every provisioned person is in "Everyone" and in one department.
    let s = store.state();
    let provisioned = s.people.iter().filter(|p| p.is_provisioned()).count();
    let everyone = s
        .groups
        .iter()
        .find(|g| g.display_name == "Everyone")
        .unwrap();
    let members_of = |id| s.memberships.iter().filter(|(g, _)| *g == id).count();
    assert_eq!(members_of(everyone.id), provisioned);
    let departments: usize = s
        .groups
        .iter()
        .filter(|g| g.package_id.is_some())
        .map(|g| members_of(g.id))
        .sum();
    assert_eq!(departments, provisioned);
    assert!(calls > 0);
}

#[test]
fn large_demos_are_written_in_chunks() {
    let store = InMemoryStore::default();
    let now = Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap();
    let org = create_organization(&store, "Demo Org", now).unwrap();
    let mut last = 0;
    let summary = load(&store, config(org.id, 1_000), 300, &mut |n| last = n).unwrap();
    assert_eq!(summary.inventory, 1_000);
    assert_eq!(summary.people, 100, "one person per ten items");
    assert_eq!(store.state().inventory.len(), 1_000);
    assert_eq!(last, Generator::new(config(org.id, 1_000)).total_entries());
}

#[test]
fn generating_many_items_is_quick() {
    let mut g = Generator::new(config(OrganizationId::new(), 20_000));
    let base = g.base();
    assert_eq!(base.people.len(), 2_000);
    let started = std::time::Instant::now();
    let mut n = 0;
    loop {
        let items = g.next_items(CHUNK);
        if items.is_empty() {
            break;
        }
        n += items.len();
    }
    assert_eq!(n, 20_000);
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}

#[test]
fn the_leavers_show_every_stage_of_a_return() {
    use equip_domain::inventory::ReturnStatus;
    use equip_domain::returns::LineState;

    let store = InMemoryStore::default();
    let now = Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap();
    let org = create_organization(&store, "Demo Org", now).unwrap();
    let cfg = config(org.id, 400);
    load(&store, cfg.clone(), CHUNK, &mut |_| {}).unwrap();
    let leavers = leavers::run(&store, &cfg).unwrap();
    assert_eq!(leavers.len(), 4);
    let s = store.state();
    // The leavers' orders: opened by their offboarding, now (their imported
    // returns, if any, are older).
    let theirs: Vec<_> = s
        .return_orders
        .iter()
        .filter(|o| o.person.is_some_and(|p| leavers.contains(&p)) && o.created_at >= cfg.now)
        .collect();
    let mut statuses: Vec<ReturnStatus> = theirs.iter().map(|o| o.status).collect();
    statuses.sort_by_key(|s| s.as_str());
    assert_eq!(
        statuses,
        [
            ReturnStatus::NotCompleted,
            ReturnStatus::Pending,
            ReturnStatus::ReturnKitSent,
            ReturnStatus::ReturnKitSentBack,
        ]
    );
    let partly = theirs
        .iter()
        .find(|o| o.status == ReturnStatus::ReturnKitSentBack)
        .unwrap();
    let written_off = partly
        .lines
        .iter()
        .filter(|l| matches!(l.state, LineState::WrittenOff(_)))
        .count();
    assert_eq!((written_off, partly.lines.len() > 1), (1, true));
    let done = theirs
        .iter()
        .find(|o| o.status == ReturnStatus::NotCompleted)
        .unwrap();
    let person = s.people.iter().find(|p| Some(p.id) == done.person).unwrap();
    assert_eq!(person.status, PersonStatus::Offboarded);
    let archived = s
        .inventory
        .iter()
        .filter(|i| done.lines.iter().any(|l| l.item == i.id))
        .all(|i| i.deploy_status == DeployStatus::Archived);
    assert!(archived);
}

/// The demo runs in any organization: whoever its leavers are (some hold an
/// imported return further along), their offboarding's own order is the one
/// moved, so no organization's demo fails (`equip demo` run again in one
/// database, as the fuzzing scripts do).
#[test]
fn the_leavers_run_in_every_organization() {
    let now = Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap();
    let store = InMemoryStore::default();
    for n in 0..24 {
        let org = create_organization(&store, &format!("Demo Org {n}"), now).unwrap();
        let cfg = config(org.id, if n % 2 == 0 { 20 } else { 60 });
        load(&store, cfg.clone(), CHUNK, &mut |_| {}).unwrap();
        let leavers = leavers::run(&store, &cfg).unwrap();
        assert!(!leavers.is_empty(), "organization {n}");
    }
}
