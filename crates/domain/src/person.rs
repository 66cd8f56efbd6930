//! People: the users an identity provider provisions over SCIM, who receive
//! equipment. The rules here (userName is the primary email, one primary email,
//! CPF for Brazil, who counts as a new joiner) hold whatever the protocol.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::error::DomainError;
use crate::ids::{OrganizationId, PackageId, PersonId};
use crate::text::{
    check_email_address, check_identifier, check_length, check_optional_length, is_email_address,
    same_identifier, EMAIL_MAX, LONG_TEXT_MAX, PHONE_MAX, SHORT_TEXT_MAX,
};

pub mod directory;
pub mod offboarding;
pub mod profile;

pub use profile::{Profile, ProfileEntry, ProfileList};

/// A person as a write that follows their life cycle (offboarding, a return,
/// its completion) finds them stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredPersonState {
    /// Their status.
    pub status: PersonStatus,
    /// Their version.
    pub version: i64,
}

wire_enum! {
    /// Where a person is in their life cycle (the SCIM extension's `status`).
    PersonStatus, field = "status", unknown = (|raw: &str| format!(
        "unknown status '{raw}'; expected ACTIVE, OFFBOARDING or OFFBOARDED"
    )) {
        /// Provisioned and current.
        Active => "ACTIVE",
        /// Deleted over SCIM: offboarding has started, access kept until it completes.
        Offboarding => "OFFBOARDING",
        /// Offboarding completed.
        Offboarded => "OFFBOARDED",
    }
}

/// An email address of a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Email {
    /// The address.
    pub value: String,
    /// `work`, `home`, `other`, or none.
    pub kind: Option<String>,
    /// Whether it is the primary address.
    pub primary: bool,
}

/// A phone number of a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhoneNumber {
    /// The number as given.
    pub value: String,
    /// `work`, `mobile`, …, or none.
    pub kind: Option<String>,
    /// Whether it is the primary number.
    pub primary: bool,
}

/// A postal address of a person.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Address {
    /// `home`, `work`, …
    pub kind: Option<String>,
    /// Whether it is the primary address.
    pub primary: bool,
    /// ISO 3166-1 alpha-2 country code.
    pub country: Option<String>,
    /// Street lines; may contain line breaks.
    pub street_address: Option<String>,
    /// Postal code.
    pub postal_code: Option<String>,
    /// State or region.
    pub region: Option<String>,
    /// City.
    pub locality: Option<String>,
}

/// A person of an organization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// Identifier (the SCIM `id`).
    pub id: PersonId,
    /// Owning organization.
    pub organization_id: OrganizationId,
    /// The identity provider's own id for the person.
    pub external_id: Option<String>,
    /// Login name; equals the primary email.
    pub user_name: String,
    /// Given name.
    pub given_name: Option<String>,
    /// Family name.
    pub family_name: Option<String>,
    /// Display name.
    pub display_name: Option<String>,
    /// Email addresses; at most one primary.
    pub emails: Vec<Email>,
    /// Phone numbers.
    pub phone_numbers: Vec<PhoneNumber>,
    /// Postal addresses.
    pub addresses: Vec<Address>,
    /// SCIM `active`: false when the identity provider deactivated the person.
    pub active: bool,
    /// Equipment package assigned to the person.
    pub package_id: Option<PackageId>,
    /// First working day.
    pub start_date: Option<NaiveDate>,
    /// Life-cycle status.
    pub status: PersonStatus,
    /// Whether to skip sending the activation email.
    pub skip_user_activation: Option<bool>,
    /// Brazilian CPF number, mandatory for people in Brazil.
    pub cpf_number: Option<String>,
    /// The rest of what the identity provider says about the person
    /// (title, languages, roles…): kept and shown, used by no rule.
    pub profile: Profile,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// Increases on every change; the SCIM `meta.version`.
    pub version: i64,
}

impl Person {
    /// The primary email, or the only one when none is flagged.
    #[must_use]
    pub fn primary_email(&self) -> Option<&Email> {
        let only = match self.emails.as_slice() {
            [only] => Some(only),
            _ => None,
        };
        self.emails.iter().find(|e| e.primary).or(only)
    }

    /// Checks the rules every stored person satisfies:
    /// every text within its length limit ([`crate::text`]), the profile's
    /// limits ([`Profile::check`]); userName, every
    /// email address and externalId free of control and invisible characters;
    /// userName and every email a plain address
    /// ([`crate::text::check_email_address`]); at most one primary email;
    /// `userName` the same identifier as the primary email
    /// ([`crate::text::same_identifier`]: Unicode case folding and NFC); and a
    /// valid CPF for anyone with an address in Brazil.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the field (as a SCIM attribute path)
    /// that breaks a rule.
    pub fn validate(&self) -> Result<(), DomainError> {
        if let Some(field) = self.field_with_nul() {
            // PostgreSQL cannot store a NUL in text; refused on every backend.
            return Err(DomainError::invalid(
                field,
                format!("{field} must not contain NUL characters"),
            ));
        }
        self.check_lengths()?;
        self.profile.check()?;
        if self.user_name.trim().is_empty() {
            return Err(DomainError::invalid("userName", "must not be empty"));
        }
        check_email_address("userName", &self.user_name)?;
        if let Some(external_id) = &self.external_id {
            check_identifier("externalId", external_id)?;
        }
        for e in &self.emails {
            check_email_address("emails.value", &e.value)?;
        }
        if self.emails.iter().filter(|e| e.primary).count() > 1 {
            return Err(DomainError::invalid(
                "emails",
                "at most one email may be primary",
            ));
        }
        match self.primary_email() {
            Some(primary) if same_identifier(&primary.value, &self.user_name) => {}
            Some(_) => {
                return Err(DomainError::invalid(
                    "userName",
                    "userName must equal the primary email address",
                ))
            }
            None => {
                return Err(DomainError::invalid(
                    "emails",
                    "a primary email equal to userName is required",
                ))
            }
        }
        if self.lives_in_brazil() {
            match &self.cpf_number {
                Some(cpf) if is_valid_cpf(cpf) => {}
                Some(_) => {
                    return Err(DomainError::invalid(
                        "cpfNumber",
                        "the CPF number's check digits are not valid",
                    ))
                }
                None => {
                    return Err(DomainError::invalid(
                        "cpfNumber",
                        "a CPF number is mandatory for people in Brazil",
                    ))
                }
            }
        }
        Ok(())
    }

    /// Every text attribute within its limit (see `docs/reliability.md`,
    /// "Field length limits").
    fn check_lengths(&self) -> Result<(), DomainError> {
        check_length("userName", &self.user_name, EMAIL_MAX)?;
        for (field, value) in [
            ("externalId", &self.external_id),
            ("name.givenName", &self.given_name),
            ("name.familyName", &self.family_name),
            ("displayName", &self.display_name),
            ("cpfNumber", &self.cpf_number),
        ] {
            check_optional_length(field, value.as_deref(), SHORT_TEXT_MAX)?;
        }
        for e in &self.emails {
            check_length("emails.value", &e.value, EMAIL_MAX)?;
            check_optional_length("emails.type", e.kind.as_deref(), SHORT_TEXT_MAX)?;
        }
        for p in &self.phone_numbers {
            check_length("phoneNumbers.value", &p.value, PHONE_MAX)?;
            check_optional_length("phoneNumbers.type", p.kind.as_deref(), SHORT_TEXT_MAX)?;
        }
        for a in &self.addresses {
            check_optional_length(
                "addresses.streetAddress",
                a.street_address.as_deref(),
                LONG_TEXT_MAX,
            )?;
            for (field, value) in [
                ("addresses.type", &a.kind),
                ("addresses.country", &a.country),
                ("addresses.postalCode", &a.postal_code),
                ("addresses.region", &a.region),
                ("addresses.locality", &a.locality),
            ] {
                check_optional_length(field, value.as_deref(), SHORT_TEXT_MAX)?;
            }
        }
        Ok(())
    }

    /// The first text attribute holding a NUL character, if any.
    fn field_with_nul(&self) -> Option<&'static str> {
        let nul = |t: Option<&str>| t.is_some_and(|t| t.contains('\0'));
        let singles = [
            ("userName", Some(self.user_name.as_str())),
            ("externalId", self.external_id.as_deref()),
            ("name.givenName", self.given_name.as_deref()),
            ("name.familyName", self.family_name.as_deref()),
            ("displayName", self.display_name.as_deref()),
            ("cpfNumber", self.cpf_number.as_deref()),
        ];
        if let Some((field, _)) = singles.iter().find(|(_, t)| nul(*t)) {
            return Some(field);
        }
        if self
            .emails
            .iter()
            .any(|e| nul(Some(&e.value)) || nul(e.kind.as_deref()))
        {
            return Some("emails");
        }
        if self
            .phone_numbers
            .iter()
            .any(|p| nul(Some(&p.value)) || nul(p.kind.as_deref()))
        {
            return Some("phoneNumbers");
        }
        self.addresses
            .iter()
            .any(|a| {
                [
                    &a.kind,
                    &a.country,
                    &a.street_address,
                    &a.postal_code,
                    &a.region,
                    &a.locality,
                ]
                .iter()
                .any(|t| nul(t.as_deref()))
            })
            .then_some("addresses")
    }

    /// A person sent without any email gets their userName as primary email
    /// (userName is the primary email, docs/scim.md), when it looks like one.
    pub fn default_primary_email(&mut self) {
        let user_name = self.user_name.trim();
        if self.emails.is_empty() && is_email_address(user_name) {
            self.emails.push(Email {
                value: user_name.to_owned(),
                kind: None,
                primary: true,
            });
        }
    }

    /// Whether any of the person's addresses is in Brazil.
    #[must_use]
    pub fn lives_in_brazil(&self) -> bool {
        self.addresses.iter().any(|a| {
            a.country
                .as_deref()
                .is_some_and(|c| c.trim().eq_ignore_ascii_case("BR"))
        })
    }

    /// Whether the person is a new joiner on `today`: still active (not
    /// offboarding) and with a start date that is today or later.
    #[must_use]
    pub fn is_new_joiner(&self, today: NaiveDate) -> bool {
        self.status == PersonStatus::Active && self.start_date.is_some_and(|d| d >= today)
    }

    /// Whether the person is visible as a SCIM resource (not offboarding or offboarded).
    #[must_use]
    pub fn is_provisioned(&self) -> bool {
        self.status == PersonStatus::Active
    }
}

/// Whether `raw` is a CPF (Cadastro de Pessoas Físicas) number with valid check
/// digits. Punctuation (`123.456.789-09`) is ignored; numbers with all digits equal
/// are refused, as the Receita Federal does.
#[must_use]
pub fn is_valid_cpf(raw: &str) -> bool {
    let digits: Vec<u32> = raw
        .chars()
        .filter(|c| !matches!(c, '.' | '-' | ' '))
        .map(|c| c.to_digit(10))
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default();
    if digits.len() != 11 || digits.iter().all(|d| *d == digits[0]) {
        return false;
    }
    let check = |len: usize| -> u32 {
        let sum: u32 = digits[..len]
            .iter()
            .enumerate()
            .map(|(i, d)| d * (len as u32 + 1 - i as u32))
            .sum();
        let rest = (sum * 10) % 11;
        if rest == 10 {
            0
        } else {
            rest
        }
    };
    check(9) == digits[9] && check(10) == digits[10]
}

#[cfg(test)]
pub(crate) mod tests;
