//! The query parameters of the inventory listing (`GET /api/v1/inventory`
//! and its alias `/api/inventory`; docs/api.md, "Listing inventory"):
//! [`InventoryListParams`], one field per parameter, whose doc comments and
//! `#[param]` facts are the OpenAPI document's parameters, read from the
//! query string by [`from_query`] (the route and the fuzz target both) and
//! handed to the domain as its [`RawInventoryQuery`], which
//! `InventoryQuery::parse` validates (its messages name the parameter).
//!
//! A new parameter is a field here and its line in the `From` below, then its
//! raw field, validation and filter in `equip_domain::inventory_query`, and
//! its SQL in the database store (docs/architecture.md, "Adding a listing
//! filter").

use serde::Deserialize;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{IntoParams, PartialSchema, ToSchema};

use equip_domain::inventory::DeployStatus;
use equip_domain::inventory_query::{
    RawInventoryQuery, SortDirection, SortKey, DEFAULT_PAGE_SIZE, FIRST_PAGE, MAX_LIST_VALUES,
    MAX_PAGE, MAX_PAGE_SIZE, MAX_SEARCH_CHARS, VOIDED,
};

use crate::query::QueryError;
use crate::schema::{names, one_of, NOT_BLANK};

/// The listing's parameters as the query string gives them: texts, validated
/// by the domain. A list parameter may repeat and each value may hold several,
/// separated by commas.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct InventoryListParams {
    /// 1-based page number.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 10000000, default = 1)]
    page: Option<String>,
    /// Items per page.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 1000, default = 100)]
    size: Option<String>,
    /// Items assigned to this person (404 when not in the organization). Not with assignedEmail.
    #[param(value_type = Option<uuid::Uuid>)]
    person_id: Option<String>,
    /// Items assigned to this warehouse (404 when not accessible).
    #[param(value_type = Option<uuid::Uuid>)]
    warehouse_id: Option<String>,
    /// Items assigned to this office (404 when not in the organization).
    #[param(value_type = Option<uuid::Uuid>)]
    office_id: Option<String>,
    /// Category codes (case-insensitive). Repeat the parameter or separate values with commas; at most 500 values, none empty.
    #[serde(default)]
    #[param(value_type = Vec<NotBlank>, inline, style = Form, explode, max_items = 500)]
    categories: Vec<String>,
    /// Deploy statuses (case-insensitive). Repeat the parameter or separate values with commas; at most 500 values, none empty.
    #[serde(default)]
    #[param(value_type = Vec<DeployStatusFilter>, inline, style = Form, explode, max_items = 500)]
    deploy_statuses: Vec<String>,
    /// SKU ids. Repeat the parameter or separate values with commas; at most 500 values, none empty.
    #[serde(default)]
    #[param(value_type = Vec<uuid::Uuid>, style = Form, explode, max_items = 500)]
    sku_ids: Vec<String>,
    /// Case-insensitive substring of description, vendor name, category code and name, SKU title and serial number.
    #[param(max_length = 200)]
    search_string: Option<String>,
    /// Items updated at or after this UTC time, YYYY-MM-DDTHH:MM:SS[.fff] (a trailing Z is tolerated). Not after updatedAtTo.
    #[param(value_type = Option<UtcTime>, inline)]
    updated_at_from: Option<String>,
    /// Items updated at or before this UTC time, same form as updatedAtFrom.
    #[param(value_type = Option<UtcTime>, inline)]
    updated_at_to: Option<String>,
    /// Items assigned to the person with this email (primary or secondary, case-insensitive). Not with personId.
    assigned_email: Option<String>,
    /// Serial numbers (case-insensitive). Repeat the parameter or separate values with commas; at most 500 values, none empty.
    #[serde(default, rename = "serialNumber")]
    #[param(value_type = Vec<NotBlank>, inline, style = Form, explode, max_items = 500)]
    serial_numbers: Vec<String>,
    /// Vendor SKUs (case-insensitive). Repeat the parameter or separate values with commas; at most 500 values, none empty.
    #[serde(default, rename = "vendorSku")]
    #[param(value_type = Vec<NotBlank>, inline, style = Form, explode, max_items = 500)]
    vendor_skus: Vec<String>,
    /// Sort key (case-insensitive).
    #[param(value_type = Option<SortByName>, inline)]
    sort_by: Option<String>,
    /// ASC or DESC (case-insensitive); ASC when sortBy is given alone.
    #[param(value_type = Option<SortDirectionName>, inline)]
    sort_direction: Option<String>,
}

// The `#[param]` facts above are literals (utoipa takes no constant there).
const _: () = assert!(FIRST_PAGE == 1 && MAX_PAGE == 10_000_000, "page");
const _: () = assert!(MAX_PAGE_SIZE == 1000 && DEFAULT_PAGE_SIZE == 100, "size");
const _: () = assert!(
    MAX_LIST_VALUES == 500,
    "list parameters: maxItems and descriptions"
);
const _: () = assert!(MAX_SEARCH_CHARS == 200, "searchString");

impl From<InventoryListParams> for RawInventoryQuery {
    fn from(p: InventoryListParams) -> Self {
        Self {
            page: p.page,
            size: p.size,
            person_id: p.person_id,
            warehouse_id: p.warehouse_id,
            office_id: p.office_id,
            categories: p.categories,
            deploy_statuses: p.deploy_statuses,
            sku_ids: p.sku_ids,
            search_string: p.search_string,
            updated_at_from: p.updated_at_from,
            updated_at_to: p.updated_at_to,
            assigned_email: p.assigned_email,
            serial_numbers: p.serial_numbers,
            vendor_skus: p.vendor_skus,
            sort_by: p.sort_by,
            sort_direction: p.sort_direction,
        }
    }
}

/// Reads the listing's query string (without the `?`).
///
/// # Errors
/// [`QueryError`] naming the parameter: an unknown name, a single-valued
/// parameter given twice, a NUL character, or a malformed query string.
pub fn from_query(query: &str) -> Result<RawInventoryQuery, QueryError> {
    crate::query::read::<InventoryListParams>(query).map(RawInventoryQuery::from)
}

/// `updatedAtFrom` / `updatedAtTo`: a real calendar date (leap years included)
/// and time, `YYYY-MM-DDTHH:MM:SS[.f…]`, optionally `Z`.
pub const UTC_TIME_PATTERN: &str = concat!(
    r"^(?:\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8]))",
    r"|(?:\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)",
    r"T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?[Zz]?$",
);

/// The schema of a UTC time parameter (a string matching [`UTC_TIME_PATTERN`]).
struct UtcTime;

impl PartialSchema for UtcTime {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(UTC_TIME_PATTERN))
            .into()
    }
}

impl ToSchema for UtcTime {}

/// The schema of a text with something other than white space.
struct NotBlank;

impl PartialSchema for NotBlank {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(NOT_BLANK))
            .into()
    }
}

impl ToSchema for NotBlank {}

/// The deploy statuses a filter may name: every status, and VOIDED (which
/// no item has).
struct DeployStatusFilter;

impl PartialSchema for DeployStatusFilter {
    fn schema() -> RefOr<Schema> {
        one_of(names!(DeployStatus).chain([VOIDED])).into()
    }
}

impl ToSchema for DeployStatusFilter {}

/// The listing's sort keys.
struct SortByName;

impl PartialSchema for SortByName {
    fn schema() -> RefOr<Schema> {
        one_of(names!(SortKey)).into()
    }
}

impl ToSchema for SortByName {}

/// The sort directions.
struct SortDirectionName;

impl PartialSchema for SortDirectionName {
    fn schema() -> RefOr<Schema> {
        one_of(names!(SortDirection)).into()
    }
}

impl ToSchema for SortDirectionName {}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
