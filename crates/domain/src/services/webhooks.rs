//! Creating, reading and deleting webhooks, and reading their delivery log.
//! Whether the URL's host may be reached is checked by the caller (it needs
//! name resolution, which the domain does not do): see
//! [`crate::webhook::AddressPolicy`].

use chrono::{DateTime, Utc};

use crate::error::DomainError;
use crate::event::EventType;
use crate::event_feed::Cursor;
use crate::ids::{OrganizationId, WebhookId};
use crate::ports::WebhookRepository;
use crate::webhook::{DeliveryAttempt, Webhook, WebhookUrl};

fn not_found(id: WebhookId) -> DomainError {
    DomainError::not_found("webhook", format!("webhook {id} not found"))
}

/// Creates an active webhook with a fresh secret.
///
/// # Errors
/// [`DomainError::Conflict`] when the organization has
/// [`crate::webhook::MAX_WEBHOOKS_PER_ORGANIZATION`] webhooks already
/// (decided in the store's writing transaction); store failures.
pub fn create_webhook(
    ports: &dyn WebhookRepository,
    organization: OrganizationId,
    url: &WebhookUrl,
    types: Vec<EventType>,
    now: DateTime<Utc>,
) -> Result<Webhook, DomainError> {
    let webhook = Webhook::new(organization, url, types, now)?;
    ports
        .insert_webhook(&webhook)?
        .map_err(|limit| DomainError::conflict("webhook", limit.to_string()))
}

/// One webhook of the organization.
///
/// # Errors
/// [`DomainError::NotFound`] (`webhook`) for an unknown id or another
/// organization's; store failures.
pub fn get_webhook(
    ports: &dyn WebhookRepository,
    organization: OrganizationId,
    id: WebhookId,
) -> Result<Webhook, DomainError> {
    ports
        .find_webhook(organization, id)?
        .ok_or_else(|| not_found(id))
}

/// The organization's webhooks, oldest first.
///
/// # Errors
/// Store failures.
pub fn list_webhooks(
    ports: &dyn WebhookRepository,
    organization: OrganizationId,
) -> Result<Vec<Webhook>, DomainError> {
    Ok(ports.list_webhooks(organization)?)
}

/// Deletes a webhook and its delivery log.
///
/// # Errors
/// [`DomainError::NotFound`] (`webhook`); store failures.
pub fn delete_webhook(
    ports: &dyn WebhookRepository,
    organization: OrganizationId,
    id: WebhookId,
) -> Result<(), DomainError> {
    if ports.delete_webhook(organization, id)? {
        Ok(())
    } else {
        Err(not_found(id))
    }
}

/// A page of the webhook's delivery log, newest first, and where the next
/// (older) page starts (`None` after the oldest).
///
/// # Errors
/// [`DomainError::NotFound`] (`webhook`); store failures.
pub fn list_attempts(
    ports: &dyn WebhookRepository,
    organization: OrganizationId,
    id: WebhookId,
    before: Option<Cursor>,
    size: usize,
) -> Result<(Vec<DeliveryAttempt>, Option<Cursor>), DomainError> {
    get_webhook(ports, organization, id)?;
    let attempts = ports.list_webhook_attempts(organization, id, before, size)?;
    let next = (attempts.len() == size)
        .then(|| attempts.last().map(|a| Cursor(a.number)))
        .flatten();
    Ok((attempts, next))
}
