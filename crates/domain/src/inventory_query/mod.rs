//! The inventory listing's query: raw parameters in, a validated
//! [`InventoryQuery`] out, or a [`DomainError::Invalid`] naming the parameter.
//! The database store translates the validated query into SQL; what each
//! filter means for one item is [`InventoryFilter::matches`], which the
//! in-memory store applies and the SQL is tested against.
//!
//! About 600 lines: the raw query, the validated one, `parse` between them and
//! the filters' meaning change together whenever a parameter is added.

use std::num::NonZeroU32;

use chrono::NaiveDateTime;

use crate::catalog::Sku;
use crate::error::DomainError;
use crate::ids::{InvalidId, InventoryItemId, OfficeId, PersonId, SkuId, WarehouseId};
use crate::inventory::{Assignee, DeployStatus, InventoryItem};

/// The first page, and the page when none is asked for.
pub const FIRST_PAGE: u32 = 1;
/// The deploy status a filter may name that no item has (deprecated).
pub const VOIDED: &str = "VOIDED";
/// Default page size.
pub const DEFAULT_PAGE_SIZE: u32 = 100;
/// Largest page size.
pub const MAX_PAGE_SIZE: u32 = 1000;
/// Largest page number accepted (beyond it no organization has items).
pub const MAX_PAGE: u32 = 10_000_000;
/// Longest `searchString`, in characters.
pub const MAX_SEARCH_CHARS: usize = 200;
/// Most values in one list parameter.
pub const MAX_LIST_VALUES: usize = 500;
/// Deploy statuses the listing filter names but refuses (400): deprecated.
pub const DEPRECATED_DEPLOY_STATUSES: [&str; 3] = ["GIFTED", "LOCKED", "OUT_FOR_REPAIR"];

/// The listing's parameters as they arrive, as texts (a list parameter may
/// have been repeated, and each of its values may hold several separated by
/// commas). The web layer reads them from the query string by their wire
/// names (`equip_api_types::inventory_query`); [`InventoryQuery::parse`]
/// validates them, naming a bad one by its wire name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawInventoryQuery {
    /// `page`.
    pub page: Option<String>,
    /// `size`.
    pub size: Option<String>,
    /// `personId`.
    pub person_id: Option<String>,
    /// `warehouseId`.
    pub warehouse_id: Option<String>,
    /// `officeId`.
    pub office_id: Option<String>,
    /// `categories`.
    pub categories: Vec<String>,
    /// `deployStatuses`.
    pub deploy_statuses: Vec<String>,
    /// `skuIds`.
    pub sku_ids: Vec<String>,
    /// `searchString`.
    pub search_string: Option<String>,
    /// `updatedAtFrom`.
    pub updated_at_from: Option<String>,
    /// `updatedAtTo`.
    pub updated_at_to: Option<String>,
    /// `assignedEmail`.
    pub assigned_email: Option<String>,
    /// `serialNumber`.
    pub serial_numbers: Vec<String>,
    /// `vendorSku`.
    pub vendor_skus: Vec<String>,
    /// `sortBy`.
    pub sort_by: Option<String>,
    /// `sortDirection`.
    pub sort_direction: Option<String>,
}

wire_enum! {
    /// The twelve sort keys of the listing.
    SortKey, field = "sortBy" {
        /// SKU title.
        Product => "product",
        /// SKU id.
        SkuId => "skuId",
        /// Creation time (the default).
        CreatedAt => "createdAt",
        /// Last change.
        UpdatedAt => "updatedAt",
        /// Serial number.
        SerialNumber => "serialNumber",
        /// Deploy status (by name).
        DeployStatus => "deployStatus",
        /// Deploy reason (by name).
        DeployReason => "deployReason",
        /// Assignee label (email or name).
        Assignee => "assignee",
        /// Condition, from NEW to UNUSABLE.
        Condition => "condition",
        /// Renewal date.
        RenewalDate => "renewalDate",
        /// Category code.
        Category => "category",
        /// Who supplied the item.
        SuppliedBy => "suppliedBy",
    }
}

wire_enum! {
    /// Sort direction.
    SortDirection, field = "sortDirection" {
        /// Ascending.
        Asc => "ASC",
        /// Descending.
        Desc => "DESC",
    }
}

/// Whom the items must be assigned to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssigneeFilter {
    /// A person, by id.
    Person(PersonId),
    /// A person, by email (case-insensitive, lowercased here).
    Email(String),
}

/// The validated filters. Every present filter must hold (AND); list filters
/// hold when any of their values matches (OR).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InventoryFilter {
    /// Assigned to this person.
    pub person: Option<AssigneeFilter>,
    /// Assigned to this warehouse.
    pub warehouse_id: Option<WarehouseId>,
    /// Assigned to this office.
    pub office_id: Option<OfficeId>,
    /// Category codes, lowercased.
    pub categories: Vec<String>,
    /// Deploy statuses.
    pub deploy_statuses: Vec<DeployStatus>,
    /// True when `deployStatuses` named only statuses no item has (VOIDED): the
    /// result is empty.
    pub matches_nothing: bool,
    /// SKU ids.
    pub sku_ids: Vec<SkuId>,
    /// Case-insensitive substring, lowercased.
    pub search: Option<String>,
    /// Updated at or after (UTC).
    pub updated_from: Option<NaiveDateTime>,
    /// Updated at or before (UTC).
    pub updated_to: Option<NaiveDateTime>,
    /// Serial numbers, lowercased.
    pub serial_numbers: Vec<String>,
    /// Vendor SKUs, lowercased.
    pub vendor_skus: Vec<String>,
}

impl InventoryFilter {
    /// Whether only `deployStatuses` and `categories` (or nothing) filter: the
    /// total can then come from the maintained `inventory_counts`, which hold
    /// one count per organization, status and category and nothing else.
    ///
    /// Every field is named (no `..`): a new filter does not compile until
    /// it is decided here whether those counts can answer it (almost always
    /// not: a wrong total otherwise).
    #[must_use]
    pub fn is_countable_by_status_and_category(&self) -> bool {
        let Self {
            // Kept per status and category in the counts.
            categories: _,
            deploy_statuses: _,
            // Decided before counting (an empty page).
            matches_nothing: _,
            // Not in the counts.
            person,
            warehouse_id,
            office_id,
            sku_ids,
            search,
            updated_from,
            updated_to,
            serial_numbers,
            vendor_skus,
        } = self;
        person.is_none()
            && warehouse_id.is_none()
            && office_id.is_none()
            && sku_ids.is_empty()
            && search.is_none()
            && updated_from.is_none()
            && updated_to.is_none()
            && serial_numbers.is_empty()
            && vendor_skus.is_empty()
    }
}

impl InventoryFilter {
    /// Whether `v` passes every filter: the filters' meaning, which the
    /// in-memory store applies and the database store's SQL is tested against
    /// (the listing's property tests). `holder_has_email(person, email)` says
    /// whether the person has that email (lowercased as
    /// [`crate::text::identifier_key`] keys it) as primary or secondary.
    ///
    /// Every field is named, so that a new filter does not compile until it
    /// is given its meaning here too.
    pub fn matches(
        &self,
        v: &InventoryItemView,
        holder_has_email: impl Fn(PersonId, &str) -> bool,
    ) -> bool {
        let Self {
            person,
            warehouse_id,
            office_id,
            categories,
            deploy_statuses,
            matches_nothing,
            sku_ids,
            search,
            updated_from,
            updated_to,
            serial_numbers,
            vendor_skus,
        } = self;
        let i = &v.item;
        let holder = i.assignment.map(|a| a.assignee);
        let lower = |o: &Option<String>| o.as_deref().unwrap_or("").to_lowercase();
        let person_ok = match person {
            None => true,
            Some(AssigneeFilter::Person(id)) => holder == Some(Assignee::Person(*id)),
            Some(AssigneeFilter::Email(email)) => {
                matches!(holder, Some(Assignee::Person(id)) if holder_has_email(id, email))
            }
        };
        let search_text = [
            lower(&i.description),
            v.sku.vendor_name.to_lowercase(),
            v.sku.category_code.to_lowercase(),
            v.sku.category_name.to_lowercase(),
            v.sku.title.to_lowercase(),
            lower(&i.serial_number),
        ]
        .join("\n");
        person_ok
            && warehouse_id.is_none_or(|w| holder == Some(Assignee::Warehouse(w)))
            && office_id.is_none_or(|o| holder == Some(Assignee::Office(o)))
            && (categories.is_empty() || categories.contains(&v.sku.category_code.to_lowercase()))
            && (deploy_statuses.is_empty() || deploy_statuses.contains(&i.deploy_status))
            && !matches_nothing
            && (sku_ids.is_empty() || sku_ids.contains(&i.sku_id))
            && search
                .as_ref()
                .is_none_or(|q| search_text.contains(q.as_str()))
            && updated_from.is_none_or(|t| i.updated_at.naive_utc() >= t)
            && updated_to.is_none_or(|t| i.updated_at.naive_utc() <= t)
            && (serial_numbers.is_empty() || serial_numbers.contains(&lower(&i.serial_number)))
            && (vendor_skus.is_empty() || vendor_skus.contains(&v.sku.vendor_sku.to_lowercase()))
    }
}

/// A page of a listing, validated: the 1-based `page` (at most
/// [`MAX_PAGE`]) and its `size` (1 to [`MAX_PAGE_SIZE`], default
/// [`DEFAULT_PAGE_SIZE`]). The inventory and return-order listings read
/// their `page` and `size` parameters with [`Paging::parse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    page: NonZeroU32,
    size: u32,
}

impl Paging {
    /// Validates the raw `page` and `size` parameters.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming `page` or `size`.
    pub fn parse(page: Option<&str>, size: Option<&str>) -> Result<Self, DomainError> {
        let page = NonZeroU32::new(parse_int(page, "page", FIRST_PAGE, FIRST_PAGE, MAX_PAGE)?)
            .ok_or_else(|| DomainError::invalid("page", "page must be at least 1"))?;
        let size = parse_int(size, "size", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE)?;
        Ok(Self { page, size })
    }

    /// 1-based page.
    #[must_use]
    pub fn page(self) -> NonZeroU32 {
        self.page
    }

    /// Rows per page.
    #[must_use]
    pub fn size(self) -> u32 {
        self.size
    }

    /// Rows to skip (the page is at least 1, so this cannot underflow).
    #[must_use]
    pub fn offset(self) -> u64 {
        u64::from(self.page.get() - 1) * u64::from(self.size)
    }
}

/// A validated listing query. Built only by [`InventoryQuery::parse`], so
/// every value is within its documented range (the page is at least 1, so
/// [`InventoryQuery::offset`] cannot underflow).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InventoryQuery {
    paging: Paging,
    filter: InventoryFilter,
    sort: SortKey,
    direction: SortDirection,
}

impl InventoryQuery {
    /// 1-based page, at most [`MAX_PAGE`].
    #[must_use]
    pub fn page(&self) -> NonZeroU32 {
        self.paging.page()
    }

    /// Items per page, 1 to [`MAX_PAGE_SIZE`].
    #[must_use]
    pub fn size(&self) -> u32 {
        self.paging.size()
    }

    /// Filters.
    #[must_use]
    pub fn filter(&self) -> &InventoryFilter {
        &self.filter
    }

    /// Sort key; ties are broken by item id in the same direction.
    #[must_use]
    pub fn sort(&self) -> SortKey {
        self.sort
    }

    /// Direction.
    #[must_use]
    pub fn direction(&self) -> SortDirection {
        self.direction
    }

    /// Rows to skip.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.paging.offset()
    }

    /// Validates raw parameters.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the first bad parameter.
    pub fn parse(raw: &RawInventoryQuery) -> Result<Self, DomainError> {
        let paging = Paging::parse(raw.page.as_deref(), raw.size.as_deref())?;

        let person_id = id_param(raw.person_id.as_deref(), "personId", PersonId::parse)?;
        let email = non_empty(raw.assigned_email.as_deref()).map(crate::text::identifier_key);
        let person = match (person_id, email) {
            (Some(_), Some(_)) => {
                return Err(DomainError::invalid(
                    "assignedEmail",
                    "assignedEmail cannot be combined with personId",
                ))
            }
            (Some(id), None) => Some(AssigneeFilter::Person(id)),
            (None, Some(e)) => Some(AssigneeFilter::Email(e)),
            (None, None) => None,
        };
        let warehouse_id = id_param(
            raw.warehouse_id.as_deref(),
            "warehouseId",
            WarehouseId::parse,
        )?;
        let office_id = id_param(raw.office_id.as_deref(), "officeId", OfficeId::parse)?;

        let mut deploy_statuses = Vec::new();
        let mut named_voided = false;
        for value in split_list(&raw.deploy_statuses, "deployStatuses")? {
            match value.to_ascii_uppercase().as_str() {
                v if DEPRECATED_DEPLOY_STATUSES.contains(&v) => {
                    return Err(DomainError::invalid(
                        "deployStatuses",
                        format!(
                            "deploy status {} is deprecated and can no longer be used as a filter",
                            value.to_ascii_uppercase()
                        ),
                    ))
                }
                VOIDED => named_voided = true,
                _ => {
                    let status = DeployStatus::parse(&value).map_err(|_| {
                        DomainError::invalid(
                            "deployStatuses",
                            format!(
                                "unknown deploy status '{value}'; expected one of {}, {VOIDED}",
                                DeployStatus::ALL
                                    .iter()
                                    .map(|s| s.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        )
                    })?;
                    if !deploy_statuses.contains(&status) {
                        deploy_statuses.push(status);
                    }
                }
            }
        }
        let matches_nothing = named_voided && deploy_statuses.is_empty();

        let sku_ids = split_list(&raw.sku_ids, "skuIds")?
            .into_iter()
            .map(|s| SkuId::parse(&s).map_err(|_| bad_uuid("skuIds", &s)))
            .collect::<Result<Vec<_>, _>>()?;

        let search = match non_empty(raw.search_string.as_deref()) {
            Some(s) if s.chars().count() > MAX_SEARCH_CHARS => {
                return Err(DomainError::invalid(
                    "searchString",
                    format!("searchString must be at most {MAX_SEARCH_CHARS} characters"),
                ))
            }
            other => other.map(str::to_lowercase),
        };

        let updated_from = parse_time(raw.updated_at_from.as_deref(), "updatedAtFrom")?;
        let updated_to = parse_time(raw.updated_at_to.as_deref(), "updatedAtTo")?;
        if let (Some(from), Some(to)) = (updated_from, updated_to) {
            if from > to {
                return Err(DomainError::invalid(
                    "updatedAtFrom",
                    "updatedAtFrom must not be after updatedAtTo",
                ));
            }
        }

        let lower = |v: Vec<String>| v.into_iter().map(|s| s.to_lowercase()).collect::<Vec<_>>();
        let filter = InventoryFilter {
            person,
            warehouse_id,
            office_id,
            categories: lower(split_list(&raw.categories, "categories")?),
            deploy_statuses,
            matches_nothing,
            sku_ids,
            search,
            updated_from,
            updated_to,
            serial_numbers: lower(split_list(&raw.serial_numbers, "serialNumber")?),
            vendor_skus: lower(split_list(&raw.vendor_skus, "vendorSku")?),
        };

        // A parameter that is given must hold a value: an empty sortBy,
        // sortDirection or time is refused like any other bad value.
        let sort_given = raw.sort_by.as_deref().map(str::trim);
        let sort = match sort_given {
            Some(s) => SortKey::parse(s).map_err(|_| {
                DomainError::invalid(
                    "sortBy",
                    format!(
                        "unknown sort key '{s}'; expected one of {}",
                        SortKey::ALL
                            .iter()
                            .map(|k| k.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?,
            None => SortKey::CreatedAt,
        };
        let direction = match raw.sort_direction.as_deref().map(str::trim) {
            Some(d) => SortDirection::parse(d).map_err(|_| {
                DomainError::invalid(
                    "sortDirection",
                    format!("sortDirection must be ASC or DESC, not '{d}'"),
                )
            })?,
            None if sort_given.is_some() => SortDirection::Asc,
            None => SortDirection::Desc,
        };
        Ok(Self {
            paging,
            filter,
            sort,
            direction,
        })
    }
}

/// An item as the listing shows it: the item, its SKU (title, category and
/// vendor come from there) and the label of its assignee (email of a person,
/// name of a warehouse or office).
#[derive(Debug, Clone, PartialEq)]
pub struct InventoryItemView {
    /// The item.
    pub item: InventoryItem,
    /// Its SKU.
    pub sku: Sku,
    /// Label of the assignee, when assigned.
    pub assignee_label: Option<String>,
}

/// An item as the listing returns it: its id and what the caller shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedItem {
    /// The item's id.
    pub id: InventoryItemId,
    /// The item, rendered by the store or for the caller to render.
    pub body: ListedBody,
}

/// What a store gives for a listed item: a database store keeps each item's
/// rendered text in its listing row (written when the item is written, so
/// that a page is concatenated, not rebuilt); a store without one gives the
/// view, which the caller renders the same way.
#[derive(Debug, Clone, PartialEq)]
pub enum ListedBody {
    /// The item's JSON object, exactly as the API returns it.
    Rendered(String),
    /// The item's view, not yet rendered.
    View(Box<InventoryItemView>),
}

/// One page of the listing.
#[derive(Debug, Clone, PartialEq)]
pub struct InventoryPage {
    /// The items of the page, in order, as the API's JSON.
    pub items: Vec<ListedItem>,
    /// Items matching the filters, over all pages.
    pub total_records: u64,
}

impl InventoryPage {
    /// An empty page.
    #[must_use]
    pub fn empty() -> Self {
        Self {
            items: Vec::new(),
            total_records: 0,
        }
    }

    /// Pages of `size` needed for all matching items.
    #[must_use]
    pub fn total_pages(&self, size: u32) -> u64 {
        self.total_records.div_ceil(u64::from(size.max(1)))
    }
}

fn non_empty(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|s| !s.is_empty())
}

fn bad_uuid(field: &str, value: &str) -> DomainError {
    DomainError::invalid(field, format!("'{value}' is not a valid UUID"))
}

/// An id parameter: absent, or a UUID (an empty value is malformed too).
pub(crate) fn id_param<T>(
    raw: Option<&str>,
    field: &str,
    parse: fn(&str) -> Result<T, InvalidId>,
) -> Result<Option<T>, DomainError> {
    raw.map(|s| parse(s).map_err(|_| bad_uuid(field, s)))
        .transpose()
}

pub(crate) fn parse_int(
    raw: Option<&str>,
    field: &str,
    default: u32,
    min: u32,
    max: u32,
) -> Result<u32, DomainError> {
    match non_empty(raw) {
        None if raw.is_none() => Ok(default),
        None => Err(DomainError::invalid(
            field,
            format!("{field} must be an integer from {min} to {max}"),
        )),
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| {
                DomainError::invalid(
                    field,
                    format!("{field} must be an integer from {min} to {max}, not '{s}'"),
                )
            }),
    }
}

/// Splits repeated and comma-separated values (trimmed). An empty value (an
/// empty parameter, or nothing between two commas) is malformed, like an
/// empty single-valued parameter; every value counts toward the limit.
fn split_list(values: &[String], field: &str) -> Result<Vec<String>, DomainError> {
    let mut out = Vec::new();
    for piece in values.iter().flat_map(|v| v.split(',')).map(str::trim) {
        if piece.is_empty() {
            return Err(DomainError::invalid(
                field,
                format!("{field} holds an empty value"),
            ));
        }
        if out.len() == MAX_LIST_VALUES {
            return Err(DomainError::invalid(
                field,
                format!("at most {MAX_LIST_VALUES} values"),
            ));
        }
        out.push(piece.to_owned());
    }
    Ok(out)
}

/// `YYYY-MM-DDTHH:MM:SS[.fff]` in UTC; a trailing `Z` is tolerated, any other
/// offset is refused.
fn parse_time(raw: Option<&str>, field: &str) -> Result<Option<NaiveDateTime>, DomainError> {
    let Some(s) = raw.map(str::trim) else {
        return Ok(None);
    };
    let bare = s
        .strip_suffix('Z')
        .or_else(|| s.strip_suffix('z'))
        .unwrap_or(s);
    NaiveDateTime::parse_from_str(bare, "%Y-%m-%dT%H:%M:%S%.f")
        .map(Some)
        .map_err(|_| {
            DomainError::invalid(
                field,
                format!("'{s}' is not a UTC date-time of the form YYYY-MM-DDTHH:MM:SS[.fff] (no offset other than Z)"),
            )
        })
}

#[cfg(test)]
mod tests;
