//! The demo's inventory items: every status, obeying the domain rules (DEPLOYED
//! to a PERSON with no reason; UNAVAILABLE and ARCHIVED with a reason), with
//! return orders for offboarding people and returns in progress, holds, tags,
//! pricing and device programs.

use chrono::{DateTime, Duration, Months, NaiveDate, Utc};
use equip_domain::ids::{InventoryItemId, SkuId};
use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployReason, DeployStatus, DeviceProgram,
    DeviceProgramStatus, InventoryItem, Price, RenewalDateUpdatedBy, Retrieval, RetrievalKind,
    RetrievalStatus, ReturnInfo, ReturnStatus, SuppliedBy, Tag,
};

use super::data::{Kind, SkuSpec, DESCRIPTIONS, SKUS};
use super::prng::SplitMix64;
use super::{kind, Generator};

const STATUSES: &[(DeployStatus, u64)] = &[
    (DeployStatus::Deployed, 50),
    (DeployStatus::Available, 18),
    (DeployStatus::Unavailable, 10),
    (DeployStatus::AwaitingArrival, 6),
    (DeployStatus::OnHold, 5),
    (DeployStatus::Archived, 11),
];

const UNAVAILABLE_REASONS: &[(DeployReason, u64)] = &[
    (DeployReason::RequiresRepair, 25),
    (DeployReason::RequiresCleaning, 20),
    (DeployReason::AwaitingInformation, 10),
    (DeployReason::LockedMdm, 8),
    (DeployReason::LockedPin, 6),
    (DeployReason::LockedMakerActivation, 6),
    (DeployReason::SentToOffice, 10),
    (DeployReason::PendingFulfillment, 8),
    (DeployReason::DataHold, 7),
];

const ARCHIVED_REASONS: &[(DeployReason, u64)] = &[
    (DeployReason::EndOfUsefulLifeDestroyed, 20),
    (DeployReason::EndOfUsefulLifeDonated, 12),
    (DeployReason::RecyclingRequested, 10),
    (DeployReason::BoughtOut, 12),
    (DeployReason::GiftedByEmployer, 6),
    (DeployReason::Stolen, 6),
    (DeployReason::LostByWorker, 8),
    (DeployReason::LostInTransit, 5),
    (DeployReason::DecommissionedByEmployer, 10),
    (DeployReason::NeverReceivedByWorker, 3),
];

/// One SKU index, weighted by how common the product is.
fn pick_sku(rng: &mut SplitMix64) -> usize {
    let total: u64 = SKUS.iter().map(|s| s.weight).sum();
    let mut roll = rng.below(total);
    for (i, s) in SKUS.iter().enumerate() {
        if roll < s.weight {
            return i;
        }
        roll -= s.weight;
    }
    0
}

fn base36(mut n: u64, width: usize) -> String {
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut out = vec![b'0'; width];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(n % 36) as usize];
        n /= 36;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A serial number unique within the demo (the item index is part of it), in
/// the vendor's style; `None` for non-serialized accessories.
fn serial(rng: &mut SplitMix64, sku: &SkuSpec, index: usize) -> Option<String> {
    if sku.kind == Kind::Accessory {
        return None;
    }
    let random = rng.chars(b"ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 3);
    Some(format!(
        "{}{random}{}",
        sku.serial_prefix,
        base36(index as u64, 6)
    ))
}

/// A 15-digit IMEI with a valid Luhn check digit.
fn imei(rng: &mut SplitMix64, tac: &str) -> String {
    let body = format!("{tac}{}", rng.digits(6));
    let sum: u32 = body
        .chars()
        .rev()
        .filter_map(|c| c.to_digit(10))
        .enumerate()
        .map(|(i, d)| {
            if i % 2 == 0 {
                let x = d * 2;
                if x > 9 {
                    x - 9
                } else {
                    x
                }
            } else {
                d
            }
        })
        .sum();
    format!("{body}{}", (10 - sum % 10) % 10)
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn between_times(rng: &mut SplitMix64, from: DateTime<Utc>, to: DateTime<Utc>) -> DateTime<Utc> {
    let span = (to - from).num_seconds().max(0);
    from + Duration::seconds(rng.between(0, span))
}

/// A return order for the item `index`.
fn return_order(
    gen: &mut Generator,
    index: usize,
    status: ReturnStatus,
    created_at: DateTime<Utc>,
    retrieval: Option<(RetrievalStatus, &'static str)>,
) -> ReturnInfo {
    let ids = gen.ids;
    let now = gen.config.now;
    let rng = &mut gen.rng;
    let retrieval = retrieval.map(|(status, kind_name)| {
        let tracking = |rng: &mut SplitMix64| {
            format!("1Z{}", rng.chars(b"0123456789ABCDEFGHJKLMNPRSTUVWXYZ", 16))
        };
        let link = |code: &str| format!("https://tracking.example/{code}");
        let kind = match kind_name {
            "RETURN_KIT" => {
                let inbound = tracking(rng);
                let outbound = tracking(rng);
                RetrievalKind::ReturnKit {
                    inbound_tracking_link: Some(link(&inbound)),
                    inbound_tracking_code: Some(inbound),
                    outbound_tracking_link: Some(link(&outbound)),
                    outbound_tracking_code: Some(outbound),
                }
            }
            "INBOUND_LABEL" => {
                let inbound = tracking(rng);
                RetrievalKind::InboundLabel {
                    inbound_tracking_link: Some(link(&inbound)),
                    inbound_tracking_code: Some(inbound),
                }
            }
            _ => RetrievalKind::Physical,
        };
        Retrieval {
            id: ids.id(kind::RETRIEVAL, index as u64).into(),
            status,
            updated_at: (created_at + Duration::hours(rng.between(1, 72))).min(now),
            kind,
        }
    });
    ReturnInfo {
        id: ids.id(kind::RETURN_ORDER, index as u64).into(),
        status,
        created_at,
        return_order_item_id: ids.id(kind::RETURN_ITEM, index as u64).into(),
        return_order_item_status: status,
        retrieval,
    }
}

fn tags(rng: &mut SplitMix64, pool: &[Tag]) -> Vec<Tag> {
    if !rng.percent(25) {
        return Vec::new();
    }
    let first = rng.index(pool.len());
    let mut out = vec![pool[first].clone()];
    if rng.percent(30) {
        let second = (first + 1 + rng.index(pool.len() - 1)) % pool.len();
        out.push(pool[second].clone());
    }
    out
}

/// Item number `index` of the demo.
pub fn item(gen: &mut Generator, index: usize) -> InventoryItem {
    let now = gen.config.now;
    let today = gen.today;
    let sku_index = pick_sku(&mut gen.rng);
    let sku = &SKUS[sku_index];
    let status = gen.rng.weighted(STATUSES);
    let created_at = now
        - Duration::days(gen.rng.between(1, 1_460))
        - Duration::seconds(gen.rng.between(0, 86_399));
    let updated_at = between_times(&mut gen.rng, created_at, now);
    let warehouse = gen.warehouses[gen.rng.index(gen.warehouses.len())];
    let in_warehouse = Assignment {
        assignee: Assignee::new(AssigneeType::Warehouse, warehouse.id),
        assigned_at: Some(between_times(&mut gen.rng, created_at, updated_at)),
    };

    let mut country = warehouse.country;
    let mut deploy_reason = None;
    let mut assignment = Some(in_warehouse);
    let mut condition =
        *gen.rng
            .pick(&[Condition::New, Condition::UsedLikeNew, Condition::UsedGood]);
    let mut return_info = None;
    let (mut hold_start_date, mut unlock_date, mut itad_requested) = (None, None, None);
    match status {
        DeployStatus::Deployed => {
            let person = gen.people[gen.rng.index(gen.people.len())];
            country = person.country;
            assignment = Some(Assignment {
                assignee: Assignee::new(AssigneeType::Person, person.id),
                assigned_at: (!gen.rng.percent(10))
                    .then(|| between_times(&mut gen.rng, created_at, updated_at)),
            });
            if person.offboarding {
                let with_kit = gen.rng.percent(50);
                let opened = now - Duration::days(gen.rng.between(0, 6));
                return_info = Some(return_order(
                    gen,
                    index,
                    ReturnStatus::Pending,
                    opened,
                    with_kit.then_some((RetrievalStatus::Requested, "RETURN_KIT")),
                ));
            } else if gen.rng.percent(4) {
                let opened = now - Duration::days(gen.rng.between(2, 20));
                let (s, r) = *gen.rng.pick(&[
                    (ReturnStatus::ReturnKitSent, RetrievalStatus::Shipped),
                    (ReturnStatus::ReturnKitDelivered, RetrievalStatus::Delivered),
                    (ReturnStatus::Submitted, RetrievalStatus::Requested),
                ]);
                return_info = Some(return_order(gen, index, s, opened, Some((r, "RETURN_KIT"))));
            }
        }
        DeployStatus::Available => {}
        DeployStatus::Unavailable => {
            let reason = gen.rng.weighted(UNAVAILABLE_REASONS);
            deploy_reason = Some(reason);
            if reason == DeployReason::SentToOffice {
                assignment = Some(Assignment {
                    assignee: Assignee::new(
                        AssigneeType::Office,
                        gen.offices[gen.rng.index(gen.offices.len())],
                    ),
                    assigned_at: Some(between_times(&mut gen.rng, created_at, updated_at)),
                });
            }
            if matches!(
                reason,
                DeployReason::RequiresRepair | DeployReason::RequiresCleaning
            ) {
                condition =
                    *gen.rng
                        .pick(&[Condition::UsedFair, Condition::UsedPoor, Condition::Used]);
            }
        }
        DeployStatus::AwaitingArrival => match gen.rng.below(10) {
            0..=4 => {
                deploy_reason = Some(DeployReason::InTransit);
                condition = Condition::New;
            }
            5..=8 => {
                deploy_reason = Some(DeployReason::ReturnInProgress);
                condition = *gen.rng.pick(&[Condition::Used, Condition::UsedGood]);
                let opened = now - Duration::days(gen.rng.between(3, 25));
                let r = *gen.rng.pick(&[
                    RetrievalStatus::LabelCreated,
                    RetrievalStatus::Shipped,
                    RetrievalStatus::ArrivedAtProcessingFacility,
                ]);
                return_info = Some(return_order(
                    gen,
                    index,
                    ReturnStatus::Processing,
                    opened,
                    Some((r, "INBOUND_LABEL")),
                ));
            }
            _ => {}
        },
        DeployStatus::OnHold => {
            deploy_reason = Some(
                *gen.rng
                    .pick(&[DeployReason::PendingHoldRelease, DeployReason::DataHold]),
            );
            condition = *gen
                .rng
                .pick(&[Condition::Used, Condition::UsedGood, Condition::UsedFair]);
            // Held for at most 29 days of its 30, 60 or 90: not due yet, so
            // the first `serve` does not release it at once.
            let start = today - Duration::days(gen.rng.between(1, 29));
            hold_start_date = Some(start);
            unlock_date = Some(start + Duration::days(*gen.rng.pick(&[30, 60, 90])));
            itad_requested = Some(gen.rng.percent(35));
            let opened = start.and_time(chrono::NaiveTime::MIN).and_utc()
                - Duration::days(gen.rng.between(5, 20));
            let physical = gen.rng.percent(40);
            let retrieval = if physical {
                (RetrievalStatus::Processed, "PHYSICAL")
            } else {
                (RetrievalStatus::ArrivedAtProcessingFacility, "RETURN_KIT")
            };
            return_info = Some(return_order(
                gen,
                index,
                ReturnStatus::ReceivedInWarehouse,
                opened,
                Some(retrieval),
            ));
        }
        DeployStatus::Archived => {
            deploy_reason = Some(gen.rng.weighted(ARCHIVED_REASONS));
            condition = *gen
                .rng
                .pick(&[Condition::Unusable, Condition::UsedPoor, Condition::Used]);
            if gen.rng.percent(50) {
                assignment = None;
            }
        }
    }

    let rng = &mut gen.rng;
    let supplied_by = if rng.percent(60) {
        SuppliedBy::Operator
    } else {
        SuppliedBy::Organization
    };
    let rental_months = match supplied_by {
        SuppliedBy::Operator => *rng.pick(&[0u32, 24, 36, 36]),
        SuppliedBy::Organization => 0,
    };
    let procurement_method = match (supplied_by, rental_months) {
        (SuppliedBy::Operator, 0) => "Purchase".to_owned(),
        (SuppliedBy::Operator, m) => format!("Rental ({m} months)"),
        (SuppliedBy::Organization, _) => {
            (*rng.pick(&["Purchase", "Purchase", "Transferred from previous supplier"])).to_owned()
        }
    };
    let start: NaiveDate = created_at.date_naive();
    let billing = supplied_by == SuppliedBy::Operator;
    let billing_end = (billing && rental_months > 0)
        .then(|| start + Months::new(rental_months) - Duration::days(1));
    let erp_invoice_id = billing.then(|| format!("INV-{}-{}", start.format("%Y"), rng.digits(6)));
    let refreshable = matches!(sku.kind, Kind::Laptop | Kind::Phone);
    let (renewal_date, renewal_date_updated_by) = if status == DeployStatus::Archived {
        if rng.percent(30) {
            (None, Some(RenewalDateUpdatedBy::ClearManuallySet))
        } else {
            (None, None)
        }
    } else if refreshable {
        let by = rng.weighted(&[
            (RenewalDateUpdatedBy::OrganizationLevel, 6),
            (RenewalDateUpdatedBy::OrganizationCategoryLevel, 3),
            (RenewalDateUpdatedBy::ManuallyUpdated, 1),
        ]);
        (
            Some(start + Months::new(if sku.kind == Kind::Phone { 24 } else { 36 })),
            Some(by),
        )
    } else {
        (None, None)
    };
    let pricing = rng.percent(75).then(|| {
        let (region, currency, rate) = country.pricing();
        let price = round2(sku.price_usd * rate);
        let discount = *rng.pick(&[0.0, 0.0, 5.0, 10.0, 15.0, 20.0]);
        Price {
            region_code: region.to_owned(),
            price_option: match rental_months {
                0 => "PURCHASE".to_owned(),
                m => format!("RENTAL_{m}M"),
            },
            price,
            currency_code: currency.to_owned(),
            discounted_price: round2(price * (1.0 - discount / 100.0)),
            discount_percentage: discount,
        }
    });
    let serial_number = serial(rng, sku, index);
    let imei = match sku.kind {
        Kind::Phone => {
            let dual = sku.vendor_code == "SAMSUNG" && rng.percent(40);
            (0..if dual { 2 } else { 1 })
                .map(|_| imei(rng, sku.tac))
                .collect()
        }
        _ => Vec::new(),
    };
    let device_program = (sku.vendor_code == "APPLE" && serial_number.is_some()).then(|| {
        if rng.percent(85) {
            DeviceProgram {
                assignment_status: DeviceProgramStatus::Assigned,
                last_sync_timestamp: Some(now - Duration::minutes(rng.between(10, 24 * 60))),
                next_sync_timestamp: now + Duration::minutes(rng.between(10, 24 * 60)),
            }
        } else {
            DeviceProgram {
                assignment_status: DeviceProgramStatus::NotAssigned,
                last_sync_timestamp: None,
                next_sync_timestamp: now + Duration::days(1),
            }
        }
    });
    let description = rng
        .percent(12)
        .then(|| (*rng.pick(DESCRIPTIONS)).to_owned());
    let tags = tags(rng, &gen.tags);
    InventoryItem {
        id: InventoryItemId::from_uuid(gen.ids.id(kind::ITEM, index as u64)),
        organization_id: gen.config.organization,
        sku_id: SkuId::from_uuid(gen.skus[sku_index]),
        serial_number,
        imei,
        deploy_status: status,
        deploy_reason,
        condition,
        renewal_date,
        renewal_date_updated_by,
        billing_start_date: billing.then_some(start),
        billing_end_date: billing_end,
        procurement_method: Some(procurement_method),
        assignment,
        tags,
        pricing,
        description,
        erp_invoice_id,
        hold_start_date,
        unlock_date,
        itad_requested,
        device_program,
        supplied_by,
        return_order: return_info,
        created_at,
        updated_at,
    }
}
