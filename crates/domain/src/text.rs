//! Rules for the text a client writes: how identifiers compare
//! ([`identifier_key`]), which characters an identifier may hold
//! ([`check_identifier`]), what an email address is ([`check_email_address`]),
//! and how long each field may be ([`check_length`] and the `*_MAX`
//! constants, published in `docs/reliability.md` and the OpenAPI document).
//!
//! Every layer compares identifiers (userName, email addresses) through
//! [`identifier_key`] only: the "userName equals the primary email" rule, the
//! uniqueness of userName (the store keeps the key in a column), filters on
//! userName and emails, and the in-memory store.

use icu_casemap::CaseMapperBorrowed;
use icu_normalizer::ComposingNormalizerBorrowed;
use icu_properties::props::DefaultIgnorableCodePoint;
use icu_properties::CodePointSetData;

use crate::error::DomainError;

/// Longest short text, in characters (Unicode scalar values): names, display
/// names, labels, codes, titles, externalId, …
pub const SHORT_TEXT_MAX: usize = 256;
/// Longest email address (and userName), in characters: 64 for the local
/// part, 1 for `@`, 255 for the domain (RFC 5321 §4.5.3.1).
pub const EMAIL_MAX: usize = 320;
/// Longest local part of an email address, in bytes (RFC 5321 §4.5.3.1.1).
pub const EMAIL_LOCAL_MAX: usize = 64;
/// Longest domain of an email address, in bytes (RFC 5321 §4.5.3.1.2).
pub const EMAIL_DOMAIN_MAX: usize = 255;
/// Longest phone number, in characters.
pub const PHONE_MAX: usize = 64;
/// Longest long text, in characters: descriptions, notes, street lines.
pub const LONG_TEXT_MAX: usize = 2048;

/// The key two identifiers (userName, email addresses) are compared by: the
/// NFC normalization of the full Unicode case folding of the NFC form. Two
/// identifiers are the same when their keys are equal; `café` in NFC and NFD,
/// and `Ädä` and `äDÄ`, have one key.
#[must_use]
pub fn identifier_key(value: &str) -> String {
    let nfc = ComposingNormalizerBorrowed::new_nfc();
    let folded = CaseMapperBorrowed::new()
        .fold_string(&nfc.normalize(value))
        .into_owned();
    nfc.normalize(&folded).into_owned()
}

/// Whether two identifiers are the same ([`identifier_key`]).
#[must_use]
pub fn same_identifier(a: &str, b: &str) -> bool {
    a == b || identifier_key(a) == identifier_key(b)
}

/// Whether `c` may not appear in an identifier: a control character or a
/// default-ignorable code point (zero-width space and joiners, bidirectional
/// controls, soft hyphen, variation selectors, tags, …), which would make two
/// identifiers that look alike differ.
#[must_use]
pub fn is_invisible(c: char) -> bool {
    c.is_control() || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
}

/// Checks an identifier (userName, an email address, externalId): no
/// control characters and no default-ignorable code points ([`is_invisible`]).
///
/// # Errors
/// [`DomainError::Invalid`] naming `field`.
pub fn check_identifier(field: &str, value: &str) -> Result<(), DomainError> {
    match value.chars().find(|c| is_invisible(*c)) {
        Some(c) => Err(DomainError::invalid(
            field,
            format!(
                "{field} must not contain control or invisible characters (found U+{:04X})",
                u32::from(c)
            ),
        )),
        None => Ok(()),
    }
}

/// Checks that `value` is at most `max` characters long.
///
/// Every error of this module names `field` in its message too: the SCIM
/// error body carries the message only.
///
/// # Errors
/// [`DomainError::Invalid`] naming `field`.
pub fn check_length(field: &str, value: &str, max: usize) -> Result<(), DomainError> {
    // Cheap first: a string of at most `max` bytes has at most `max` characters.
    if value.len() <= max || value.chars().count() <= max {
        Ok(())
    } else {
        Err(DomainError::invalid(
            field,
            format!("{field} must be at most {max} characters long"),
        ))
    }
}

/// [`check_length`] for an optional value.
///
/// # Errors
/// [`DomainError::Invalid`] naming `field`.
pub fn check_optional_length(
    field: &str,
    value: Option<&str>,
    max: usize,
) -> Result<(), DomainError> {
    value.map_or(Ok(()), |v| check_length(field, v, max))
}

/// Characters RFC 5322 `atext` allows besides letters and digits.
const ATEXT_SPECIALS: &str = "!#$%&'*+-/=?^_`{|}~";

fn is_atext(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || ATEXT_SPECIALS.contains(c)
        // RFC 6532 §3.2: UTF8-non-ascii is atext too (internationalized
        // addresses); whitespace and invisible characters are not.
        || (!c.is_ascii() && !c.is_whitespace() && !is_invisible(c))
}

fn is_domain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || (!c.is_ascii() && c.is_alphanumeric())
}

/// Whether `value` is an email address equip accepts: an RFC 5322
/// `addr-spec` in its `dot-atom` form, `local@domain`, and nothing else.
///
/// - No display name (`Ana <ana@x.example>`), no comments (`(…)`), no
///   whitespace, no control or invisible characters, no list (`a,b@x`).
/// - The local part is dot-separated atoms of `atext` (letters, digits,
///   ``!#$%&'*+-/=?^_`{|}~`` and, per RFC 6532, non-ASCII letters), at most
///   64 bytes. Quoted local parts (`"a b"@x.example`) are refused.
/// - The domain is dot-separated labels of letters, digits and `-` (not at
///   a label's ends), each at most 63 bytes, at most 255 bytes in all.
///   Domain literals (`x@[127.0.0.1]`) are refused.
#[must_use]
pub fn is_email_address(value: &str) -> bool {
    let Some((local, domain)) = value.rsplit_once('@') else {
        return false;
    };
    let dot_atom = |s: &str, ok: &dyn Fn(&str) -> bool| {
        !s.is_empty() && s.split('.').all(|atom| !atom.is_empty() && ok(atom))
    };
    local.len() <= EMAIL_LOCAL_MAX
        && domain.len() <= EMAIL_DOMAIN_MAX
        && dot_atom(local, &|atom| atom.chars().all(is_atext))
        && dot_atom(domain, &|label| {
            label.len() <= 63
                && label.chars().all(is_domain_char)
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// Checks an email address: [`check_length`] ([`EMAIL_MAX`]),
/// [`check_identifier`] and [`is_email_address`].
///
/// # Errors
/// [`DomainError::Invalid`] naming `field`.
pub fn check_email_address(field: &str, value: &str) -> Result<(), DomainError> {
    check_length(field, value, EMAIL_MAX)?;
    check_identifier(field, value)?;
    if is_email_address(value) {
        Ok(())
    } else {
        Err(DomainError::invalid(
            field,
            format!(
                "{field} is not an email address: expected local@domain, without display \
                 name, comments, quotes or domain literal"
            ),
        ))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn identifier_keys_fold_case_and_normalize() {
        let nfc = "caf\u{e9}@x.example";
        let nfd = "cafe\u{301}@x.example";
        assert_ne!(nfc, nfd);
        assert_eq!(identifier_key(nfc), identifier_key(nfd));
        assert!(same_identifier("Äd\u{e4}@x.example", "\u{e4}DÄ@x.example"));
        assert!(same_identifier("STRASSE@x.example", "straße@x.example"));
        assert!(same_identifier("ADA@Example.COM", "ada@example.com"));
        assert!(!same_identifier("ada@example.com", "ada2@example.com"));
    }

    #[test]
    fn invisible_characters_are_refused_in_identifiers() {
        for bad in [
            "ada\u{200b}@x.example",
            "ada\u{200d}@x.example",
            "ada\u{feff}@x.example",
            "ada\u{202e}@x.example",
            "ada\u{ad}@x.example",
            "ada\u{7}@x.example",
            "ada\u{85}@x.example",
        ] {
            assert!(check_identifier("userName", bad).is_err(), "{bad:?}");
        }
        assert!(check_identifier("userName", "Zoë-Ana@x.example").is_ok());
    }

    #[test]
    fn email_addresses_are_plain_addr_specs() {
        for good in [
            "ada@example.com",
            "ada.lovelace+equip@mail.example.co.uk",
            "o'brien@x.example",
            "caf\u{e9}@x.example",
            "Äd\u{e4}@x.example",
            "a@localhost",
            "user@bücher.example",
            "{t}|~!#$%&*/=?^_`@x.example",
        ] {
            assert!(is_email_address(good), "{good}");
            assert!(check_email_address("emails", good).is_ok(), "{good}");
        }
        for bad in [
            "Attacker<attacker@evil.example>",
            "Attacker <attacker@evil.example>",
            "a,b@a.example",
            "\"a\u{7}b\"@x.example",
            "\"a b\"@x.example",
            "x@[127.0.0.1]",
            "ada@example.com (work)",
            "ada(c)@example.com",
            "ada",
            "@x.example",
            "ada@",
            "a..b@x.example",
            ".a@x.example",
            "a.@x.example",
            "a@x..example",
            "a@-x.example",
            "a@x-.example",
            "a@x.example.",
            "a b@x.example",
            "a@b@x.example",
            "a\u{200b}@x.example",
            "a@x.exa\u{200b}mple",
        ] {
            assert!(check_email_address("emails", bad).is_err(), "{bad:?}");
        }
        let long_local = format!("{}@x.example", "a".repeat(65));
        assert!(!is_email_address(&long_local));
        let label = "a".repeat(63);
        let long_domain = format!("a@{label}.{label}.{label}.{label}.example");
        assert!(long_domain.len() - 2 > EMAIL_DOMAIN_MAX);
        assert!(!is_email_address(&long_domain));
    }

    #[test]
    fn lengths_count_characters() {
        assert!(check_length("displayName", &"é".repeat(256), SHORT_TEXT_MAX).is_ok());
        let err = check_length("displayName", &"é".repeat(257), SHORT_TEXT_MAX).unwrap_err();
        assert!(matches!(err, DomainError::Invalid { ref field, .. } if field == "displayName"));
        assert!(check_optional_length("description", None, LONG_TEXT_MAX).is_ok());
    }
}
