//! `GET /api/v1/inventory` (and its alias `/api/inventory`): the inventory
//! listing (docs/api.md, "Listing inventory"). Its parameters are
//! `equip_api_types::inventory_query`, the item JSON `equip_api_types::item`.

use actix_web::HttpResponse;
use equip_api_types::error::ErrorBody;
use equip_api_types::inventory_query::InventoryListParams;
use equip_api_types::item::{render as render_item, InventoryPageBody, Pagination};
use equip_domain::inventory_query::{
    InventoryPage, InventoryQuery, ListedBody, RawInventoryQuery, DEPRECATED_DEPLOY_STATUSES,
};
use equip_domain::services::inventory::list_inventory;
use utoipa::OpenApi;

use crate::error::HttpError;
use crate::query::Query;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(list, list_unversioned))]
pub struct Doc;

/// What both operations of the listing say.
fn description() -> String {
    format!(
        "The organization's inventory items, filtered, sorted and paged. Filters combine with AND, \
         the values of one list parameter with OR. Unknown parameters and single-valued parameters \
         given twice are refused (400). The deprecated deploy statuses {} are refused (400); VOIDED \
         matches no item. Without sortBy the order is createdAt descending; every order ends with \
         the item id, so paging never skips or repeats an item.",
        DEPRECATED_DEPLOY_STATUSES.join(", ")
    )
}

/// `GET /api/v1/inventory`: `{"data": [...], "pagination": {...}}`.
///
/// The caller comes from the route's gate; the query string is read by
/// [`Query`] (400 naming an unknown, repeated or NUL-holding
/// parameter), and the parameters are validated and the page read in one hop
/// to the blocking pool.
#[utoipa::path(
    get,
    path = "/api/v1/inventory",
    operation_id = "listInventory",
    tag = "inventory",
    summary = "List inventory items.",
    description = description(),
    params(InventoryListParams),
    responses(
        (status = 200, description = "A page of items.", body = InventoryPageBody),
        (status = 400, description = "A parameter is malformed, unknown, repeated or out of range (source names it).", body = ErrorBody),
        (status = 404, description = "personId, warehouseId or officeId is not in the organization.", body = ErrorBody),
    ),
)]
pub async fn list(
    scoped: Scoped,
    query: Query<InventoryListParams>,
) -> Result<HttpResponse, HttpError> {
    let raw = RawInventoryQuery::from(query.into_inner());
    let (query, page) = scoped
        .run(move |ports, org| list_inventory(ports, org, &raw))
        .await?;
    Ok(HttpResponse::Ok()
        .content_type(mime::APPLICATION_JSON)
        .body(render(&query, &page)?))
}

/// `GET /api/inventory`: [`list`] without the version segment, documented as
/// an operation of its own.
#[utoipa::path(
    get,
    path = "/api/inventory",
    operation_id = "listInventoryUnversioned",
    tag = "inventory",
    summary = "List inventory items (the same operation without the version segment).",
    description = description(),
    params(InventoryListParams),
    responses(
        (status = 200, description = "A page of items.", body = InventoryPageBody),
        (status = 400, description = "A parameter is malformed, unknown, repeated or out of range (source names it).", body = ErrorBody),
        (status = 404, description = "personId, warehouseId or officeId is not in the organization.", body = ErrorBody),
    ),
)]
pub async fn list_unversioned(
    scoped: Scoped,
    query: Query<InventoryListParams>,
) -> Result<HttpResponse, HttpError> {
    list(scoped, query).await
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
