//! # equip-delivery
//!
//! What equip delivers in the background, over the domain's ports, so that
//! the `equip` binary or an embedder can run it:
//!
//! - [`webhooks`]: the webhook dispatcher (claims webhooks with a lease,
//!   posts their events in order, retries and disables after the domain's
//!   rules) and its HTTP transport (ureq, with the address rule enforced when
//!   connecting); see docs/webhooks.md.
//! - [`mail`]: the email outbox dispatcher, the MIME format and the
//!   transports (SMTP through `lettre`, or a spool directory of `.eml`
//!   files); see docs/reminders.md.
//!
//! Both run on threads of their own (their store calls and network
//! conversations block) and stop through the handle their `start` returns.
//! Errors are typed ([`mail::SetupError`], [`webhooks::TransportError`],
//! [`mail::SendError`]); store failures are the domain's `StoreError`.

#![deny(missing_docs)]

pub mod mail;
pub mod webhooks;
