//! [`Scoped`]: what an `/api/v1` handler works with once the gate has let
//! its request through — the verified caller, its organization, and the
//! store's ports acting for it — so that a handler's body is its use case:
//!
//! ```ignore
//! pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
//!     let id = path_id("id", &id, WarehouseId::parse)?;
//!     let warehouse = scoped.run(move |ports, org| get_warehouse(ports, org, id)).await?;
//!     Ok(HttpResponse::Ok().json(warehouse_json(&warehouse)))
//! }
//! ```

use std::future::{ready, Ready};

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use equip_domain::api_key::{Caller, Scope};
use equip_domain::ids::OrganizationId;
use equip_domain::DomainError;

use crate::auth::gated_caller;
use crate::blocking;
use crate::error::HttpError;
use crate::state::{AppState, Ports};

/// The caller the route's gate verified, and the application state its
/// store calls go through.
#[derive(Clone)]
pub struct Scoped {
    caller: Caller,
    state: web::Data<AppState>,
}

impl Scoped {
    /// Who is calling.
    #[must_use]
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The caller's organization: every store call of the request is
    /// scoped to it.
    #[must_use]
    pub fn organization(&self) -> OrganizationId {
        self.caller.organization_id
    }

    /// Whether the caller's key holds `scope` (beyond the one the gate
    /// required), e.g. whether the answer to a write may show what was
    /// written.
    #[must_use]
    pub fn holds(&self, scope: Scope) -> bool {
        self.caller.require(scope).is_ok()
    }

    /// The application state (settings a use case needs besides the ports).
    #[must_use]
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Runs `f` with the ports acting for the caller (its writes' events
    /// name the caller's key) and the caller's organization, on the
    /// blocking pool ([`blocking::run`]).
    ///
    /// # Errors
    /// As [`blocking::run`]: `f`'s error (a domain error mapped by
    /// [`HttpError::from`]), or the pool's refusals.
    pub async fn run<T, E, F>(self, f: F) -> Result<T, HttpError>
    where
        F: FnOnce(&dyn Ports, OrganizationId) -> Result<T, E> + Send + 'static,
        E: Into<HttpError>,
        T: Send + 'static,
    {
        let org = self.organization();
        let ports = self.state.ports(&self.caller);
        blocking::run(move || f(&*ports, org)).await
    }

    /// [`Scoped::run`] on a write session of the store (see
    /// [`equip_domain::ports::WriteSessions`]): for a request that makes many
    /// writes, which then wait for their durability once.
    ///
    /// # Errors
    /// As [`Scoped::run`], and 503 when no connection is free in time.
    pub async fn run_in_session<T, E, F>(self, f: F) -> Result<T, HttpError>
    where
        F: FnOnce(&dyn Ports, OrganizationId) -> Result<T, E> + Send + 'static,
        E: Into<HttpError>,
        T: Send + 'static,
    {
        let org = self.organization();
        blocking::run(move || {
            let ports = self
                .state
                .write_session(&self.caller)
                .map_err(|e| HttpError::from(DomainError::from(e)))?;
            f(&*ports, org).map_err(Into::into)
        })
        .await
    }
}

impl FromRequest for Scoped {
    type Error = HttpError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let scoped = gated_caller(req).and_then(|caller| {
            let state = req
                .app_data::<web::Data<AppState>>()
                .cloned()
                .ok_or_else(|| HttpError::internal(&"application state missing"))?;
            Ok(Self { caller, state })
        });
        ready(scoped)
    }
}
