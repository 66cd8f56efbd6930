//! Routes, one module per resource.
//!
//! Every route is registered through [`register`], which also lists it in
//! [`table`]: the OpenAPI contract test compares that list with the document
//! (`crate::openapi`), so a route cannot be added without documenting it.

pub mod api_key;
pub mod events;
pub mod health;
pub mod inventory;
pub mod inventory_items;
pub mod inventory_levels;
pub mod new_joiners;
pub mod scim;
pub mod warehouses;
pub mod webhooks;

use actix_web::dev::HttpServiceFactory;
use actix_web::{guard, web, HttpRequest, Resource, Route};
use equip_domain::api_key::Scope::{
    EventsRead, InventoryLevelsWrite, InventoryRead, InventoryWrite, NewJoinersWrite, Scim,
    WarehousesRead, WebhooksWrite,
};

use crate::error::method_not_allowed;
use crate::gate::Needs::{AnyKey, KeyWith};
use crate::gate::{Access, Gate};

/// Where the routes go: the application, or the list of [`table`].
trait Sink {
    /// Takes the resource at `path`, whose methods are `allow`, gated by
    /// `access`.
    fn add<R: HttpServiceFactory + 'static>(
        &mut self,
        path: &'static str,
        allow: &'static str,
        access: Access,
        resource: R,
    );
}

impl Sink for web::ServiceConfig {
    fn add<R: HttpServiceFactory + 'static>(
        &mut self,
        _: &'static str,
        _: &'static str,
        _: Access,
        r: R,
    ) {
        self.service(r);
    }
}

impl Sink for Vec<(&'static str, &'static str)> {
    fn add<R: HttpServiceFactory + 'static>(
        &mut self,
        path: &'static str,
        allow: &'static str,
        _: Access,
        _: R,
    ) {
        self.push((path, allow));
    }
}

/// Adds the resource at `path` (methods `allow`), with the routes `build` puts
/// on it, behind a [`Gate`] that requires `access` (what the key of each
/// method must hold) before anything of the request is read.
fn add(
    sink: &mut impl Sink,
    path: &'static str,
    allow: &'static str,
    access: Access,
    build: impl FnOnce(Resource) -> Resource,
) {
    let resource = build(resource(path, allow)).wrap(Gate::new(access));
    sink.add(path, allow, access, resource);
}

/// A route for `GET` that also answers `HEAD` (actix-web sends the headers of
/// the `GET` answer without its body).
fn get() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

/// Registers every route.
pub fn configure(cfg: &mut web::ServiceConfig) {
    register(cfg);
}

/// Every registered path (actix pattern syntax, e.g. `/api/v1/inventory/{id}`)
/// with its methods as the OpenAPI document lists them (`"GET, POST"`; every
/// `GET` also answers `HEAD`), in registration order.
#[must_use]
pub fn table() -> Vec<(&'static str, &'static str)> {
    let mut table = Vec::new();
    register(&mut table);
    table
}

/// No key: every method passes the gate.
const OPEN: Access = &[];

fn register(s: &mut impl Sink) {
    add(s, "/healthz", "GET", OPEN, |r| {
        r.route(get().to(health::healthz))
    });
    add(s, "/readyz", "GET", OPEN, |r| {
        r.route(get().to(health::readyz))
    });
    add(s, "/openapi.json", "GET", OPEN, |r| {
        r.route(get().to(crate::openapi::serve))
    });
    let inventory = &[
        ("GET", KeyWith(InventoryRead)),
        ("POST", KeyWith(InventoryWrite)),
    ];
    add(s, "/api/v1/inventory", "GET, POST", inventory, |r| {
        r.route(get().to(inventory::list))
            .route(web::post().to(inventory_items::create))
    });
    let item = &[
        ("GET", KeyWith(InventoryRead)),
        ("PATCH", KeyWith(InventoryWrite)),
    ];
    add(s, "/api/v1/inventory/{id}", "GET, PATCH", item, |r| {
        r.route(get().to(inventory_items::get))
            .route(web::patch().to(inventory_items::update))
    });
    let read = &[("GET", KeyWith(InventoryRead))];
    add(s, "/api/inventory", "GET", read, |r| {
        r.route(get().to(inventory::list))
    });
    let warehouses = &[("GET", KeyWith(WarehousesRead))];
    add(s, "/api/v1/warehouses", "GET", warehouses, |r| {
        r.route(get().to(warehouses::list))
    });
    add(s, "/api/v1/warehouses/{id}", "GET", warehouses, |r| {
        r.route(get().to(warehouses::get))
    });
    let levels = &[
        ("GET", KeyWith(InventoryRead)),
        ("POST", KeyWith(InventoryLevelsWrite)),
    ];
    add(s, "/api/v1/inventory-levels", "GET, POST", levels, |r| {
        r.route(get().to(inventory_levels::list))
            .route(web::post().to(inventory_levels::create))
    });
    let level = &[("DELETE", KeyWith(InventoryLevelsWrite))];
    add(s, "/api/v1/inventory-levels/{id}", "DELETE", level, |r| {
        r.route(web::delete().to(inventory_levels::deactivate))
    });
    let remind = &[("POST", KeyWith(NewJoinersWrite))];
    add(
        s,
        "/api/v1/new-joiners/{personId}/remind",
        "POST",
        remind,
        |r| r.route(web::post().to(new_joiners::remind)),
    );
    let reminders = &[("GET", KeyWith(NewJoinersWrite))];
    add(
        s,
        "/api/v1/new-joiners/{personId}/reminders",
        "GET",
        reminders,
        |r| r.route(get().to(new_joiners::list)),
    );
    let events = &[("GET", KeyWith(EventsRead))];
    add(s, "/api/v1/events", "GET", events, |r| {
        r.route(get().to(events::feed))
    });
    add(s, "/api/v1/inventory/{id}/history", "GET", events, |r| {
        r.route(get().to(events::item_history))
    });
    add(s, "/api/v1/people/{id}/history", "GET", events, |r| {
        r.route(get().to(events::person_history))
    });
    // Any valid key, even one without scopes: it answers only about itself.
    let own_key = &[("GET", AnyKey)];
    add(s, "/api/v1/api-key", "GET", own_key, |r| {
        r.route(get().to(api_key::get))
    });
    register_webhooks(s);
    register_scim(s);
}

/// `/api/v1/webhooks`: every method needs `webhooks:write`.
fn register_webhooks(s: &mut impl Sink) {
    let hooks = &[
        ("GET", KeyWith(WebhooksWrite)),
        ("POST", KeyWith(WebhooksWrite)),
    ];
    add(s, "/api/v1/webhooks", "GET, POST", hooks, |r| {
        r.route(get().to(webhooks::list))
            .route(web::post().to(webhooks::create))
    });
    let hook = &[
        ("GET", KeyWith(WebhooksWrite)),
        ("DELETE", KeyWith(WebhooksWrite)),
    ];
    add(s, "/api/v1/webhooks/{id}", "GET, DELETE", hook, |r| {
        r.route(get().to(webhooks::get))
            .route(web::delete().to(webhooks::delete))
    });
    let log = &[("GET", KeyWith(WebhooksWrite))];
    add(s, "/api/v1/webhooks/{id}/deliveries", "GET", log, |r| {
        r.route(get().to(webhooks::deliveries))
    });
}

/// Every method of a SCIM route needs the `scim` scope.
const SCIM: Access = &[
    ("GET", KeyWith(Scim)),
    ("POST", KeyWith(Scim)),
    ("PUT", KeyWith(Scim)),
    ("PATCH", KeyWith(Scim)),
    ("DELETE", KeyWith(Scim)),
];

/// `/scim/v2`: Users, Groups, Bulk, CSV upload and discovery.
fn register_scim(s: &mut impl Sink) {
    use equip_scim::provisioning::{groups::Groups, users::Users};
    use scim::resources as rs;
    use scim::{bulk, csv, discovery, root_search};
    add(s, "/scim/v2/Users", "GET, POST", SCIM, |r| {
        r.route(get().to(rs::list::<Users>))
            .route(web::post().to(rs::create::<Users>))
    });
    add(s, "/scim/v2/Users/.search", "POST", SCIM, |r| {
        r.route(web::post().to(rs::search::<Users>))
    });
    // Before `/Users/{id}`, which would otherwise take `csv` for an id.
    add(s, "/scim/v2/Users/csv", "POST", SCIM, |r| {
        r.route(web::post().to(csv::upload))
    });
    add(s, "/scim/v2/Bulk", "POST", SCIM, |r| {
        r.app_data(crate::error::json_config(
            equip_scim::bulk::MAX_PAYLOAD_SIZE,
        ))
        .route(web::post().to(bulk::bulk))
    });
    // RFC 7644 §3.4.3: a search at the root spans every resource type.
    add(s, "/scim/v2/.search", "POST", SCIM, |r| {
        r.route(web::post().to(root_search::search))
    });
    add(
        s,
        "/scim/v2/Users/{id}",
        "GET, PUT, PATCH, DELETE",
        SCIM,
        |r| {
            r.route(get().to(rs::get::<Users>))
                .route(web::put().to(rs::replace::<Users>))
                .route(web::patch().to(rs::patch::<Users>))
                .route(web::delete().to(rs::delete::<Users>))
        },
    );
    add(s, "/scim/v2/Groups", "GET, POST", SCIM, |r| {
        r.route(get().to(rs::list::<Groups>))
            .route(web::post().to(rs::create::<Groups>))
    });
    add(s, "/scim/v2/Groups/.search", "POST", SCIM, |r| {
        r.route(web::post().to(rs::search::<Groups>))
    });
    add(
        s,
        "/scim/v2/Groups/{id}",
        "GET, PUT, PATCH, DELETE",
        SCIM,
        |r| {
            r.route(get().to(rs::get::<Groups>))
                .route(web::put().to(rs::replace::<Groups>))
                .route(web::patch().to(rs::patch::<Groups>))
                .route(web::delete().to(rs::delete::<Groups>))
        },
    );
    add(s, "/scim/v2/ServiceProviderConfig", "GET", SCIM, |r| {
        r.route(get().to(discovery::service_provider_config))
    });
    add(s, "/scim/v2/ResourceTypes", "GET", SCIM, |r| {
        r.route(get().to(discovery::resource_types))
    });
    add(s, "/scim/v2/ResourceTypes/{id}", "GET", SCIM, |r| {
        r.route(get().to(discovery::resource_type))
    });
    add(s, "/scim/v2/Schemas", "GET", SCIM, |r| {
        r.route(get().to(discovery::schemas))
    });
    add(s, "/scim/v2/Schemas/{id}", "GET", SCIM, |r| {
        r.route(get().to(discovery::schema))
    });
}

/// A resource whose other methods answer 405 with the area's body and
/// `Allow` (`allow`, with `HEAD` after `GET`).
fn resource(path: &str, allow: &'static str) -> Resource {
    let allow = allow.replace("GET", "GET, HEAD");
    web::resource(path).default_service(web::to(move |req: HttpRequest| {
        let allow = allow.clone();
        async move { method_not_allowed(&req, &allow) }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every route with what each of its methods needs.
    impl Sink for Vec<(&'static str, &'static str, Access)> {
        fn add<R: HttpServiceFactory + 'static>(
            &mut self,
            path: &'static str,
            allow: &'static str,
            access: Access,
            _: R,
        ) {
            self.push((path, allow, access));
        }
    }

    fn routes() -> Vec<(&'static str, &'static str, Access)> {
        let mut routes = Vec::new();
        register(&mut routes);
        routes
    }

    #[test]
    fn every_method_but_the_operational_endpoints_needs_a_key() {
        for (path, allow, access) in routes() {
            if ["/healthz", "/readyz", "/openapi.json"].contains(&path) {
                assert!(access.is_empty(), "{path} is open");
                continue;
            }
            for method in allow.split(", ") {
                assert!(
                    access.iter().any(|(m, _)| *m == method),
                    "{method} {path} would pass the gate without a key"
                );
            }
        }
    }

    #[test]
    fn only_the_own_key_route_takes_a_key_without_a_scope() {
        let any_key: Vec<_> = routes()
            .into_iter()
            .filter(|(_, _, access)| access.iter().any(|(_, n)| *n == AnyKey))
            .map(|(path, allow, _)| (path, allow))
            .collect();
        assert_eq!(any_key, [("/api/v1/api-key", "GET")]);
    }
}
