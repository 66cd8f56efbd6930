//! `/api/v1/events` (the organization's feed) and the histories
//! `/api/v1/inventory/{id}/history` and `/api/v1/people/{id}/history`
//! (docs/events.md). The JSON shapes are `equip_api_types::event`.

use actix_web::{web, HttpResponse};
use equip_api_types::error::ErrorBody;
use equip_api_types::event::{EventBody, FeedPage, FeedParams, HistoryPage, HistoryParams};
use equip_domain::event_feed::RawFeedQuery;
use equip_domain::ids::{InventoryItemId, PersonId};
use equip_domain::services::events::{read_feed, read_history, HistoryOf, RawHistoryQuery};
use utoipa::OpenApi;

use crate::body::path_id;
use crate::error::HttpError;
use crate::query::Query;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(feed, item_history, person_history))]
pub struct Doc;

/// `GET /api/v1/events?after=&types=&subjectId=&size=`:
/// `{"data": [...], "next": "<cursor>"}`, oldest first.
#[utoipa::path(
    get,
    path = "/api/v1/events",
    operation_id = "listEvents",
    tag = "events",
    summary = "The organization's feed of changes, oldest first.",
    description = "Follow `next`: a client that always passes the last `next` it got sees every \
        committed event exactly once, in sequence order, whatever writers do meanwhile. At the end \
        of the feed a page is empty and `next` stays; poll with it. Events are kept for the \
        server's retention (90 days by default); a cursor before the oldest kept event is refused. A cursor is \
        bound to its organization (another organization's is refused) and names the event at its \
        position: after the database was restored from a backup, a cursor from beyond the restore \
        point is refused with 410 and the client must resynchronize.",
    params(FeedParams),
    responses(
        (status = 200, description = "A page of events.", body = inline(FeedPage)),
        (status = 400, description = "A malformed or expired cursor, another organization's cursor, an unknown type, a bad size or subjectId, or an unknown parameter (source names it).", body = ErrorBody),
        (status = 410, description = "The cursor is from another timeline of the events (the database was restored to an earlier state) or of the earlier form `ev1.`: resynchronize, then follow the feed again without `after`.", body = ErrorBody),
    ),
)]
pub async fn feed(scoped: Scoped, query: Query<FeedParams>) -> Result<HttpResponse, HttpError> {
    let org = scoped.organization();
    let raw: RawFeedQuery = query.into_inner().into();
    let page = scoped
        .run(move |ports, org| read_feed(ports, org, &raw))
        .await?;
    Ok(HttpResponse::Ok().json(FeedPage {
        data: page.events.iter().map(EventBody::from).collect(),
        next: page.next.encode(org),
    }))
}

async fn history(
    scoped: Scoped,
    of: HistoryOf,
    query: Query<HistoryParams>,
) -> Result<HttpResponse, HttpError> {
    let raw: RawHistoryQuery = query.into_inner().into();
    let page = scoped
        .run(move |ports, org| read_history(ports, org, of, &raw))
        .await?;
    Ok(HttpResponse::Ok().json(HistoryPage {
        data: page.events.iter().map(EventBody::from).collect(),
        next: page.next.map(|c| c.encode()),
    }))
}

/// `GET /api/v1/inventory/{id}/history?after=&size=`: the item's events,
/// newest first; `next` is null after the oldest.
#[utoipa::path(
    get,
    path = "/api/v1/inventory/{id}/history",
    operation_id = "getInventoryItemHistory",
    tag = "events",
    summary = "The events of an inventory item, newest first.",
    params(("id" = uuid::Uuid, Path, description = "The inventory item."), HistoryParams),
    responses(
        (status = 200, description = "A page of events.", body = inline(HistoryPage)),
        (status = 400, description = "A malformed id, cursor or size, or an unknown parameter.", body = ErrorBody),
        (status = 404, description = "No such subject in the organization.", body = ErrorBody),
    ),
)]
pub async fn item_history(
    scoped: Scoped,
    id: web::Path<String>,
    query: Query<HistoryParams>,
) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, InventoryItemId::parse)?;
    history(scoped, HistoryOf::Item(id), query).await
}

/// `GET /api/v1/people/{id}/history?after=&size=`: the person's events,
/// newest first (also once offboarded).
#[utoipa::path(
    get,
    path = "/api/v1/people/{id}/history",
    operation_id = "getPersonHistory",
    tag = "events",
    summary = "The events of a person (also once offboarded), newest first.",
    params(("id" = uuid::Uuid, Path, description = "The person (also once offboarded)."), HistoryParams),
    responses(
        (status = 200, description = "A page of events.", body = inline(HistoryPage)),
        (status = 400, description = "A malformed id, cursor or size, or an unknown parameter.", body = ErrorBody),
        (status = 404, description = "No such subject in the organization.", body = ErrorBody),
    ),
)]
pub async fn person_history(
    scoped: Scoped,
    id: web::Path<String>,
    query: Query<HistoryParams>,
) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, PersonId::parse)?;
    history(scoped, HistoryOf::Person(id), query).await
}
