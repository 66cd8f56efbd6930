//! What else an identity provider says about a person: the further parts of
//! the name, the profile texts (nickname, title, language, time zone…) and
//! the multi-valued lists (instant messaging addresses, photos,
//! entitlements, roles, certificates). equip keeps them as sent, shows them
//! back and lets clients filter on the texts; no rule of equip depends on
//! them. The rules here are limits only: lengths, how many entries a list
//! holds, at most one primary entry, no NUL characters.

use serde::Serialize;

use crate::error::DomainError;
use crate::text::{check_optional_length, LONG_TEXT_MAX, SHORT_TEXT_MAX};

/// Most entries one list of a profile holds (each of `ims`, `photos`,
/// `entitlements`, `roles`, `x509Certificates`).
pub const PROFILE_ENTRIES_MAX: usize = 50;

/// Longest certificate (the base64 DER text of one `x509Certificates`
/// entry), in characters.
pub const CERTIFICATE_MAX: usize = 16_384;

/// One entry of a multi-valued profile list.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ProfileEntry {
    /// The value: an address, a URL, an entitlement, a role, a certificate.
    pub value: String,
    /// A label to show for it.
    pub display: Option<String>,
    /// A free-form type (`work`, `aim`, `photo`, `thumbnail`…).
    pub kind: Option<String>,
    /// Whether it is the primary entry of its list; at most one is.
    pub primary: bool,
}

/// The profile of a person beyond what equip's own rules use; every part
/// optional (an empty list is none).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Profile {
    /// The full name as it is shown, with every part (`name.formatted`).
    pub formatted_name: Option<String>,
    pub middle_name: Option<String>,
    /// `Ms.`, `Dr.`…
    pub honorific_prefix: Option<String>,
    /// `III`, `PhD`…
    pub honorific_suffix: Option<String>,
    /// The casual name the person goes by.
    pub nick_name: Option<String>,
    /// Job title.
    pub title: Option<String>,
    /// The organization's own kind of person (`Employee`, `Contractor`…).
    pub user_type: Option<String>,
    /// Preferred written or spoken language, e.g. `en-US`.
    pub preferred_language: Option<String>,
    /// Locale for formatting, e.g. `en-US`.
    pub locale: Option<String>,
    /// Time zone name, e.g. `America/Los_Angeles`.
    pub timezone: Option<String>,
    /// URL of the person's profile page.
    pub profile_url: Option<String>,
    /// Instant messaging addresses.
    pub ims: Vec<ProfileEntry>,
    /// URLs of photos.
    pub photos: Vec<ProfileEntry>,
    pub entitlements: Vec<ProfileEntry>,
    pub roles: Vec<ProfileEntry>,
    /// Certificates (base64 DER).
    pub x509_certificates: Vec<ProfileEntry>,
}

/// One of the multi-valued lists of a [`Profile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileList {
    /// `ims`.
    Ims,
    /// `photos`.
    Photos,
    /// `entitlements`.
    Entitlements,
    /// `roles`.
    Roles,
    /// `x509Certificates`.
    X509Certificates,
}

impl ProfileList {
    /// Every list, in the order they are shown.
    pub const ALL: [Self; 5] = [
        Self::Ims,
        Self::Photos,
        Self::Entitlements,
        Self::Roles,
        Self::X509Certificates,
    ];

    /// The attribute's name, as errors name it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Ims => "ims",
            Self::Photos => "photos",
            Self::Entitlements => "entitlements",
            Self::Roles => "roles",
            Self::X509Certificates => "x509Certificates",
        }
    }

    /// Longest value of one entry, in characters.
    #[must_use]
    pub const fn value_max(self) -> usize {
        match self {
            Self::Ims | Self::Entitlements | Self::Roles => SHORT_TEXT_MAX,
            Self::Photos => LONG_TEXT_MAX,
            Self::X509Certificates => CERTIFICATE_MAX,
        }
    }
}

impl Profile {
    /// The list `which`.
    #[must_use]
    pub fn list(&self, which: ProfileList) -> &[ProfileEntry] {
        match which {
            ProfileList::Ims => &self.ims,
            ProfileList::Photos => &self.photos,
            ProfileList::Entitlements => &self.entitlements,
            ProfileList::Roles => &self.roles,
            ProfileList::X509Certificates => &self.x509_certificates,
        }
    }

    /// The list `which`, to change.
    pub fn list_mut(&mut self, which: ProfileList) -> &mut Vec<ProfileEntry> {
        match which {
            ProfileList::Ims => &mut self.ims,
            ProfileList::Photos => &mut self.photos,
            ProfileList::Entitlements => &mut self.entitlements,
            ProfileList::Roles => &mut self.roles,
            ProfileList::X509Certificates => &mut self.x509_certificates,
        }
    }

    /// The texts, named by their attribute paths, with their longest length.
    fn texts(&self) -> [(&'static str, Option<&str>, usize); 11] {
        [
            (
                "name.formatted",
                self.formatted_name.as_deref(),
                SHORT_TEXT_MAX,
            ),
            (
                "name.middleName",
                self.middle_name.as_deref(),
                SHORT_TEXT_MAX,
            ),
            (
                "name.honorificPrefix",
                self.honorific_prefix.as_deref(),
                SHORT_TEXT_MAX,
            ),
            (
                "name.honorificSuffix",
                self.honorific_suffix.as_deref(),
                SHORT_TEXT_MAX,
            ),
            ("nickName", self.nick_name.as_deref(), SHORT_TEXT_MAX),
            ("title", self.title.as_deref(), SHORT_TEXT_MAX),
            ("userType", self.user_type.as_deref(), SHORT_TEXT_MAX),
            (
                "preferredLanguage",
                self.preferred_language.as_deref(),
                SHORT_TEXT_MAX,
            ),
            ("locale", self.locale.as_deref(), SHORT_TEXT_MAX),
            ("timezone", self.timezone.as_deref(), SHORT_TEXT_MAX),
            ("profileUrl", self.profile_url.as_deref(), LONG_TEXT_MAX),
        ]
    }

    /// Whether any part of the name is set (`name.formatted` and the others).
    #[must_use]
    pub const fn has_name_parts(&self) -> bool {
        self.formatted_name.is_some()
            || self.middle_name.is_some()
            || self.honorific_prefix.is_some()
            || self.honorific_suffix.is_some()
    }

    /// Checks the limits: every text within its length
    /// ([`SHORT_TEXT_MAX`], [`LONG_TEXT_MAX`] for `profileUrl` and photos,
    /// [`CERTIFICATE_MAX`] for a certificate), no NUL character (PostgreSQL
    /// cannot store one), at most [`PROFILE_ENTRIES_MAX`] entries and one
    /// primary entry per list.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the attribute (`title`,
    /// `roles.value`, `photos`…).
    pub fn check(&self) -> Result<(), DomainError> {
        for (field, value, max) in self.texts() {
            check_text(field, value, max)?;
        }
        for which in ProfileList::ALL {
            let list = self.list(which);
            let name = which.name();
            if list.len() > PROFILE_ENTRIES_MAX {
                return Err(DomainError::invalid(
                    name,
                    format!("{name} may hold at most {PROFILE_ENTRIES_MAX} entries"),
                ));
            }
            if list.iter().filter(|e| e.primary).count() > 1 {
                return Err(DomainError::invalid(
                    name,
                    format!("at most one of {name} may be primary"),
                ));
            }
            for e in list {
                check_text(sub_path(which, "value"), Some(&e.value), which.value_max())?;
                check_text(
                    sub_path(which, "display"),
                    e.display.as_deref(),
                    SHORT_TEXT_MAX,
                )?;
                check_text(sub_path(which, "type"), e.kind.as_deref(), SHORT_TEXT_MAX)?;
            }
        }
        Ok(())
    }
}

/// `list.sub` as a static attribute path.
const fn sub_path(which: ProfileList, sub: &str) -> &'static str {
    match (which, sub.as_bytes()) {
        (ProfileList::Ims, b"value") => "ims.value",
        (ProfileList::Ims, b"display") => "ims.display",
        (ProfileList::Ims, _) => "ims.type",
        (ProfileList::Photos, b"value") => "photos.value",
        (ProfileList::Photos, b"display") => "photos.display",
        (ProfileList::Photos, _) => "photos.type",
        (ProfileList::Entitlements, b"value") => "entitlements.value",
        (ProfileList::Entitlements, b"display") => "entitlements.display",
        (ProfileList::Entitlements, _) => "entitlements.type",
        (ProfileList::Roles, b"value") => "roles.value",
        (ProfileList::Roles, b"display") => "roles.display",
        (ProfileList::Roles, _) => "roles.type",
        (ProfileList::X509Certificates, b"value") => "x509Certificates.value",
        (ProfileList::X509Certificates, b"display") => "x509Certificates.display",
        (ProfileList::X509Certificates, _) => "x509Certificates.type",
    }
}

/// A text within `max` characters and without NUL characters.
fn check_text(field: &str, value: Option<&str>, max: usize) -> Result<(), DomainError> {
    if value.is_some_and(|v| v.contains('\0')) {
        return Err(DomainError::invalid(
            field,
            format!("{field} must not contain NUL characters"),
        ));
    }
    check_optional_length(field, value, max)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn field_of(p: &Profile) -> Option<String> {
        match p.check() {
            Err(DomainError::Invalid { field, .. }) => Some(field),
            _ => None,
        }
    }

    fn entry(value: &str, primary: bool) -> ProfileEntry {
        ProfileEntry {
            value: value.into(),
            primary,
            ..ProfileEntry::default()
        }
    }

    #[test]
    fn an_empty_profile_is_valid() {
        assert!(Profile::default().check().is_ok());
        assert!(!Profile::default().has_name_parts());
    }

    #[test]
    fn texts_are_limited_and_named() {
        let p = Profile {
            title: Some("x".repeat(SHORT_TEXT_MAX + 1)),
            ..Profile::default()
        };
        assert_eq!(field_of(&p), Some("title".into()));
        let p = Profile {
            profile_url: Some("x".repeat(LONG_TEXT_MAX)),
            middle_name: Some("a\0b".into()),
            ..Profile::default()
        };
        assert_eq!(field_of(&p), Some("name.middleName".into()));
    }

    #[test]
    fn lists_are_limited_in_length_entries_and_primaries() {
        let mut p = Profile::default();
        *p.list_mut(ProfileList::Roles) = (0..=PROFILE_ENTRIES_MAX)
            .map(|i| entry(&i.to_string(), false))
            .collect();
        assert_eq!(field_of(&p), Some("roles".into()));
        let p = Profile {
            ims: vec![entry("a", true), entry("b", true)],
            ..Profile::default()
        };
        assert_eq!(field_of(&p), Some("ims".into()));
        let p = Profile {
            x509_certificates: vec![entry(&"M".repeat(CERTIFICATE_MAX), true)],
            photos: vec![entry(&"h".repeat(LONG_TEXT_MAX + 1), false)],
            ..Profile::default()
        };
        assert_eq!(field_of(&p), Some("photos.value".into()));
    }
}
