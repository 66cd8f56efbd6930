//! Email delivery: the outbox [`dispatcher`], the message [`format`] (MIME,
//! headers) and the [`transport`]s (SMTP through `lettre`, or a spool
//! directory of `.eml` files, the default).
//!
//! The content of a message (subject, text, HTML) is decided by the domain
//! (`equip_domain::email`) when the reminder is written; this module only
//! wraps it in a MIME message and hands it to a transport.

pub mod dispatcher;
pub mod error;
pub mod format;
pub mod transport;

pub use dispatcher::{DispatchReport, Dispatcher, DispatcherOptions, RunningDispatcher};
pub use error::{SendError, SetupError};
pub use format::{format_message, Sender, DEFAULT_FROM};
pub use transport::{MailTransport, SmtpMailer, SpoolDir, TransportConfig};
