//! `/api/v1/events` (the organization's feed) and the histories
//! `/api/v1/inventory/{id}/history` and `/api/v1/people/{id}/history`
//! (docs/events.md).

use actix_web::{web, HttpResponse};
use equip_domain::event::Event;
use equip_domain::event_feed::RawFeedQuery;
use equip_domain::ids::{InventoryItemId, PersonId};
use equip_domain::services::events::{read_feed, read_history, HistoryOf, RawHistoryQuery};
use serde::Serialize;

use crate::body::path_id;
use crate::error::HttpError;
use crate::scoped::Scoped;

/// The query string as pairs (a parameter may repeat).
type Pairs = web::Query<Vec<(String, String)>>;

fn unknown(name: &str, known: &str) -> HttpError {
    HttpError::invalid(
        name,
        format!("unknown parameter '{name}'; known parameters: {known}"),
    )
}

fn single(slot: &mut Option<String>, name: &str, value: String) -> Result<(), HttpError> {
    if slot.replace(value).is_some() {
        return Err(HttpError::invalid(
            name,
            format!("'{name}' may be given once"),
        ));
    }
    Ok(())
}

/// A page of events as sent: the events in their wire form (their stored
/// `changes` copied as they are) and the cursor of the next page.
#[derive(Serialize)]
struct Page<'a, C: Serialize> {
    data: &'a [Event],
    next: C,
}

/// `GET /api/v1/events?after=&types=&subjectId=&size=`:
/// `{"data": [...], "next": "<cursor>"}`, oldest first.
pub async fn feed(scoped: Scoped, query: Pairs) -> Result<HttpResponse, HttpError> {
    let org = scoped.organization();
    let mut raw = RawFeedQuery::default();
    for (name, value) in query.into_inner() {
        match name.as_str() {
            "after" => single(&mut raw.after, "after", value)?,
            "types" => raw.types.push(value),
            "subjectId" => single(&mut raw.subject_id, "subjectId", value)?,
            "size" => single(&mut raw.size, "size", value)?,
            other => return Err(unknown(other, "after, types, subjectId, size")),
        }
    }
    let page = scoped
        .run(move |ports, org| read_feed(ports, org, &raw))
        .await?;
    Ok(HttpResponse::Ok().json(Page {
        data: &page.events,
        next: page.next.encode(org),
    }))
}

async fn history(scoped: Scoped, of: HistoryOf, query: Pairs) -> Result<HttpResponse, HttpError> {
    let mut raw = RawHistoryQuery::default();
    for (name, value) in query.into_inner() {
        match name.as_str() {
            "after" => single(&mut raw.after, "after", value)?,
            "size" => single(&mut raw.size, "size", value)?,
            other => return Err(unknown(other, "after, size")),
        }
    }
    let page = scoped
        .run(move |ports, org| read_history(ports, org, of, &raw))
        .await?;
    Ok(HttpResponse::Ok().json(Page {
        data: &page.events,
        next: page.next.map(|c| c.encode()),
    }))
}

/// `GET /api/v1/inventory/{id}/history?after=&size=`: the item's events,
/// newest first; `next` is null after the oldest.
pub async fn item_history(
    scoped: Scoped,
    id: web::Path<String>,
    query: Pairs,
) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, InventoryItemId::parse)?;
    history(scoped, HistoryOf::Item(id), query).await
}

/// `GET /api/v1/people/{id}/history?after=&size=`: the person's events,
/// newest first (also once offboarded).
pub async fn person_history(
    scoped: Scoped,
    id: web::Path<String>,
    query: Pairs,
) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, PersonId::parse)?;
    history(scoped, HistoryOf::Person(id), query).await
}
