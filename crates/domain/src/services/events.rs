//! Reading events: the organization's feed and the histories of an item and
//! of a person.

use crate::error::DomainError;
use crate::event::{Subject, SubjectType};
use crate::event_feed::{
    page_size, ClientFeedPage, Cursor, FeedPage, FeedQuery, FeedRead, HistoryPage, RawFeedQuery,
    RESYNCHRONIZE,
};
use crate::ids::{InventoryItemId, OrganizationId, PersonId};
use crate::ports::{EventRepository, InventoryRepository, PersonRepository};

/// The ports histories need.
pub trait HistoryPorts: EventRepository + InventoryRepository + PersonRepository {}
impl<T> HistoryPorts for T where T: EventRepository + InventoryRepository + PersonRepository {}

/// One page of the organization's feed.
///
/// # Errors
/// [`DomainError::Invalid`] naming a bad parameter, or `after` for a cursor
/// that has expired (its events were pruned) or that another organization's
/// feed gave; [`DomainError::Gone`] (`after`) for a cursor from another
/// timeline of the events (the database was restored: the cursor lies past
/// the last event, or its position now holds another event) or of the
/// earlier form `ev1.`: the client must resynchronize.
pub fn read_feed(
    ports: &dyn EventRepository,
    organization: OrganizationId,
    raw: &RawFeedQuery,
) -> Result<ClientFeedPage, DomainError> {
    let (query, cursor) = FeedQuery::parse(raw, organization)?;
    match ports.read_feed(organization, &query)? {
        FeedRead::Events {
            events,
            head,
            marks,
        } => {
            if let Some(cursor) = cursor {
                cursor.check(marks.after, "after")?;
            }
            let page = FeedPage::from_read(&query, events, head);
            let next = page.next_cursor(head, marks);
            Ok(ClientFeedPage {
                events: page.events,
                next,
            })
        }
        FeedRead::Expired => Err(DomainError::invalid(
            "after",
            "this cursor has expired (its events were pruned); start again without `after`",
        )),
        FeedRead::Ahead => Err(DomainError::gone("after", RESYNCHRONIZE)),
    }
}

/// The raw parameters of a history.
#[derive(Debug, Clone, Default)]
pub struct RawHistoryQuery {
    /// `after`: the `next` of the previous (newer) page.
    pub after: Option<String>,
    /// `size`.
    pub size: Option<String>,
}

/// What a history is of.
#[derive(Debug, Clone, Copy)]
pub enum HistoryOf {
    /// An inventory item.
    Item(InventoryItemId),
    /// A person (whatever their status).
    Person(PersonId),
}

/// One page of a subject's history, newest first.
///
/// # Errors
/// [`DomainError::NotFound`] (`inventoryItem`, `person`) for a subject
/// unknown to the organization; [`DomainError::Invalid`] naming a bad
/// parameter.
pub fn read_history(
    ports: &dyn HistoryPorts,
    organization: OrganizationId,
    of: HistoryOf,
    raw: &RawHistoryQuery,
) -> Result<HistoryPage, DomainError> {
    let before = raw
        .after
        .as_deref()
        .map(|c| Cursor::decode(c, "after"))
        .transpose()?;
    let size = page_size(raw.size.as_deref())?;
    let subject = match of {
        HistoryOf::Item(id) => {
            if ports.find_inventory_item(organization, id)?.is_none() {
                return Err(DomainError::not_found(
                    "inventoryItem",
                    format!("inventory item {id} not found"),
                ));
            }
            Subject {
                kind: SubjectType::InventoryItem,
                id: *id.as_uuid(),
            }
        }
        HistoryOf::Person(id) => {
            if ports.find_person(organization, id)?.is_none() {
                return Err(DomainError::not_found(
                    "person",
                    format!("person {id} not found"),
                ));
            }
            Subject {
                kind: SubjectType::Person,
                id: *id.as_uuid(),
            }
        }
    };
    let events = ports.read_history(organization, subject, before, size)?;
    let next = (events.len() == size)
        .then(|| events.last().map(|e| Cursor(e.sequence)))
        .flatten();
    Ok(HistoryPage { events, next })
}
