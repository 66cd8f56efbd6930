//! Routes, one module per resource.
//!
//! Every route is registered through [`register`], which also lists it in
//! [`table`]: the OpenAPI contract test compares that list with the document
//! (`crate::openapi`), so a route cannot be added without documenting it.

pub mod health;
pub mod inventory;
pub mod inventory_items;
pub mod inventory_levels;
pub mod new_joiners;
pub mod scim;
pub mod warehouses;

use actix_web::{web, HttpRequest, Resource};

use crate::error::method_not_allowed;

/// Where the routes go: the application, or the list of [`table`].
trait Sink {
    /// Takes the resource at `path`, whose methods are `allow`.
    fn add(&mut self, path: &'static str, allow: &'static str, resource: Resource);
}

impl Sink for web::ServiceConfig {
    fn add(&mut self, _path: &'static str, _allow: &'static str, resource: Resource) {
        self.service(resource);
    }
}

impl Sink for Vec<(&'static str, &'static str)> {
    fn add(&mut self, path: &'static str, allow: &'static str, _resource: Resource) {
        self.push((path, allow));
    }
}

/// Adds the resource at `path` (methods `allow`), with the routes `build` puts on it.
fn add(
    sink: &mut impl Sink,
    path: &'static str,
    allow: &'static str,
    build: impl FnOnce(Resource) -> Resource,
) {
    sink.add(path, allow, build(resource(path, allow)));
}

/// Registers every route.
pub fn configure(cfg: &mut web::ServiceConfig) {
    register(cfg);
}

/// Every registered path (actix pattern syntax, e.g. `/api/v1/inventory/{id}`)
/// with its methods as the `Allow` header lists them (`"GET, POST"`), in
/// registration order.
#[must_use]
pub fn table() -> Vec<(&'static str, &'static str)> {
    let mut table = Vec::new();
    register(&mut table);
    table
}

fn register(s: &mut impl Sink) {
    add(s, "/healthz", "GET", |r| {
        r.route(web::get().to(health::healthz))
    });
    add(s, "/readyz", "GET", |r| {
        r.route(web::get().to(health::readyz))
    });
    add(s, "/openapi.json", "GET", |r| {
        r.route(web::get().to(crate::openapi::serve))
    });
    add(s, "/api/v1/inventory", "GET, POST", |r| {
        r.route(web::get().to(inventory::list))
            .route(web::post().to(inventory_items::create))
    });
    add(s, "/api/v1/inventory/{id}", "GET, PATCH", |r| {
        r.route(web::get().to(inventory_items::get))
            .route(web::patch().to(inventory_items::update))
    });
    add(s, "/api/inventory", "GET", |r| {
        r.route(web::get().to(inventory::list))
    });
    add(s, "/api/v1/warehouses/{id}", "GET", |r| {
        r.route(web::get().to(warehouses::get))
    });
    add(s, "/api/v1/inventory-levels", "GET, POST", |r| {
        r.route(web::get().to(inventory_levels::list))
            .route(web::post().to(inventory_levels::create))
    });
    add(s, "/api/v1/inventory-levels/{id}", "DELETE", |r| {
        r.route(web::delete().to(inventory_levels::deactivate))
    });
    add(s, "/api/v1/new-joiners/{personId}/remind", "POST", |r| {
        r.route(web::post().to(new_joiners::remind))
    });
    add(s, "/api/v1/new-joiners/{personId}/reminders", "GET", |r| {
        r.route(web::get().to(new_joiners::list))
    });
    register_scim(s);
}

/// `/scim/v2`: Users, Bulk, CSV upload and discovery.
fn register_scim(s: &mut impl Sink) {
    use scim::{bulk, csv, discovery, users};
    add(s, "/scim/v2/Users", "GET, POST", |r| {
        r.route(web::get().to(users::list))
            .route(web::post().to(users::create))
    });
    add(s, "/scim/v2/Users/.search", "POST", |r| {
        r.route(web::post().to(users::search))
    });
    // Before `/Users/{id}`, which would otherwise take `csv` for an id.
    add(s, "/scim/v2/Users/csv", "POST", |r| {
        r.route(web::post().to(csv::upload))
    });
    add(s, "/scim/v2/Bulk", "POST", |r| {
        r.app_data(crate::error::json_config(
            equip_scim::bulk::MAX_PAYLOAD_SIZE,
        ))
        .route(web::post().to(bulk::bulk))
    });
    // RFC 7644 §3.4.3: a search at the root spans every resource type (Users only).
    add(s, "/scim/v2/.search", "POST", |r| {
        r.route(web::post().to(users::search))
    });
    add(s, "/scim/v2/Users/{id}", "GET, PUT, PATCH, DELETE", |r| {
        r.route(web::get().to(users::get))
            .route(web::put().to(users::replace))
            .route(web::patch().to(users::patch))
            .route(web::delete().to(users::delete))
    });
    add(s, "/scim/v2/ServiceProviderConfig", "GET", |r| {
        r.route(web::get().to(discovery::service_provider_config))
    });
    add(s, "/scim/v2/ResourceTypes", "GET", |r| {
        r.route(web::get().to(discovery::resource_types))
    });
    add(s, "/scim/v2/ResourceTypes/{id}", "GET", |r| {
        r.route(web::get().to(discovery::resource_type))
    });
    add(s, "/scim/v2/Schemas", "GET", |r| {
        r.route(web::get().to(discovery::schemas))
    });
    add(s, "/scim/v2/Schemas/{id}", "GET", |r| {
        r.route(web::get().to(discovery::schema))
    });
}

/// A resource whose other methods answer 405 with the area's body and `Allow`.
fn resource(path: &str, allow: &'static str) -> Resource {
    web::resource(path).default_service(web::to(move |req: HttpRequest| async move {
        method_not_allowed(&req, allow)
    }))
}
