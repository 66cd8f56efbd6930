//! The SCIM 2.0 User resource (RFC 7643 §4.1) with equip's extension, and its
//! conversion to and from the domain's [`Person`].
//!
//! Over 500 lines on purpose: the resource, its wire form and both conversions
//! change together whenever an attribute is added.
//!
//! Incoming users ([`ScimUser`]) are read the way identity providers send them:
//! unknown attributes are ignored (a `password` is read past and dropped, never
//! stored or echoed), `active`, `primary` and `skipUserActivation` accept JSON
//! booleans as well as the strings `"True"`/`"False"` in any case (Microsoft
//! Entra ID sends `"active": "False"`), and empty strings count as absent.
//! Outgoing users ([`from_person`]) omit absent optional attributes, and show
//! the person's groups and effective package ([`Belonging`]), read-only.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use uuid::Uuid;

use equip_domain::ids::{OrganizationId, PackageId, PersonId};
use equip_domain::person::{
    Address, Email, Person, PersonStatus, PhoneNumber, Profile, ProfileEntry,
};
use equip_domain::services::groups::Belonging;

use crate::meta::{group_location, timestamp, user_location, version_tag};
use crate::resource_schema::BodyError;
use crate::schemas;

/// A user as sent by a client (POST, PUT, Bulk data, import files); also
/// serialized, absent attributes omitted, as the data of the Bulk operations
/// a CSV upload builds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScimUser {
    /// Schema URNs the client lists.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub schemas: Vec<String>,
    /// The user's id, when the client sends one (bulk, import); servers assign it otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The identity provider's id for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    /// Login name; must equal the primary email.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_name: Option<String>,
    /// Name components.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<ScimName>,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Email addresses.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub emails: Vec<ScimEmail>,
    /// Phone numbers.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub phone_numbers: Vec<ScimPhoneNumber>,
    /// Postal addresses.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub addresses: Vec<ScimAddress>,
    /// Whether the user is active; `true` when absent.
    #[serde(
        default,
        deserialize_with = "lenient_opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub active: Option<bool>,
    /// equip's extension object.
    #[serde(
        default,
        rename = "urn:ietf:params:scim:schemas:extension:equip:1.0:User",
        skip_serializing_if = "Option::is_none"
    )]
    pub extension: Option<ScimUserExtension>,
    /// Casual name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nick_name: Option<String>,
    /// URL of the user's profile page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_url: Option<String>,
    /// Job title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The organization's kind of user (`Employee`, `Contractor`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_type: Option<String>,
    /// Preferred language, e.g. `en-US`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_language: Option<String>,
    /// Locale, e.g. `en-US`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// Time zone, e.g. `America/Los_Angeles`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Instant messaging addresses.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub ims: Vec<ScimEntry>,
    /// URLs of photos.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub photos: Vec<ScimEntry>,
    /// Entitlements.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub entitlements: Vec<ScimEntry>,
    /// Roles.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub roles: Vec<ScimEntry>,
    /// Certificates (base64 DER).
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub x509_certificates: Vec<ScimEntry>,
}

/// One entry of `ims`, `photos`, `entitlements`, `roles` or
/// `x509Certificates` (RFC 7643 §2.4: value, display, type, primary).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct ScimEntry {
    /// The value; an entry without one is left out (RFC 7643 §2.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A label to show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    /// A free-form type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Whether it is the primary entry.
    #[serde(
        default,
        deserialize_with = "lenient_opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub primary: Option<bool>,
}

impl ScimEntry {
    /// The entries that have a value, as the domain's.
    fn into_entries(list: Vec<Self>) -> Vec<ProfileEntry> {
        list.into_iter()
            .filter_map(|e| {
                Some(ProfileEntry {
                    value: present(e.value)?,
                    display: present(e.display),
                    kind: present(e.kind),
                    primary: e.primary.unwrap_or(false),
                })
            })
            .collect()
    }
}

/// The `name` complex attribute.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScimName {
    /// Given (first) name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given_name: Option<String>,
    /// Family (last) name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family_name: Option<String>,
    /// Full name as displayed, with every part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formatted: Option<String>,
    /// Middle name(s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub middle_name: Option<String>,
    /// `Ms.`, `Dr.`…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honorific_prefix: Option<String>,
    /// `III`, `PhD`…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honorific_suffix: Option<String>,
}

/// One entry of `emails`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct ScimEmail {
    /// The address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// `work`, `home`, `other`…
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Whether it is the primary address.
    #[serde(
        default,
        deserialize_with = "lenient_opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub primary: Option<bool>,
}

/// One entry of `phoneNumbers`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct ScimPhoneNumber {
    /// The number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// `work`, `mobile`…
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Whether it is the primary number.
    #[serde(
        default,
        deserialize_with = "lenient_opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub primary: Option<bool>,
}

/// One entry of `addresses`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScimAddress {
    /// `home`, `work`…
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Whether it is the primary address.
    #[serde(
        default,
        deserialize_with = "lenient_opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub primary: Option<bool>,
    /// ISO 3166-1 alpha-2 country code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// Street lines; may contain line breaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street_address: Option<String>,
    /// Postal code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<String>,
    /// State or region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// City.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locality: Option<String>,
}

/// The object under `urn:ietf:params:scim:schemas:extension:equip:1.0:User`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScimUserExtension {
    /// Equipment package (UUID).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_id: Option<String>,
    /// First working day, `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_date: Option<String>,
    /// `ACTIVE`, `OFFBOARDING` or `OFFBOARDED`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Whether to skip the activation email.
    #[serde(
        default,
        deserialize_with = "lenient_opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub skip_user_activation: Option<bool>,
    /// Brazilian CPF number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpf_number: Option<String>,
}

/// A user attribute that cannot be turned into a person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScimUserError {
    /// A required attribute is absent (or empty).
    #[error("{attribute}: required")]
    Missing {
        /// The attribute, e.g. `userName` or `emails[1].value`.
        attribute: String,
    },
    /// An attribute has a value equip cannot use.
    #[error("{attribute}: {message}")]
    Invalid {
        /// The attribute, e.g. `packageId` or `startDate`.
        attribute: String,
        /// What is wrong with the value.
        message: String,
    },
}

impl ScimUserError {
    /// The attribute the error is about.
    #[must_use]
    pub fn attribute(&self) -> &str {
        match self {
            Self::Missing { attribute } | Self::Invalid { attribute, .. } => attribute,
        }
    }

    fn invalid(attribute: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            attribute: attribute.into(),
            message: message.into(),
        }
    }
}

/// Trims a string; empty means absent.
fn present(value: Option<String>) -> Option<String> {
    value.and_then(|v| {
        let t = v.trim();
        (!t.is_empty()).then(|| t.to_owned())
    })
}

/// An identifier exactly as sent (`externalId`: caseExact, the identity
/// provider's matching key, so a filter on the value it sent finds it); only
/// the empty string counts as absent.
fn as_sent(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.is_empty())
}

/// Parses a start date: `YYYY-MM-DD`, or a full RFC 3339 timestamp whose date is taken.
fn parse_start_date(raw: &str) -> Result<NaiveDate, ScimUserError> {
    NaiveDate::parse_from_str(raw, "%Y-%m-%d")
        .or_else(|_| DateTime::parse_from_rfc3339(raw).map(|d| d.date_naive()))
        .map_err(|_| {
            ScimUserError::invalid(
                "startDate",
                format!("'{raw}' is not a date of the form YYYY-MM-DD"),
            )
        })
}

impl ScimUser {
    /// Reads a User document (a POST or PUT body, a Bulk operation's
    /// `data`): attribute names at every level are compared
    /// case-insensitively (RFC 7643 §2.1), so `"Active": false` and
    /// `"emails": [{"Value": …, "Primary": true}]` are read as their
    /// canonical spellings.
    ///
    /// # Errors
    /// [`BodyError`]: an attribute named twice in two spellings, or a value
    /// of the wrong JSON type.
    pub fn from_body(body: Value) -> Result<Self, BodyError> {
        let body = crate::user_schema::USER_RESOURCE.canonical_names(body)?;
        Ok(serde_json::from_value(body)?)
    }

    /// The person this user describes, in `organization` under `id`, created and
    /// updated at `now` with version 1. The caller runs [`Person::validate`] and
    /// carries over what a replace keeps (creation time, version).
    ///
    /// # Errors
    /// [`ScimUserError`] naming the attribute: a missing `userName` or email
    /// `value`, a `packageId` that is not a UUID, a bad `startDate`, an unknown
    /// `status`.
    pub fn into_person(
        self,
        organization: OrganizationId,
        id: PersonId,
        now: DateTime<Utc>,
    ) -> Result<Person, ScimUserError> {
        let user_name = present(self.user_name).ok_or_else(|| ScimUserError::Missing {
            attribute: "userName".into(),
        })?;
        let emails = self
            .emails
            .into_iter()
            .enumerate()
            .map(|(i, e)| {
                Ok(Email {
                    value: present(e.value).ok_or_else(|| ScimUserError::Missing {
                        attribute: format!("emails[{i}].value"),
                    })?,
                    kind: present(e.kind),
                    primary: e.primary.unwrap_or(false),
                })
            })
            .collect::<Result<Vec<_>, ScimUserError>>()?;
        let phone_numbers = self
            .phone_numbers
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                Ok(PhoneNumber {
                    value: present(p.value).ok_or_else(|| ScimUserError::Missing {
                        attribute: format!("phoneNumbers[{i}].value"),
                    })?,
                    kind: present(p.kind),
                    primary: p.primary.unwrap_or(false),
                })
            })
            .collect::<Result<Vec<_>, ScimUserError>>()?;
        let addresses = self
            .addresses
            .into_iter()
            .map(|a| Address {
                kind: present(a.kind),
                primary: a.primary.unwrap_or(false),
                country: present(a.country),
                // Line breaks inside the street are kept; only the ends are trimmed.
                street_address: present(a.street_address),
                postal_code: present(a.postal_code),
                region: present(a.region),
                locality: present(a.locality),
            })
            .collect();
        let ext = self.extension.unwrap_or_default();
        let package_id = present(ext.package_id)
            .map(|raw| {
                Uuid::parse_str(&raw)
                    .map(PackageId::from_uuid)
                    .map_err(|_| {
                        ScimUserError::invalid("packageId", format!("'{raw}' is not a valid UUID"))
                    })
            })
            .transpose()?;
        let start_date = present(ext.start_date)
            .map(|raw| parse_start_date(&raw))
            .transpose()?;
        let status = match present(ext.status) {
            Some(raw) => PersonStatus::parse(&raw).map_err(|_| {
                ScimUserError::invalid(
                    "status",
                    format!("unknown status '{raw}'; expected ACTIVE, OFFBOARDING or OFFBOARDED"),
                )
            })?,
            None => PersonStatus::Active,
        };
        let name = self.name.unwrap_or_default();
        let profile = Profile {
            formatted_name: present(name.formatted),
            middle_name: present(name.middle_name),
            honorific_prefix: present(name.honorific_prefix),
            honorific_suffix: present(name.honorific_suffix),
            nick_name: present(self.nick_name),
            title: present(self.title),
            user_type: present(self.user_type),
            preferred_language: present(self.preferred_language),
            locale: present(self.locale),
            timezone: present(self.timezone),
            profile_url: present(self.profile_url),
            ims: ScimEntry::into_entries(self.ims),
            photos: ScimEntry::into_entries(self.photos),
            entitlements: ScimEntry::into_entries(self.entitlements),
            roles: ScimEntry::into_entries(self.roles),
            x509_certificates: ScimEntry::into_entries(self.x509_certificates),
        };
        Ok(Person {
            id,
            organization_id: organization,
            external_id: as_sent(self.external_id),
            user_name,
            given_name: present(name.given_name),
            family_name: present(name.family_name),
            display_name: present(self.display_name),
            emails,
            phone_numbers,
            addresses,
            active: self.active.unwrap_or(true),
            package_id,
            start_date,
            status,
            skip_user_activation: ext.skip_user_activation,
            cpf_number: present(ext.cpf_number),
            profile,
            created_at: now,
            updated_at: now,
            version: 1,
        })
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OutName<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    given_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    family_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    formatted: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    middle_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    honorific_prefix: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    honorific_suffix: Option<&'a str>,
}

/// One entry of a profile list (`ims`, `roles`…).
#[derive(Serialize)]
struct OutEntry<'a> {
    value: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    display: Option<&'a str>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    primary: bool,
}

fn out_entries(list: &[ProfileEntry]) -> Vec<OutEntry<'_>> {
    list.iter()
        .map(|e| OutEntry {
            value: &e.value,
            display: e.display.as_deref(),
            kind: e.kind.as_deref(),
            primary: e.primary,
        })
        .collect()
}

#[derive(Serialize)]
struct OutMultiValue<'a> {
    value: &'a str,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    primary: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OutAddress<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    primary: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    country: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    street_address: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    postal_code: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    locality: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OutMeta {
    resource_type: &'static str,
    created: String,
    last_modified: String,
    location: String,
    version: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OutExtension<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    package_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_date: Option<String>,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    skip_user_activation: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpf_number: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    effective_package_id: Option<String>,
}

/// One entry of a user's `groups`.
#[derive(Serialize)]
struct OutGroupRef<'a> {
    value: String,
    #[serde(rename = "$ref")]
    reference: String,
    display: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OutUser<'a> {
    schemas: [&'static str; 2],
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    external_id: Option<&'a str>,
    user_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<OutName<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    display_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nick_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    profile_url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    preferred_language: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    locale: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timezone: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    emails: Vec<OutMultiValue<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    phone_numbers: Vec<OutMultiValue<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    addresses: Vec<OutAddress<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    ims: Vec<OutEntry<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    photos: Vec<OutEntry<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    entitlements: Vec<OutEntry<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    roles: Vec<OutEntry<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    x509_certificates: Vec<OutEntry<'a>>,
    active: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    groups: Vec<OutGroupRef<'a>>,
    meta: OutMeta,
    #[serde(rename = "urn:ietf:params:scim:schemas:extension:equip:1.0:User")]
    extension: OutExtension<'a>,
}

/// The entity tag of a user as shown with `belonging`: `W/"<version>"` for a
/// user in no group, else `W/"<version>.<digest>"`, where the digest covers
/// the groups (ids and names) and the effective package. A user's `groups`
/// and `effectivePackageId` change without a change of the person (a PATCH of
/// a group, a group's package), so the tag follows them: a client holding an
/// older tag gets the new representation, not a 304. Preconditions of writes
/// (`If-Match`) compare only the version before the dot: the user's own
/// attributes are what a write changes.
#[must_use]
pub fn user_tag(person: &Person, belonging: &Belonging) -> String {
    if belonging.groups.is_empty() {
        return version_tag(person.version);
    }
    // FNV-1a (64 bits): stable across builds and instances, unlike std's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        hash ^= 0xff;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    };
    for g in &belonging.groups {
        eat(g.group_id.as_uuid().as_bytes());
        eat(g.display_name.as_bytes());
    }
    if let Some(p) = belonging.effective_package {
        eat(p.as_uuid().as_bytes());
    }
    format!("W/\"{}.{hash:016x}\"", person.version)
}

/// The SCIM representation of `person`, with `meta.location` under `base_url`
/// (e.g. `https://equip.example.com`, no trailing slash needed), its groups
/// and effective package from `belonging` (read-only: `groups` and the
/// extension's `effectivePackageId`). Absent optional attributes and empty
/// multi-valued attributes are omitted.
#[must_use]
pub fn from_person(person: &Person, belonging: &Belonging, base_url: &str) -> Value {
    // Serializing plain strings, booleans and numbers into a Value cannot fail.
    serde_json::to_value(out_user(person, belonging, base_url)).unwrap_or(Value::Null)
}

/// [`from_person`] serialized straight to JSON text, without building a
/// [`Value`] tree first (the common case: no `attributes` selection).
#[must_use]
pub fn person_json(person: &Person, belonging: &Belonging, base_url: &str) -> String {
    serde_json::to_string(&out_user(person, belonging, base_url)).unwrap_or_default()
}

fn out_user<'a>(person: &'a Person, belonging: &'a Belonging, base_url: &str) -> OutUser<'a> {
    let profile = &person.profile;
    let name =
        (person.given_name.is_some() || person.family_name.is_some() || profile.has_name_parts())
            .then_some(OutName {
                given_name: person.given_name.as_deref(),
                family_name: person.family_name.as_deref(),
                formatted: profile.formatted_name.as_deref(),
                middle_name: profile.middle_name.as_deref(),
                honorific_prefix: profile.honorific_prefix.as_deref(),
                honorific_suffix: profile.honorific_suffix.as_deref(),
            });
    OutUser {
        schemas: [schemas::USER, schemas::EQUIP_USER_EXTENSION],
        id: person.id.to_string(),
        external_id: person.external_id.as_deref(),
        user_name: &person.user_name,
        name,
        display_name: person.display_name.as_deref(),
        nick_name: profile.nick_name.as_deref(),
        profile_url: profile.profile_url.as_deref(),
        title: profile.title.as_deref(),
        user_type: profile.user_type.as_deref(),
        preferred_language: profile.preferred_language.as_deref(),
        locale: profile.locale.as_deref(),
        timezone: profile.timezone.as_deref(),
        emails: person
            .emails
            .iter()
            .map(|e| OutMultiValue {
                value: &e.value,
                kind: e.kind.as_deref(),
                primary: e.primary,
            })
            .collect(),
        phone_numbers: person
            .phone_numbers
            .iter()
            .map(|p| OutMultiValue {
                value: &p.value,
                kind: p.kind.as_deref(),
                primary: p.primary,
            })
            .collect(),
        addresses: person
            .addresses
            .iter()
            .map(|a| OutAddress {
                kind: a.kind.as_deref(),
                primary: a.primary,
                country: a.country.as_deref(),
                street_address: a.street_address.as_deref(),
                postal_code: a.postal_code.as_deref(),
                region: a.region.as_deref(),
                locality: a.locality.as_deref(),
            })
            .collect(),
        ims: out_entries(&profile.ims),
        photos: out_entries(&profile.photos),
        entitlements: out_entries(&profile.entitlements),
        roles: out_entries(&profile.roles),
        x509_certificates: out_entries(&profile.x509_certificates),
        active: person.active,
        groups: belonging
            .groups
            .iter()
            .map(|g| OutGroupRef {
                value: g.group_id.to_string(),
                reference: group_location(base_url, g.group_id),
                display: &g.display_name,
                kind: "direct",
            })
            .collect(),
        meta: OutMeta {
            resource_type: "User",
            created: timestamp(person.created_at),
            last_modified: timestamp(person.updated_at),
            location: user_location(base_url, person.id),
            version: user_tag(person, belonging),
        },
        extension: OutExtension {
            package_id: person.package_id.map(|p| p.to_string()),
            start_date: person.start_date.map(|d| d.format("%Y-%m-%d").to_string()),
            status: person.status.as_str(),
            skip_user_activation: person.skip_user_activation,
            cpf_number: person.cpf_number.as_deref(),
            effective_package_id: belonging.effective_package.map(|p| p.to_string()),
        },
    }
}

/// Parses a boolean the way identity providers send it.
fn parse_lenient_bool(value: &Value) -> Result<Option<bool>, String> {
    match value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            "" => Ok(None),
            _ => Err(format!("expected true or false, got '{s}'")),
        },
        other => Err(format!("expected true or false, got {other}")),
    }
}

/// `Option<bool>` from a JSON boolean, null, or the strings "true"/"false" in any case.
fn lenient_opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    let value = Value::deserialize(d)?;
    parse_lenient_bool(&value).map_err(serde::de::Error::custom)
}

/// A value whose JSON `null` means its default (e.g. `"emails": null`).
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
