//! SCIM provisioning as a service: what `/scim/v2` does, over the domain's
//! ports, with no HTTP framework. An embedder gives it its store
//! ([`ScimPorts`]), the caller's organization and the base URL of its
//! links, and gets back SCIM answers (JSON text, entity tags, locations) or
//! a [`ScimError`].
//!
//! - [`users`] and [`groups`]: create, read, list, replace, patch and
//!   delete; a write without a precondition is retried on a concurrent change
//!   ([`precondition::retry_concurrent`]), one with `If-Match` is 412 when the
//!   version moved ([`precondition::IfMatch`]);
//! - [`bulk_run`]: a Bulk request (or a CSV upload, [`csv_run`]) run
//!   operation by operation through the same user and group operations;
//! - [`search`]: a search at the root, over users and groups.
//!
//! Every function runs synchronously over the ports: the web layer calls it
//! on its blocking pool.

pub mod bulk_run;
pub mod csv_run;
pub mod groups;
pub mod precondition;
pub mod search;
pub mod users;

use equip_domain::ids::OrganizationId;
use equip_domain::ports::{CatalogRepository, GroupRepository, PersonRepository};
use serde_json::Value;

use crate::list::{ListError, ListInputs};

pub use crate::error::ScimError;
pub use precondition::IfMatch;

/// The ports SCIM provisioning needs: people, groups, and the packages a
/// CSV upload names by slug.
pub trait ScimPorts: PersonRepository + GroupRepository + CatalogRepository {}

impl<T: PersonRepository + GroupRepository + CatalogRepository + ?Sized> ScimPorts for T {}

/// SCIM provisioning for one organization: its store, and the base URL of
/// the `Location`s and `meta.location`s it answers.
#[derive(Clone, Copy)]
pub struct Provisioning<'a> {
    ports: &'a dyn ScimPorts,
    org: OrganizationId,
    base: &'a str,
}

impl<'a> Provisioning<'a> {
    /// Provisioning of `org` over `ports`, with links under `base`
    /// (`https://host/scim/v2`).
    #[must_use]
    pub fn new(ports: &'a dyn ScimPorts, org: OrganizationId, base: &'a str) -> Self {
        Self { ports, org, base }
    }
}

/// `attributes` and `excludedAttributes` of an answer (RFC 7644 §3.9).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// The attributes to return (comma-separated), if given.
    pub attributes: Option<String>,
    /// The attributes to leave out (comma-separated), if given.
    pub excluded: Option<String>,
}

impl Selection {
    /// The selection of a request whose parameters `param` reads (names
    /// matched case-insensitively by the caller).
    pub fn read(param: impl Fn(&str) -> Option<String>) -> Self {
        Self {
            attributes: param("attributes"),
            excluded: param("excludedAttributes"),
        }
    }

    /// Whether anything is selected (else the whole default resource).
    #[must_use]
    pub const fn is_given(&self) -> bool {
        self.attributes.is_some() || self.excluded.is_some()
    }
}

impl From<&crate::list::ListInputs> for Selection {
    fn from(inputs: &crate::list::ListInputs) -> Self {
        Self {
            attributes: inputs.attributes.clone(),
            excluded: inputs.excluded_attributes.clone(),
        }
    }
}

/// A resource as answered: its JSON text, entity tag and URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The resource as JSON text, projected as the request selected.
    pub body: String,
    /// Its entity tag (`W/"3"`; a user's covers its groups).
    pub tag: String,
    /// Its URL (`Location` of a 201).
    pub location: String,
}

/// What a `GET` of one resource answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// The resource.
    Resource(Answer),
    /// `If-None-Match` names the current version: 304 with this tag.
    NotModified {
        /// The current entity tag.
        tag: String,
    },
}

/// A resource type served the same way at its endpoint (`/Users`,
/// `/Groups`): what a web layer needs to route the seven operations of
/// RFC 7644 §3 to [`Provisioning`] without knowing the type.
pub trait ResourceType {
    /// The id of one resource.
    type Id: Copy + Send + 'static;
    /// A checked list query.
    type Query: Send + 'static;

    /// The id in a path; a malformed one names no resource (404).
    ///
    /// # Errors
    /// 404.
    fn id(raw: &str) -> Result<Self::Id, ScimError>;
    /// The list query `inputs` ask for, pages of at most `max_results`.
    ///
    /// # Errors
    /// What the inputs break.
    fn query(inputs: &ListInputs, max_results: u32) -> Result<Self::Query, ListError>;
    /// The ListResponse of `query`.
    ///
    /// # Errors
    /// Store failures.
    fn list(
        p: &Provisioning<'_>,
        query: Self::Query,
        inputs: &ListInputs,
    ) -> Result<String, ScimError>;
    /// `POST`.
    ///
    /// # Errors
    /// As the type's create.
    fn create(
        p: &Provisioning<'_>,
        body: Value,
        selection: &Selection,
    ) -> Result<Answer, ScimError>;
    /// `GET` of one.
    ///
    /// # Errors
    /// 404.
    fn get(
        p: &Provisioning<'_>,
        id: Self::Id,
        if_none_match: &IfMatch,
        selection: &Selection,
    ) -> Result<Fetched, ScimError>;
    /// `PUT`.
    ///
    /// # Errors
    /// As the type's replace.
    fn replace(
        p: &Provisioning<'_>,
        id: Self::Id,
        body: &Value,
        if_match: &IfMatch,
        selection: &Selection,
    ) -> Result<Answer, ScimError>;
    /// `PATCH` with the PatchOp message `body`.
    ///
    /// # Errors
    /// A body that is no PatchOp message (400 `invalidSyntax`), and as the
    /// type's patch.
    fn patch(
        p: &Provisioning<'_>,
        id: Self::Id,
        body: &Value,
        if_match: &IfMatch,
        selection: &Selection,
    ) -> Result<Answer, ScimError>;
    /// `DELETE`.
    ///
    /// # Errors
    /// 404; 412.
    fn delete(p: &Provisioning<'_>, id: Self::Id, if_match: &IfMatch) -> Result<(), ScimError>;
}
