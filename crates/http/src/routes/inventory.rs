//! `GET /api/v1/inventory` (and its alias `/api/inventory`): the inventory
//! listing (docs/api.md, "Listing inventory"). The item JSON is `equip_api_types::item`.

use actix_web::{HttpRequest, HttpResponse};
use equip_api_types::item::render as render_item;
use equip_domain::inventory_query::{InventoryPage, InventoryQuery, ListedBody, RawInventoryQuery};
use equip_domain::services::inventory::list_inventory;
use serde::Serialize;

use crate::body::has_nul;
use crate::error::HttpError;
use crate::scoped::Scoped;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Pagination {
    total_records: u64,
    total_pages: u64,
    current_page: u32,
    page_size: u32,
}

/// Reads the listing's parameters through the domain's parameter table
/// (`equip_domain::inventory_query::params`); list parameters may repeat.
/// Unknown parameters are refused, so that a misspelt filter is not silently
/// ignored.
fn raw_query(query_string: &str) -> Result<RawInventoryQuery, HttpError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query_string)
        .map_err(|e| HttpError::invalid("query", format!("malformed query string: {e}")))?;
    let mut raw = RawInventoryQuery::default();
    for (key, value) in pairs {
        // PostgreSQL cannot hold a NUL in text, so no stored value has one: refused
        // on every backend rather than failing on one.
        if has_nul(&key) || has_nul(&value) {
            let source = if has_nul(&key) { "query" } else { key.as_str() };
            return Err(HttpError::invalid(
                source,
                format!("{source} must not contain NUL characters"),
            ));
        }
        raw.set(&key, value)
            .map_err(|e| HttpError::invalid(e.name(), e.to_string()))?;
    }
    Ok(raw)
}

/// `GET /api/v1/inventory`: `{"data": [...], "pagination": {...}}`.
///
/// The caller comes from the route's gate; the parameters are validated and
/// the page read in one hop to the blocking pool.
pub async fn list(scoped: Scoped, req: HttpRequest) -> Result<HttpResponse, HttpError> {
    let raw = raw_query(req.query_string())?;
    let (query, page) = scoped
        .run(move |ports, org| list_inventory(ports, org, &raw))
        .await?;
    Ok(HttpResponse::Ok()
        .content_type(mime::APPLICATION_JSON)
        .body(render(&query, &page)?))
}

/// The response body of a page: the items come as JSON text (pre-rendered by
/// a database store), and the envelope is concatenated around them, not
/// rebuilt; a store that gives views has them rendered here.
fn render(query: &InventoryQuery, page: &InventoryPage) -> Result<String, HttpError> {
    let pagination = serde_json::to_string(&Pagination {
        total_records: page.total_records,
        total_pages: page.total_pages(query.size()),
        current_page: query.page().get(),
        page_size: query.size(),
    })
    .map_err(|e| HttpError::internal(&e))?;
    let mut body = String::with_capacity(
        page.items
            .iter()
            .map(|i| match &i.body {
                ListedBody::Rendered(json) => json.len() + 1,
                ListedBody::View(_) => 1024,
            })
            .sum::<usize>()
            + pagination.len()
            + 32,
    );
    body.push_str("{\"data\":[");
    for (n, item) in page.items.iter().enumerate() {
        if n > 0 {
            body.push(',');
        }
        match &item.body {
            ListedBody::Rendered(json) => body.push_str(json),
            ListedBody::View(view) => {
                body.push_str(&render_item(view).map_err(|e| HttpError::internal(&e))?);
            }
        }
    }
    body.push_str("],\"pagination\":");
    body.push_str(&pagination);
    body.push('}');
    Ok(body)
}
