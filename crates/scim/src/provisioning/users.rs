//! Users: create, read, list, replace, patch and delete (RFC 7644 §3.2–3.6),
//! the operations behind `/scim/v2/Users` and behind every Bulk and CSV
//! operation on users, so that a rule holds the same way on every path.
//! Every user answered shows its groups and effective package, read with
//! [`groups::belonging_of`] (once per page for a list).

use std::collections::HashMap;

use chrono::Utc;
use equip_domain::ids::PersonId;
use equip_domain::person::Person;
use equip_domain::person_query::PersonQuery;
use equip_domain::services::groups::{self, Belonging};
use equip_domain::services::people;
use serde_json::Value;

use super::precondition::{retry_concurrent, IfMatch};
use super::{Answer, Fetched, Provisioning, ResourceType, Selection};
use crate::error::{ScimError, ScimType};
use crate::list::{ListError, ListInputs};
use crate::meta::user_location;
use crate::patch::{apply_patch, parse_patch, PatchOperation};
use crate::projection::project;
use crate::user::{from_person, person_json, user_tag, ScimUser};

/// A person with their groups and effective package, as a user is shown.
pub(crate) type Shown = (Person, Belonging);

/// `person` as `selection` shows it, as JSON text.
fn render(person: &Person, belonging: &Belonging, base: &str, selection: &Selection) -> String {
    if selection.is_given() {
        project(
            from_person(person, belonging, base),
            selection.attributes.as_deref(),
            selection.excluded.as_deref(),
        )
        .to_string()
    } else {
        person_json(person, belonging, base)
    }
}

impl<'a> Provisioning<'a> {
    /// The person described by the User document `body`.
    fn person_of(&self, body: Value, id: PersonId) -> Result<Person, ScimError> {
        let user = ScimUser::from_body(body).map_err(|e| {
            ScimError::bad(
                ScimType::InvalidValue,
                e.attribute().unwrap_or("request"),
                format!("not a valid User: {e}"),
            )
        })?;
        user.into_person(self.org, id, Utc::now())
            .map_err(|e| ScimError::bad(ScimType::InvalidValue, e.attribute(), e.to_string()))
    }

    /// `person` with their groups and effective package.
    pub(crate) fn shown_user(&self, person: Person) -> Result<Shown, ScimError> {
        let belonging = groups::belonging_of(self.ports, self.org, &[&person])?
            .remove(&person.id)
            .unwrap_or_default();
        Ok((person, belonging))
    }

    /// The answer showing `(person, belonging)` as `selection` selects.
    fn user_answer(&self, (person, belonging): &Shown, selection: &Selection) -> Answer {
        Answer {
            body: render(person, belonging, self.base, selection),
            tag: user_tag(person, belonging),
            location: user_location(self.base, person.id),
        }
    }

    /// Creates the user described by `body`.
    pub(crate) fn create_person(&self, body: Value) -> Result<Person, ScimError> {
        let person = self.person_of(body, PersonId::new())?;
        Ok(people::create_person(self.ports, person, Utc::now())?)
    }

    /// [`Self::create_person`] for several bodies, in order, one result each;
    /// the store may write the people together ([`people::create_people`]).
    pub(crate) fn create_people(&self, bodies: Vec<Value>) -> Vec<Result<Person, ScimError>> {
        let converted: Vec<Result<Person, ScimError>> = bodies
            .into_iter()
            .map(|body| self.person_of(body, PersonId::new()))
            .collect();
        let valid: Vec<Person> = converted
            .iter()
            .filter_map(|p| p.as_ref().ok())
            .cloned()
            .collect();
        let mut created = people::create_people(self.ports, valid, &Utc::now).into_iter();
        converted
            .into_iter()
            .map(|person| {
                person?;
                match created.next() {
                    Some(result) => result.map_err(ScimError::from),
                    None => Err(ScimError::from(equip_domain::StoreError::Backend(
                        "a create went unanswered".into(),
                    ))),
                }
            })
            .collect()
    }

    /// Reads, changes with `change`, and writes the user; without a
    /// precondition a concurrent change is retried on the new version, with
    /// one the answer is 412.
    fn update_person(
        &self,
        id: PersonId,
        if_match: &IfMatch,
        change: impl Fn(&Person) -> Result<Person, ScimError>,
    ) -> Result<Person, ScimError> {
        retry_concurrent("user", || {
            let cur = people::get_person(self.ports, self.org, id)?;
            let conditional = if_match.check(cur.version, "user")?;
            let replacement = change(&cur)?;
            match people::replace_person(self.ports, &cur, replacement, Utc::now())? {
                Ok(p) => Ok(Some(p)),
                Err(_) if conditional => Err(ScimError::precondition_failed("user")),
                Err(_) => Ok(None),
            }
        })
    }

    /// Replaces the user `id` with the User document `body`.
    pub(crate) fn replace_person(
        &self,
        id: PersonId,
        body: &Value,
        if_match: &IfMatch,
    ) -> Result<Person, ScimError> {
        self.update_person(id, if_match, |_| self.person_of(body.clone(), id))
    }

    /// Applies PATCH operations to the user `id`.
    pub(crate) fn patch_person(
        &self,
        id: PersonId,
        ops: &[PatchOperation],
        if_match: &IfMatch,
    ) -> Result<Person, ScimError> {
        self.update_person(id, if_match, |cur| {
            // The document the operations apply to; its read-only groups and
            // effective package would be ignored or refused (`mutability`),
            // so they are not read for it.
            let mut doc = from_person(cur, &Belonging::default(), self.base);
            apply_patch(&mut doc, ops)?;
            self.person_of(doc, id)
        })
    }

    /// Starts offboarding the user `id`. With versions stated
    /// (`If-Match`), the stored one must be any of them, as for PUT and
    /// PATCH.
    pub(crate) fn offboard(&self, id: PersonId, if_match: &IfMatch) -> Result<(), ScimError> {
        // Offboarded only if still at the version that matched.
        let expected = if_match.expected_version("user", || {
            Ok(people::get_person(self.ports, self.org, id)?.version)
        })?;
        match people::offboard_person(self.ports, self.org, id, expected, Utc::now())? {
            Ok(_) => Ok(()),
            Err(_) => Err(ScimError::precondition_failed("user")),
        }
    }

    /// A page of users for `query`, each rendered as `inputs` select: the
    /// number matching in all and the resources (JSON text).
    pub(crate) fn user_page(
        &self,
        query: PersonQuery,
        inputs: &ListInputs,
    ) -> Result<(u64, Vec<String>), ScimError> {
        let page = people::list_people(self.ports, self.org, query)?;
        let page_people: Vec<&Person> = page.people.iter().collect();
        let mut belonging = if page_people.is_empty() {
            HashMap::new()
        } else {
            groups::belonging_of(self.ports, self.org, &page_people)?
        };
        let selection = Selection::from(inputs);
        let resources = page
            .people
            .iter()
            .map(|p| {
                let b = belonging.remove(&p.id).unwrap_or_default();
                render(p, &b, self.base, &selection)
            })
            .collect();
        Ok((page.total, resources))
    }
}

/// The users of `/Users` (RFC 7644 §3): the resource type the web layer
/// routes there.
#[derive(Debug, Clone, Copy)]
pub struct Users;

impl ResourceType for Users {
    type Id = PersonId;
    type Query = PersonQuery;

    /// A user id from a path; a malformed one names no user: 404 (RFC 7644).
    fn id(raw: &str) -> Result<PersonId, ScimError> {
        PersonId::parse(raw).map_err(|_| ScimError::not_found("user"))
    }

    fn query(inputs: &ListInputs, max_results: u32) -> Result<PersonQuery, ListError> {
        inputs.query(max_results)
    }

    fn start_index(query: &PersonQuery) -> u64 {
        query.start_index
    }

    /// A page of `GET /Users` and `.search`.
    fn page(
        p: &Provisioning<'_>,
        query: PersonQuery,
        inputs: &ListInputs,
    ) -> Result<(u64, Vec<String>), ScimError> {
        p.user_page(query, inputs)
    }

    /// `POST /Users`: creates the user described by `body` (400 for a body
    /// that is no valid User, 409 `uniqueness` for a taken userName, 404 for
    /// a package outside the organization).
    fn create(
        p: &Provisioning<'_>,
        body: Value,
        selection: &Selection,
    ) -> Result<Answer, ScimError> {
        let person = p.create_person(body)?;
        Ok(p.user_answer(&p.shown_user(person)?, selection))
    }

    /// `GET /Users/{id}`: the user, or 304 when `if_none_match` names its
    /// current tag (which covers its groups and effective package too).
    fn get(
        p: &Provisioning<'_>,
        id: PersonId,
        if_none_match: &IfMatch,
        selection: &Selection,
    ) -> Result<Fetched, ScimError> {
        let person = people::get_person(p.ports, p.org, id)?;
        let shown = p.shown_user(person)?;
        let tag = user_tag(&shown.0, &shown.1);
        if if_none_match.not_modified(&tag) {
            return Ok(Fetched::NotModified { tag });
        }
        Ok(Fetched::Resource(p.user_answer(&shown, selection)))
    }

    /// `PUT /Users/{id}`: replaces the user with the User document `body`
    /// (412 when `if_match` names another version; 409 after repeated
    /// concurrent changes).
    fn replace(
        p: &Provisioning<'_>,
        id: PersonId,
        body: &Value,
        if_match: &IfMatch,
        selection: &Selection,
    ) -> Result<Answer, ScimError> {
        let person = p.replace_person(id, body, if_match)?;
        Ok(p.user_answer(&p.shown_user(person)?, selection))
    }

    /// `PATCH /Users/{id}`: applies `ops` to the user.
    fn patch(
        p: &Provisioning<'_>,
        id: PersonId,
        body: &Value,
        if_match: &IfMatch,
        selection: &Selection,
    ) -> Result<Answer, ScimError> {
        let person = p.patch_person(id, &parse_patch(body)?, if_match)?;
        Ok(p.user_answer(&p.shown_user(person)?, selection))
    }

    /// `DELETE /Users/{id}`: starts offboarding the user.
    fn delete(p: &Provisioning<'_>, id: PersonId, if_match: &IfMatch) -> Result<(), ScimError> {
        p.offboard(id, if_match)
    }
}
