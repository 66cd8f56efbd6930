//! The events of an import: each person, item, level and group of the batch
//! is created or updated (only when a reported field changed), and an
//! imported group's new and former members join and leave it.

use std::collections::{BTreeSet, HashMap};

use crate::event::{EventType, NewEvent};
use crate::group::Group;
use crate::ids::{GroupId, InventoryItemId, InventoryLevelId, PersonId};
use crate::import::ImportBatch;
use crate::inventory::InventoryItem;
use crate::inventory_level::InventoryLevel;
use crate::person::Person;

/// The stored state of the batch's entries before the import (absent: new).
#[derive(Debug, Default, Clone)]
pub struct StoredBefore {
    /// Stored people of the batch.
    pub people: HashMap<PersonId, Person>,
    /// Stored items of the batch.
    pub items: HashMap<InventoryItemId, InventoryItem>,
    /// Stored levels of the batch.
    pub levels: HashMap<InventoryLevelId, InventoryLevel>,
    /// Stored groups of the batch and their members.
    pub groups: HashMap<GroupId, (Group, BTreeSet<PersonId>)>,
}

fn created_or_updated<T: crate::event::EventView>(
    created: EventType,
    updated: EventType,
    before: Option<&T>,
    after: &T,
) -> Option<NewEvent> {
    match before {
        None => Some(NewEvent::created(created, after)),
        Some(before) => NewEvent::updated(updated, before, after),
    }
}

/// The events the import of `batch` records, in the batch's order of kinds
/// (people, items, levels, groups).
#[must_use]
pub fn import_events(batch: &ImportBatch, before: &StoredBefore) -> Vec<NewEvent> {
    let mut events = Vec::new();
    for p in &batch.people {
        events.extend(created_or_updated(
            EventType::PersonCreated,
            EventType::PersonUpdated,
            before.people.get(&p.id),
            p,
        ));
    }
    for i in &batch.inventory {
        events.extend(created_or_updated(
            EventType::ItemCreated,
            EventType::ItemUpdated,
            before.items.get(&i.id),
            i,
        ));
    }
    for l in &batch.inventory_levels {
        let stored = before.levels.get(&l.id);
        let kind = if stored.is_some_and(InventoryLevel::is_active) && !l.is_active() {
            EventType::LevelDeactivated
        } else {
            EventType::LevelUpdated
        };
        events.extend(created_or_updated(EventType::LevelCreated, kind, stored, l));
    }
    for g in &batch.groups {
        let stored = before.groups.get(&g.group.id);
        events.extend(created_or_updated(
            EventType::GroupCreated,
            EventType::GroupUpdated,
            stored.map(|(group, _)| group),
            &g.group,
        ));
        let empty = BTreeSet::new();
        let was: &BTreeSet<PersonId> = stored.map_or(&empty, |(_, members)| members);
        let now: BTreeSet<PersonId> = g.members.iter().copied().collect();
        for p in now.difference(was) {
            events.push(NewEvent::membership(g.group.id, *p, true));
        }
        for p in was.difference(&now) {
            events.push(NewEvent::membership(g.group.id, *p, false));
        }
    }
    events
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::import::ImportedGroup;
    use crate::person::tests::person;

    fn group(org: crate::ids::OrganizationId) -> Group {
        Group {
            id: GroupId::new(),
            organization_id: org,
            external_id: None,
            display_name: "Sales".into(),
            package_id: None,
            precedence: 0,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
            version: 1,
        }
    }

    #[test]
    fn new_entries_are_created_changed_ones_updated_and_members_diffed() {
        let ada = person("ada@example.com");
        let org = ada.organization_id;
        let mut grace = person("grace@example.com");
        grace.organization_id = org;
        let mut linus = person("linus@example.com");
        linus.organization_id = org;
        let g = group(org);
        let mut before = StoredBefore::default();
        // Grace is stored as she is imported; Linus under another name.
        before.people.insert(grace.id, grace.clone());
        let mut old_linus = linus.clone();
        old_linus.given_name = Some("Old".into());
        before.people.insert(linus.id, old_linus);
        // The group had Grace and Linus; the import keeps Linus and adds Ada.
        before.groups.insert(
            g.id,
            (g.clone(), [grace.id, linus.id].into_iter().collect()),
        );
        let batch = ImportBatch {
            people: vec![ada.clone(), grace.clone(), linus.clone()],
            groups: vec![ImportedGroup {
                group: g.clone(),
                members: vec![ada.id, linus.id],
            }],
            ..ImportBatch::default()
        };
        let events = import_events(&batch, &before);
        let summary: Vec<(EventType, uuid::Uuid)> =
            events.iter().map(|e| (e.kind, e.subject.id)).collect();
        assert_eq!(
            summary,
            [
                (EventType::PersonCreated, *ada.id.as_uuid()),
                (EventType::PersonUpdated, *linus.id.as_uuid()),
                (EventType::GroupMemberAdded, *g.id.as_uuid()),
                (EventType::GroupMemberRemoved, *g.id.as_uuid()),
            ]
        );
        assert_eq!(events[2].changes["member"].to, ada.id.to_string());
        assert_eq!(events[3].changes["member"].from, grace.id.to_string());
    }
}
