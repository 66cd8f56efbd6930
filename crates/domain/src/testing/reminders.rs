//! Health, durability, reminders and the email outbox in memory.

use super::*;
use crate::event::{EventType, NewEvent};

impl HealthCheck for InMemoryStore {
    fn ping(&self) -> StoreResult<()> {
        Ok(())
    }

    fn check_writable(&self) -> StoreResult<()> {
        Ok(())
    }
}

impl crate::ports::ReminderRepository for InMemoryStore {
    fn find_reminder_package(
        &self,
        organization: OrganizationId,
        id: crate::ids::PackageId,
    ) -> StoreResult<Option<Package>> {
        Ok(self
            .state()
            .packages
            .iter()
            .find(|p| p.id == id && p.organization_id == organization)
            .cloned())
    }

    fn find_reminder_order_status(
        &self,
        _organization: OrganizationId,
        _person: PersonId,
    ) -> StoreResult<Option<crate::orders::OrderStatus>> {
        // The in-memory store keeps no joiners' orders.
        Ok(None)
    }

    fn insert_reminder(
        &self,
        reminder: &crate::reminder::Reminder,
        message: &crate::reminder::OutboxMessage,
    ) -> StoreResult<()> {
        let mut s = self.state();
        let org = reminder.organization_id;
        let known = |id: PersonId| {
            s.people
                .iter()
                .any(|p| p.id == id && p.organization_id == org)
        };
        if !known(reminder.person_id) || !reminder.sender_person_id.is_none_or(known) {
            return Err(StoreError::MissingReference {
                entity: "reminder",
                detail: "person not in the organization".into(),
            });
        }
        s.reminders.push(reminder.clone());
        s.outbox.push(message.clone());
        let event = NewEvent::created(EventType::ReminderCreated, reminder);
        s.record(org, self.actor(), reminder.created_at, event);
        Ok(())
    }

    fn list_reminders(
        &self,
        organization: OrganizationId,
        person: PersonId,
    ) -> StoreResult<Vec<crate::reminder::ReminderDelivery>> {
        let s = self.state();
        let mut v: Vec<crate::reminder::ReminderDelivery> = s
            .reminders
            .iter()
            .filter(|r| r.organization_id == organization && r.person_id == person)
            .filter_map(|r| {
                s.outbox.iter().find(|m| m.reminder_id == r.id).map(|m| {
                    crate::reminder::ReminderDelivery {
                        reminder: crate::reminder::Reminder {
                            status: m.status,
                            ..r.clone()
                        },
                        attempts: m.attempts,
                        next_attempt_at: m.next_attempt_at,
                        last_error: m.last_error.clone(),
                        sent_at: m.sent_at,
                    }
                })
            })
            .collect();
        v.sort_by(|a, b| {
            b.reminder
                .created_at
                .cmp(&a.reminder.created_at)
                .then(b.reminder.id.cmp(&a.reminder.id))
        });
        Ok(v)
    }
}

impl crate::ports::OutboxRepository for InMemoryStore {
    fn claim_outbox_messages(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<crate::reminder::OutboxMessage>> {
        let mut s = self.state();
        let mut claimed = Vec::new();
        for m in s.outbox.iter_mut().filter(|m| {
            m.status == crate::reminder::DeliveryStatus::Pending
                && m.next_attempt_at <= now
                && m.claimed_until.is_none_or(|t| t < now)
        }) {
            if claimed.len() >= limit {
                break;
            }
            m.claimed_until = Some(lease_until);
            m.attempts += 1;
            claimed.push(m.clone());
        }
        Ok(claimed)
    }

    fn mark_outbox_sent(
        &self,
        id: crate::ids::OutboxMessageId,
        lease: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(m) = s.outbox.iter_mut().find(|m| {
            m.id == id
                && m.claimed_until == Some(lease)
                && m.status == crate::reminder::DeliveryStatus::Pending
        }) else {
            return Ok(false);
        };
        m.status = crate::reminder::DeliveryStatus::Sent;
        m.sent_at = Some(at);
        m.claimed_until = None;
        let (reminder, org) = (m.reminder_id, m.organization_id);
        for r in s.reminders.iter_mut().filter(|r| r.id == reminder) {
            r.status = crate::reminder::DeliveryStatus::Sent;
        }
        let event = NewEvent::reminder_settled(reminder, true);
        s.record(org, self.actor(), at, event);
        Ok(true)
    }

    fn mark_outbox_failed(
        &self,
        id: crate::ids::OutboxMessageId,
        lease: DateTime<Utc>,
        outcome: crate::reminder::AfterFailure,
        error: &str,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(m) = s.outbox.iter_mut().find(|m| {
            m.id == id
                && m.claimed_until == Some(lease)
                && m.status == crate::reminder::DeliveryStatus::Pending
        }) else {
            return Ok(false);
        };
        m.claimed_until = None;
        m.last_error = Some(error.to_owned());
        let status = match outcome {
            crate::reminder::AfterFailure::RetryAt(at) => {
                m.next_attempt_at = at;
                crate::reminder::DeliveryStatus::Pending
            }
            crate::reminder::AfterFailure::Dead => crate::reminder::DeliveryStatus::Dead,
        };
        m.status = status;
        let (reminder, org) = (m.reminder_id, m.organization_id);
        for r in s.reminders.iter_mut().filter(|r| r.id == reminder) {
            r.status = status;
        }
        if status == crate::reminder::DeliveryStatus::Dead {
            let event = NewEvent::reminder_settled(reminder, false);
            s.record(org, self.actor(), Utc::now(), event);
        }
        Ok(true)
    }

    fn outbox_stats(&self) -> StoreResult<crate::reminder::OutboxStats> {
        let s = self.state();
        let pending = s
            .outbox
            .iter()
            .filter(|m| m.status == crate::reminder::DeliveryStatus::Pending);
        Ok(crate::reminder::OutboxStats {
            pending: pending.clone().count() as u64,
            dead: s
                .outbox
                .iter()
                .filter(|m| m.status == crate::reminder::DeliveryStatus::Dead)
                .count() as u64,
            oldest_pending_created_at: pending.map(|m| m.created_at).min(),
        })
    }
}
