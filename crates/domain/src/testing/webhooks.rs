//! Webhooks, their delivery log and the delivery queue in memory.

use super::*;
use crate::event_feed::Cursor;
use crate::ids::WebhookId;
use crate::webhook::{
    room_for_another, DeliveryAttempt, SecretChangedMeanwhile, SigningSecrets, Webhook,
    WebhookLimitReached, WebhookProgress, WebhookStatus,
};

fn claimable(s: &State, w: &Webhook, now: DateTime<Utc>) -> bool {
    let (head, _) = s
        .event_heads
        .get(&w.organization_id)
        .copied()
        .unwrap_or((0, 0));
    w.status == WebhookStatus::Active
        && w.delivery.position < head
        && w.delivery.next_attempt_at.is_none_or(|t| t <= now)
        && w.claimed_until.is_none_or(|t| t < now)
}

impl crate::ports::WebhookRepository for InMemoryStore {
    fn insert_webhook(
        &self,
        webhook: &Webhook,
    ) -> StoreResult<Result<Webhook, WebhookLimitReached>> {
        let mut s = self.state();
        if !s
            .organizations
            .iter()
            .any(|o| o.id == webhook.organization_id)
        {
            return Err(StoreError::MissingReference {
                entity: "webhook",
                detail: "organization not found".into(),
            });
        }
        let existing = s
            .webhooks
            .iter()
            .filter(|w| w.organization_id == webhook.organization_id)
            .count();
        if let Err(limit) = room_for_another(existing) {
            return Ok(Err(limit));
        }
        let mut webhook = webhook.clone();
        webhook.delivery.position = s
            .event_heads
            .get(&webhook.organization_id)
            .map_or(0, |(head, _)| *head);
        s.webhooks.push(webhook.clone());
        Ok(Ok(webhook))
    }

    fn list_webhooks(&self, organization: OrganizationId) -> StoreResult<Vec<Webhook>> {
        let mut v: Vec<Webhook> = self
            .state()
            .webhooks
            .iter()
            .filter(|w| w.organization_id == organization)
            .cloned()
            .collect();
        v.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        Ok(v)
    }

    fn find_webhook(
        &self,
        organization: OrganizationId,
        id: WebhookId,
    ) -> StoreResult<Option<Webhook>> {
        Ok(self
            .state()
            .webhooks
            .iter()
            .find(|w| w.id == id && w.organization_id == organization)
            .cloned())
    }

    fn replace_webhook_secrets(
        &self,
        organization: OrganizationId,
        id: WebhookId,
        expected: &str,
        secrets: &SigningSecrets,
    ) -> StoreResult<Option<Result<Webhook, SecretChangedMeanwhile>>> {
        let mut s = self.state();
        let Some(w) = s
            .webhooks
            .iter_mut()
            .find(|w| w.id == id && w.organization_id == organization)
        else {
            return Ok(None);
        };
        if w.secret != expected {
            return Ok(Some(Err(SecretChangedMeanwhile)));
        }
        w.secret.clone_from(&secrets.current);
        w.previous_secret.clone_from(&secrets.previous);
        Ok(Some(Ok(w.clone())))
    }

    fn delete_webhook(&self, organization: OrganizationId, id: WebhookId) -> StoreResult<bool> {
        let mut s = self.state();
        let before = s.webhooks.len();
        s.webhooks
            .retain(|w| !(w.id == id && w.organization_id == organization));
        let deleted = s.webhooks.len() < before;
        if deleted {
            s.webhook_attempts.retain(|a| a.webhook_id != id);
        }
        Ok(deleted)
    }

    fn list_webhook_attempts(
        &self,
        organization: OrganizationId,
        id: WebhookId,
        before: Option<Cursor>,
        size: usize,
    ) -> StoreResult<Vec<DeliveryAttempt>> {
        let s = self.state();
        let mut v: Vec<DeliveryAttempt> = s
            .webhook_attempts
            .iter()
            .filter(|a| a.webhook_id == id && a.organization_id == organization)
            .filter(|a| before.is_none_or(|c| a.number < c.0))
            .cloned()
            .collect();
        v.sort_by_key(|a| std::cmp::Reverse(a.number));
        v.truncate(size);
        Ok(v)
    }
}

impl crate::ports::WebhookQueue for InMemoryStore {
    fn webhook_backlog(&self) -> StoreResult<crate::service_stats::WebhookBacklog> {
        let s = self.state();
        let mut backlog = crate::service_stats::WebhookBacklog::default();
        for w in &s.webhooks {
            let (head, _) = s
                .event_heads
                .get(&w.organization_id)
                .copied()
                .unwrap_or((0, 0));
            if w.status != WebhookStatus::Active || w.delivery.position >= head {
                continue;
            }
            backlog.behind += 1;
            let next = s.events.iter().find(|e| {
                e.organization_id == w.organization_id && e.sequence == w.delivery.position + 1
            });
            if let Some(e) = next {
                backlog.oldest_undelivered_at = Some(
                    backlog
                        .oldest_undelivered_at
                        .map_or(e.occurred_at, |t| t.min(e.occurred_at)),
                );
            }
        }
        Ok(backlog)
    }

    fn webhooks_due(&self, now: DateTime<Utc>) -> StoreResult<bool> {
        let s = self.state();
        Ok(s.webhooks.iter().any(|w| claimable(&s, w, now)))
    }

    fn claim_webhooks(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<Webhook>> {
        let mut s = self.state();
        let ids: Vec<WebhookId> = s
            .webhooks
            .iter()
            .filter(|w| claimable(&s, w, now))
            .take(limit)
            .map(|w| w.id)
            .collect();
        let heads = s.event_heads.clone();
        let mut claimed = Vec::new();
        for w in s.webhooks.iter_mut().filter(|w| ids.contains(&w.id)) {
            let (_, pruned) = heads.get(&w.organization_id).copied().unwrap_or((0, 0));
            if let Some(delivery) = w.delivery.after_pruning(pruned) {
                w.delivery = delivery;
            }
            w.claimed_until = Some(lease_until);
            claimed.push(w.clone());
        }
        Ok(claimed)
    }

    fn save_webhook_progress(
        &self,
        id: WebhookId,
        lease: DateTime<Utc>,
        progress: &WebhookProgress,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(w) = s
            .webhooks
            .iter_mut()
            .find(|w| w.id == id && w.claimed_until == Some(lease))
        else {
            return Ok(false);
        };
        w.delivery = progress.delivery;
        w.failing_since = progress.failing_since;
        if let Some((at, reason)) = &progress.disable {
            w.status = WebhookStatus::Disabled;
            w.disabled_at = Some(*at);
            w.disabled_reason = Some(reason.clone());
        }
        w.last_attempt_number = progress.last_attempt_number;
        w.claimed_until = progress.lease_until;
        s.webhook_attempts.extend(progress.attempts.iter().cloned());
        Ok(true)
    }

    fn leased_webhook_secrets(
        &self,
        id: WebhookId,
        lease: DateTime<Utc>,
    ) -> StoreResult<Option<SigningSecrets>> {
        Ok(self
            .state()
            .webhooks
            .iter()
            .find(|w| w.id == id && w.claimed_until == Some(lease))
            .map(Webhook::signing_secrets))
    }

    fn prune_webhook_attempts(&self, cutoff: DateTime<Utc>, limit: usize) -> StoreResult<usize> {
        let mut s = self.state();
        let mut deleted = 0;
        s.webhook_attempts.retain(|a| {
            if deleted < limit && a.attempted_at < cutoff {
                deleted += 1;
                false
            } else {
                true
            }
        });
        Ok(deleted)
    }
}
