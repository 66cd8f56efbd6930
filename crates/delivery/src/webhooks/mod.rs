//! Webhook delivery: the [`dispatcher`] (claims webhooks with a lease, reads
//! their events from the feed and POSTs them in order, retries with back-off,
//! gives up and disables after the domain's 24-hour rules) and the HTTP
//! [`transport`] (ureq, with a resolver that refuses private addresses and
//! hands ureq only the vetted ones). See docs/webhooks.md.

pub mod dispatcher;
pub mod transport;

pub use dispatcher::{DeliveryStore, RunningDispatcher, WebhookDispatcher, WebhookOptions};
pub use transport::{Answer, HttpTransport, TransportError, WebhookTransport};
