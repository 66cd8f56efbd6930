//! A varied inventory for the listing tests: four SKUs in three categories,
//! items in every status, assigned to people, a warehouse and an office, with
//! shared creation times (to exercise the id tie-break), absent serials and
//! renewal dates, tags, pricing, device programs and return orders; and the
//! same data in the domain's in-memory store, which is the reference the SQL
//! listing is compared with.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use equip_domain::catalog::Sku;
use equip_domain::ids::*;
use equip_domain::import::ImportBatch;
use equip_domain::inventory::*;
use equip_domain::inventory_query::{InventoryQuery, RawInventoryQuery};
use equip_domain::location::{Office, Warehouse, WarehouseOwner};
use equip_domain::organization::{Organization, OrganizationName};
use equip_domain::person::{Email, Person, PersonStatus};
use equip_domain::ports::InventoryRepository;
use equip_domain::services::import::run_import;
use equip_domain::testing::InMemoryStore;
use equip_persistence::Store;

/// What was seeded for one organization.
pub struct Seeded {
    pub batch: ImportBatch,
    pub reference: InMemoryStore,
    pub people: Vec<Person>,
    pub warehouse: WarehouseId,
    pub office: OfficeId,
    pub skus: Vec<Sku>,
}

impl Seeded {
    /// Item ids the reference lists for a raw query (all pages).
    pub fn expected_ids(&self, org: OrganizationId, raw: RawInventoryQuery) -> Vec<String> {
        let mut raw = raw;
        raw.page = Some("1".into());
        raw.size = Some("1000".into());
        let q = InventoryQuery::parse(&raw).unwrap();
        let page = self.reference.list_inventory(org, &q).unwrap();
        page.items.iter().map(|v| v.id.to_string()).collect()
    }
}

fn at(minutes: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 5, 9, 0, 0).unwrap() + Duration::minutes(minutes)
}

fn person(org: OrganizationId, email: &str, given: &str) -> Person {
    Person {
        id: PersonId::new(),
        organization_id: org,
        external_id: None,
        user_name: email.into(),
        given_name: Some(given.into()),
        family_name: Some("Tester".into()),
        display_name: None,
        emails: vec![
            Email {
                value: email.into(),
                kind: Some("work".into()),
                primary: true,
            },
            Email {
                value: format!("private.{email}"),
                kind: Some("home".into()),
                primary: false,
            },
        ],
        phone_numbers: vec![],
        addresses: vec![],
        active: true,
        package_id: None,
        start_date: None,
        status: PersonStatus::Active,
        skip_user_activation: None,
        cpf_number: None,
        profile: Default::default(),
        created_at: at(0),
        updated_at: at(0),
        version: 1,
    }
}

fn sku(
    org: OrganizationId,
    title: &str,
    cat: (&str, &str),
    vendor: (&str, &str),
    vendor_sku: &str,
) -> Sku {
    Sku {
        id: SkuId::new(),
        organization_id: org,
        title: title.into(),
        category_code: cat.0.into(),
        category_name: cat.1.into(),
        vendor_code: vendor.0.into(),
        vendor_name: vendor.1.into(),
        vendor_sku: vendor_sku.into(),
    }
}

/// `n` items for `org` (plus its people, SKUs, a warehouse and an office),
/// imported into `store` and into an in-memory reference.
pub fn seed(store: &Store, org: &Organization, n: usize) -> Seeded {
    let o = org.id;
    let skus = vec![
        sku(
            o,
            "MacBook Pro 14",
            ("LAPTOP", "Laptops"),
            ("APPLE", "Apple"),
            "MRX33",
        ),
        sku(
            o,
            "ThinkPad X1 Carbon",
            ("LAPTOP", "Laptops"),
            ("LENOVO", "Lenovo"),
            "21HM",
        ),
        sku(
            o,
            "iPhone 15",
            ("PHONE", "Mobile phones"),
            ("APPLE", "Apple"),
            "MTP03",
        ),
        sku(
            o,
            "UltraSharp U2723QE",
            ("MONITOR", "Monitors"),
            ("DELL", "Dell"),
            "U2723QE",
        ),
    ];
    let people = vec![
        person(o, "ada@example.com", "Ada"),
        person(o, "Grace.Hopper@Example.com", "Grace"),
        person(o, "linus@example.com", "Linus"),
    ];
    let warehouse = Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Organization(o),
        name: "Berlin Central".into(),
        address: None,
    };
    let office = Office {
        id: OfficeId::new(),
        organization_id: o,
        name: "Lisbon Office".into(),
    };
    let statuses = [
        DeployStatus::Deployed,
        DeployStatus::Available,
        DeployStatus::Unavailable,
        DeployStatus::AwaitingArrival,
        DeployStatus::Archived,
        DeployStatus::OnHold,
    ];
    let mut items = Vec::with_capacity(n);
    for i in 0..n {
        let status = statuses[i % statuses.len()];
        let (assignment, reason) = match status {
            DeployStatus::Deployed => (
                Some(Assignment {
                    assignee: Assignee::new(
                        AssigneeType::Person,
                        *people[i % people.len()].id.as_uuid(),
                    ),
                    assigned_at: if i % 4 == 0 {
                        None
                    } else {
                        Some(at(i as i64 + 5))
                    },
                }),
                None,
            ),
            DeployStatus::Available => (
                Some(Assignment {
                    assignee: Assignee::new(AssigneeType::Warehouse, *warehouse.id.as_uuid()),
                    assigned_at: None,
                }),
                None,
            ),
            DeployStatus::Unavailable => (
                Some(Assignment {
                    assignee: Assignee::new(AssigneeType::Warehouse, *warehouse.id.as_uuid()),
                    assigned_at: None,
                }),
                Some(DeployReason::RequiresRepair),
            ),
            DeployStatus::OnHold => (
                Some(Assignment {
                    assignee: Assignee::new(AssigneeType::Office, *office.id.as_uuid()),
                    assigned_at: None,
                }),
                Some(DeployReason::DataHold),
            ),
            DeployStatus::Archived => (None, Some(DeployReason::EndOfUsefulLifeDestroyed)),
            DeployStatus::AwaitingArrival => {
                (None, Some(DeployReason::InTransit).filter(|_| i % 2 == 0))
            }
        };
        let s = &skus[(i * 7 / 3) % skus.len()];
        let created = at((i / 3) as i64); // three items share each creation time
        items.push(InventoryItem {
            id: InventoryItemId::new(),
            organization_id: o,
            sku_id: s.id,
            serial_number: if i % 7 == 3 {
                None
            } else {
                Some(format!(
                    "SN-{:04}-{}",
                    (i * 37) % 1000,
                    ["X", "Y", "Z"][i % 3]
                ))
            },
            imei: if s.category_code == "PHONE" {
                vec![format!("3566{:011}", i)]
            } else {
                vec![]
            },
            deploy_status: status,
            deploy_reason: reason,
            condition: Condition::ALL[i % Condition::ALL.len()],
            renewal_date: if i % 5 == 0 {
                None
            } else {
                NaiveDate::from_ymd_opt(2027, 1 + (i % 12) as u32, 1 + (i % 27) as u32)
            },
            renewal_date_updated_by: if i % 5 == 0 {
                None
            } else {
                Some(RenewalDateUpdatedBy::OrganizationLevel)
            },
            billing_start_date: NaiveDate::from_ymd_opt(2025, 6, 1),
            billing_end_date: None,
            procurement_method: Some("Purchase".into()),
            assignment,
            tags: if i % 4 == 1 {
                vec![
                    Tag {
                        id: TagId::new(),
                        label: "loaner".into(),
                    },
                    Tag {
                        id: TagId::new(),
                        label: "vip".into(),
                    },
                ]
            } else {
                vec![]
            },
            pricing: (i % 3 == 0).then(|| Price {
                region_code: "EU".into(),
                price_option: "PURCHASE".into(),
                price: 1999.0,
                currency_code: "EUR".into(),
                discounted_price: 1799.1,
                discount_percentage: 10.0,
            }),
            description: match i % 4 {
                0 => Some(format!("Loaner pool device {i}")),
                1 => Some("Spare for the DESIGN team".into()),
                _ => None,
            },
            erp_invoice_id: (i % 6 == 0).then(|| format!("INV-{i}")),
            hold_start_date: None,
            unlock_date: None,
            itad_requested: None,
            device_program: (s.vendor_code == "APPLE" && i % 2 == 0).then(|| DeviceProgram {
                assignment_status: DeviceProgramStatus::Assigned,
                last_sync_timestamp: None,
                next_sync_timestamp: at(10_000),
            }),
            supplied_by: if i % 2 == 0 {
                SuppliedBy::Organization
            } else {
                SuppliedBy::Operator
            },
            return_order: None,
            created_at: created,
            updated_at: created + Duration::hours(((i * 7) % 50) as i64),
        });
    }
    let batch = ImportBatch {
        warehouses: vec![warehouse.clone()],
        offices: vec![office.clone()],
        skus: skus.clone(),
        people: people.clone(),
        inventory: items,
        ..ImportBatch::default()
    };
    run_import(store, o, &batch, &mut |_| {}).unwrap();
    let reference = InMemoryStore::default();
    reference.state().organizations.push(org.clone());
    run_import(&reference, o, &batch, &mut |_| {}).unwrap();
    Seeded {
        batch,
        reference,
        people,
        warehouse: warehouse.id,
        office: office.id,
        skus,
    }
}

/// An organization value for the reference store.
pub fn organization(id: OrganizationId) -> Organization {
    Organization {
        id,
        name: OrganizationName::parse("Org").unwrap(),
        created_at: at(0),
    }
}
