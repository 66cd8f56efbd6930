//! The OpenAPI 3.1 document of the JSON API (`/api/v1`, the `/api/inventory`
//! alias, `/healthz`, `/readyz` and this document), served at
//! `GET /openapi.json` and kept in `docs/openapi.json`.
//!
//! Generated: each handler's `#[utoipa::path]` (in `crate::routes`) makes its
//! operation, and the wire types of `equip_api_types` (serde derives with
//! `ToSchema` / `IntoParams`) make the schemas and parameters, so a body's
//! serde shape and its schema cannot drift apart. Each route module's `Doc`
//! is merged in [`generated`]; [`SharedResponses`] adds the answers every
//! keyed operation shares, as the route table says what each needs. Written
//! here: only the frame ([`Document`] and [`Frame`]: info, tags, the security
//! scheme, the shared responses). What keeps it true:
//! - the route table of [`crate::routes::table`] must list exactly the
//!   documented paths and methods (tests below); `crates/server/tests/api/openapi.rs`
//!   checks that each method the document does not name answers 405, and that
//!   the responses of a walk through every operation validate against the
//!   document; `scripts/schemathesis.sh` fuzzes a live server against it;
//! - `docs/openapi.json` must equal [`document_text`] (`equip openapi` prints it).
//!
//! SCIM (`/scim/v2`) is described by its own discovery endpoints
//! (`/scim/v2/Schemas`, `/ResourceTypes`, `/ServiceProviderConfig`) and is not
//! part of this document.

use std::sync::OnceLock;

use actix_web::http::Method;
use serde_json::Value;
use utoipa::openapi::header::{Header, HeaderBuilder};
use utoipa::openapi::info::{InfoBuilder, LicenseBuilder};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::{Content, Ref, RefOr, ResponseBuilder};
use utoipa::{Modify, OpenApi};

use crate::gate::Needs;
use crate::JSON_LIMIT;

/// The version of the interface description (`info.version`; docs/api.md).
pub const API_VERSION: &str = "0.1.0";

/// The document's frame: the tags in their order and the key every
/// operation needs unless it says otherwise; [`Frame`] adds the rest.
#[derive(OpenApi)]
#[openapi(
    tags(
        (name = "inventory"),
        (name = "warehouses"),
        (name = "catalog"),
        (name = "packages"),
        (name = "api-key"),
        (name = "inventory-levels"),
        (name = "new-joiners"),
        (name = "events"),
        (name = "webhooks"),
        (name = "returns"),
        (name = "orders"),
        (name = "people"),
        (name = "operations"),
    ),
    security(("apiKey" = [])),
)]
struct Document;

/// The info (its description holds a constant), the security scheme and the
/// shared responses [`SharedResponses`] refers to.
struct Frame;

impl Modify for Frame {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        doc.info = InfoBuilder::new()
            .title("equip API")
            .version(API_VERSION)
            .description(Some(format!(
                "Equipment inventory, warehouses, inventory levels and new-joiner reminders of the caller's \
                 organization. Every /api/v1 operation needs `Authorization: ApiKey <key>`; the key decides the \
                 organization and its scopes (401 without a valid key, 403 without the scope). Each key may make a \
                 limited number of requests a second (429 with `Retry-After` past it; responses carry \
                 `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`). Errors carry \
                 `{{\"errors\":[{{\"detail\",\"source\"}}]}}`. JSON bodies are limited to {JSON_LIMIT} bytes; no text, \
                 in a body or a query parameter, may hold a NUL character (U+0000): 400. \
                 An unknown path is 404 and a method a path does not take is 405 with an `Allow` header, both \
                 with the error body. SCIM 2.0 (/scim/v2) is described by its own discovery endpoints."
            )))
            .license(Some(
                LicenseBuilder::new()
                    .name("MIT OR Apache-2.0")
                    .identifier(Some("MIT OR Apache-2.0"))
                    .build(),
            ))
            .build();
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "apiKey",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "Authorization",
                "The word ApiKey, a space, then the key: `Authorization: ApiKey equip_…`. Scopes: \
                 inventory:read (inventory and level listing, item reads, the inventory summary, SKUs, offices, packages), inventory:write (item writes), \
                 warehouses:read, inventory-levels:write, new-joiners:write, events:read (the feed, histories and the organization's key names), \
                 webhooks:write, returns:read (return orders, the organization's settings), returns:write (return order writes, warehouse receipts, hold releases, settings), \
                 packages:write (a package's contents), orders:read, orders:write (shipments and deliveries), people:read (the organization's people whatever their status). \
                 GET /api/v1/api-key takes any valid key, whatever its scopes.",
            ))),
        );
        let responses = [
            (
                "Unauthorized",
                error("No key, or a malformed, unknown or revoked key.")
                    .header("WWW-Authenticate", header("ApiKey realm=\"equip\"", None)),
            ),
            ("Forbidden", error("The key lacks the scope this operation needs.")),
            ("UriTooLong", error("The request URL (path and query) is longer than 8 KiB.")),
            (
                "TooManyRequests",
                error(
                    "The key is over its rate limit (`equip serve --rate-limit`: N requests a second per key, \
                     bursts of 2N, counted per process). Retry after `Retry-After` seconds.",
                )
                .header("Retry-After", header("Whole seconds until the key may make a request again (at least 1).", Some(1)))
                .header("RateLimit-Limit", header("The key's burst: requests it may make at once after a pause (2N).", Some(1)))
                .header("RateLimit-Remaining", header("Requests the key may still make at once: 0.", Some(0)))
                .header("RateLimit-Reset", header("Whole seconds until the key's full burst is available again.", Some(1))),
            ),
            ("HeadersTooLarge", error("The request headers are larger than 32 KiB.")),
            (
                "Unavailable",
                error("No database connection within the pool's timeout, or the request did not finish within its time limit (docs/reliability.md)."),
            ),
        ];
        for (name, response) in responses {
            components
                .responses
                .insert(name.to_owned(), RefOr::T(response.build()));
        }
    }
}

/// A response with the error body (`{"errors":[{"detail","source"}]}`).
fn error(description: &str) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content(
        "application/json",
        Content::new(Some(Ref::from_schema_name("Error"))),
    )
}

/// A response header: a string, or an integer of at least `minimum`.
fn header(description: &str, minimum: Option<u32>) -> Header {
    let schema = match minimum {
        None => ObjectBuilder::new().schema_type(Type::String),
        Some(min) => ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(min)),
    };
    HeaderBuilder::new()
        .description(Some(description))
        .schema(schema)
        .build()
}

/// The responses every operation behind the gate shares beyond its own: the
/// key (401, 403), the request limits of `crate::limits`, the key's rate
/// limit (`crate::rate_limit`) and the database pool.
const SHARED_RESPONSES: [(&str, &str); 6] = [
    ("401", "Unauthorized"),
    ("403", "Forbidden"),
    ("414", "UriTooLong"),
    ("429", "TooManyRequests"),
    ("431", "HeadersTooLarge"),
    ("503", "Unavailable"),
];

/// Adds [`SHARED_RESPONSES`] to every operation, as its route declares
/// what it needs (`crate::routes`, `gate::Needs`), unless the operation
/// states its own: none to an operation that needs no key (whose `security`
/// is written `[]`: no key), all but 403 to one that takes any valid key.
struct SharedResponses;

impl Modify for SharedResponses {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        for (path, item) in &mut doc.paths.paths {
            let operations = [
                (Method::GET, &mut item.get),
                (Method::PUT, &mut item.put),
                (Method::POST, &mut item.post),
                (Method::DELETE, &mut item.delete),
                (Method::PATCH, &mut item.patch),
                (Method::HEAD, &mut item.head),
            ];
            for (method, op) in operations {
                let Some(op) = op else { continue };
                let needs = crate::routes::needs(path, &method);
                if needs == Some(Needs::NoKey) {
                    // utoipa writes `security(())` as `[{}]`; `[]` says it plainly.
                    op.security = Some(Vec::new());
                    continue;
                }
                for (status, name) in SHARED_RESPONSES {
                    if needs == Some(Needs::AnyKey) && status == "403" {
                        continue;
                    }
                    op.responses
                        .responses
                        .entry(status.to_owned())
                        .or_insert_with(|| RefOr::Ref(Ref::from_response_name(name)));
                }
            }
        }
    }
}

/// The document: the frame, then each route module's part (its handlers'
/// `#[utoipa::path]` and the wire types of `equip_api_types`), then the
/// shared responses on each operation.
fn build() -> utoipa::openapi::OpenApi {
    let mut doc = Document::openapi();
    Frame.modify(&mut doc);
    doc.merge(crate::routes::warehouses::Doc::openapi());
    doc.merge(crate::routes::catalog::Doc::openapi());
    doc.merge(crate::routes::inventory_summary::Doc::openapi());
    doc.merge(crate::routes::packages::Doc::openapi());
    doc.merge(crate::routes::health::Doc::openapi());
    doc.merge(crate::routes::openapi_json::Doc::openapi());
    doc.merge(crate::routes::inventory_levels::Doc::openapi());
    doc.merge(crate::routes::new_joiners::Doc::openapi());
    doc.merge(crate::routes::events::Doc::openapi());
    doc.merge(crate::routes::webhooks::Doc::openapi());
    doc.merge(crate::routes::return_orders::Doc::openapi());
    doc.merge(crate::routes::orders::Doc::openapi());
    doc.merge(crate::routes::people::Doc::openapi());
    doc.merge(crate::routes::api_key::Doc::openapi());
    doc.merge(crate::routes::inventory::Doc::openapi());
    doc.merge(crate::routes::inventory_items::Doc::openapi());
    doc.merge(crate::routes::receipts::Doc::openapi());
    SharedResponses.modify(&mut doc);
    doc
}

/// The document as JSON.
#[must_use]
pub fn document() -> Value {
    serde_json::to_value(build()).unwrap_or_default()
}

/// The document as served and as kept in `docs/openapi.json`: pretty-printed,
/// with a final newline.
#[must_use]
pub fn document_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = serde_json::to_string_pretty(&document()).unwrap_or_default();
        text.push('\n');
        text
    })
}

#[cfg(test)]
mod tests;
