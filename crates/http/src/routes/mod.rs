//! Routes, one module per resource.
//!
//! Every route is declared once, in `register`: its path and, for each
//! method, what the key must hold (`crate::gate::Needs`) and the handler.
//! From that one declaration come the actix resource, the route's gate, the
//! `Allow` header of its 405, and its line in [`table`]: the OpenAPI
//! contract test compares that list with the document (`crate::openapi`), so
//! a route cannot be added without documenting it.

pub mod api_key;
pub mod catalog;
pub mod events;
pub mod health;
pub mod inventory;
pub mod inventory_items;
pub mod inventory_levels;
pub mod inventory_summary;
pub mod new_joiners;
pub mod openapi_json;
pub mod orders;
pub mod packages;
pub mod people;
pub mod receipts;
pub mod return_orders;
pub mod scim;
pub mod sso;
pub mod warehouses;
pub mod webhooks;

use actix_web::dev::HttpServiceFactory;
use actix_web::http::Method;
use actix_web::{guard, web, FromRequest, Handler, HttpRequest, Responder};
use equip_domain::api_key::Scope::{
    EventsRead, InventoryLevelsWrite, InventoryRead, InventoryWrite, NewJoinersWrite, OrdersRead,
    OrdersWrite, PackagesWrite, PeopleRead, ReturnsRead, ReturnsWrite, Scim, WarehousesRead,
    WebhooksWrite,
};

use crate::error::method_not_allowed;
use crate::gate::Needs::{self, AnyKey, KeyWith, NoKey};
use crate::gate::{Access, Gate};

/// One route, declared once: its path and, for each method it takes, what
/// the key must hold and the handler. Its actix resource, its gate and the
/// `Allow` of its 405 are all made from this.
struct Route {
    path: &'static str,
    methods: Vec<Taken>,
    /// What the methods it does not take need before their 405
    /// ([`Access::new`]).
    others: Needs,
    /// The route's own JSON body limit, if not `crate::JSON_LIMIT`.
    json_limit: Option<usize>,
    /// What a method the route does not take is answered with: 405, or
    /// (given here) 501 saying this of the route ([`Route::not_implemented`]).
    not_implemented: Option<&'static str>,
}

/// A method a route takes.
struct Taken {
    method: Method,
    needs: Needs,
    route: actix_web::Route,
}

/// The route at `path`, without methods yet: the methods it does not take
/// need nothing before their 405.
fn at(path: &'static str) -> Route {
    Route {
        path,
        methods: Vec::new(),
        others: NoKey,
        json_limit: None,
        not_implemented: None,
    }
}

/// A SCIM route at `path`: every method, also those it does not take, needs
/// the `scim` scope, so a caller without it learns nothing of the route.
fn scim(path: &'static str) -> Route {
    Route {
        others: KeyWith(Scim),
        ..at(path)
    }
}

/// `Route::get(needs, handler)` and its siblings: [`Route::to`] with the
/// method of the name.
macro_rules! method_builders {
    ($($name:ident => $method:ident),* $(,)?) => {
        $(
            fn $name<F, Args>(self, needs: Needs, handler: F) -> Self
            where
                F: Handler<Args>,
                Args: FromRequest + 'static,
                F::Output: Responder + 'static,
            {
                self.to(Method::$method, needs, handler)
            }
        )*
    };
}

impl Route {
    /// Takes `method` with `handler`, for a key holding what it `needs`.
    fn to<F, Args>(mut self, method: Method, needs: Needs, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        let route = if method == Method::GET {
            // A `GET` also answers `HEAD` (actix-web sends the headers of the
            // `GET` answer without its body).
            web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
        } else {
            web::route().method(method.clone())
        };
        self.methods.push(Taken {
            method,
            needs,
            route: route.to(handler),
        });
        self
    }

    method_builders! {
        get => GET,
        post => POST,
        put => PUT,
        patch => PATCH,
        delete => DELETE,
    }

    /// Every method (none is taken) answered 501 with the area's body,
    /// saying `detail`, once the gate has let the request in: an endpoint a
    /// protocol defines and equip does not provide (RFC 7644 §3.11, `/Me`).
    fn not_implemented(mut self, detail: &'static str) -> Self {
        self.not_implemented = Some(detail);
        self
    }

    /// JSON bodies of up to `limit` bytes on this route.
    fn json_limit(mut self, limit: usize) -> Self {
        self.json_limit = Some(limit);
        self
    }

    /// The methods as the OpenAPI document lists them (`"GET, POST"`).
    fn methods(&self) -> String {
        let names: Vec<&str> = self.methods.iter().map(|t| t.method.as_str()).collect();
        names.join(", ")
    }

    /// The `Allow` of a 405: the methods, with `HEAD` after `GET`.
    fn allow(&self) -> String {
        let mut names = Vec::new();
        for t in &self.methods {
            names.push(t.method.as_str());
            if t.method == Method::GET {
                names.push(Method::HEAD.as_str());
            }
        }
        names.join(", ")
    }

    /// What each method needs, for the route's gate.
    fn access(&self) -> Access {
        let methods = self
            .methods
            .iter()
            .map(|t| (t.method.clone(), t.needs))
            .collect();
        Access::new(methods, self.others)
    }

    /// The actix resource: the methods' handlers behind the route's
    /// [`Gate`], which checks what each method needs before anything of the
    /// request is read; another method is 405 with the area's body and
    /// `Allow`.
    fn resource(self) -> impl HttpServiceFactory {
        let allow = self.allow();
        let gate = Gate::new(self.access());
        let not_implemented = self.not_implemented;
        let mut resource =
            web::resource(self.path).default_service(web::to(move |req: HttpRequest| {
                let allow = allow.clone();
                async move {
                    match not_implemented {
                        Some(detail) => crate::error::not_implemented(detail),
                        None => method_not_allowed(&req, &allow),
                    }
                }
            }));
        if let Some(limit) = self.json_limit {
            resource = resource.app_data(crate::error::json_config(limit));
        }
        for taken in self.methods {
            resource = resource.route(taken.route);
        }
        resource.wrap(gate)
    }
}

/// Registers every route.
pub fn configure(cfg: &mut web::ServiceConfig) {
    for route in register() {
        cfg.service(route.resource());
    }
}

/// Every registered path (actix pattern syntax, e.g. `/api/v1/inventory/{id}`)
/// with its methods as the OpenAPI document lists them (`"GET, POST"`; every
/// `GET` also answers `HEAD`), in registration order.
#[must_use]
pub fn table() -> Vec<(&'static str, String)> {
    register()
        .iter()
        .map(|route| (route.path, route.methods()))
        .collect()
}

/// What `method` at `path` (as registered, e.g. `/api/v1/webhooks/{id}`)
/// needs of a request; `None` when the route does not take it.
#[must_use]
pub fn needs(path: &str, method: &Method) -> Option<Needs> {
    register()
        .iter()
        .find(|route| route.path == path)?
        .methods
        .iter()
        .find(|taken| taken.method == *method)
        .map(|taken| taken.needs)
}

/// Every route, in the order actix matches them.
fn register() -> Vec<Route> {
    let mut routes = vec![
        at("/healthz").get(NoKey, health::healthz),
        at("/readyz").get(NoKey, health::readyz),
        at("/openapi.json").get(NoKey, openapi_json::serve),
        at("/api/v1/inventory")
            .get(KeyWith(InventoryRead), inventory::list)
            .post(KeyWith(InventoryWrite), inventory_items::create),
        at("/api/v1/inventory/{id}")
            .get(KeyWith(InventoryRead), inventory_items::get)
            .patch(KeyWith(InventoryWrite), inventory_items::update),
        at("/api/inventory").get(KeyWith(InventoryRead), inventory::list_unversioned),
        at("/api/v1/warehouses").get(KeyWith(WarehousesRead), warehouses::list),
        at("/api/v1/warehouses/{id}").get(KeyWith(WarehousesRead), warehouses::get),
        at("/api/v1/warehouses/{id}/receipts").post(KeyWith(ReturnsWrite), receipts::receive),
        at("/api/v1/inventory/{id}/release-hold")
            .post(KeyWith(ReturnsWrite), receipts::release_hold),
        at("/api/v1/organization/settings")
            .get(KeyWith(ReturnsRead), receipts::get_settings)
            .put(KeyWith(ReturnsWrite), receipts::put_settings),
        at("/api/v1/inventory-levels")
            .get(KeyWith(InventoryRead), inventory_levels::list)
            .post(KeyWith(InventoryLevelsWrite), inventory_levels::create),
        at("/api/v1/inventory-levels/{id}")
            .delete(KeyWith(InventoryLevelsWrite), inventory_levels::deactivate),
        at("/api/v1/inventory-summary").get(KeyWith(InventoryRead), inventory_summary::get),
        at("/api/v1/skus").get(KeyWith(InventoryRead), catalog::skus),
        at("/api/v1/offices").get(KeyWith(InventoryRead), catalog::offices),
        at("/api/v1/packages").get(KeyWith(InventoryRead), packages::list),
        at("/api/v1/packages/{id}")
            .get(KeyWith(InventoryRead), packages::get)
            .put(KeyWith(PackagesWrite), packages::put),
        at("/api/v1/new-joiners/{personId}/remind")
            .post(KeyWith(NewJoinersWrite), new_joiners::remind),
        at("/api/v1/new-joiners/{personId}/reminders")
            .get(KeyWith(NewJoinersWrite), new_joiners::list),
        at("/api/v1/events").get(KeyWith(EventsRead), events::feed),
        at("/api/v1/inventory/{id}/history").get(KeyWith(EventsRead), events::item_history),
        at("/api/v1/people").get(KeyWith(PeopleRead), people::list),
        at("/api/v1/people/{id}").get(KeyWith(PeopleRead), people::get),
        at("/api/v1/people/{id}/history").get(KeyWith(EventsRead), events::person_history),
        // Any valid key, even one without scopes: it answers only about itself.
        at("/api/v1/api-key").get(AnyKey, api_key::get),
        // The organization's keys by name, to say who did what in a history.
        at("/api/v1/api-keys").get(KeyWith(EventsRead), api_key::list),
        at("/api/v1/webhooks")
            .get(KeyWith(WebhooksWrite), webhooks::list)
            .post(KeyWith(WebhooksWrite), webhooks::create),
        at("/api/v1/webhooks/{id}")
            .get(KeyWith(WebhooksWrite), webhooks::get)
            .delete(KeyWith(WebhooksWrite), webhooks::delete),
        at("/api/v1/webhooks/{id}/rotate-secret").post(KeyWith(WebhooksWrite), webhooks::rotate),
        at("/api/v1/webhooks/{id}/deliveries").get(KeyWith(WebhooksWrite), webhooks::deliveries),
        at("/api/v1/return-orders")
            .get(KeyWith(ReturnsRead), return_orders::list)
            .post(KeyWith(ReturnsWrite), return_orders::create),
        at("/api/v1/return-orders/{id}")
            .get(KeyWith(ReturnsRead), return_orders::get)
            .patch(KeyWith(ReturnsWrite), return_orders::update),
        at("/api/v1/orders").get(KeyWith(OrdersRead), orders::list),
        at("/api/v1/orders/{id}").get(KeyWith(OrdersRead), orders::get),
        at("/api/v1/orders/{id}/shipments").post(KeyWith(OrdersWrite), orders::ship),
        at("/api/v1/orders/{id}/shipments/{shipmentId}")
            .patch(KeyWith(OrdersWrite), orders::deliver),
    ];
    routes.extend(register_scim());
    routes
}

/// `/scim/v2`: Users, Groups, Bulk, CSV upload and discovery; every method
/// needs the `scim` scope.
fn register_scim() -> Vec<Route> {
    use equip_scim::provisioning::{groups::Groups, users::Users};
    use scim::resources as rs;
    use scim::{bulk, csv, discovery, root_search};
    const S: Needs = KeyWith(Scim);
    vec![
        scim("/scim/v2/Users")
            .get(S, rs::list::<Users>)
            .post(S, rs::create::<Users>),
        scim("/scim/v2/Users/.search").post(S, rs::search::<Users>),
        // Before `/Users/{id}`, which would otherwise take `csv` for an id.
        scim("/scim/v2/Users/csv").post(S, csv::upload),
        scim("/scim/v2/Bulk")
            .json_limit(equip_scim::bulk::MAX_PAYLOAD_SIZE)
            .post(S, bulk::bulk),
        // RFC 7644 §3.4.3: a search at the root spans every resource type.
        scim("/scim/v2/.search").post(S, root_search::search),
        scim("/scim/v2/Users/{id}")
            .get(S, rs::get::<Users>)
            .put(S, rs::replace::<Users>)
            .patch(S, rs::patch::<Users>)
            .delete(S, rs::delete::<Users>),
        scim("/scim/v2/Groups")
            .get(S, rs::list::<Groups>)
            .post(S, rs::create::<Groups>),
        scim("/scim/v2/Groups/.search").post(S, rs::search::<Groups>),
        scim("/scim/v2/Groups/{id}")
            .get(S, rs::get::<Groups>)
            .put(S, rs::replace::<Groups>)
            .patch(S, rs::patch::<Groups>)
            .delete(S, rs::delete::<Groups>),
        scim("/scim/v2/ServiceProviderConfig").get(S, discovery::service_provider_config),
        scim("/scim/v2/ResourceTypes").get(S, discovery::resource_types),
        scim("/scim/v2/ResourceTypes/{id}").get(S, discovery::resource_type),
        scim("/scim/v2/Schemas").get(S, discovery::schemas),
        scim("/scim/v2/Schemas/{id}").get(S, discovery::schema),
        // RFC 7644 §3.11: a provider without `/Me` SHOULD answer 501. A key
        // is no person, so there is no "me"; still behind the `scim` scope.
        scim("/scim/v2/Me").not_implemented(
            "/Me is not implemented: an API key authenticates no user (RFC 7644 §3.11); \
             use /Users/{id}",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_but_the_operational_endpoints_needs_a_key() {
        for route in register() {
            let open = ["/healthz", "/readyz", "/openapi.json"].contains(&route.path);
            for taken in &route.methods {
                if open {
                    assert_eq!(taken.needs, NoKey, "{} is open", route.path);
                } else {
                    assert_ne!(
                        taken.needs, NoKey,
                        "{} {} would pass the gate without a key",
                        taken.method, route.path
                    );
                }
            }
        }
    }

    #[test]
    fn only_the_own_key_route_takes_a_key_without_a_scope() {
        let mut any_key = Vec::new();
        for route in register() {
            for taken in route.methods.iter().filter(|t| t.needs == AnyKey) {
                any_key.push((route.path, taken.method.as_str().to_owned()));
            }
        }
        assert_eq!(any_key, [("/api/v1/api-key", "GET".to_owned())]);
    }

    #[test]
    fn allow_lists_head_after_get() {
        let routes = register();
        let allow = |path: &str| routes.iter().find(|r| r.path == path).map(Route::allow);
        assert_eq!(
            allow("/scim/v2/Users/{id}").as_deref(),
            Some("GET, HEAD, PUT, PATCH, DELETE")
        );
        assert_eq!(
            allow("/api/v1/inventory-levels/{id}").as_deref(),
            Some("DELETE")
        );
        let table = table();
        assert!(table.contains(&("/api/v1/webhooks/{id}", "GET, DELETE".to_owned())));
    }
}
