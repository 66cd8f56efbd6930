//! Groups: create, read, list, replace, patch and delete, the operations
//! behind `/scim/v2/Groups` and behind the Bulk operations on groups. None
//! of the writes reads a group's members: a write answers the group (its
//! version), and its members are read only when the answer shows them (not
//! with `excludedAttributes=members`, nor with `attributes` that do not name
//! them; a list reads the members of its page's groups in one call).

use std::collections::{BTreeSet, HashMap};

use chrono::Utc;
use equip_domain::group::{
    groups_within_member_limit, Group, GroupFields, GroupFieldsChange, Member, MembersChange,
};
use equip_domain::group_query::GroupQuery;
use equip_domain::ids::{GroupId, PersonId};
use equip_domain::ports::{GroupChange, GroupRepository};
use equip_domain::services::groups;
use serde_json::Value;

use super::precondition::{retry_concurrent, IfMatch};
use super::{Answer, Fetched, Provisioning, ResourceType, Selection};
use crate::error::{ScimError, ScimType};
use crate::group::{from_group, group_json, ScimGroup};
use crate::group_patch::interpret;
use crate::group_schema::GROUP_RESOURCE;
use crate::list::{ListError, ListInputs};
use crate::meta::{group_location, version_tag};
use crate::patch::{parse_patch, PatchOperation};
use crate::projection::{project_resource, returns};

/// The group described by the Group document `body`: its fields and members.
fn to_group(body: Value) -> Result<(GroupFields, BTreeSet<PersonId>), ScimError> {
    let group = ScimGroup::from_body(body).map_err(|e| {
        ScimError::bad(
            ScimType::InvalidValue,
            e.attribute().unwrap_or("request"),
            format!("not a valid Group: {e}"),
        )
    })?;
    group
        .into_parts()
        .map_err(|e| ScimError::bad(ScimType::InvalidValue, e.attribute(), e.to_string()))
}

impl Selection {
    /// Whether the answer shows a group's members (so they are read).
    fn shows_members(&self) -> bool {
        returns(
            &GROUP_RESOURCE,
            self.attributes.as_deref(),
            self.excluded.as_deref(),
            "members",
        )
    }

    /// The group as this selection shows it, as JSON text.
    fn render_group(&self, group: &Group, members: Option<&[Member]>, base: &str) -> String {
        if self.is_given() {
            project_resource(
                &GROUP_RESOURCE,
                from_group(group, members, base),
                self.attributes.as_deref(),
                self.excluded.as_deref(),
            )
            .to_string()
        } else {
            group_json(group, members, base)
        }
    }
}

/// The members of `page`'s groups, by group, when `selection` shows them
/// (one read for the page); `None` when it does not (nothing read).
fn members_of_page(
    ports: &dyn GroupRepository,
    org: equip_domain::ids::OrganizationId,
    page: &[Group],
    selection: &Selection,
) -> Result<Option<HashMap<GroupId, Vec<Member>>>, ScimError> {
    if !selection.shows_members() {
        return Ok(None);
    }
    if page.is_empty() {
        return Ok(Some(HashMap::new()));
    }
    let ids: Vec<GroupId> = page.iter().map(|g| g.id).collect();
    Ok(Some(groups::members_of(ports, org, &ids)?))
}

impl<'a> Provisioning<'a> {
    /// The answer showing `group` as `selection` selects (its members read
    /// only when shown).
    fn group_answer(&self, group: &Group, selection: &Selection) -> Result<Answer, ScimError> {
        let members =
            members_of_page(self.ports, self.org, std::slice::from_ref(group), selection)?
                .map(|mut by_group| by_group.remove(&group.id).unwrap_or_default());
        Ok(Answer {
            body: selection.render_group(group, members.as_deref(), self.base),
            tag: version_tag(group.version),
            location: group_location(self.base, group.id),
        })
    }

    /// The version a write must find, for a precondition stated as `if_match`.
    fn expected_group_version(
        &self,
        id: GroupId,
        if_match: &IfMatch,
    ) -> Result<Option<i64>, ScimError> {
        if_match.expected_version("group", || {
            Ok(groups::get_group(self.ports, self.org, id)?.version)
        })
    }

    /// Creates the group described by `body`, with its members.
    pub(crate) fn create_group_of(&self, body: Value) -> Result<Group, ScimError> {
        let (fields, members) = to_group(body)?;
        Ok(groups::create_group(
            self.ports,
            self.org,
            fields,
            &members,
            Utc::now(),
        )?)
    }

    /// Replaces the group `id` with the Group document `body`: its fields
    /// and its members (absent members: none).
    pub(crate) fn replace_group_of(
        &self,
        id: GroupId,
        body: &Value,
        if_match: &IfMatch,
    ) -> Result<Group, ScimError> {
        let (fields, members) = to_group(body.clone())?;
        let change = GroupChange {
            fields: fields.into(),
            members: MembersChange::Replace(members),
            expected_version: self.expected_group_version(id, if_match)?,
            at: Utc::now(),
        };
        match groups::change_group(self.ports, self.org, id, &change)? {
            Ok(g) => Ok(g),
            Err(_) => Err(ScimError::precondition_failed("group")),
        }
    }

    /// Applies PATCH operations to the group `id`. The operations are
    /// interpreted against the group's current fields (never its members)
    /// into the change of the fields they change and of the members, which
    /// the store applies to whatever is stored when it is written (it
    /// composes concurrent changes: another PATCH's rename, members added
    /// meanwhile). With a precondition, the write needs the version it was
    /// read at (412 otherwise).
    pub(crate) fn patch_group_of(
        &self,
        id: GroupId,
        ops: &[PatchOperation],
        if_match: &IfMatch,
    ) -> Result<Group, ScimError> {
        retry_concurrent("group", || {
            let cur = groups::get_group(self.ports, self.org, id)?;
            let conditional = if_match.check(cur.version, "group")?;
            let patch = interpret(ops, &cur)?;
            let change = GroupChange {
                expected_version: conditional.then_some(cur.version),
                fields: patch
                    .fields
                    .map(|after| GroupFieldsChange::between(&cur.fields(), &after))
                    .unwrap_or_default(),
                members: patch.members,
                at: Utc::now(),
            };
            match groups::change_group(self.ports, self.org, id, &change)? {
                Ok(g) => Ok(Some(g)),
                Err(_) if conditional => Err(ScimError::precondition_failed("group")),
                Err(_) => Ok(None),
            }
        })
    }

    /// Deletes the group `id`. With versions stated (`If-Match`), the
    /// stored one must be any of them.
    pub(crate) fn delete_group_of(&self, id: GroupId, if_match: &IfMatch) -> Result<(), ScimError> {
        let expected = self.expected_group_version(id, if_match)?;
        match groups::delete_group(self.ports, self.org, id, expected)? {
            Ok(()) => Ok(()),
            Err(_) => Err(ScimError::precondition_failed("group")),
        }
    }

    /// A page of groups for `query` (with their members when the answer
    /// shows them), each rendered as `inputs` select: the number matching in
    /// all and the resources (JSON text). With members shown, the page ends
    /// before the group that would pass the members a page may hold (from
    /// the kept counts, not the rows).
    pub(crate) fn group_page(
        &self,
        query: GroupQuery,
        inputs: &ListInputs,
    ) -> Result<(u64, Vec<String>), ScimError> {
        let selection = Selection::from(inputs);
        let mut page = groups::list_groups(self.ports, self.org, query)?;
        if selection.shows_members() && !page.groups.is_empty() {
            let ids: Vec<GroupId> = page.groups.iter().map(|g| g.id).collect();
            let counts: HashMap<GroupId, u64> = self
                .ports
                .member_counts(self.org, &ids)?
                .into_iter()
                .collect();
            let in_order: Vec<u64> = ids
                .iter()
                .map(|id| counts.get(id).copied().unwrap_or(0))
                .collect();
            page.groups.truncate(groups_within_member_limit(&in_order));
        }
        let members = members_of_page(self.ports, self.org, &page.groups, &selection)?;
        let resources = page
            .groups
            .iter()
            .map(|g| {
                let of_group = members
                    .as_ref()
                    .map(|m| m.get(&g.id).map_or(&[][..], Vec::as_slice));
                selection.render_group(g, of_group, self.base)
            })
            .collect();
        Ok((page.total, resources))
    }
}

/// The groups of `/Groups` (RFC 7644 §3): the resource type the web layer
/// routes there.
#[derive(Debug, Clone, Copy)]
pub struct Groups;

impl ResourceType for Groups {
    type Id = GroupId;
    type Query = GroupQuery;

    /// A group id from a path; a malformed one names no group: 404 (RFC 7644).
    fn id(raw: &str) -> Result<GroupId, ScimError> {
        GroupId::parse(raw).map_err(|_| ScimError::not_found("group"))
    }

    fn query(inputs: &ListInputs, max_results: u32) -> Result<GroupQuery, ListError> {
        inputs.group_query(max_results)
    }

    fn start_index(query: &GroupQuery) -> u64 {
        query.start_index
    }

    /// A page of `GET /Groups` and `.search`.
    fn page(
        p: &Provisioning<'_>,
        query: GroupQuery,
        inputs: &ListInputs,
    ) -> Result<(u64, Vec<String>), ScimError> {
        p.group_page(query, inputs)
    }

    /// `POST /Groups`: creates the group described by `body`, with its
    /// members (400 for a body that is no valid Group or a member who is not
    /// a user of the organization; 409 `uniqueness` for a taken displayName).
    fn create(
        p: &Provisioning<'_>,
        body: Value,
        selection: &Selection,
    ) -> Result<Answer, ScimError> {
        let group = p.create_group_of(body)?;
        p.group_answer(&group, selection)
    }

    /// `GET /Groups/{id}`: the group, or 304 when `if_none_match` names its
    /// current version (the members are then not read).
    fn get(
        p: &Provisioning<'_>,
        id: GroupId,
        if_none_match: &IfMatch,
        selection: &Selection,
    ) -> Result<Fetched, ScimError> {
        let group = groups::get_group(p.ports, p.org, id)?;
        let tag = version_tag(group.version);
        if if_none_match.not_modified(&tag) {
            return Ok(Fetched::NotModified { tag });
        }
        Ok(Fetched::Resource(p.group_answer(&group, selection)?))
    }

    /// `PUT /Groups/{id}`: the group's fields and members (absent members:
    /// none).
    fn replace(
        p: &Provisioning<'_>,
        id: GroupId,
        body: &Value,
        if_match: &IfMatch,
        selection: &Selection,
    ) -> Result<Answer, ScimError> {
        let group = p.replace_group_of(id, body, if_match)?;
        p.group_answer(&group, selection)
    }

    /// `PATCH /Groups/{id}` (with `excludedAttributes=members`, as identity
    /// providers send it, the members are not read).
    fn patch(
        p: &Provisioning<'_>,
        id: GroupId,
        body: &Value,
        if_match: &IfMatch,
        selection: &Selection,
    ) -> Result<Answer, ScimError> {
        let group = p.patch_group_of(id, &parse_patch(body)?, if_match)?;
        p.group_answer(&group, selection)
    }

    /// `DELETE /Groups/{id}`: the group and its memberships are gone, its
    /// users stay.
    fn delete(p: &Provisioning<'_>, id: GroupId, if_match: &IfMatch) -> Result<(), ScimError> {
        p.delete_group_of(id, if_match)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::BTreeSet;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use chrono::Utc;
    use equip_domain::error::StoreResult;
    use equip_domain::group::{GroupFields, PersonGroup};
    use equip_domain::group_query::{GroupPage, GroupQuery};
    use equip_domain::ids::{OrganizationId, PersonId};
    use equip_domain::ports::{GroupChange, GroupWrite};
    use equip_domain::testing::InMemoryStore;

    use super::*;

    /// The in-memory store's groups, counting the reads of members.
    #[derive(Default)]
    struct Counting {
        store: InMemoryStore,
        member_reads: AtomicUsize,
    }

    impl GroupRepository for Counting {
        fn find_group(&self, o: OrganizationId, id: GroupId) -> StoreResult<Option<Group>> {
            self.store.find_group(o, id)
        }
        fn list_groups(&self, o: OrganizationId, q: &GroupQuery) -> StoreResult<GroupPage> {
            self.store.list_groups(o, q)
        }
        fn group_members(
            &self,
            o: OrganizationId,
            groups: &[GroupId],
        ) -> StoreResult<Vec<(GroupId, Member)>> {
            self.member_reads.fetch_add(1, Ordering::SeqCst);
            self.store.group_members(o, groups)
        }
        fn member_counts(
            &self,
            o: OrganizationId,
            groups: &[GroupId],
        ) -> StoreResult<Vec<(GroupId, u64)>> {
            self.store.member_counts(o, groups)
        }
        fn insert_group(&self, g: &Group, m: &BTreeSet<PersonId>) -> StoreResult<GroupWrite> {
            self.store.insert_group(g, m)
        }
        fn update_group(
            &self,
            o: OrganizationId,
            id: GroupId,
            c: &GroupChange,
        ) -> StoreResult<GroupWrite> {
            self.store.update_group(o, id, c)
        }
        fn delete_group(
            &self,
            o: OrganizationId,
            id: GroupId,
            v: Option<i64>,
        ) -> StoreResult<GroupWrite> {
            self.store.delete_group(o, id, v)
        }
        fn groups_of_people(
            &self,
            o: OrganizationId,
            p: &[PersonId],
        ) -> StoreResult<Vec<(PersonId, PersonGroup)>> {
            self.store.groups_of_people(o, p)
        }
    }

    fn selection(attributes: Option<&str>, excluded: Option<&str>) -> Selection {
        Selection {
            attributes: attributes.map(str::to_owned),
            excluded: excluded.map(str::to_owned),
        }
    }

    #[test]
    fn members_are_read_once_per_answer_and_only_when_shown() {
        let ports = Counting::default();
        let org = OrganizationId::new();
        let group = |name: &str| {
            let fields = GroupFields {
                external_id: None,
                display_name: name.into(),
                package_id: None,
                precedence: 0,
            };
            groups::create_group(&ports, org, fields, &BTreeSet::new(), Utc::now()).unwrap()
        };
        let page = [group("a"), group("b"), group("c")];
        let reads = || ports.member_reads.load(Ordering::SeqCst);
        for hidden in [
            selection(None, Some("members")),
            selection(None, Some("displayName,Members")),
            selection(Some("displayName"), None),
        ] {
            assert!(members_of_page(&ports, org, &page, &hidden)
                .unwrap()
                .is_none());
        }
        assert_eq!(reads(), 0, "excluded members are never read");
        for shown in [
            selection(None, None),
            selection(None, Some("members.display")),
            selection(Some("members"), None),
        ] {
            let before = reads();
            let by_group = members_of_page(&ports, org, &page, &shown).unwrap();
            assert!(by_group.is_some());
            assert_eq!(reads(), before + 1, "one read for the page");
        }
    }
}
