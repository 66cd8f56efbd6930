//! A search at the root (`POST /.search`) spans every resource type
//! (RFC 7644 §3.4.3): the users, then the groups, as one list that
//! `startIndex` and `count` page through. A filter naming an attribute only
//! one resource type has selects from that type only; a `sortBy` only one
//! type has orders that type and leaves the other in creation order; what
//! neither understands is 400, as on `/Users`.

use equip_domain::group_query::GroupQuery;
use equip_domain::person_query::PersonQuery;

use super::Provisioning;
use crate::error::ScimError;
use crate::list::{list_response_text, ListError, ListInputs};

/// The pages of each resource type that make up one page of the whole list
/// from the 1-based `start` of at most `count` resources, given how many
/// users match: (users' start and count, groups' start and count).
fn split(start: u64, count: u32, users_total: u64) -> ((u64, u32), (u64, u32)) {
    let start = start.max(1);
    let users_left = users_total.saturating_sub(start - 1);
    let from_users = u32::try_from(users_left.min(u64::from(count))).unwrap_or(count);
    let groups_start = start.saturating_sub(users_total).max(1);
    ((start, from_users), (groups_start, count - from_users))
}

/// `query`, or (when only its `sortBy` is one the type lacks) `unsorted`.
fn or_unsorted<Q>(
    query: Result<Q, ListError>,
    unsorted: impl FnOnce() -> Result<Q, ListError>,
) -> Result<Q, ListError> {
    match query {
        Err(ListError::Param {
            param: "sortBy", ..
        }) => unsorted(),
        other => other,
    }
}

/// A root search, checked: the query of each resource type it selects from.
#[derive(Debug, Clone)]
pub struct RootSearch {
    inputs: ListInputs,
    users: Option<PersonQuery>,
    groups: Option<GroupQuery>,
    start: u64,
    count: u32,
}

impl RootSearch {
    /// The search `inputs` ask for, with pages of at most `max_results`.
    ///
    /// # Errors
    /// 400 when neither resource type understands the inputs (a syntax
    /// error, an attribute neither has).
    pub fn new(inputs: ListInputs, max_results: u32) -> Result<Self, ScimError> {
        // A `sortBy` one resource type lacks orders that type by creation,
        // as if absent (its resources still follow the other's); it is not
        // a reason to leave them out.
        let unsorted = ListInputs {
            sort_by: None,
            ..inputs.clone()
        };
        let users = or_unsorted(inputs.query(max_results), || unsorted.query(max_results));
        let groups = or_unsorted(inputs.group_query(max_results), || {
            unsorted.group_query(max_results)
        });
        // A filter naming what only one type has selects from that type; an
        // error of both is the answer.
        let (users, groups) = match (users, groups) {
            (Err(e), Err(_)) => return Err(e.into()),
            (u, g) => (u.ok(), g.ok()),
        };
        let (start, count) = users
            .as_ref()
            .map(|q| (q.start_index, q.count))
            .or_else(|| groups.as_ref().map(|q| (q.start_index, q.count)))
            .unwrap_or((1, 0));
        Ok(Self {
            inputs,
            users,
            groups,
            start,
            count,
        })
    }
}

impl<'a> Provisioning<'a> {
    /// The ListResponse (JSON text) of a root search.
    ///
    /// # Errors
    /// Store failures.
    pub fn search_all(&self, search: RootSearch) -> Result<String, ScimError> {
        let RootSearch {
            inputs,
            users,
            groups,
            start,
            count,
        } = search;
        // How many users match: the groups' part of the page starts after them.
        let users_total = match &users {
            Some(q) => {
                let counting = PersonQuery {
                    count: 0,
                    start_index: 1,
                    ..q.clone()
                };
                self.user_page(counting, &inputs)?.0
            }
            None => 0,
        };
        let ((u_start, u_count), (g_start, g_count)) = split(start, count, users_total);
        let mut resources = Vec::new();
        if let (Some(q), true) = (users, u_count > 0) {
            let page = PersonQuery {
                start_index: u_start,
                count: u_count,
                ..q
            };
            resources.extend(self.user_page(page, &inputs)?.1);
        }
        let mut groups_total = 0;
        if let Some(q) = groups {
            let page = GroupQuery {
                start_index: g_start,
                count: g_count,
                ..q
            };
            let (total, rendered) = self.group_page(page, &inputs)?;
            groups_total = total;
            resources.extend(rendered);
        }
        Ok(list_response_text(
            users_total + groups_total,
            start,
            &resources,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn a_page_takes_the_users_then_the_groups() {
        // 3 users, page of 2 from 1: two users, no group.
        assert_eq!(split(1, 2, 3), ((1, 2), (1, 0)));
        // From 3: the last user, then the first group.
        assert_eq!(split(3, 2, 3), ((3, 1), (1, 1)));
        // From 5: groups only, from the second.
        assert_eq!(split(5, 2, 3), ((5, 0), (2, 2)));
        // No users.
        assert_eq!(split(1, 50, 0), ((1, 0), (1, 50)));
        // Counting only.
        assert_eq!(split(1, 0, 7), ((1, 0), (1, 0)));
    }
}
