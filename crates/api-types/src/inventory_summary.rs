//! `GET /api/v1/inventory-summary` (docs/api.md, "The inventory at a
//! glance"): counts of the organization's items by status and category, and
//! the holds that end within a week.

use serde::Serialize;
use utoipa::ToSchema;

use equip_domain::inventory::DeployStatus;
use equip_domain::inventory_summary::{InventorySummary, StatusCount, HOLDS_ENDING_WITHIN_DAYS};

use crate::schema::one_of;

const _: () = assert!(HOLDS_ENDING_WITHIN_DAYS == 7, "holdsEndingWithin7Days");

fn statuses() -> utoipa::openapi::schema::Object {
    one_of(DeployStatus::ALL.iter().map(|s| s.as_str()))
}

/// The organization's items at a glance.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = InventorySummary)]
pub struct SummaryBody<'a> {
    /// One entry per status and category that has items, by status (in the
    /// order of `deployStatus`'s values) then category code.
    counts: Vec<CountBody<'a>>,
    /// Items whose retention hold ends (`unlockDate`) from today through 7
    /// days from today (UTC).
    #[serde(rename = "holdsEndingWithin7Days")]
    holds_ending_within_7_days: u64,
}

/// Items of one status and category.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = InventoryCount)]
pub struct CountBody<'a> {
    #[schema(schema_with = statuses)]
    deploy_status: &'static str,
    /// The category code of the items' SKU.
    category_code: &'a str,
    #[schema(minimum = 1)]
    count: u64,
}

impl<'a> From<&'a StatusCount> for CountBody<'a> {
    fn from(c: &'a StatusCount) -> Self {
        Self {
            deploy_status: c.deploy_status.as_str(),
            category_code: &c.category,
            count: c.count,
        }
    }
}

impl<'a> From<&'a InventorySummary> for SummaryBody<'a> {
    fn from(s: &'a InventorySummary) -> Self {
        Self {
            counts: s.counts.iter().map(CountBody::from).collect(),
            holds_ending_within_7_days: s.holds_ending_soon,
        }
    }
}
