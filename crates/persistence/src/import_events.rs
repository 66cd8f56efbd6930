//! The stored state of an import's entries before it writes them, for its
//! events (`equip_domain::import::events`).

use std::collections::{BTreeSet, HashMap};

use diesel::prelude::*;

use equip_domain::ids::{GroupId, OrganizationId, PersonId};
use equip_domain::import::events::StoredBefore;
use equip_domain::import::stored::StoredChanges;
use equip_domain::import::ImportBatch;

use crate::connection::DbConnection;
use crate::error::DbResult;
use crate::models::{parse_id, GroupRow, LevelRow};
use crate::schema::{group_members, groups, inventory_levels};
use crate::sql_builder::{texts, ID_CHUNK};

/// Reads the batch's stored people, items, levels and groups (with their
/// members), in the import's transaction before it writes.
pub(crate) fn read(
    c: &mut DbConnection,
    organization: OrganizationId,
    batch: &ImportBatch,
    changes: &StoredChanges,
) -> DbResult<StoredBefore> {
    let org = organization.to_string();
    let mut before = StoredBefore::default();
    for chunk in texts(&changes.people).chunks(ID_CHUNK) {
        for p in crate::repositories::people::load_people(c, &org, chunk)? {
            before.people.insert(p.id, p);
        }
    }
    for chunk in changes.items.chunks(ID_CHUNK) {
        for v in crate::listing::views_by_id(c, organization, chunk)? {
            before.items.insert(v.item.id, v.item);
        }
    }
    let levels: Vec<String> = batch
        .inventory_levels
        .iter()
        .map(|l| l.id.to_string())
        .collect();
    for chunk in levels.chunks(ID_CHUNK) {
        let rows: Vec<LevelRow> = inventory_levels::table
            .filter(inventory_levels::organization_id.eq(&org))
            .filter(inventory_levels::id.eq_any(chunk))
            .select(LevelRow::as_select())
            .load(c)?;
        for row in rows {
            let level = row.into_domain()?;
            before.levels.insert(level.id, level);
        }
    }
    for chunk in texts(&changes.groups).chunks(ID_CHUNK) {
        let rows: Vec<GroupRow> = groups::table
            .filter(groups::organization_id.eq(&org))
            .filter(groups::id.eq_any(chunk))
            .select(GroupRow::as_select())
            .load(c)?;
        let members: Vec<(String, String)> = group_members::table
            .filter(group_members::organization_id.eq(&org))
            .filter(group_members::group_id.eq_any(chunk))
            .select((group_members::group_id, group_members::person_id))
            .load(c)?;
        let mut by_group: HashMap<GroupId, BTreeSet<PersonId>> = HashMap::new();
        for (g, p) in members {
            by_group
                .entry(parse_id(&g)?)
                .or_default()
                .insert(parse_id(&p)?);
        }
        for row in rows {
            let group = row.into_domain()?;
            let members = by_group.remove(&group.id).unwrap_or_default();
            before.groups.insert(group.id, (group, members));
        }
    }
    Ok(before)
}
