//! Rows of people and their email addresses; phone numbers, addresses and
//! the profile's lists as JSON in the stored shapes defined here.

use super::*;
use crate::schema::{people, person_emails};
use equip_domain::person::{Profile, ProfileEntry, ProfileList};

/// Stored shape of a phone number (JSON).
#[derive(Debug, Serialize, Deserialize)]
struct StoredPhone {
    value: String,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    primary: bool,
}

/// Stored shape of an address (JSON).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredAddress {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    primary: bool,
    #[serde(default)]
    country: Option<String>,
    #[serde(default)]
    street_address: Option<String>,
    #[serde(default)]
    postal_code: Option<String>,
    #[serde(default)]
    region: Option<String>,
    #[serde(default)]
    locality: Option<String>,
}

/// Stored shape of one entry of a profile's list (JSON).
#[derive(Debug, Serialize, Deserialize)]
struct StoredProfileEntry {
    value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    display: Option<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    primary: bool,
}

/// Stored shape of the profile's lists (the column `profile_lists`): an
/// object of the non-empty lists by attribute name.
type StoredProfileLists = std::collections::BTreeMap<String, Vec<StoredProfileEntry>>;

/// The profile's lists as their column's JSON.
fn profile_lists_json(profile: &Profile) -> DbResult<String> {
    let lists: StoredProfileLists = ProfileList::ALL
        .into_iter()
        .filter(|which| !profile.list(*which).is_empty())
        .map(|which| {
            let entries = profile
                .list(which)
                .iter()
                .map(|e| StoredProfileEntry {
                    value: e.value.clone(),
                    display: e.display.clone(),
                    kind: e.kind.clone(),
                    primary: e.primary,
                })
                .collect();
            (which.name().to_owned(), entries)
        })
        .collect();
    to_json(&lists)
}

/// Sets the lists of `profile` from their column's JSON (names equip does
/// not know are left out).
fn read_profile_lists(profile: &mut Profile, raw: &str) -> DbResult<()> {
    let lists: StoredProfileLists = from_json(raw)?;
    for (name, entries) in lists {
        let Some(which) = ProfileList::ALL.into_iter().find(|w| w.name() == name) else {
            continue;
        };
        *profile.list_mut(which) = entries
            .into_iter()
            .map(|e| ProfileEntry {
                value: e.value,
                display: e.display,
                kind: e.kind,
                primary: e.primary,
            })
            .collect();
    }
    Ok(())
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = people, treat_none_as_default_value = false)]
pub(crate) struct PersonRow {
    pub id: String,
    pub organization_id: String,
    pub external_id: Option<String>,
    pub user_name: String,
    pub user_name_lower: String,
    pub given_name: Option<String>,
    pub family_name: Option<String>,
    pub display_name: Option<String>,
    pub phone_numbers: String,
    pub addresses: String,
    pub active: bool,
    pub package_id: Option<String>,
    pub start_date: Option<NaiveDate>,
    pub status: String,
    pub skip_user_activation: Option<bool>,
    pub cpf_number: Option<String>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    pub version: i64,
    pub formatted_name: Option<String>,
    pub middle_name: Option<String>,
    pub honorific_prefix: Option<String>,
    pub honorific_suffix: Option<String>,
    pub nick_name: Option<String>,
    pub title: Option<String>,
    pub user_type: Option<String>,
    pub preferred_language: Option<String>,
    pub locale: Option<String>,
    pub timezone: Option<String>,
    pub profile_url: Option<String>,
    /// JSON: the profile's non-empty lists by attribute name.
    pub profile_lists: String,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = person_emails, treat_none_as_default_value = false)]
pub(crate) struct PersonEmailRow {
    pub person_id: String,
    pub organization_id: String,
    pub position: i32,
    pub value: String,
    pub value_lower: String,
    pub kind: Option<String>,
    pub is_primary: bool,
}

/// Rows of one person.
pub(crate) struct PersonRows {
    pub person: PersonRow,
    pub emails: Vec<PersonEmailRow>,
}

impl PersonRows {
    pub(crate) fn from_domain(p: &Person) -> DbResult<Self> {
        let id = p.id.to_string();
        let org = p.organization_id.to_string();
        let phones: Vec<StoredPhone> = p
            .phone_numbers
            .iter()
            .map(|n| StoredPhone {
                value: n.value.clone(),
                kind: n.kind.clone(),
                primary: n.primary,
            })
            .collect();
        let addresses: Vec<StoredAddress> = p
            .addresses
            .iter()
            .map(|a| StoredAddress {
                kind: a.kind.clone(),
                primary: a.primary,
                country: a.country.clone(),
                street_address: a.street_address.clone(),
                postal_code: a.postal_code.clone(),
                region: a.region.clone(),
                locality: a.locality.clone(),
            })
            .collect();
        let emails = p
            .emails
            .iter()
            .enumerate()
            .map(|(i, e)| {
                Ok(PersonEmailRow {
                    person_id: id.clone(),
                    organization_id: org.clone(),
                    position: position(i)?,
                    value: e.value.clone(),
                    value_lower: identifier_key(&e.value),
                    kind: e.kind.clone(),
                    is_primary: e.primary,
                })
            })
            .collect::<DbResult<Vec<_>>>()?;
        Ok(Self {
            person: PersonRow {
                id,
                organization_id: org,
                external_id: p.external_id.clone(),
                user_name: p.user_name.clone(),
                user_name_lower: identifier_key(&p.user_name),
                given_name: p.given_name.clone(),
                family_name: p.family_name.clone(),
                display_name: p.display_name.clone(),
                phone_numbers: to_json(&phones)?,
                addresses: to_json(&addresses)?,
                active: p.active,
                package_id: p.package_id.map(|x| x.to_string()),
                start_date: p.start_date,
                status: p.status.as_str().to_owned(),
                skip_user_activation: p.skip_user_activation,
                cpf_number: p.cpf_number.clone(),
                created_at: db_time(p.created_at),
                updated_at: db_time(p.updated_at),
                version: p.version,
                formatted_name: p.profile.formatted_name.clone(),
                middle_name: p.profile.middle_name.clone(),
                honorific_prefix: p.profile.honorific_prefix.clone(),
                honorific_suffix: p.profile.honorific_suffix.clone(),
                nick_name: p.profile.nick_name.clone(),
                title: p.profile.title.clone(),
                user_type: p.profile.user_type.clone(),
                preferred_language: p.profile.preferred_language.clone(),
                locale: p.profile.locale.clone(),
                timezone: p.profile.timezone.clone(),
                profile_url: p.profile.profile_url.clone(),
                profile_lists: profile_lists_json(&p.profile)?,
            },
            emails,
        })
    }

    /// `emails` must be in position order.
    pub(crate) fn into_domain(self) -> DbResult<Person> {
        let p = self.person;
        let phones: Vec<StoredPhone> = from_json(&p.phone_numbers)?;
        let addresses: Vec<StoredAddress> = from_json(&p.addresses)?;
        let mut profile = Profile {
            formatted_name: p.formatted_name,
            middle_name: p.middle_name,
            honorific_prefix: p.honorific_prefix,
            honorific_suffix: p.honorific_suffix,
            nick_name: p.nick_name,
            title: p.title,
            user_type: p.user_type,
            preferred_language: p.preferred_language,
            locale: p.locale,
            timezone: p.timezone,
            profile_url: p.profile_url,
            ..Profile::default()
        };
        read_profile_lists(&mut profile, &p.profile_lists)?;
        Ok(Person {
            id: parse_id::<PersonId>(&p.id)?,
            organization_id: parse_id(&p.organization_id)?,
            external_id: p.external_id,
            user_name: p.user_name,
            given_name: p.given_name,
            family_name: p.family_name,
            display_name: p.display_name,
            emails: self
                .emails
                .into_iter()
                .map(|e| Email {
                    value: e.value,
                    kind: e.kind,
                    primary: e.is_primary,
                })
                .collect(),
            phone_numbers: phones
                .into_iter()
                .map(|n| PhoneNumber {
                    value: n.value,
                    kind: n.kind,
                    primary: n.primary,
                })
                .collect(),
            addresses: addresses
                .into_iter()
                .map(|a| Address {
                    kind: a.kind,
                    primary: a.primary,
                    country: a.country,
                    street_address: a.street_address,
                    postal_code: a.postal_code,
                    region: a.region,
                    locality: a.locality,
                })
                .collect(),
            active: p.active,
            package_id: p
                .package_id
                .as_deref()
                .map(parse_id::<PackageId>)
                .transpose()?,
            start_date: p.start_date,
            status: PersonStatus::parse(&p.status).map_err(|e| DbError::corrupt(e.to_string()))?,
            skip_user_activation: p.skip_user_activation,
            cpf_number: p.cpf_number,
            profile,
            created_at: utc(p.created_at),
            updated_at: utc(p.updated_at),
            version: p.version,
        })
    }
}
