//! Shared by the storage suite's modules: the imports they use and the
//! builders of domain values (organizations, SKUs, warehouses, people, items,
//! levels) and of seeded stores.

pub use std::sync::{Arc, Barrier};

pub use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
pub use uuid::Uuid;

pub use equip_domain::api_key::{ApiKey, Scope, Scopes};
pub use equip_domain::catalog::{Package, Sku};
pub use equip_domain::ids::{
    ApiKeyId, InventoryItemId, InventoryLevelId, OfficeId, OrganizationId, PackageId, PersonId,
    RetrievalId, ReturnOrderId, ReturnOrderItemId, SkuId, TagId, WarehouseId,
};
pub use equip_domain::import::{ImportBatch, ImportError, ImportSummary};
pub use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployReason, DeployStatus, DeviceProgram,
    DeviceProgramStatus, InventoryItem, Price, RenewalDateUpdatedBy, Retrieval, RetrievalKind,
    RetrievalStatus, ReturnInfo, ReturnStatus, SuppliedBy, Tag,
};
pub use equip_domain::inventory_level::InventoryLevel;
pub use equip_domain::inventory_query::{InventoryQuery, RawInventoryQuery};
pub use equip_domain::location::{Office, Warehouse, WarehouseAddress, WarehouseOwner};
pub use equip_domain::organization::{Organization, OrganizationName};
pub use equip_domain::person::{Address, Email, Person, PersonStatus, PhoneNumber};
pub use equip_domain::ports::{
    ApiKeyRepository, CatalogRepository, HealthCheck, ImportRepository, InventoryLevelRepository,
    InventoryRepository, OrganizationRepository, PersonRepository, WarehouseGrants,
    WarehouseRepository,
};
pub use equip_domain::StoreError;
pub use equip_persistence::test_support::TestDatabase;
pub use equip_persistence::{Backend, Store};

/// A time with microsecond precision (what both backends store).
pub fn at(day: u32, micros: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, day, 9, 30, 0).unwrap() + Duration::microseconds(micros)
}

pub fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

pub fn new_org(store: &Store, name: &str) -> Organization {
    let org = Organization {
        id: OrganizationId::new(),
        name: OrganizationName::parse(name).unwrap(),
        created_at: at(1, 123_456),
    };
    store.insert_organization(&org).unwrap();
    org
}

pub fn sku(org: &Organization, title: &str) -> Sku {
    Sku {
        id: SkuId::new(),
        organization_id: org.id,
        title: title.into(),
        category_code: "LAPTOP".into(),
        category_name: "Laptops".into(),
        vendor_code: "APPLE".into(),
        vendor_name: "Apple".into(),
        vendor_sku: "MLY33".into(),
    }
}

pub fn owned_warehouse(org: &Organization, name: &str) -> Warehouse {
    Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Organization(org.id),
        name: name.into(),
        address: Some(WarehouseAddress {
            street1: Some("Hauptstraße 1".into()),
            street2: None,
            city: Some("Berlin".into()),
            province: Some("BE".into()),
            postal_code: Some("10115".into()),
            country_code: Some("DE".into()),
            phone_number: Some("+49 30 1234567".into()),
        }),
    }
}

pub fn shared_warehouse(name: &str) -> Warehouse {
    Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Shared,
        name: name.into(),
        address: None,
    }
}

pub fn person(org: &Organization, user_name: &str) -> Person {
    Person {
        id: PersonId::new(),
        organization_id: org.id,
        external_id: None,
        user_name: user_name.into(),
        given_name: Some("Ada".into()),
        family_name: Some("Lovelace".into()),
        display_name: None,
        emails: vec![Email {
            value: user_name.into(),
            kind: Some("work".into()),
            primary: true,
        }],
        phone_numbers: vec![],
        addresses: vec![],
        active: true,
        package_id: None,
        start_date: None,
        status: PersonStatus::Active,
        skip_user_activation: None,
        cpf_number: None,
        profile: Default::default(),
        created_at: at(2, 1),
        updated_at: at(2, 2),
        version: 1,
    }
}

/// A minimal AVAILABLE item in `warehouse`.
pub fn item(
    org: &Organization,
    sku: &Sku,
    warehouse: &Warehouse,
    created: DateTime<Utc>,
) -> InventoryItem {
    InventoryItem {
        id: InventoryItemId::new(),
        organization_id: org.id,
        sku_id: sku.id,
        serial_number: Some(format!("SN-{}", Uuid::new_v4().simple())),
        imei: vec![],
        deploy_status: DeployStatus::Available,
        deploy_reason: None,
        condition: Condition::New,
        renewal_date: None,
        renewal_date_updated_by: None,
        billing_start_date: None,
        billing_end_date: None,
        procurement_method: None,
        assignment: Some(Assignment {
            assignee: Assignee::new(AssigneeType::Warehouse, *warehouse.id.as_uuid()),
            assigned_at: None,
        }),
        tags: vec![],
        pricing: None,
        description: None,
        erp_invoice_id: None,
        hold_start_date: None,
        unlock_date: None,
        itad_requested: None,
        device_program: None,
        supplied_by: SuppliedBy::Organization,
        return_order: None,
        created_at: created,
        updated_at: created,
    }
}

pub fn level(
    org: &Organization,
    sku: &Sku,
    warehouse: &Warehouse,
    created: DateTime<Utc>,
) -> InventoryLevel {
    InventoryLevel {
        id: InventoryLevelId::new(),
        organization_id: org.id,
        sku_id: sku.id,
        warehouse_id: warehouse.id,
        minimum_quantity: 5,
        target_quantity: 20,
        created_at: created,
        deactivated_at: None,
    }
}

/// The organization's levels as the listing gives them, without their stock.
pub fn listed_levels(
    store: &Store,
    org: &Organization,
    include_inactive: bool,
) -> Vec<InventoryLevel> {
    store
        .list_inventory_levels(org.id, include_inactive)
        .unwrap()
        .into_iter()
        .map(|l| l.level)
        .collect()
}

/// Validates `batch` like the import use case, then writes it.
pub fn import(
    store: &Store,
    org: &Organization,
    batch: &ImportBatch,
) -> Result<ImportSummary, ImportError> {
    let external = batch.validate(org)?;
    store
        .import_batch(org.id, batch, &external, &mut |_| {})
        .expect("no backend failure")
}

/// An organization with one SKU and one owned warehouse, stored.
pub fn seeded(store: &Store, name: &str) -> (Organization, Sku, Warehouse) {
    let org = new_org(store, name);
    let s = sku(&org, "MacBook Air 13\"");
    let w = owned_warehouse(&org, "Berlin");
    import(
        store,
        &org,
        &ImportBatch {
            skus: vec![s.clone()],
            warehouses: vec![w.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    (org, s, w)
}

/// Waits up to 5 s for `done`.
pub fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "not within 5 s: {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}
