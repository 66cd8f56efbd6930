#![allow(clippy::unwrap_used)]
use super::*;
use crate::ids::{InventoryItemId, SkuId};

fn contents(quantities: &[(&str, u8)]) -> PackageContents {
    PackageContents {
        package_id: PackageId::new(),
        items: quantities
            .iter()
            .map(|(category, quantity)| PackageItem {
                category_code: (*category).to_owned(),
                sku_ids: vec![SkuId::new()],
                quantity: *quantity,
            })
            .collect(),
    }
}

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 27).unwrap()
}

fn facts<'a>(package: Option<&'a PackageContents>, order: Option<&'a Order>) -> JoinerFacts<'a> {
    JoinerFacts {
        organization_id: OrganizationId::new(),
        person_id: PersonId::new(),
        status: PersonStatus::Active,
        active: true,
        start_date: Some(today()),
        package,
        order,
        today: today(),
        at: Utc::now(),
    }
}

fn created(plan: OrderPlan) -> Order {
    match plan {
        OrderPlan::Create(order) => order,
        other => panic!("expected a new order, got {other:?}"),
    }
}

fn changed(plan: OrderPlan) -> (Order, Vec<InventoryItemId>) {
    match plan {
        OrderPlan::Change { order, released } => (order, released),
        other => panic!("expected a change, got {other:?}"),
    }
}

/// The order with its first `n` lines allocated and line `shipped` shipped.
fn allocated(mut order: Order, n: usize, shipped: Option<usize>) -> Order {
    for (i, line) in order.lines.iter_mut().enumerate().take(n) {
        line.status = if Some(i) == shipped {
            LineStatus::Shipped
        } else {
            LineStatus::Allocated
        };
        line.item_id = Some(InventoryItemId::new());
    }
    order.restated()
}

#[test]
fn a_joiner_gets_a_line_per_unit_all_waiting_for_allocation() {
    let package = contents(&[("LAPTOP", 1), ("MONITOR", 2)]);
    let plan = plan(&facts(Some(&package), None));
    assert_eq!(plan.to_allocate().len(), 3);
    let order = created(plan);
    assert_eq!(order.package_id, Some(package.package_id));
    assert_eq!(order.status, OrderStatus::Pending);
    let categories: Vec<_> = order
        .lines
        .iter()
        .map(|l| l.category_code.as_str())
        .collect();
    assert_eq!(categories, ["LAPTOP", "MONITOR", "MONITOR"]);
    let positions: Vec<_> = order.lines.iter().map(|l| l.position).collect();
    assert_eq!(positions, [0, 1, 2]);
    assert_eq!(order.lines[0].sku_ids, package.items[0].sku_ids);
}

#[test]
fn no_order_without_contents_eligibility_or_a_future_start() {
    let empty = contents(&[]);
    assert_eq!(plan(&facts(Some(&empty), None)), OrderPlan::Keep);
    assert_eq!(plan(&facts(None, None)), OrderPlan::Keep);
    let package = contents(&[("LAPTOP", 1)]);
    let mut f = facts(Some(&package), None);
    f.start_date = today().pred_opt();
    assert_eq!(plan(&f), OrderPlan::Keep, "the start date has passed");
    f.start_date = None;
    assert!(
        matches!(plan(&f), OrderPlan::Create(_)),
        "no start date orders"
    );
    f.active = false;
    assert_eq!(plan(&f), OrderPlan::Keep, "a deactivated person");
    f.active = true;
    f.status = PersonStatus::Offboarding;
    assert_eq!(plan(&f), OrderPlan::Keep, "an offboarding person");
}

#[test]
fn the_same_package_keeps_the_order() {
    let package = contents(&[("LAPTOP", 1)]);
    let order = allocated(created(plan(&facts(Some(&package), None))), 1, None);
    assert_eq!(plan(&facts(Some(&package), Some(&order))), OrderPlan::Keep);
    // Even after the start date passed.
    let mut f = facts(Some(&package), Some(&order));
    f.start_date = today().pred_opt();
    assert_eq!(plan(&f), OrderPlan::Keep);
}

#[test]
fn a_package_change_before_shipment_replaces_the_lines_and_releases_their_items() {
    let first = contents(&[("LAPTOP", 1), ("PHONE", 1)]);
    let order = allocated(created(plan(&facts(Some(&first), None))), 1, None);
    let held = order.lines[0].item_id.unwrap();
    let second = contents(&[("MONITOR", 2)]);
    let plan = plan(&facts(Some(&second), Some(&order)));
    assert_eq!(plan.to_allocate().len(), 2);
    let (after, released) = changed(plan);
    assert_eq!(released, vec![held]);
    assert_eq!(after.id, order.id, "the same order");
    assert_eq!(after.package_id, Some(second.package_id));
    let statuses: Vec<_> = after.lines.iter().map(|l| (l.position, l.status)).collect();
    assert_eq!(
        statuses,
        [
            (0, LineStatus::Cancelled),
            (1, LineStatus::Cancelled),
            (2, LineStatus::Backordered),
            (3, LineStatus::Backordered)
        ]
    );
    assert!(after.lines[0].item_id.is_none());
    assert_eq!(after.status, OrderStatus::Pending);
}

#[test]
fn losing_the_package_before_shipment_cancels_the_order() {
    let package = contents(&[("LAPTOP", 2)]);
    let order = allocated(created(plan(&facts(Some(&package), None))), 2, None);
    let (after, released) = changed(plan(&facts(None, Some(&order))));
    assert_eq!(released.len(), 2);
    assert_eq!(after.status, OrderStatus::Cancelled);
    // A package left without contents is the same.
    let empty = PackageContents {
        package_id: package.package_id,
        items: Vec::new(),
    };
    let (after, _) = changed(super::plan(&facts(Some(&empty), Some(&order))));
    assert_eq!(after.status, OrderStatus::Cancelled);
}

#[test]
fn after_a_shipment_a_package_change_leaves_the_order() {
    let package = contents(&[("LAPTOP", 1), ("PHONE", 1)]);
    let order = allocated(created(plan(&facts(Some(&package), None))), 2, Some(0));
    assert_eq!(order.status, OrderStatus::Shipped);
    let other = contents(&[("MONITOR", 1)]);
    assert_eq!(plan(&facts(Some(&other), Some(&order))), OrderPlan::Keep);
    assert_eq!(plan(&facts(None, Some(&order))), OrderPlan::Keep);
}

#[test]
fn offboarding_cancels_what_has_not_shipped_and_shipped_lines_go_on() {
    let package = contents(&[("LAPTOP", 1), ("PHONE", 1), ("MONITOR", 1)]);
    let order = allocated(created(plan(&facts(Some(&package), None))), 2, Some(0));
    let mut f = facts(Some(&package), Some(&order));
    f.status = PersonStatus::Offboarding;
    let (after, released) = changed(plan(&f));
    assert_eq!(released, vec![order.lines[1].item_id.unwrap()]);
    let statuses: Vec<_> = after.lines.iter().map(|l| l.status).collect();
    assert_eq!(
        statuses,
        [
            LineStatus::Shipped,
            LineStatus::Cancelled,
            LineStatus::Cancelled
        ]
    );
    assert_eq!(after.status, OrderStatus::Shipped);
    // Nothing left to cancel: nothing to write.
    let mut f = facts(Some(&package), Some(&after));
    f.status = PersonStatus::Offboarding;
    assert_eq!(plan(&f), OrderPlan::Keep);
    // A deactivated person is the same as an offboarding one.
    let mut f = facts(Some(&package), Some(&order));
    f.active = false;
    assert!(matches!(super::plan(&f), OrderPlan::Change { .. }));
}

#[test]
fn a_group_write_changes_the_orders_of_whom_its_package_reaches() {
    let (a, b) = (PersonId::new(), PersonId::new());
    let joining: BTreeSet<_> = [a].into();
    let leaving: BTreeSet<_> = [b].into();
    let kit = Some(PackageId::new());
    // No package before or after: nobody.
    assert_eq!(
        affected_by_group(Some((None, 1)), Some((None, 2)), &joining, &leaving),
        Affected::Nobody
    );
    // Members moving in and out of a group with a package.
    let both: BTreeSet<_> = [a, b].into();
    assert_eq!(
        affected_by_group(Some((kit, 1)), Some((kit, 1)), &joining, &leaving),
        Affected::These(both.clone())
    );
    // A new group and a deleted one reach their members.
    assert_eq!(
        affected_by_group(None, Some((kit, 1)), &joining, &BTreeSet::new()),
        Affected::These(joining.clone())
    );
    assert_eq!(
        affected_by_group(Some((kit, 1)), None, &BTreeSet::new(), &leaving),
        Affected::These(leaving.clone())
    );
    // The package or the precedence changed: every member.
    assert_eq!(
        affected_by_group(Some((kit, 1)), Some((None, 1)), &joining, &leaving),
        Affected::EveryMember(both.clone())
    );
    assert_eq!(
        affected_by_group(Some((kit, 1)), Some((kit, 0)), &joining, &leaving),
        Affected::EveryMember(both)
    );
}
