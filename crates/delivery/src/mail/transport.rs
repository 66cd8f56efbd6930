//! Mail transports: SMTP (through `lettre`'s synchronous client, run on the
//! dispatcher's own thread) and a spool directory of `.eml` files (the
//! default, works with no configuration).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use equip_domain::reminder::OutboxMessage;
use lettre::Transport as _;

use super::error::{SendError, SetupError};
use super::format::{format_message, Sender};

/// Something that delivers messages. Implementations block; the dispatcher
/// calls them from its own thread.
pub trait MailTransport: Send + Sync {
    /// Delivers one message.
    ///
    /// # Errors
    /// [`SendError`] when the message was not accepted.
    fn send(&self, message: &OutboxMessage) -> Result<(), SendError>;

    /// A description for logs (no credentials).
    fn describe(&self) -> String;
}

/// Which transport to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportConfig {
    /// An SMTP relay: `smtp://[user:pass@]host[:port][?tls=required|opportunistic]`
    /// or `smtps://[user:pass@]host[:port]` (implicit TLS).
    Smtp {
        /// The connection URL (contains the credentials: never log it as is).
        url: String,
        /// The URL as logs and messages show it, without its password (the
        /// binary hides it as it hides the database's:
        /// `equip_persistence::redact_url`).
        shown: String,
    },
    /// A directory of `.eml` files.
    Spool {
        /// The directory (created when missing).
        dir: PathBuf,
    },
}

impl TransportConfig {
    /// Opens the transport.
    ///
    /// # Errors
    /// [`SetupError`] (without credentials) when the URL is not a valid SMTP
    /// URL or the spool directory cannot be created.
    pub fn open(
        &self,
        from: Sender,
        timeout: Duration,
    ) -> Result<Box<dyn MailTransport>, SetupError> {
        match self {
            Self::Smtp { url, shown } => Ok(Box::new(SmtpMailer::new(url, shown, from, timeout)?)),
            Self::Spool { dir } => Ok(Box::new(SpoolDir::new(dir, from)?)),
        }
    }
}

/// Delivery to an SMTP relay.
pub struct SmtpMailer {
    transport: lettre::SmtpTransport,
    from: Sender,
    shown: String,
}

impl SmtpMailer {
    /// A client for the relay at `url`, shown in logs and messages as
    /// `shown` (without its password); each command times out after
    /// `timeout`.
    ///
    /// # Errors
    /// [`SetupError::InvalidSmtpUrl`] when `url` is not a valid SMTP URL.
    pub fn new(
        url: &str,
        shown: &str,
        from: Sender,
        timeout: Duration,
    ) -> Result<Self, SetupError> {
        let transport = lettre::SmtpTransport::from_url(url)
            .map_err(|cause| SetupError::InvalidSmtpUrl {
                shown: shown.to_owned(),
                cause,
            })?
            .timeout(Some(timeout))
            .build();
        Ok(Self {
            transport,
            from,
            shown: shown.to_owned(),
        })
    }
}

impl MailTransport for SmtpMailer {
    fn send(&self, message: &OutboxMessage) -> Result<(), SendError> {
        let email = format_message(message, &self.from)?;
        self.transport
            .send(&email)
            .map(|_| ())
            .map_err(|e| SendError {
                permanent: e.is_permanent(),
                code: e.status().map(|c| c.to_string()),
                detail: format!("SMTP: {e}"),
            })
    }

    fn describe(&self) -> String {
        format!("SMTP relay {}", self.shown)
    }
}

/// Delivery into a directory: one `<outbox-id>.eml` file per message, written
/// to a temporary name and renamed, so readers never see half a file.
pub struct SpoolDir {
    dir: PathBuf,
    from: Sender,
}

impl SpoolDir {
    /// The spool in `dir`, created when missing.
    ///
    /// # Errors
    /// [`SetupError::SpoolDir`] when the directory cannot be created.
    pub fn new(dir: &Path, from: Sender) -> Result<Self, SetupError> {
        fs::create_dir_all(dir).map_err(|cause| SetupError::SpoolDir {
            dir: dir.to_path_buf(),
            cause,
        })?;
        Ok(Self {
            dir: dir.to_path_buf(),
            from,
        })
    }

    /// Path of the file a message is written to.
    #[must_use]
    pub fn path_of(&self, message: &OutboxMessage) -> PathBuf {
        self.dir.join(format!("{}.eml", message.id))
    }
}

impl MailTransport for SpoolDir {
    fn send(&self, message: &OutboxMessage) -> Result<(), SendError> {
        let bytes = format_message(message, &self.from)?.formatted();
        let target = self.path_of(message);
        let tmp = self.dir.join(format!(".{}.eml.tmp", message.id));
        let write = || -> std::io::Result<()> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            fs::rename(&tmp, &target)
        };
        write().map_err(|e| {
            let _ = fs::remove_file(&tmp);
            SendError::transient(format!("spool: cannot write the message file: {e}"))
        })
    }

    fn describe(&self) -> String {
        format!("spool directory {}", self.dir.display())
    }
}
