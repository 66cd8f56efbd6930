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
use crate::webhook::{generate_secret, DeliveryAttempt, RotationOverlap, Webhook, WebhookUrl};

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

/// Rotations of one webhook tried in a row when others keep changing its
/// secret meanwhile.
const ROTATION_ATTEMPTS: usize = 10;

/// Gives a webhook a new secret (returned in the webhook). Deliveries are
/// signed with both the old and the new secret until `now + overlap`, then
/// with the new one only ([`crate::webhook::SigningSecrets::rotated`]); a
/// secret older than the old one stops at once. Nothing else changes: the
/// webhook keeps its position in the feed, its retries and its log.
/// Concurrent rotations of one webhook take effect one after the other (a
/// rotation that finds the secret changed since it read it reads it again).
///
/// # Errors
/// [`DomainError::NotFound`] (`webhook`); store failures, among them
/// [`crate::StoreError::Unavailable`] when other rotations kept changing the
/// secret [`ROTATION_ATTEMPTS`] times in a row.
pub fn rotate_secret(
    ports: &dyn WebhookRepository,
    organization: OrganizationId,
    id: WebhookId,
    overlap: RotationOverlap,
    now: DateTime<Utc>,
) -> Result<Webhook, DomainError> {
    for _ in 0..ROTATION_ATTEMPTS {
        let webhook = get_webhook(ports, organization, id)?;
        let secrets = webhook
            .signing_secrets()
            .rotated(generate_secret()?, now, overlap);
        match ports.replace_webhook_secrets(organization, id, &webhook.secret, &secrets)? {
            Some(Ok(stored)) => return Ok(stored),
            Some(Err(_changed)) => {}
            None => return Err(not_found(id)),
        }
    }
    Err(crate::StoreError::Unavailable(format!(
        "webhook {id}: its secret changed under {ROTATION_ATTEMPTS} rotations in a row"
    ))
    .into())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::InMemoryStore;
    use crate::webhook::WebhookUrl;

    #[test]
    fn a_rotation_keeps_the_position_and_signs_with_both_secrets_for_the_overlap() {
        let store = InMemoryStore::default();
        let org = crate::services::admin::create_organization(&store, "Acme", Utc::now())
            .unwrap()
            .id;
        let url = WebhookUrl::parse("https://hooks.example.com/x").unwrap();
        let hook = create_webhook(&store, org, &url, Vec::new(), Utc::now()).unwrap();
        let now = Utc::now();
        let overlap = RotationOverlap::parse(Some(60)).unwrap();
        let rotated = rotate_secret(&store, org, hook.id, overlap, now).unwrap();
        assert_ne!(rotated.secret, hook.secret);
        assert_eq!(rotated.delivery, hook.delivery);
        assert_eq!(
            rotated.signing_secrets().valid_at(now),
            [rotated.secret.as_str(), hook.secret.as_str()]
        );
        let again = rotate_secret(&store, org, hook.id, overlap, now).unwrap();
        assert_eq!(
            again.signing_secrets().valid_at(now),
            [again.secret.as_str(), rotated.secret.as_str()]
        );
        let other = crate::services::admin::create_organization(&store, "B", Utc::now())
            .unwrap()
            .id;
        assert!(matches!(
            rotate_secret(&store, other, hook.id, overlap, now),
            Err(DomainError::NotFound { .. })
        ));
    }
}
