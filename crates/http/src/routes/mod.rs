//! Routes, one module per resource.

pub mod health;
pub mod inventory;
pub mod inventory_items;
pub mod inventory_levels;
pub mod new_joiners;
pub mod scim;
pub mod warehouses;

use actix_web::{web, HttpRequest, Resource};

use crate::error::method_not_allowed;

/// Registers every route.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(resource("/healthz", "GET").route(web::get().to(health::healthz)))
        .service(resource("/readyz", "GET").route(web::get().to(health::readyz)))
        .service(
            resource("/api/v1/inventory", "GET, POST")
                .route(web::get().to(inventory::list))
                .route(web::post().to(inventory_items::create)),
        )
        .service(
            resource("/api/v1/inventory/{id}", "GET, PATCH")
                .route(web::get().to(inventory_items::get))
                .route(web::patch().to(inventory_items::update)),
        )
        .service(resource("/api/inventory", "GET").route(web::get().to(inventory::list)))
        .service(resource("/api/v1/warehouses/{id}", "GET").route(web::get().to(warehouses::get)))
        .service(
            resource("/api/v1/inventory-levels", "GET, POST")
                .route(web::get().to(inventory_levels::list))
                .route(web::post().to(inventory_levels::create)),
        )
        .service(
            resource("/api/v1/inventory-levels/{id}", "DELETE")
                .route(web::delete().to(inventory_levels::deactivate)),
        )
        .service(
            resource("/api/v1/new-joiners/{personId}/remind", "POST")
                .route(web::post().to(new_joiners::remind)),
        )
        .service(
            resource("/api/v1/new-joiners/{personId}/reminders", "GET")
                .route(web::get().to(new_joiners::list)),
        );
    configure_scim(cfg);
}

/// `/scim/v2`: Users, Bulk, CSV upload and discovery.
fn configure_scim(cfg: &mut web::ServiceConfig) {
    use scim::{bulk, csv, discovery, users};
    cfg.service(
        resource("/scim/v2/Users", "GET, POST")
            .route(web::get().to(users::list))
            .route(web::post().to(users::create)),
    )
    .service(resource("/scim/v2/Users/.search", "POST").route(web::post().to(users::search)))
    // Before `/Users/{id}`, which would otherwise take `csv` for an id.
    .service(resource("/scim/v2/Users/csv", "POST").route(web::post().to(csv::upload)))
    .service(
        resource("/scim/v2/Bulk", "POST")
            .app_data(crate::error::json_config(
                equip_scim::bulk::MAX_PAYLOAD_SIZE,
            ))
            .route(web::post().to(bulk::bulk)),
    )
    // RFC 7644 §3.4.3: a search at the root spans every resource type (Users only).
    .service(resource("/scim/v2/.search", "POST").route(web::post().to(users::search)))
    .service(
        resource("/scim/v2/Users/{id}", "GET, PUT, PATCH, DELETE")
            .route(web::get().to(users::get))
            .route(web::put().to(users::replace))
            .route(web::patch().to(users::patch))
            .route(web::delete().to(users::delete)),
    )
    .service(
        resource("/scim/v2/ServiceProviderConfig", "GET")
            .route(web::get().to(discovery::service_provider_config)),
    )
    .service(
        resource("/scim/v2/ResourceTypes", "GET").route(web::get().to(discovery::resource_types)),
    )
    .service(
        resource("/scim/v2/ResourceTypes/{id}", "GET")
            .route(web::get().to(discovery::resource_type)),
    )
    .service(resource("/scim/v2/Schemas", "GET").route(web::get().to(discovery::schemas)))
    .service(resource("/scim/v2/Schemas/{id}", "GET").route(web::get().to(discovery::schema)));
}

/// A resource whose other methods answer 405 with the area's body and `Allow`.
fn resource(path: &str, allow: &'static str) -> Resource {
    web::resource(path).default_service(web::to(move |req: HttpRequest| async move {
        method_not_allowed(&req, allow)
    }))
}
