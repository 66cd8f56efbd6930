//! Routes, one module per resource.

pub mod health;
pub mod inventory;
pub mod inventory_items;
pub mod inventory_levels;
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
        );
}

/// A resource whose other methods answer 405 with the area's body and `Allow`.
fn resource(path: &str, allow: &'static str) -> Resource {
    web::resource(path).default_service(web::to(move |req: HttpRequest| async move {
        method_not_allowed(&req, allow)
    }))
}
