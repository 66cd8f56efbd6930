//! Reading events: the organization's feed (oldest first, after a cursor) and
//! one subject's history (newest first, before a cursor).
//!
//! A cursor is an event's sequence, written as `ev1.<sequence>`; clients treat
//! it as opaque. The feed's promise (every committed event seen once, in
//! order, by a client that follows `next`) rests on the store giving
//! sequences in commit order without gaps: docs/events.md.

use crate::error::DomainError;
use crate::event::{Event, EventType};

/// Largest page of the feed and of histories.
pub const MAX_PAGE_SIZE: usize = 1000;
/// Page size when the client names none.
pub const DEFAULT_PAGE_SIZE: usize = 100;

const CURSOR_PREFIX: &str = "ev1.";

/// A position in an organization's events: the sequence of the last event
/// seen (0 before the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cursor(pub i64);

impl Cursor {
    /// The cursor's wire form.
    #[must_use]
    pub fn encode(self) -> String {
        format!("{CURSOR_PREFIX}{}", self.0)
    }

    /// Reads a cursor of [`Cursor::encode`].
    ///
    /// # Errors
    /// [`DomainError::Invalid`] (`field`) for anything else.
    pub fn decode(raw: &str, field: &'static str) -> Result<Self, DomainError> {
        raw.strip_prefix(CURSOR_PREFIX)
            .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|digits| digits.parse::<i64>().ok())
            .map(Cursor)
            .ok_or_else(|| {
                DomainError::invalid(
                    field,
                    "malformed cursor: pass the `next` of a page as it is",
                )
            })
    }
}

/// A page size from the query string.
///
/// # Errors
/// [`DomainError::Invalid`] (`size`) outside 1..=[`MAX_PAGE_SIZE`].
pub fn page_size(raw: Option<&str>) -> Result<usize, DomainError> {
    let Some(raw) = raw else {
        return Ok(DEFAULT_PAGE_SIZE);
    };
    raw.trim()
        .parse::<usize>()
        .ok()
        .filter(|size| (1..=MAX_PAGE_SIZE).contains(size))
        .ok_or_else(|| {
            DomainError::invalid(
                "size",
                format!("size must be between 1 and {MAX_PAGE_SIZE}"),
            )
        })
}

/// The raw parameters of `GET /api/v1/events`.
#[derive(Debug, Clone, Default)]
pub struct RawFeedQuery {
    /// `after`.
    pub after: Option<String>,
    /// `types`, comma-separated (the parameter may repeat).
    pub types: Vec<String>,
    /// `subjectId`.
    pub subject_id: Option<String>,
    /// `size`.
    pub size: Option<String>,
}

/// A validated feed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedQuery {
    /// Events after this position; `None`: from the oldest event kept.
    pub after: Option<Cursor>,
    /// Only these types (empty: all).
    pub types: Vec<EventType>,
    /// Only events about this subject.
    pub subject_id: Option<uuid::Uuid>,
    /// At most this many.
    pub size: usize,
}

impl FeedQuery {
    /// Validates the raw parameters.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the parameter.
    pub fn parse(raw: &RawFeedQuery) -> Result<Self, DomainError> {
        let after = raw
            .after
            .as_deref()
            .map(|raw| Cursor::decode(raw, "after"))
            .transpose()?;
        let mut types = Vec::new();
        for name in raw.types.iter().flat_map(|t| t.split(',')) {
            let name = name.trim();
            if name.is_empty() {
                continue;
            }
            let kind = EventType::parse(name)?;
            if !types.contains(&kind) {
                types.push(kind);
            }
        }
        let subject_id = raw
            .subject_id
            .as_deref()
            .map(|id| {
                uuid::Uuid::parse_str(id.trim())
                    .map_err(|_| DomainError::invalid("subjectId", "subjectId must be a UUID"))
            })
            .transpose()?;
        Ok(Self {
            after,
            types,
            subject_id,
            size: page_size(raw.size.as_deref())?,
        })
    }

    /// The sequence the page starts after, given the organization's last
    /// sequence and how far its events were pruned: the oldest kept without
    /// a cursor; `None` (expired) for a cursor before the pruned events or
    /// past the last sequence. Every store applies this rule.
    #[must_use]
    pub fn start(&self, head: i64, pruned_through: i64) -> Option<i64> {
        match self.after {
            None => Some(pruned_through),
            Some(Cursor(after)) if after < pruned_through || after > head => None,
            Some(Cursor(after)) => Some(after),
        }
    }

    /// Whether `event` passes the query's filters (not its position).
    #[must_use]
    pub fn matches(&self, event: &Event) -> bool {
        (self.types.is_empty() || self.types.contains(&event.kind))
            && self.subject_id.is_none_or(|id| id == event.subject.id)
    }
}

/// What a store read for a feed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedRead {
    /// The matching events after the cursor, oldest first, at most `size`;
    /// and the organization's last sequence, read **before** them.
    Events {
        /// The events.
        events: Vec<Event>,
        /// Every event up to this sequence was committed when the events
        /// were read.
        head: i64,
    },
    /// The cursor points before events that were pruned (or after the last
    /// event there has ever been). A query without a cursor starts at the
    /// oldest event kept and never expires.
    Expired,
}

/// One page of the feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedPage {
    /// The events.
    pub events: Vec<Event>,
    /// Where the next page starts.
    pub next: Cursor,
}

impl FeedPage {
    /// The page of a store's read: `next` is the last event returned; on a
    /// page that is not full, every matching event up to the head was
    /// returned, so `next` moves past the head (a filtered feed does not scan
    /// the same events again).
    #[must_use]
    pub fn from_read(query: &FeedQuery, events: Vec<Event>, head: i64) -> Self {
        let after = query.after.map_or(0, |c| c.0);
        let last = events.last().map_or(after, |e| e.sequence);
        let next = if events.len() < query.size {
            last.max(head).max(after)
        } else {
            last
        };
        Self {
            events,
            next: Cursor(next),
        }
    }
}

/// One page of a subject's history, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryPage {
    /// The events.
    pub events: Vec<Event>,
    /// Where the next (older) page starts; `None` after the oldest.
    pub next: Option<Cursor>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_anything_else() {
        assert_eq!(
            Cursor::decode(&Cursor(42).encode(), "after").unwrap(),
            Cursor(42)
        );
        for bad in [
            "",
            "42",
            "ev1.",
            "ev1.-1",
            "ev1.4x",
            "ev2.4",
            "ev1.99999999999999999999",
        ] {
            assert!(Cursor::decode(bad, "after").is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_and_types_are_checked() {
        let raw = RawFeedQuery {
            types: vec![
                "person.created, group.member_added".into(),
                "person.created".into(),
            ],
            size: Some("1000".into()),
            ..RawFeedQuery::default()
        };
        let q = FeedQuery::parse(&raw).unwrap();
        assert_eq!(
            q.types,
            vec![EventType::PersonCreated, EventType::GroupMemberAdded]
        );
        assert_eq!(q.size, 1000);
        for size in ["0", "1001", "x", "-1"] {
            let raw = RawFeedQuery {
                size: Some(size.into()),
                ..RawFeedQuery::default()
            };
            assert!(FeedQuery::parse(&raw).is_err(), "{size}");
        }
        let raw = RawFeedQuery {
            types: vec!["person.exploded".into()],
            ..RawFeedQuery::default()
        };
        assert!(
            matches!(FeedQuery::parse(&raw), Err(DomainError::Invalid { field, .. }) if field == "types")
        );
    }

    #[test]
    fn next_moves_past_the_head_only_on_a_page_that_is_not_full() {
        let q = FeedQuery::parse(&RawFeedQuery {
            size: Some("2".into()),
            ..RawFeedQuery::default()
        })
        .unwrap();
        assert_eq!(FeedPage::from_read(&q, vec![], 10).next, Cursor(10));
        let q5 = FeedQuery {
            after: Some(Cursor(5)),
            ..q.clone()
        };
        assert_eq!(FeedPage::from_read(&q5, vec![], 3).next, Cursor(5));
    }
}
