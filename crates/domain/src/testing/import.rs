//! The import in memory: the domain's rules against stored rows
//! (`crate::import::stored`) over the state, then upserts.

use super::*;

impl ImportRepository for InMemoryStore {
    fn import_batch(
        &self,
        organization: OrganizationId,
        batch: &ImportBatch,
        external: &[ExternalReference],
        progress: &mut dyn FnMut(usize),
    ) -> StoreResult<Result<ImportSummary, ImportError>> {
        let mut s = self.state();
        for r in external {
            let id = r.id;
            let found = match r.kind {
                ReferenceKind::Sku => s
                    .skus
                    .iter()
                    .any(|x| *x.id.as_uuid() == id && x.organization_id == organization),
                ReferenceKind::Package => s
                    .packages
                    .iter()
                    .any(|x| *x.id.as_uuid() == id && x.organization_id == organization),
                ReferenceKind::Person => s
                    .people
                    .iter()
                    .any(|x| *x.id.as_uuid() == id && x.organization_id == organization),
                ReferenceKind::Member => s.people.iter().any(|x| {
                    *x.id.as_uuid() == id && x.organization_id == organization && x.is_provisioned()
                }),
                ReferenceKind::Office => s
                    .offices
                    .iter()
                    .any(|x| *x.id.as_uuid() == id && x.organization_id == organization),
                ReferenceKind::Warehouse => s.warehouses.iter().any(|w| {
                    *w.id.as_uuid() == id
                        && w.is_accessible_to(
                            organization,
                            s.grants.contains(&(w.id, organization)),
                        )
                }),
            };
            if !found {
                return Ok(Err(ImportError::new(
                    r.entry.clone(),
                    format!("{} {id} not found", r.kind.as_str()),
                )));
            }
        }
        let facts = stored_facts(&s, organization, batch);
        if let Err(e) = check_against_stored(organization, batch, &facts) {
            return Ok(Err(e));
        }
        let before = stored_before(&s, organization, batch);
        let (actor, now) = (self.actor(), Utc::now());
        let mut done = 0;
        for w in &batch.warehouses {
            upsert(&mut s.warehouses, w, |x| x.id);
            if w.owner == crate::location::WarehouseOwner::Shared {
                s.grants.insert((w.id, organization));
            }
        }
        done += batch.warehouses.len();
        for o in &batch.offices {
            upsert(&mut s.offices, o, |x| x.id);
        }
        for x in &batch.skus {
            upsert(&mut s.skus, x, |x| x.id);
        }
        for x in &batch.packages {
            upsert(&mut s.packages, x, |x| x.id);
        }
        for x in &batch.people {
            upsert(&mut s.people, x, |x| x.id);
        }
        for x in crate::group::membership::leaving_every_group(&batch.people) {
            let groups = super::groups::groups_of(&s, organization, x.id);
            let leaving = crate::group::membership::LeavingEveryGroup::of(x.id, groups, now);
            super::groups::leave_groups(&mut s, organization, &leaving);
            for event in leaving.events() {
                s.record(organization, actor.clone(), now, event);
            }
        }
        for x in &batch.inventory {
            upsert(&mut s.inventory, x, |x| x.id);
            if let Some(r) = &x.return_order {
                imported_return(&mut s, x, r);
            }
        }
        for x in &batch.inventory_levels {
            upsert(&mut s.inventory_levels, x, |x| x.id);
        }
        for x in &batch.groups {
            let mut group = x.group.clone();
            if let Some(stored) = s.groups.iter().find(|g| g.id == group.id) {
                group.version = stored.version + 1;
                group.created_at = stored.created_at;
            }
            upsert(&mut s.groups, &group, |g| g.id);
            s.memberships.retain(|(g, _)| *g != group.id);
            for m in &x.members {
                s.memberships.insert((group.id, *m));
            }
        }
        for event in crate::import::events::import_events(batch, &before) {
            s.record(organization, actor.clone(), now, event);
        }
        done += batch.len() - batch.warehouses.len();
        progress(done);
        Ok(Ok(ImportSummary::of(batch)))
    }
}

/// The stored entries of the batch, before it is written.
fn stored_before(
    s: &State,
    organization: OrganizationId,
    batch: &ImportBatch,
) -> crate::import::events::StoredBefore {
    let mut before = crate::import::events::StoredBefore::default();
    let ours = |org: OrganizationId| org == organization;
    for p in &batch.people {
        if let Some(x) = s
            .people
            .iter()
            .find(|x| x.id == p.id && ours(x.organization_id))
        {
            before.people.insert(x.id, x.clone());
        }
    }
    for i in &batch.inventory {
        if let Some(x) = s
            .inventory
            .iter()
            .find(|x| x.id == i.id && ours(x.organization_id))
        {
            before.items.insert(x.id, x.clone());
        }
    }
    for l in &batch.inventory_levels {
        if let Some(x) = s
            .inventory_levels
            .iter()
            .find(|x| x.id == l.id && ours(x.organization_id))
        {
            before.levels.insert(x.id, x.clone());
        }
    }
    for g in &batch.groups {
        if let Some(x) = s
            .groups
            .iter()
            .find(|x| x.id == g.group.id && ours(x.organization_id))
        {
            let members = s
                .memberships
                .iter()
                .filter(|(group, _)| *group == x.id)
                .map(|(_, p)| *p)
                .collect();
            before.groups.insert(x.id, (x.clone(), members));
        }
    }
    before
}

/// What the store holds that `organization`'s import of `batch` touches.
fn stored_facts(s: &State, organization: OrganizationId, batch: &ImportBatch) -> StoredFacts {
    let keys = StoredKeys::of(batch);
    let mut facts = StoredFacts::default();
    for w in s
        .warehouses
        .iter()
        .filter(|w| keys.warehouses.contains(&w.id))
    {
        let granted = s.grants.contains(&(w.id, organization));
        let stored = StoredWarehouse {
            warehouse: w.clone(),
            granted,
        };
        facts.warehouses.insert(w.id, stored);
    }
    for o in s.offices.iter().filter(|o| keys.offices.contains(&o.id)) {
        facts.offices.insert(o.id, o.organization_id);
    }
    for k in s.skus.iter().filter(|k| keys.skus.contains(&k.id)) {
        facts.skus.insert(k.id, k.organization_id);
    }
    for k in s.skus.iter().filter(|k| k.organization_id == organization) {
        if keys.contents_skus.contains(&k.id) {
            facts
                .contents_sku_categories
                .insert(k.id, k.category_code.clone());
        }
        if keys.contents_categories.contains(&k.category_code) {
            facts.contents_categories.insert(k.category_code.clone());
        }
    }
    for p in &s.packages {
        if keys.packages.contains(&p.id) {
            let stored = StoredPackage {
                organization: p.organization_id,
                slug: p.slug.clone(),
            };
            facts.packages.insert(p.id, stored);
        }
        if p.organization_id == organization && keys.package_slugs.contains(&p.slug) {
            facts.packages_with_batch_slugs.push((p.id, p.slug.clone()));
        }
    }
    for p in &s.people {
        let key = crate::text::identifier_key(&p.user_name);
        let active = p.status == PersonStatus::Active;
        if p.organization_id == organization && active && keys.active_user_name_keys.contains(&key)
        {
            facts
                .active_people_with_batch_names
                .push((p.id, key.clone()));
        }
        if keys.people.contains(&p.id) {
            let stored = StoredPerson {
                organization: p.organization_id,
                user_name_key: key,
                status: p.status,
            };
            facts.people.insert(p.id, stored);
        }
    }
    for i in &s.inventory {
        if keys.items.contains(&i.id) {
            facts.items.insert(i.id, i.organization_id);
        }
        // Only each item's current return is held here; the database also
        // keeps lines an item no longer holds, so it knows (and refuses to
        // move) lines this store has forgotten.
        if let Some(r) = &i.return_order {
            facts.return_orders.insert(r.id, i.organization_id);
            let line = StoredReturnLine {
                organization: i.organization_id,
                item: i.id,
            };
            facts.return_lines.insert(r.return_order_item_id, line);
        }
    }
    for l in &s.inventory_levels {
        let active = l.deactivated_at.is_none();
        if keys.levels.contains(&l.id) {
            let stored = StoredLevel {
                organization: l.organization_id,
                sku: l.sku_id,
                warehouse: l.warehouse_id,
                active,
            };
            facts.levels.insert(l.id, stored);
        }
        if l.organization_id == organization && active && keys.active_level_skus.contains(&l.sku_id)
        {
            facts
                .active_levels_of_batch_skus
                .push((l.id, l.sku_id, l.warehouse_id));
        }
    }
    for g in &s.groups {
        let key = crate::text::identifier_key(&g.display_name);
        if g.organization_id == organization && keys.group_name_keys.contains(&key) {
            facts.groups_with_batch_names.push((g.id, key.clone()));
        }
        if keys.groups.contains(&g.id) {
            let stored = crate::import::stored::StoredGroup {
                organization: g.organization_id,
                display_name_key: key,
            };
            facts.groups.insert(g.id, stored);
        }
    }
    facts
}

/// An item's imported return, as the database store writes it: the order
/// (its person the item's holder, when a person; its status as given) and
/// the item's open line.
fn imported_return(s: &mut State, item: &InventoryItem, r: &crate::inventory::ReturnInfo) {
    use crate::returns::order::{ReturnLine, ReturnOrder};
    let person = match item.assignment.map(|a| a.assignee) {
        Some(Assignee::Person(p)) => Some(p),
        _ => None,
    };
    let line = ReturnLine {
        id: r.return_order_item_id,
        item: item.id,
        state: crate::returns::LineState::Open,
        status: r.return_order_item_status,
        itad_requested: false,
        received_at: None,
        warehouse_id: None,
    };
    if let Some(order) = s.return_orders.iter_mut().find(|o| o.id == r.id) {
        order.status = r.status;
        order.person = person;
        order.retrieval.clone_from(&r.retrieval);
        order.lines.retain(|l| l.id != line.id);
        order.lines.push(line);
        order.lines.sort_by_key(|l| l.id);
        return;
    }
    s.return_orders.push(ReturnOrder {
        id: r.id,
        organization_id: item.organization_id,
        person,
        status: r.status,
        cancelled: false,
        retrieval: r.retrieval.clone(),
        lines: vec![line],
        created_at: r.created_at,
        updated_at: r.created_at,
    });
}
