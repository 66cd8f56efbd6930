//! The item JSON that `GET /api/v1/inventory/{id}` returns (the wire item
//! renderer, `equip_api_types::item`) read back as an inventory entry of the import
//! document (`equip_api_types::import_item`) yields the same item.
//!
//! What legitimately differs, and is therefore set alike or not compared:
//! - `organization_id`: not in the JSON; the import takes it from the command
//!   line (here: the item's own);
//! - the SKU-derived members (`skuTitle`, `categoryCode`, `categoryNameOfSku`,
//!   `vendorCode`, `vendorSku`) and `assignedTo.label`: not part of the item,
//!   derived when read; the import accepts and ignores them.
//!
//! Every other field of the item must come back equal.

#![allow(clippy::unwrap_used)] // test-data construction: a bad constant is a bug of the test

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use proptest::option::of as opt;
use proptest::prelude::*;
use uuid::Uuid;

use equip_api_types::import_entry::Entry;
use equip_api_types::import_item::{inventory_item, WireItem};
use equip_api_types::item::{render, FIELDS};
use equip_domain::catalog::Sku;
use equip_domain::ids::{
    InventoryItemId, OrganizationId, RetrievalId, ReturnOrderId, ReturnOrderItemId, SkuId, TagId,
};
use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployReason, DeployStatus, DeviceProgram,
    DeviceProgramStatus, InventoryItem, Price, RenewalDateUpdatedBy, Retrieval, RetrievalKind,
    RetrievalStatus, ReturnInfo, ReturnStatus, SuppliedBy, Tag,
};
use equip_domain::inventory_query::InventoryItemView;

fn one_of<T: Copy + std::fmt::Debug + 'static>(all: &'static [T]) -> impl Strategy<Value = T> {
    proptest::sample::select(all)
}

fn uuid() -> impl Strategy<Value = Uuid> {
    any::<u128>().prop_map(Uuid::from_u128)
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

fn date() -> impl Strategy<Value = NaiveDate> {
    (0i64..60_000)
        .prop_map(|d| NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + chrono::Duration::days(d))
}

/// A time from 1970 to about 2100, with any sub-second part (the JSON keeps
/// as many digits as it needs).
fn time() -> impl Strategy<Value = DateTime<Utc>> {
    (0i64..4_102_444_800, 0u32..1_000_000_000)
        .prop_map(|(s, n)| Utc.timestamp_opt(s, n).single().unwrap())
}

/// Money as the API carries it: whole cents.
fn money() -> impl Strategy<Value = f64> {
    (0i64..100_000_000).prop_map(|c| c as f64 / 100.0)
}

fn assignment() -> impl Strategy<Value = Assignment> {
    (one_of(AssigneeType::ALL), uuid(), opt(time())).prop_map(|(kind, id, assigned_at)| {
        Assignment {
            assignee: Assignee::new(kind, id),
            assigned_at,
        }
    })
}

fn price() -> impl Strategy<Value = Price> {
    (text(), text(), money(), text(), money(), (0i64..10_000)).prop_map(
        |(region_code, price_option, price, currency_code, discounted_price, pct)| Price {
            region_code,
            price_option,
            price,
            currency_code,
            discounted_price,
            discount_percentage: pct as f64 / 100.0,
        },
    )
}

fn device_program() -> impl Strategy<Value = DeviceProgram> {
    (one_of(DeviceProgramStatus::ALL), opt(time()), time()).prop_map(
        |(assignment_status, last_sync_timestamp, next_sync_timestamp)| DeviceProgram {
            assignment_status,
            last_sync_timestamp,
            next_sync_timestamp,
        },
    )
}

fn retrieval_kind() -> impl Strategy<Value = RetrievalKind> {
    prop_oneof![
        (opt(text()), opt(text()), opt(text()), opt(text())).prop_map(|(a, b, c, d)| {
            RetrievalKind::ReturnKit {
                inbound_tracking_code: a,
                inbound_tracking_link: b,
                outbound_tracking_code: c,
                outbound_tracking_link: d,
            }
        }),
        (opt(text()), opt(text())).prop_map(|(a, b)| RetrievalKind::InboundLabel {
            inbound_tracking_code: a,
            inbound_tracking_link: b,
        }),
        Just(RetrievalKind::Physical),
    ]
}

fn return_info() -> impl Strategy<Value = ReturnInfo> {
    let retrieval = (
        uuid(),
        one_of(RetrievalStatus::ALL),
        time(),
        retrieval_kind(),
    )
        .prop_map(|(id, status, updated_at, kind)| Retrieval {
            id: RetrievalId::from_uuid(id),
            status,
            updated_at,
            kind,
        });
    (
        uuid(),
        one_of(ReturnStatus::ALL),
        time(),
        uuid(),
        one_of(ReturnStatus::ALL),
        opt(retrieval),
    )
        .prop_map(
            |(id, status, created_at, item_id, item_status, retrieval)| ReturnInfo {
                id: ReturnOrderId::from_uuid(id),
                status,
                created_at,
                return_order_item_id: ReturnOrderItemId::from_uuid(item_id),
                return_order_item_status: item_status,
                retrieval,
            },
        )
}

fn item() -> impl Strategy<Value = InventoryItem> {
    let identity = (
        uuid(),
        uuid(),
        uuid(),
        opt(text()),
        proptest::collection::vec(text(), 0..3),
    );
    let state = (
        one_of(DeployStatus::ALL),
        opt(one_of(DeployReason::ALL)),
        one_of(Condition::ALL),
        opt(date()),
        opt(one_of(RenewalDateUpdatedBy::ALL)),
        opt(date()),
        opt(date()),
        opt(text()),
    );
    let rest = (
        opt(assignment()),
        proptest::collection::vec((uuid(), text()), 0..3),
        opt(price()),
        opt(text()),
        opt(text()),
        (opt(date()), opt(date()), opt(any::<bool>())),
        opt(device_program()),
        one_of(SuppliedBy::ALL),
        opt(return_info()),
        (time(), time()),
    );
    (identity, state, rest).prop_map(
        |(
            (id, org, sku, serial_number, imei),
            (
                status,
                reason,
                condition,
                renewal,
                renewal_by,
                billing_start,
                billing_end,
                procurement,
            ),
            (
                assignment,
                tags,
                pricing,
                description,
                erp_invoice_id,
                (hold_start_date, unlock_date, itad_requested),
                device_program,
                supplied_by,
                return_order,
                (created_at, updated_at),
            ),
        )| InventoryItem {
            id: InventoryItemId::from_uuid(id),
            organization_id: OrganizationId::from_uuid(org),
            sku_id: SkuId::from_uuid(sku),
            serial_number,
            imei,
            deploy_status: status,
            deploy_reason: reason,
            condition,
            renewal_date: renewal,
            renewal_date_updated_by: renewal_by,
            billing_start_date: billing_start,
            billing_end_date: billing_end,
            procurement_method: procurement,
            assignment,
            tags: tags
                .into_iter()
                .map(|(id, label)| Tag {
                    id: TagId::from_uuid(id),
                    label,
                })
                .collect(),
            pricing,
            description,
            erp_invoice_id,
            hold_start_date,
            unlock_date,
            itad_requested,
            device_program,
            supplied_by,
            return_order,
            created_at,
            updated_at,
        },
    )
}

fn view(item: InventoryItem, label: Option<String>) -> InventoryItemView {
    InventoryItemView {
        sku: Sku {
            id: item.sku_id,
            organization_id: item.organization_id,
            title: "MacBook Pro 14".into(),
            category_code: "laptop".into(),
            category_name: "Laptop".into(),
            vendor_code: "apple".into(),
            vendor_name: "Apple".into(),
            vendor_sku: "MKGR3".into(),
        },
        item,
        assignee_label: label,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_item_get_returns_imports_as_the_same_item(
        item in item(),
        label in opt(text()),
    ) {
        let view = view(item, label);
        let json = render(&view).unwrap();

        // The JSON holds exactly the members the wire module names.
        let object: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&json).unwrap();
        let mut members: Vec<&str> = object.keys().map(String::as_str).collect();
        let mut named = FIELDS.to_vec();
        members.sort_unstable();
        named.sort_unstable();
        prop_assert_eq!(members, named);

        let wire: WireItem = serde_json::from_str(&json).unwrap();
        // `now` stands in for absent timestamps; none is absent here, so a
        // time no item has shows if one were taken.
        let now = Utc.timestamp_opt(0, 1).single().unwrap();
        let back = inventory_item(
            &Entry::new("inventory", 0),
            wire,
            view.item.organization_id,
            now,
        );
        prop_assert_eq!(back.as_ref(), Ok(&view.item), "{}", json);
    }
}
