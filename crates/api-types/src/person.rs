//! The people directory as the API shows it (docs/api.md, "People"):
//! a person whatever their status ([`PersonBody`]), a page of them
//! ([`PersonPageBody`], the inventory listing's envelope) and the listing's
//! parameters ([`PersonListParams`]). Names keep the SCIM User's member
//! names (`userName`, `name.givenName`…, `emails[].type`).

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::Object;
use utoipa::{IntoParams, ToSchema};

use equip_domain::ids::{PackageId, PersonId};
use equip_domain::inventory_query::{DEFAULT_PAGE_SIZE, FIRST_PAGE, MAX_PAGE, MAX_PAGE_SIZE};
use equip_domain::person::directory::{DirectoryEntry, RawDirectoryQuery, SEARCH_MAX};
use equip_domain::person::{Email, PersonStatus};
use equip_domain::services::directory::DirectoryListing;

use crate::item::Pagination;
use crate::schema::{names, one_of};
use crate::time::auto as time;

// The `#[param]` facts below are literals (utoipa takes no constant there).
const _: () = assert!(FIRST_PAGE == 1 && MAX_PAGE == 10_000_000, "page");
const _: () = assert!(MAX_PAGE_SIZE == 1000 && DEFAULT_PAGE_SIZE == 100, "size");
const _: () = assert!(SEARCH_MAX == 256, "search: maxLength");

fn person_status() -> Object {
    one_of(names!(PersonStatus))
}

/// A person of the organization, whatever their status.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Person)]
pub struct PersonBody {
    #[schema(value_type = uuid::Uuid)]
    id: PersonId,
    /// Login name; the primary email address.
    user_name: String,
    /// The parts of the name the identity provider gave.
    name: PersonNameBody,
    /// The name to show, when given.
    #[schema(required)]
    display_name: Option<String>,
    /// Email addresses, as provisioned.
    emails: Vec<PersonEmailBody>,
    /// ACTIVE, OFFBOARDING (deleted over SCIM, returns open) or OFFBOARDED.
    #[schema(schema_with = person_status)]
    status: PersonStatus,
    /// First working day (`YYYY-MM-DD`).
    #[schema(value_type = Option<String>, format = Date, required)]
    start_date: Option<String>,
    /// The package assigned to the person themself.
    #[schema(value_type = Option<uuid::Uuid>, required)]
    package_id: Option<PackageId>,
    /// Their own package, else their groups' (the one of lowest precedence).
    #[schema(value_type = Option<uuid::Uuid>, required)]
    effective_package_id: Option<PackageId>,
    /// When offboarding started (the SCIM DELETE); null before.
    #[schema(value_type = Option<String>, format = DateTime, required)]
    offboarding_started_at: Option<String>,
    /// When offboarding completed (the last return closed); null before.
    #[schema(value_type = Option<String>, format = DateTime, required)]
    offboarded_at: Option<String>,
}

/// The parts of a person's name (SCIM's `name`); null when not given.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = PersonName)]
pub struct PersonNameBody {
    #[schema(required)]
    given_name: Option<String>,
    #[schema(required)]
    family_name: Option<String>,
    /// The full name as the identity provider formats it.
    #[schema(required)]
    formatted: Option<String>,
    #[schema(required)]
    middle_name: Option<String>,
    #[schema(required)]
    honorific_prefix: Option<String>,
    #[schema(required)]
    honorific_suffix: Option<String>,
}

/// An email address of a person.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = PersonEmail)]
pub struct PersonEmailBody {
    value: String,
    /// `work`, `home`, `other`…, or null.
    #[serde(rename = "type")]
    #[schema(required)]
    kind: Option<String>,
    primary: bool,
}

impl From<&Email> for PersonEmailBody {
    fn from(e: &Email) -> Self {
        Self {
            value: e.value.clone(),
            kind: e.kind.clone(),
            primary: e.primary,
        }
    }
}

impl From<&DirectoryEntry> for PersonBody {
    fn from(entry: &DirectoryEntry) -> Self {
        let p = &entry.person;
        let profile = &p.profile;
        Self {
            id: p.id,
            user_name: p.user_name.clone(),
            name: PersonNameBody {
                given_name: p.given_name.clone(),
                family_name: p.family_name.clone(),
                formatted: profile.formatted_name.clone(),
                middle_name: profile.middle_name.clone(),
                honorific_prefix: profile.honorific_prefix.clone(),
                honorific_suffix: profile.honorific_suffix.clone(),
            },
            display_name: p.display_name.clone(),
            emails: p.emails.iter().map(PersonEmailBody::from).collect(),
            status: p.status,
            start_date: p.start_date.map(|d| d.format("%Y-%m-%d").to_string()),
            package_id: p.package_id,
            effective_package_id: entry.effective_package,
            offboarding_started_at: entry.offboarding.started_at.map(time),
            offboarded_at: entry.offboarding.offboarded_at.map(time),
        }
    }
}

/// A page of people and where it is.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = PersonPage)]
pub struct PersonPageBody {
    data: Vec<PersonBody>,
    pagination: Pagination,
}

impl From<&DirectoryListing> for PersonPageBody {
    fn from(listing: &DirectoryListing) -> Self {
        let size = u64::from(listing.query.size());
        Self {
            data: listing.entries.iter().map(PersonBody::from).collect(),
            pagination: Pagination {
                total_records: listing.total_records,
                total_pages: listing.total_records.div_ceil(size),
                current_page: listing.query.page().get(),
                page_size: listing.query.size(),
            },
        }
    }
}

/// The parameters of `GET /api/v1/people`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct PersonListParams {
    /// 1-based page number.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 10000000, default = 1)]
    page: Option<String>,
    /// People per page.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 1000, default = 100)]
    size: Option<String>,
    /// People of this status (case-insensitive).
    #[param(schema_with = person_status)]
    status: Option<String>,
    /// People whose given, family, display or formatted name, userName or
    /// an email address contains this text, case-insensitively (trimmed;
    /// blank is no filter).
    #[param(value_type = Option<String>, max_length = 256)]
    search: Option<String>,
}

impl From<PersonListParams> for RawDirectoryQuery {
    fn from(p: PersonListParams) -> Self {
        Self {
            page: p.page,
            size: p.size,
            status: p.status,
            search: p.search,
        }
    }
}
