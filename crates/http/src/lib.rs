//! # equip-http
//!
//! The web layer: actix-web handlers, extractors and the mapping of domain errors
//! to HTTP. It talks to storage only through the domain's repository traits
//! ([`Ports`]), and runs every (synchronous) store call on actix's blocking pool.
//!
//! - [`app`] builds the complete application: routes, JSON and query
//!   configuration, error bodies for unknown paths and methods, request logging.
//! - [`error`]: the two error bodies (`/api/v1` and `/scim/v2`), chosen once
//!   per request by its path.
//! - [`gate`]: the key and scope check in front of every route, before its
//!   body or parameters are read.
//! - [`auth`]: the `Authorization: ApiKey …` header and the caller extractors.
//! - [`scoped`]: the `/api/v1` handlers' extractor: the caller, its
//!   organization and the ports acting for it, run on the blocking pool.
//! - [`limits`]: URL and header limits and the request timeout.
//! - [`rate_limit`]: requests a second per API key (429 past it), checked by
//!   the gate.
//! - [`metrics`]: the Prometheus metrics: requests counted by route
//!   template, method and status, and the metrics listener's application.
//! - [`blocking`]: store calls on the blocking threads; 503 past capacity,
//!   nothing started for a client that has gone ([`client`]).
//! - [`shares`]: each organization's share of the store calls (429 past
//!   it), so that one organization cannot starve the others.
//! - [`routes`]: one module per resource; every route declared once (its
//!   methods, what each needs, its handlers).
//! - [`scim_requests`]: what `/scim/v2` forgives before routing (extra
//!   slashes in the path, a JSON body without `Content-Type`).
//! - [`openapi`]: the OpenAPI 3.1 document of the JSON API (`GET /openapi.json`).

pub mod auth;
pub mod blocking;
mod body;
pub mod client;
pub mod client_address;
pub mod error;
pub mod gate;
pub mod limits;
mod logging;
pub mod metrics;
pub mod openapi;
pub mod page_cap;
pub mod public_url;
mod query;
pub mod rate_limit;
pub mod request_id;
pub mod routes;
pub mod scim_requests;
pub mod scoped;
pub mod shares;
pub mod sso;
mod state;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::{web, App};

pub use limits::Limits;
pub use public_url::PublicUrl;
pub use rate_limit::RateLimit;
pub use shares::Shares;
pub use state::{AppState, Ports};

/// Largest JSON body accepted on `/api/v1` and `/scim/v2` (except uploads).
pub const JSON_LIMIT: usize = 1024 * 1024;

/// The complete equip application over `state`.
pub fn app(
    state: AppState,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    app_with(state, |_| {})
}

/// [`app`] with more routes, added by `mount` before the API's (the server
/// mounts the web console this way). What `mount` adds is outside the gate:
/// it is answered without a key, and must not reach the store. It is logged,
/// counted in the metrics and bounded by the limits like every request.
pub fn app_with(
    state: AppState,
    mount: impl FnOnce(&mut web::ServiceConfig),
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let limits = state.limits();
    let metrics = metrics::RequestMetrics(state.metrics());
    App::new()
        .app_data(web::Data::new(state))
        .app_data(web::Data::new(routes::openapi_json::DocumentText(
            openapi::document_text(),
        )))
        .app_data(error::json_config(JSON_LIMIT))
        .app_data(error::query_config())
        .app_data(error::path_config())
        .configure(mount)
        .configure(routes::sso::configure)
        .configure(routes::configure)
        .default_service(web::to(error::unknown_path))
        .wrap(limits)
        // Every error answered within (the limits' too) gets the body of
        // the request's area, decided here once from its path.
        .wrap(actix_web::middleware::from_fn(error::error_bodies))
        // Before the limits and the areas, which go by the path.
        .wrap(scim_requests::ScimRequests)
        .wrap(logging::RequestLog)
        // Outermost: counts what the limits answer too.
        .wrap(metrics)
}
