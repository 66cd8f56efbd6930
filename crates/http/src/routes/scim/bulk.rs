//! `POST /scim/v2/Bulk` (RFC 7644 §3.7): the request is checked whole before
//! any operation runs ([`BulkRequest::parse`]); then the operations run in
//! order, each through the same user operations as the single-user endpoints
//! ([`super::provisioning`]) and each atomic on its own, until the end or until
//! `failOnErrors` operations have failed. The answer is 200 with the
//! BulkResponse, one result per operation that ran.
//!
//! A lost database connection fails the operation it interrupts (503); the
//! write session goes on with a fresh connection. When three operations in
//! a row find the database unavailable, the run halts: every remaining
//! operation is reported with status 503 "not run" (safe to retry), so the
//! response still lists each committed operation.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use equip_domain::ids::OrganizationId;
use equip_domain::person::Person;
use equip_scim::bulk::{
    BulkIds, BulkMethod, BulkOperation, BulkOperationResult, BulkRequest, BulkRequestError,
    BulkResponseWriter, BulkTarget,
};
use equip_scim::error::{ScimErrorBody, ScimType};
use equip_scim::patch::parse_patch;
use equip_scim::user::{user_location, version_tag};
use serde_json::Value;

use super::provisioning::{
    create_user, delete_user, patch_error, patch_user, person_id, replace_user, IfMatch,
};
use super::{base_url, run_in_session};
use crate::auth::Authenticated;
use crate::error::{Area, HttpError};
use crate::state::{AppState, Ports};

/// A request refused whole: 400 / 413 with the SCIM error body.
pub(crate) fn refused(e: &BulkRequestError) -> HttpError {
    let (status, scim_type) = e.status();
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    let err = HttpError::new(Area::Scim, status, "Operations", e.to_string());
    match scim_type {
        Some(t) => err.with_scim_type(t),
        None => err,
    }
}

/// Runs operations one after another for one organization, writing each
/// result into the BulkResponse.
pub(crate) struct BulkRun<'a> {
    ports: &'a dyn Ports,
    org: OrganizationId,
    base: &'a str,
    fail_on_errors: Option<usize>,
    /// Whether `bulkId:` references are resolved (Bulk: yes; CSV rows carry
    /// no references, and a cell that happens to hold `bulkId:…` is data).
    references: bool,
    ids: BulkIds,
    out: BulkResponseWriter,
    /// Operations answered 503 (database unavailable) since the last one
    /// that was not.
    unavailable_in_a_row: u8,
    /// The database is unavailable: every operation from here on is
    /// reported as not run ([`not_run`]).
    halted: bool,
}

/// A run halts after this many operations in a row found the database
/// unavailable: one is a lost connection (the write session goes on with a
/// fresh one), one more may be a second termination right after; three mean
/// there is no connection to be had (each waited for the pool's timeout).
const UNAVAILABLE_BEFORE_HALT: u8 = 3;

/// The result of an operation not run because the database became
/// unavailable earlier in the request: 503, safe to retry.
fn not_run(method: BulkMethod, bulk_id: Option<String>) -> BulkOperationResult {
    let error = HttpError::new(
        Area::Scim,
        StatusCode::SERVICE_UNAVAILABLE,
        "Operations",
        "not run: the database became unavailable during this request; \
         this operation was not attempted and is safe to retry",
    );
    BulkOperationResult {
        method: method.as_str(),
        bulk_id,
        location: None,
        version: None,
        status: error.status().as_u16().to_string(),
        response: Some(error.scim_body()),
    }
}

/// What one operation did to which user.
struct Done {
    status: StatusCode,
    person: Option<Person>,
}

impl<'a> BulkRun<'a> {
    /// A run for `org`; `meta.location`s under `base`.
    pub(crate) fn new(
        ports: &'a dyn Ports,
        org: OrganizationId,
        base: &'a str,
        fail_on_errors: Option<usize>,
    ) -> Self {
        Self {
            ports,
            org,
            base,
            fail_on_errors,
            references: true,
            ids: BulkIds::default(),
            out: BulkResponseWriter::new(),
            unavailable_in_a_row: 0,
            halted: false,
        }
    }

    /// A run whose operations are taken literally: no `bulkId:` references.
    pub(crate) fn without_references(mut self) -> Self {
        self.references = false;
        self
    }

    /// Whether `failOnErrors` operations have failed: nothing more runs, and
    /// nothing more is reported. (A run halted by an unavailable database is
    /// not stopped: it reports every remaining operation as not run.)
    pub(crate) fn stopped(&self) -> bool {
        !self.halted
            && self
                .fail_on_errors
                .is_some_and(|limit| self.out.errors() >= limit)
    }

    /// Records an operation that failed before it could run (a CSV row that
    /// did not convert).
    pub(crate) fn record_failure(
        &mut self,
        method: BulkMethod,
        bulk_id: Option<String>,
        error: ScimErrorBody,
    ) {
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

    /// Runs `op` and records its result (unless the run has stopped).
    pub(crate) fn execute(&mut self, op: BulkOperation) {
        if self.stopped() {
            return;
        }
        if self.halted {
            self.out.push(&not_run(op.method, op.bulk_id));
            return;
        }
        let mut location = None;
        let outcome = self.perform(&op, &mut location);
        match &outcome {
            Err(e) if e.status() == StatusCode::SERVICE_UNAVAILABLE => {
                self.unavailable_in_a_row += 1;
                self.halted = self.unavailable_in_a_row >= UNAVAILABLE_BEFORE_HALT;
            }
            _ => self.unavailable_in_a_row = 0,
        }
        let result = match outcome {
            Ok(done) => {
                let (location, version) = match &done.person {
                    Some(p) => {
                        if let (BulkMethod::Post, Some(bulk_id)) = (op.method, &op.bulk_id) {
                            self.ids.record(bulk_id, p.id.to_string());
                        }
                        (
                            Some(user_location(self.base, p.id)),
                            Some(version_tag(p.version)),
                        )
                    }
                    None => (location, None),
                };
                BulkOperationResult {
                    method: op.method.as_str(),
                    bulk_id: op.bulk_id,
                    location,
                    version,
                    status: done.status.as_u16().to_string(),
                    response: None,
                }
            }
            Err(e) => BulkOperationResult {
                method: op.method.as_str(),
                bulk_id: op.bulk_id,
                location,
                version: None,
                status: e.status().as_u16().to_string(),
                response: Some(e.scim_body()),
            },
        };
        self.out.push(&result);
    }

    /// Resolves `bulkId` references, then runs the operation. `location` is
    /// set as soon as the target user is known (a failed PUT still names it).
    fn perform(
        &self,
        op: &BulkOperation,
        location: &mut Option<String>,
    ) -> Result<Done, HttpError> {
        let unresolved = |e: equip_scim::bulk::UnresolvedBulkId| {
            HttpError::new(Area::Scim, StatusCode::CONFLICT, "bulkId", e.to_string())
                .with_scim_type(ScimType::InvalidValue)
        };
        let mut data = op.data.clone().unwrap_or(Value::Null);
        let path = if self.references {
            self.ids.resolve_value(&mut data).map_err(unresolved)?;
            self.ids.resolve_str(&op.path).map_err(unresolved)?
        } else {
            op.path.clone()
        };
        let invalid_path = |expected: &str| {
            HttpError::bad_request(
                Area::Scim,
                "path",
                format!(
                    "{} path {:?} must be {expected}",
                    op.method.as_str(),
                    op.path
                ),
            )
            .with_scim_type(ScimType::InvalidPath)
        };
        let target = BulkTarget::parse(&path);
        if op.method == BulkMethod::Post {
            if target != Some(BulkTarget::Users) {
                return Err(invalid_path("/Users"));
            }
            let person = create_user(self.ports, self.org, data)?;
            return Ok(Done {
                status: StatusCode::CREATED,
                person: Some(person),
            });
        }
        let Some(BulkTarget::User(raw_id)) = target else {
            return Err(invalid_path("/Users/<id>"));
        };
        let id = person_id(raw_id)?;
        *location = Some(user_location(self.base, id));
        let if_match = IfMatch::from_version(op.version.as_deref());
        let (status, person) = match op.method {
            BulkMethod::Put => (
                StatusCode::OK,
                Some(replace_user(self.ports, self.org, id, &data, &if_match)?),
            ),
            BulkMethod::Patch => {
                let ops = parse_patch(&data).map_err(patch_error)?;
                let p = patch_user(self.ports, self.org, id, &ops, self.base, &if_match)?;
                (StatusCode::OK, Some(p))
            }
            // POST returned above.
            BulkMethod::Delete | BulkMethod::Post => {
                delete_user(self.ports, self.org, id, &if_match)?;
                (StatusCode::NO_CONTENT, None)
            }
        };
        Ok(Done { status, person })
    }

    /// The BulkResponse body.
    pub(crate) fn finish(self) -> String {
        self.out.finish()
    }
}

/// `POST /scim/v2/Bulk`.
pub async fn bulk(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let body = body.into_inner();
    let base = base_url(&req);
    let text = run_in_session(&state, key, move |ports, org| {
        // Checked after the key, before any operation runs.
        let request = BulkRequest::parse(body).map_err(|e| refused(&e))?;
        let mut bulk = BulkRun::new(ports, org, &base, request.fail_on_errors);
        for op in request.operations {
            if bulk.stopped() {
                break;
            }
            bulk.execute(op);
        }
        Ok(bulk.finish())
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type(equip_scim::schemas::MEDIA_TYPE)
        .body(text))
}
