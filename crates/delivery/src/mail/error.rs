//! What can go wrong with mail: a message not delivered ([`SendError`],
//! recorded on the message) and a transport that cannot be set up
//! ([`SetupError`], said when the dispatcher starts).

use std::path::PathBuf;

/// A failed delivery attempt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct SendError {
    /// The server refused the message for good (5xx, invalid address):
    /// retrying would not help.
    pub permanent: bool,
    /// SMTP reply code, when the server answered.
    pub code: Option<String>,
    /// What happened (stored as the message's last error; may quote the
    /// server's reply, so it is not logged).
    pub detail: String,
}

impl SendError {
    /// A failure worth retrying.
    pub fn transient(detail: impl Into<String>) -> Self {
        Self {
            permanent: false,
            code: None,
            detail: detail.into(),
        }
    }

    /// A failure not worth retrying.
    pub fn permanent(detail: impl Into<String>) -> Self {
        Self {
            permanent: true,
            code: None,
            detail: detail.into(),
        }
    }

    /// A description safe for logs: the kind and the SMTP code, no text.
    #[must_use]
    pub fn summary(&self) -> String {
        let kind = if self.permanent {
            "permanent"
        } else {
            "transient"
        };
        match &self.code {
            Some(code) => format!("{kind} failure, SMTP {code}"),
            None => format!("{kind} failure"),
        }
    }
}

/// Mail delivery that cannot be set up: the configuration is wrong or the
/// spool directory cannot be made. Each message names what to fix and holds
/// no credentials.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The From address does not parse.
    #[error("'{raw}' is not a valid From address: {cause}")]
    InvalidFrom {
        /// The address as given.
        raw: String,
        /// Why it does not parse.
        cause: lettre::address::AddressError,
    },
    /// The SMTP URL is not one `lettre` accepts.
    #[error("invalid SMTP URL {shown}: {cause}")]
    InvalidSmtpUrl {
        /// The URL as messages show it (without its password).
        shown: String,
        /// Why it was refused.
        cause: lettre::transport::smtp::Error,
    },
    /// The spool directory cannot be created.
    #[error("cannot create the spool directory {}: {cause}", dir.display())]
    SpoolDir {
        /// The directory.
        dir: PathBuf,
        /// What the file system said.
        cause: std::io::Error,
    },
}
