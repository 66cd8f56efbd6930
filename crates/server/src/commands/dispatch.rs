//! `equip dispatch [--once]`: deliver the email outbox outside `equip serve`
//! (operations: flush it now, or run dispatchers apart from the HTTP servers).

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use chrono::Utc;
use equip_domain::ports::OutboxRepository;

use super::{open, DatabaseConfig};
use crate::cli::{DispatchArgs, MailArgs};
use equip_delivery::mail::{Dispatcher, DispatcherOptions, Sender, TransportConfig};

/// The transport the mail settings name: SMTP when a URL is given, else the
/// spool directory.
#[must_use]
pub fn transport_config(mail: &MailArgs) -> TransportConfig {
    match mail
        .smtp_url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
    {
        Some(url) => TransportConfig::Smtp {
            url: url.to_owned(),
            shown: super::redact_url(url),
        },
        None => TransportConfig::Spool {
            dir: mail.spool_dir.clone(),
        },
    }
}

/// A dispatcher over `store` configured by `mail`.
///
/// # Errors
/// An invalid From address or SMTP URL, or a spool directory that cannot be
/// created.
pub fn dispatcher(store: Arc<dyn OutboxRepository>, mail: &MailArgs) -> anyhow::Result<Dispatcher> {
    let from = Sender::parse(&mail.mail_from)?;
    let send_timeout = Duration::from_secs(mail.smtp_timeout.max(1));
    let options = DispatcherOptions {
        send_timeout,
        // Room for a whole batch of sends (plus the safety margin) in one lease.
        lease: (send_timeout * 12).max(Duration::from_secs(300)),
        poll_interval: Duration::from_secs(mail.dispatch_interval.max(1)),
        ..DispatcherOptions::default()
    };
    let transport = transport_config(mail).open(from, send_timeout)?;
    Ok(Dispatcher::new(store, transport, options))
}

/// Runs the command.
///
/// # Errors
/// Database or configuration failures.
pub fn run(db: &DatabaseConfig, args: &DispatchArgs) -> anyhow::Result<()> {
    let store = Arc::new(open(db)?);
    let dispatcher = dispatcher(store.clone(), &args.mail)?;
    if !args.once {
        let (_keep, stop) = std::sync::mpsc::channel::<()>();
        dispatcher.run(&stop);
        return Ok(());
    }
    let report = dispatcher
        .run_once()
        .context("the outbox could not be delivered")?;
    let stats = store
        .outbox_stats()
        .context("cannot read the outbox depth")?;
    crate::logs::announce(&format!(
        "dispatched through {}: {} sent, {} to retry, {} dead, {} left for another dispatcher",
        dispatcher.transport(),
        report.sent,
        report.retried,
        report.dead,
        report.lost
    ));
    crate::logs::announce(&format!(
        "outbox: {} pending (oldest {}s), {} dead",
        stats.pending,
        stats.oldest_pending_age(Utc::now()).num_seconds(),
        stats.dead
    ));
    Ok(())
}
