//! A Bulk request run (RFC 7644 §3.7): the request is checked whole before
//! any operation runs ([`BulkRequest::parse`]); then the operations run in
//! order, each through the same user or group operations as the
//! single-resource endpoints ([`super::users`], [`super::groups`]) and each
//! atomic on its own, until the end or until `failOnErrors` operations have
//! failed. The answer is the BulkResponse, one result per operation that
//! ran. A `bulkId:` reference (in a path, or in the data, such as a group's
//! `"members": [{"value": "bulkId:u1"}]`) names the resource an earlier POST
//! of the request created.
//!
//! A lost database connection fails the operation it interrupts (503); a
//! write session goes on with a fresh connection. When three operations in
//! a row find the database unavailable, the run halts: every remaining
//! operation is reported with status 503 "not run" (safe to retry), so the
//! response still lists each committed operation.
//!
//! Before each write the run asks whether it is still wanted
//! ([`equip_domain::interrupt::check`]: its client is there and its request
//! within its time limit). Once it is not, nothing more starts: every
//! remaining operation is reported with status 503 "not run" (safe to
//! retry), and the answer ([`BulkAnswer::stopped`]) is the 503 of a request
//! that stopped at its limit, listing what ran.

use equip_domain::person::Person;
use equip_domain::ports::UNAVAILABLE_IN_A_ROW;
use equip_domain::services::groups::Belonging;
use serde_json::Value;

use super::groups::Groups;
use super::precondition::IfMatch;
use super::users::Users;
use super::{Provisioning, ResourceType};
use crate::bulk::{
    has_references, BulkIds, BulkMethod, BulkOperation, BulkOperationResult, BulkRequest,
    BulkResponseWriter, BulkTarget,
};
use crate::error::{ScimError, ScimErrorBody, ScimType};
use crate::meta::{group_location, user_location, version_tag};
use crate::patch::parse_patch;
use crate::user::user_tag;

/// What a run answers: the BulkResponse (JSON text), and whether the run
/// stopped before its end because it was no longer wanted (its time limit
/// reached, or its client gone): then the body lists every operation, those
/// not run with status 503, and is answered 503.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkAnswer {
    /// The BulkResponse.
    pub body: String,
    /// The run stopped before its end.
    pub stopped: bool,
}

/// The `detail` of a run that stopped before its end.
const STOPPED: &str = "the request reached its time limit and stopped: every operation \
    listed with its own status ran; those with status 503 did not run (safe to retry); \
    nothing more is written";

/// Runs a Bulk request (`body`, checked whole first) for the organization
/// of `provisioning`: the BulkResponse (JSON text).
///
/// # Errors
/// 400 / 413 for a request refused whole; nothing has run then.
pub fn run_bulk(provisioning: Provisioning<'_>, body: Value) -> Result<BulkAnswer, ScimError> {
    let request = BulkRequest::parse(body)?;
    let mut bulk = BulkRun::new(provisioning, request.fail_on_errors);
    for op in request.operations {
        if bulk.stopped() {
            break;
        }
        bulk.execute(op);
    }
    Ok(bulk.finish())
}

/// Runs operations one after another for one organization, writing each
/// result into the BulkResponse.
pub struct BulkRun<'a> {
    provisioning: Provisioning<'a>,
    fail_on_errors: Option<usize>,
    /// Whether `bulkId:` references are resolved (Bulk: yes; CSV rows carry
    /// no references, and a cell that happens to hold `bulkId:…` is data).
    references: bool,
    ids: BulkIds,
    out: BulkResponseWriter,
    /// Operations answered 503 (database unavailable) since the last one
    /// that was not.
    unavailable_in_a_row: usize,
    /// The database is unavailable: every operation from here on is
    /// reported as not run ([`not_run`]).
    halted: bool,
    /// User creates waiting to be written together ([`CREATES_TOGETHER`]).
    creates: Vec<BulkOperation>,
    /// The run is no longer wanted (its time limit reached, or its client
    /// gone): nothing more starts, every remaining operation is reported as
    /// not run ([`stopped_before`]).
    unwanted: bool,
}

/// Consecutive user creates (`POST /Users` without `bulkId:` references,
/// in a request without `failOnErrors`) are written together, this many at
/// most: each is still written or refused on its own, and its result is the
/// one it would have alone, but the store may commit them together (on
/// SQLite one transaction instead of one per user). Bounded so that other
/// writers wait little for the lock.
pub const CREATES_TOGETHER: usize = 50;

/// A run halts after this many operations in a row found the database
/// unavailable (the domain's [`UNAVAILABLE_IN_A_ROW`]): one is a lost
/// connection (the write session goes on with a fresh one), one more may be
/// a second termination right after; three mean there is no connection to be
/// had (each waited for the pool's timeout).
const UNAVAILABLE_BEFORE_HALT: usize = UNAVAILABLE_IN_A_ROW;

/// The result of an operation not run because the database became
/// unavailable earlier in the request: 503, safe to retry.
fn not_run(method: BulkMethod, bulk_id: Option<String>) -> BulkOperationResult {
    let error = ScimError::new(
        503,
        "Operations",
        "not run: the database became unavailable during this request; \
         this operation was not attempted and is safe to retry",
    );
    BulkOperationResult {
        method: method.as_str(),
        bulk_id,
        location: None,
        version: None,
        status: error.status().to_string(),
        response: Some(error.body()),
    }
}

/// The result of an operation not run because the run was no longer
/// wanted before it: 503, safe to retry.
fn stopped_before(method: BulkMethod, bulk_id: Option<String>) -> BulkOperationResult {
    let error = ScimError::new(
        503,
        "Operations",
        "not run: the request reached its time limit before this operation; \
         it was not attempted and is safe to retry",
    );
    BulkOperationResult {
        method: method.as_str(),
        bulk_id,
        location: None,
        version: None,
        status: error.status().to_string(),
        response: Some(error.body()),
    }
}

/// What one operation did to which resource.
struct Done {
    status: u16,
    written: Option<Written>,
}

/// The resource an operation wrote.
struct Written {
    /// Its id.
    id: String,
    /// Its URL.
    location: String,
    /// Its entity tag after the operation (a user's covers its groups).
    tag: String,
}

impl Done {
    /// `status` with the resource written.
    fn wrote(status: u16, id: impl ToString, location: String, tag: String) -> Self {
        Self {
            status,
            written: Some(Written {
                id: id.to_string(),
                location,
                tag,
            }),
        }
    }

    /// A delete: 204, nothing left to show.
    const fn deleted() -> Self {
        Self {
            status: 204,
            written: None,
        }
    }
}

impl<'a> BulkRun<'a> {
    /// A run for the organization of `provisioning`.
    #[must_use]
    pub fn new(provisioning: Provisioning<'a>, fail_on_errors: Option<usize>) -> Self {
        Self {
            provisioning,
            fail_on_errors,
            references: true,
            ids: BulkIds::default(),
            out: BulkResponseWriter::new(),
            unavailable_in_a_row: 0,
            halted: false,
            creates: Vec::new(),
            unwanted: false,
        }
    }

    /// Whether the run is still wanted: asked before each write; once not,
    /// it stays so.
    fn wanted(&mut self) -> bool {
        if !self.unwanted && equip_domain::interrupt::check().is_err() {
            self.unwanted = true;
        }
        !self.unwanted
    }

    /// A run whose operations are taken literally: no `bulkId:` references.
    #[must_use]
    pub fn without_references(mut self) -> Self {
        self.references = false;
        self
    }

    /// Whether `failOnErrors` operations have failed: nothing more runs, and
    /// nothing more is reported. (A run halted by an unavailable database is
    /// not stopped: it reports every remaining operation as not run.)
    #[must_use]
    pub fn stopped(&self) -> bool {
        !self.halted
            && self
                .fail_on_errors
                .is_some_and(|limit| self.out.errors() >= limit)
    }

    /// Records an operation that failed before it could run (a CSV row that
    /// did not convert).
    pub fn record_failure(
        &mut self,
        method: BulkMethod,
        bulk_id: Option<String>,
        error: ScimErrorBody,
    ) {
        self.write_creates();
        // Even after a halt: the row's own error (it needs no database) is
        // more use than "not run".
        self.out.push(&BulkOperationResult {
            method: method.as_str(),
            bulk_id,
            location: None,
            version: None,
            status: error.status.clone(),
            response: Some(error),
        });
    }

    /// Runs `op` and records its result (unless the run has stopped). A user
    /// create may wait for the next ones ([`CREATES_TOGETHER`]); every
    /// result is recorded in the order of the operations.
    pub fn execute(&mut self, op: BulkOperation) {
        if self.stopped() {
            return;
        }
        if self.joins_creates(&op) {
            self.creates.push(op);
            if self.creates.len() >= CREATES_TOGETHER {
                self.write_creates();
            }
            return;
        }
        self.write_creates();
        if self.halted {
            self.out.push(&not_run(op.method, op.bulk_id));
            return;
        }
        if !self.wanted() {
            self.out.push(&stopped_before(op.method, op.bulk_id));
            return;
        }
        let mut location = None;
        let outcome = self.perform(&op, &mut location);
        self.record(op, outcome, location);
    }

    /// Whether `op` is a user create that may be written with its
    /// neighbours: nothing about it depends on an earlier operation's result.
    fn joins_creates(&self, op: &BulkOperation) -> bool {
        self.fail_on_errors.is_none()
            && !self.halted
            && !self.unwanted
            && op.method == BulkMethod::Post
            && matches!(BulkTarget::parse(&op.path), Some(BulkTarget::Users))
            && !(self.references && op.data.as_ref().is_some_and(has_references))
    }

    /// A user create's result: 201 with the new user (in no group yet).
    fn created_user(&self, p: &Person) -> Done {
        Done::wrote(
            201,
            p.id,
            user_location(self.provisioning.base, p.id),
            user_tag(p, &Belonging::default()),
        )
    }

    /// Writes the waiting user creates and records their results in order.
    fn write_creates(&mut self) {
        if self.creates.is_empty() {
            return;
        }
        let ops = std::mem::take(&mut self.creates);
        if !self.halted && !self.wanted() {
            for op in ops {
                self.out.push(&stopped_before(op.method, op.bulk_id));
            }
            return;
        }
        let bodies = ops
            .iter()
            .map(|op| op.data.clone().unwrap_or(Value::Null))
            .collect();
        let created = self.provisioning.create_people(bodies);
        for (op, person) in ops.into_iter().zip(created) {
            if self.halted {
                // As when run one by one: after the third 503 in a row, the
                // rest is reported as not run.
                self.out.push(&not_run(op.method, op.bulk_id));
                continue;
            }
            let outcome = person.map(|p| self.created_user(&p));
            self.record(op, outcome, None);
        }
    }

    /// Records the result of `op`.
    fn record(
        &mut self,
        op: BulkOperation,
        outcome: Result<Done, ScimError>,
        location: Option<String>,
    ) {
        match &outcome {
            // Interrupted inside the operation: rolled back, not run; and
            // nothing after it starts.
            Err(e) if e.is_interrupted() => {
                self.unwanted = true;
                self.out.push(&stopped_before(op.method, op.bulk_id));
                return;
            }
            Err(e) if e.is_unavailable() => {
                self.unavailable_in_a_row += 1;
                self.halted = self.unavailable_in_a_row >= UNAVAILABLE_BEFORE_HALT;
            }
            _ => self.unavailable_in_a_row = 0,
        }
        let result = match outcome {
            Ok(done) => {
                let (location, version) = match done.written {
                    Some(w) => {
                        if let (BulkMethod::Post, Some(bulk_id)) = (op.method, &op.bulk_id) {
                            self.ids.record(bulk_id, w.id);
                        }
                        (Some(w.location), Some(w.tag))
                    }
                    None => (location, None),
                };
                BulkOperationResult {
                    method: op.method.as_str(),
                    bulk_id: op.bulk_id,
                    location,
                    version,
                    status: done.status.to_string(),
                    response: None,
                }
            }
            Err(e) => BulkOperationResult {
                method: op.method.as_str(),
                bulk_id: op.bulk_id,
                location,
                version: None,
                status: e.status().to_string(),
                response: Some(e.body()),
            },
        };
        self.out.push(&result);
    }

    /// Resolves `bulkId` references, then runs the operation. `location` is
    /// set as soon as the target resource is known (a failed PUT still names
    /// it).
    fn perform(
        &self,
        op: &BulkOperation,
        location: &mut Option<String>,
    ) -> Result<Done, ScimError> {
        let unresolved = |e: crate::bulk::UnresolvedBulkId| {
            ScimError::new(409, "bulkId", e.to_string()).with_scim_type(ScimType::InvalidValue)
        };
        let mut data = op.data.clone().unwrap_or(Value::Null);
        let path = if self.references {
            self.ids.resolve_value(&mut data).map_err(unresolved)?;
            self.ids.resolve_str(&op.path).map_err(unresolved)?
        } else {
            op.path.clone()
        };
        let invalid_path = |expected: &str| {
            ScimError::bad(
                ScimType::InvalidPath,
                "path",
                format!(
                    "{} path {:?} must be {expected}",
                    op.method.as_str(),
                    op.path
                ),
            )
        };
        let if_match = IfMatch::stated(op.version.as_deref());
        let (p, base) = (&self.provisioning, self.provisioning.base);
        match (op.method, BulkTarget::parse(&path)) {
            (BulkMethod::Post, Some(BulkTarget::Users)) => {
                Ok(self.created_user(&p.create_person(data)?))
            }
            (BulkMethod::Post, Some(BulkTarget::Groups)) => {
                let g = p.create_group_of(data)?;
                let at = group_location(base, g.id);
                Ok(Done::wrote(201, g.id, at, version_tag(g.version)))
            }
            (BulkMethod::Post, _) => Err(invalid_path("/Users or /Groups")),
            (method, Some(BulkTarget::User(raw_id))) => {
                let id = Users::id(raw_id)?;
                let at = user_location(base, id);
                *location = Some(at.clone());
                let person = match method {
                    BulkMethod::Put => p.replace_person(id, &data, &if_match)?,
                    BulkMethod::Patch => p.patch_person(id, &parse_patch(&data)?, &if_match)?,
                    // POST matched above.
                    BulkMethod::Delete | BulkMethod::Post => {
                        p.offboard(id, &if_match)?;
                        return Ok(Done::deleted());
                    }
                };
                let (person, belonging) = p.shown_user(person)?;
                Ok(Done::wrote(
                    200,
                    person.id,
                    at,
                    user_tag(&person, &belonging),
                ))
            }
            (method, Some(BulkTarget::Group(raw_id))) => {
                let id = Groups::id(raw_id)?;
                let at = group_location(base, id);
                *location = Some(at.clone());
                let g = match method {
                    BulkMethod::Put => p.replace_group_of(id, &data, &if_match)?,
                    BulkMethod::Patch => p.patch_group_of(id, &parse_patch(&data)?, &if_match)?,
                    // POST matched above.
                    BulkMethod::Delete | BulkMethod::Post => {
                        p.delete_group_of(id, &if_match)?;
                        return Ok(Done::deleted());
                    }
                };
                Ok(Done::wrote(200, g.id, at, version_tag(g.version)))
            }
            (_, _) => Err(invalid_path("/Users/<id> or /Groups/<id>")),
        }
    }

    /// The answer: the BulkResponse, and whether the run stopped before its
    /// end.
    #[must_use]
    pub fn finish(mut self) -> BulkAnswer {
        self.write_creates();
        if self.unwanted {
            BulkAnswer {
                body: self.out.finish_stopped(STOPPED),
                stopped: true,
            }
        } else {
            BulkAnswer {
                body: self.out.finish(),
                stopped: false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use equip_domain::ids::OrganizationId;
    use equip_domain::testing::InMemoryStore;
    use serde_json::{json, Value};

    use super::run_bulk;
    use crate::list::ListInputs;
    use crate::provisioning::groups::Groups;
    use crate::provisioning::{Provisioning, ResourceType};

    /// What an embedder does without any web framework: a Bulk request
    /// over its own store, then a list of what it wrote.
    #[test]
    fn a_bulk_request_runs_over_any_store_without_a_web_server() {
        let store = InMemoryStore::default();
        let org = OrganizationId::new();
        let p = Provisioning::new(&store, org, "https://equip.example");
        let user = |name: &str| {
            json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                   "userName": name, "emails": [{"value": name, "primary": true}]})
        };
        let answer = run_bulk(
            p,
            json!({
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
                "Operations": [
                    {"method": "POST", "path": "/Users", "bulkId": "u1", "data": user("ada@x.example")},
                    {"method": "POST", "path": "/Users", "bulkId": "u2", "data": user("ada@x.example")},
                    {"method": "POST", "path": "/Groups", "bulkId": "g1",
                     "data": {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
                              "displayName": "Team", "members": [{"value": "bulkId:u1"}]}},
                    {"method": "DELETE", "path": "/Users/not-an-id"}
                ]
            }),
        )
        .unwrap();
        assert!(!answer.stopped);
        let answer: Value = serde_json::from_str(&answer.body).unwrap();
        let statuses: Vec<&str> = answer["Operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|op| op["status"].as_str().unwrap())
            .collect();
        // The second create's userName is taken: 409, alone; a malformed id
        // names no user: 404.
        assert_eq!(statuses, ["201", "409", "201", "404"]);
        let uniqueness = &answer["Operations"][1]["response"]["scimType"];
        assert_eq!(uniqueness, "uniqueness");
        let location = answer["Operations"][2]["location"].as_str().unwrap();
        assert!(location.starts_with("https://equip.example/scim/v2/Groups/"));

        let inputs = ListInputs::default();
        let query = Groups::query(&inputs, 50).unwrap();
        let list: Value = serde_json::from_str(&Groups::list(&p, query, &inputs).unwrap()).unwrap();
        assert_eq!(list["totalResults"], 1);
        assert_eq!(list["Resources"][0]["members"].as_array().unwrap().len(), 1);
    }
}
