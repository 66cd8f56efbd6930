//! What a database URL says before anything connects, and the mistakes refused
//! before they can create anything: a mistyped scheme (`postgres//host/db`
//! would otherwise be a SQLite path), and a PostgreSQL user name or password
//! that is not percent-encoded (libpq would split the URL at the wrong `@` or
//! `/` and quote the password's tail in its error). Also the forms fit for
//! messages: the URL without its password ([`redact_url`]) and libpq's
//! messages without it ([`Secrets::scrub`]).

use crate::error::PersistenceError;

/// Scheme names that, written without their `://`, make a mistyped URL rather
/// than a file path (`postgres//db.internal/equip`, `postgres:/db/equip`).
const SCHEMES: &[&str] = &["postgres", "postgresql", "sqlite"];

/// Why a PostgreSQL URL's user name or password is refused. Says nothing of
/// the URL: it holds the password.
pub(crate) const NOT_PERCENT_ENCODED: &str = "the user name or password in the PostgreSQL URL \
     holds a character that must be percent-encoded: write @ as %40, / as %2F, % as %25 \
     (and : in a user name as %3A); the URL is not repeated here because it holds the password";

/// The refusal of a database URL given without `://` whose start is a URL
/// scheme: `postgres//host/db` (the `:` missing), `postgres:/host/db` or
/// `postgresql:host` (a `/` missing), `http:/x`. Names only the scheme (what
/// follows may hold a password). `None` for anything else, `sqlite:` and
/// `file:` (SQLite's URI form) included.
pub(crate) fn mistyped_scheme(url: &str) -> Option<String> {
    let word_end = url
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')))
        .unwrap_or(url.len());
    let (word, rest) = url.split_at(word_end);
    if word.len() < 2 || !word.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    let known = SCHEMES.contains(&lower.as_str());
    if known && rest.starts_with("//") {
        return Some(format!(
            "it starts with '{word}//', a URL scheme without its ':': write {lower}://… \
             (a SQLite file in a directory of that name: ./{word}/…)"
        ));
    }
    if known && lower != "sqlite" && rest.starts_with(':') {
        return Some(format!(
            "it starts with '{word}:' without '//': write {lower}://…"
        ));
    }
    if rest.starts_with(":/") && !rest.starts_with("://") && lower != "file" && lower != "sqlite" {
        return Some(format!(
            "it starts with '{word}:/', a URL scheme with a '/' missing; use postgres://, \
             postgresql://, sqlite:// or a file path"
        ));
    }
    None
}

/// The user information of a PostgreSQL URL, given the text after `://`:
/// what comes before the last `@` of the part before the query (the query
/// starts at the first `?` after the first `/`; a password may hold a `?`).
/// `None` when there is no `@`.
fn userinfo(rest: &str) -> Option<(&str, &str)> {
    let query_start = rest
        .find('/')
        .and_then(|slash| rest[slash..].find('?').map(|q| slash + q))
        .unwrap_or(rest.len());
    let at = rest[..query_start].rfind('@')?;
    Some((&rest[..at], &rest[at + 1..]))
}

/// Whether every `%` of `text` starts a `%XX` escape.
fn percent_encoded(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let escape = bytes.get(i + 1..i + 3);
            if !escape.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                return false;
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    true
}

/// Whether the user information can be read as libpq reads it: no `@` or `/`
/// in it (libpq stops at the first of either), valid percent escapes.
fn userinfo_is_encoded(info: &str) -> bool {
    !info.contains(['@', '/']) && percent_encoded(info)
}

/// Refuses a PostgreSQL URL (the text after `://`) whose user name or
/// password is not percent-encoded, without quoting it.
pub(crate) fn check_postgres(rest: &str) -> Result<(), PersistenceError> {
    match userinfo(rest) {
        Some((info, _)) if !userinfo_is_encoded(info) => {
            Err(PersistenceError::InvalidUrl(NOT_PERCENT_ENCODED.to_owned()))
        }
        _ => Ok(()),
    }
}

/// `text` with its `%XX` escapes decoded (invalid UTF-8 replaced).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The value of a `password=` parameter in a URL's query, if any.
fn query_password(url: &str) -> Option<&str> {
    let (_, query) = url.split_once('?')?;
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("password="))
}

/// A database URL fit for messages: `postgres://user:***@host/db` (the
/// password of the user information and of a `password=` parameter replaced);
/// when the user information is not percent-encoded, all of it
/// (`postgres://***@host/db`). Anything else as given.
#[must_use]
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let mut shown = match userinfo(rest) {
        Some((info, after)) if !userinfo_is_encoded(info) => format!("{scheme}://***@{after}"),
        Some((info, after)) => match info.split_once(':') {
            Some((user, _password)) => format!("{scheme}://{user}:***@{after}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    };
    if let Some(password) = query_password(&shown).filter(|p| !p.is_empty()) {
        shown = shown.replace(&format!("password={password}"), "password=***");
    }
    shown
}

/// The passwords of a PostgreSQL URL, as written and decoded, to be removed
/// from any message that might quote them (libpq's).
#[derive(Debug, Clone, Default)]
pub(crate) struct Secrets(Vec<String>);

impl Secrets {
    /// The passwords in `url` (of its user information and of a `password=`
    /// parameter).
    pub(crate) fn of(url: &str) -> Self {
        let mut found = Vec::new();
        if let Some((_, rest)) = url.split_once("://") {
            if let Some((info, _)) = userinfo(rest) {
                if let Some((_, password)) = info.split_once(':') {
                    found.push(password.to_owned());
                }
            }
        }
        if let Some(password) = query_password(url) {
            found.push(password.to_owned());
        }
        let mut all: Vec<String> = found
            .iter()
            .flat_map(|p| [p.clone(), percent_decode(p)])
            .filter(|p| !p.is_empty())
            .collect();
        // Longest first, so that a decoded form containing the raw one (or
        // the reverse) is replaced whole.
        all.sort_by_key(|p| std::cmp::Reverse(p.len()));
        all.dedup();
        Self(all)
    }

    /// `message` with every occurrence of a password replaced by `***`.
    pub(crate) fn scrub(&self, message: &str) -> String {
        let mut out = message.to_owned();
        for secret in &self.0 {
            out = out.replace(secret.as_str(), "***");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mistyped_schemes_are_named() {
        for url in [
            "postgres//db.internal/equip",
            "postgresql//u@h/db",
            "POSTGRES//h/db",
            "postgres:/h/db",
            "postgresql:h/db",
            "sqlite//x.db",
            "http:/x",
        ] {
            assert!(mistyped_scheme(url).is_some(), "{url}");
        }
        for url in [
            "./equip.db",
            "equip.db",
            "data/equip.db",
            "/var/lib/equip/equip.db",
            "file:equip.db?mode=ro",
            "file:/var/equip.db?mode=ro",
            ":memory:",
            "postgres/equip.db",
            "var//equip.db",
            "C:/equip.db",
        ] {
            assert_eq!(mistyped_scheme(url), None, "{url}");
        }
        let message = mistyped_scheme("postgres//u:s3cret@h/db").unwrap();
        assert!(message.contains("postgres://"), "{message}");
        assert!(!message.contains("s3cret"), "{message}");
    }

    #[test]
    fn userinfo_must_be_percent_encoded() {
        assert!(check_postgres("u:pa@ss%word@127.0.0.1/db").is_err());
        assert!(check_postgres("u:pa/ss@127.0.0.1/db").is_err());
        assert!(check_postgres("u:100%@127.0.0.1/db").is_err());
        assert!(check_postgres("u:pa%40ss%25word@127.0.0.1/db").is_ok());
        assert!(check_postgres("u:p?ss@127.0.0.1/db").is_ok());
        assert!(check_postgres("u@127.0.0.1/db?options=a@b").is_ok());
        assert!(check_postgres("127.0.0.1/db").is_ok());
        assert!(check_postgres("").is_ok());
        let Err(PersistenceError::InvalidUrl(message)) =
            check_postgres("u:pa@ss%word@127.0.0.1/db")
        else {
            panic!("refused")
        };
        assert!(!message.contains("ss%word"), "{message}");
        assert!(message.contains("percent-encoded"), "{message}");
    }

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact_url("postgres://equip:s3cret@db:5432/equip"),
            "postgres://equip:***@db:5432/equip"
        );
        assert_eq!(
            redact_url("postgres://equip@db/equip"),
            "postgres://equip@db/equip"
        );
        assert_eq!(
            redact_url("postgres://u:pa@ss%word@127.0.0.1/db"),
            "postgres://***@127.0.0.1/db"
        );
        assert_eq!(
            redact_url("postgres://u:pa/ss@127.0.0.1/db"),
            "postgres://***@127.0.0.1/db"
        );
        assert_eq!(
            redact_url("postgres://u@h/db?password=s3cret&sslmode=require"),
            "postgres://u@h/db?password=***&sslmode=require"
        );
        assert_eq!(redact_url("./equip.db"), "./equip.db");
        assert_eq!(redact_url("sqlite://x.db"), "sqlite://x.db");
    }

    #[test]
    fn libpq_messages_lose_the_password() {
        let secrets = Secrets::of("postgres://u:pa%40ss%25w@h/db?password=other");
        let scrubbed = secrets.scrub("a pa@ss%w b pa%40ss%25w c other");
        assert_eq!(scrubbed, "a *** b *** c ***");
        assert_eq!(Secrets::of("postgres://u@h/db").scrub("u@h"), "u@h");
    }
}
