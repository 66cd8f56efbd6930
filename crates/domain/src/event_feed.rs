//! Reading events: the organization's feed (oldest first, after a cursor) and
//! one subject's history (newest first, before a cursor).
//!
//! A position in the events is a sequence ([`Cursor`]); a history's cursor is
//! written as `ev1.<sequence>`. The feed's cursor ([`FeedCursor`], written
//! `ev2.<organization>.<sequence>.<event id>`) also names the organization
//! and the event at its position, so the feed refuses another
//! organization's cursor and a cursor from another timeline (a database
//! restored from a backup reuses sequences for new events). Clients treat
//! cursors as opaque. The feed's promise (every committed event seen once, in
//! order, by a client that follows `next`) rests on the store giving
//! sequences in commit order without gaps: docs/events.md.

use sha2::{Digest, Sha256};

use crate::error::DomainError;
use crate::event::{Event, EventType};
use crate::ids::{EventId, OrganizationId};

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

const FEED_CURSOR_PREFIX: &str = "ev2.";

/// Hex digits of a feed cursor's organization tag.
const ORGANIZATION_TAG_HEX: usize = 16;

/// What the feed says to a client whose cursor it cannot honour without
/// skipping events: it must resynchronize.
pub const RESYNCHRONIZE: &str = "this cursor is from another timeline of this organization's \
     events: the database was restored from a backup (or recovered to an earlier point), so \
     events this client has seen no longer exist and their sequences are given to new events. \
     Resynchronize: read the current state of what you mirror, then follow the feed again \
     from a page requested without `after` (docs/operations.md, \"Restoring a backup\")";

/// The organization part of a feed cursor: the first 8 bytes of the SHA-256
/// of the organization's id, in hex. It binds a cursor to its organization
/// (a client that passes another organization's cursor is told so); it is not
/// a secret and not a signature: the feed only ever reads the caller's own
/// organization.
fn organization_tag(organization: OrganizationId) -> String {
    let digest = Sha256::digest(format!("equip feed cursor {organization}").as_bytes());
    digest
        .iter()
        .take(ORGANIZATION_TAG_HEX / 2)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A feed cursor as a client holds it: a position, and the id of the event
/// at that position (`None` at 0, before the first event, and at a position
/// whose event was pruned before equip kept pruned events' ids).
///
/// The event's id is what makes a cursor fail after a restore: a restored
/// database hands the sequences after its restore point to new events, with
/// new ids, so a cursor from before the restore no longer names the event
/// stored at its position ([`FeedCursor::check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedCursor {
    /// The sequence of the last event seen (0 before the first).
    pub sequence: i64,
    /// The id of the event at `sequence`, when known.
    pub event: Option<EventId>,
}

impl FeedCursor {
    /// The wire form, bound to `organization`:
    /// `ev2.<organization tag>.<sequence>[.<event id, 32 hex digits>]`.
    #[must_use]
    pub fn encode(&self, organization: OrganizationId) -> String {
        let tag = organization_tag(organization);
        match self.event {
            Some(id) => format!(
                "{FEED_CURSOR_PREFIX}{tag}.{}.{}",
                self.sequence,
                id.as_uuid().simple()
            ),
            None => format!("{FEED_CURSOR_PREFIX}{tag}.{}", self.sequence),
        }
    }

    /// Reads a cursor of [`FeedCursor::encode`] given to `organization`.
    ///
    /// # Errors
    /// [`DomainError::Gone`] (`field`) for a cursor of the earlier form
    /// `ev1.<sequence>` (not bound to an organization or a timeline: the
    /// client must resynchronize); [`DomainError::Invalid`] (`field`) for
    /// another organization's cursor and for anything malformed.
    pub fn decode(
        raw: &str,
        organization: OrganizationId,
        field: &'static str,
    ) -> Result<Self, DomainError> {
        if Cursor::decode(raw, field).is_ok() {
            return Err(DomainError::gone(
                field,
                "cursors of the form `ev1.<n>` (equip before feed cursors were bound to their \
                 organization and timeline, or a history's cursor) are not accepted by the feed; \
                 resynchronize: follow the feed again from a page requested without `after`",
            ));
        }
        let malformed = || {
            DomainError::invalid(
                field,
                "malformed cursor: pass the `next` of a page as it is",
            )
        };
        let rest = raw.strip_prefix(FEED_CURSOR_PREFIX).ok_or_else(malformed)?;
        let mut parts = rest.split('.');
        let tag = parts.next().ok_or_else(malformed)?;
        let sequence = parts
            .next()
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse::<i64>().ok())
            .ok_or_else(malformed)?;
        let event = parts
            .next()
            .map(|hex| {
                if hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
                    EventId::parse(hex).map_err(|_| malformed())
                } else {
                    Err(malformed())
                }
            })
            .transpose()?;
        let well_formed_tag = tag.len() == ORGANIZATION_TAG_HEX
            && tag.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if parts.next().is_some() || !well_formed_tag || (sequence == 0 && event.is_some()) {
            return Err(malformed());
        }
        if tag != organization_tag(organization) {
            return Err(DomainError::invalid(
                field,
                "this cursor was given by another organization's feed: pass the `next` of a \
                 page of this organization's feed (or start without `after`)",
            ));
        }
        Ok(Self { sequence, event })
    }

    /// The position the store reads after.
    #[must_use]
    pub fn position(&self) -> Cursor {
        Cursor(self.sequence)
    }

    /// Checks the cursor against the id of the event stored at its position
    /// (`stored`, as [`FeedMarks::after`]): a position past 0 must still hold
    /// the event the cursor names.
    ///
    /// # Errors
    /// [`DomainError::Gone`] (`field`, [`RESYNCHRONIZE`]) when it does not:
    /// the database was restored and the position now holds another event.
    pub fn check(&self, stored: Option<EventId>, field: &'static str) -> Result<(), DomainError> {
        if self.sequence == 0 || self.event == stored {
            Ok(())
        } else {
            Err(DomainError::gone(field, RESYNCHRONIZE))
        }
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
    /// Validates the raw parameters of `organization`'s feed; returns the
    /// query and the client's cursor (to [`FeedCursor::check`] against what
    /// the store read).
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the parameter; [`DomainError::Gone`]
    /// (`after`) for a cursor of the earlier form (see [`FeedCursor::decode`]).
    pub fn parse(
        raw: &RawFeedQuery,
        organization: OrganizationId,
    ) -> Result<(Self, Option<FeedCursor>), DomainError> {
        let cursor = raw
            .after
            .as_deref()
            .map(|raw| FeedCursor::decode(raw, organization, "after"))
            .transpose()?;
        let after = cursor.map(|c| c.position());
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
        let query = Self {
            after,
            types,
            subject_id,
            size: page_size(raw.size.as_deref())?,
        };
        Ok((query, cursor))
    }

    /// The sequence the page starts after, given the organization's last
    /// sequence and how far its events were pruned: the oldest kept without
    /// a cursor; [`FeedRead::Expired`] for a cursor before the pruned events,
    /// [`FeedRead::Ahead`] for one past the last sequence. Every store
    /// applies this rule.
    ///
    /// # Errors
    /// The [`FeedRead`] to answer instead of events.
    pub fn start(&self, head: i64, pruned_through: i64) -> Result<i64, FeedRead> {
        match self.after {
            None => Ok(pruned_through),
            Some(Cursor(after)) if after < pruned_through => Err(FeedRead::Expired),
            Some(Cursor(after)) if after > head => Err(FeedRead::Ahead),
            Some(Cursor(after)) => Ok(after),
        }
    }

    /// Whether `event` passes the query's filters (not its position).
    #[must_use]
    pub fn matches(&self, event: &Event) -> bool {
        (self.types.is_empty() || self.types.contains(&event.kind))
            && self.subject_id.is_none_or(|id| id == event.subject.id)
    }
}

/// The ids of the events at two positions of a feed read, read in one
/// statement with the head: what a store keeps of a position is its event's
/// id, or, once the event is pruned, the id of the last event pruned
/// (`None` at 0 and where the store does not know it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeedMarks {
    /// The event at the query's `after`.
    pub after: Option<EventId>,
    /// The event at the head.
    pub head: Option<EventId>,
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
        /// The ids of the events at the cursor and at the head.
        marks: FeedMarks,
    },
    /// The cursor points before events that were pruned. A query without a
    /// cursor starts at the oldest event kept and never expires.
    Expired,
    /// The cursor points after the last event: no page of this database's
    /// feed gave it (the database was restored to an earlier state).
    Ahead,
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

impl FeedPage {
    /// The client's cursor of `next`: the id of the event there is the last
    /// event's of the page, or the head's, or the cursor's own (`marks`, read
    /// with the page).
    #[must_use]
    pub fn next_cursor(&self, head: i64, marks: FeedMarks) -> FeedCursor {
        let sequence = self.next.0;
        let event = if sequence == 0 {
            None
        } else if let Some(e) = self.events.iter().rev().find(|e| e.sequence == sequence) {
            Some(e.id)
        } else if sequence == head {
            marks.head
        } else {
            marks.after
        };
        FeedCursor { sequence, event }
    }
}

/// A page of the feed as a client gets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientFeedPage {
    /// The events.
    pub events: Vec<Event>,
    /// The cursor of the next page.
    pub next: FeedCursor,
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

    fn org() -> OrganizationId {
        OrganizationId::new()
    }

    #[test]
    fn feed_cursors_round_trip_within_their_organization() {
        let acme = org();
        for cursor in [
            FeedCursor {
                sequence: 0,
                event: None,
            },
            FeedCursor {
                sequence: 42,
                event: Some(EventId::new()),
            },
            FeedCursor {
                sequence: 7,
                event: None,
            },
        ] {
            let wire = cursor.encode(acme);
            assert!(wire.starts_with("ev2."), "{wire}");
            assert_eq!(FeedCursor::decode(&wire, acme, "after").unwrap(), cursor);
        }
    }

    #[test]
    fn another_organizations_cursor_is_refused_as_invalid() {
        for cursor in [
            FeedCursor {
                sequence: 0,
                event: None,
            },
            FeedCursor {
                sequence: 3,
                event: Some(EventId::new()),
            },
        ] {
            let theirs = cursor.encode(org());
            let err = FeedCursor::decode(&theirs, org(), "after").unwrap_err();
            assert!(
                matches!(&err, DomainError::Invalid { field, message }
                    if field == "after" && message.contains("another organization")),
                "{err:?}"
            );
        }
    }

    #[test]
    fn earlier_and_malformed_feed_cursors_are_refused() {
        let acme = org();
        assert!(matches!(
            FeedCursor::decode("ev1.42", acme, "after"),
            Err(DomainError::Gone { field, message })
                if field == "after" && message.contains("resynchronize")
        ));
        let good = FeedCursor {
            sequence: 5,
            event: Some(EventId::new()),
        }
        .encode(acme);
        let tag = good.split('.').nth(1).unwrap().to_owned();
        let id = EventId::new().as_uuid().simple().to_string();
        for bad in [
            String::new(),
            "ev2.".into(),
            format!("ev2.{tag}"),
            format!("ev2.{tag}."),
            format!("ev2.{tag}.-1"),
            format!("ev2.{tag}.x"),
            format!("ev2.{tag}.5.{}", &id[..31]),
            format!("ev2.{tag}.5.{}", id.to_uppercase()),
            format!("ev2.{tag}.5.{id}.1"),
            format!("ev2.{tag}.0.{id}"),
            format!("ev2.{}.5.{id}", tag.to_uppercase()),
            format!("ev2.{}.5.{id}", &tag[..15]),
            format!("ev2.{tag}.99999999999999999999"),
            format!("{good} "),
        ] {
            assert!(
                matches!(
                    FeedCursor::decode(&bad, acme, "after"),
                    Err(DomainError::Invalid { ref message, .. }) if message.contains("malformed")
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_cursor_must_name_the_event_stored_at_its_position() {
        let seen = EventId::new();
        let cursor = FeedCursor {
            sequence: 9,
            event: Some(seen),
        };
        assert!(cursor.check(Some(seen), "after").is_ok());
        // After a restore, sequence 9 went to another event (or to none yet).
        for stored in [Some(EventId::new()), None] {
            assert!(matches!(
                cursor.check(stored, "after"),
                Err(DomainError::Gone { field, message })
                    if field == "after" && message.contains("Resynchronize")
            ));
        }
        // Before the first event every timeline is the same.
        let start = FeedCursor {
            sequence: 0,
            event: None,
        };
        assert!(start.check(None, "after").is_ok());
        // A position whose id the store does not know matches only a cursor
        // that does not know it either.
        let unknown = FeedCursor {
            sequence: 9,
            event: None,
        };
        assert!(unknown.check(None, "after").is_ok());
        assert!(unknown.check(Some(seen), "after").is_err());
    }

    #[test]
    fn start_refuses_cursors_before_pruned_and_past_the_head() {
        let q = |after| FeedQuery {
            after: Some(Cursor(after)),
            types: vec![],
            subject_id: None,
            size: 10,
        };
        assert_eq!(q(2).start(10, 3), Err(FeedRead::Expired));
        assert_eq!(q(11).start(10, 3), Err(FeedRead::Ahead));
        assert_eq!(q(3).start(10, 3), Ok(3));
        assert_eq!(q(10).start(10, 3), Ok(10));
        let none = FeedQuery {
            after: None,
            ..q(0)
        };
        assert_eq!(none.start(10, 3), Ok(3));
    }

    #[test]
    fn next_cursor_names_the_event_at_next() {
        let event = |sequence| Event {
            id: EventId::new(),
            organization_id: org(),
            sequence,
            kind: EventType::PersonCreated,
            occurred_at: chrono::Utc::now(),
            actor: crate::event::Actor::Cli,
            subject: crate::event::Subject {
                kind: crate::event::SubjectType::Person,
                id: uuid::Uuid::new_v4(),
            },
            changes: crate::event::RawChanges::default(),
        };
        let q = FeedQuery {
            after: Some(Cursor(4)),
            types: vec![],
            subject_id: None,
            size: 2,
        };
        let marks = FeedMarks {
            after: Some(EventId::new()),
            head: Some(EventId::new()),
        };
        // A full page: the last event returned.
        let full = vec![event(5), event(6)];
        let last = full[1].id;
        let page = FeedPage::from_read(&q, full, 9);
        assert_eq!(
            page.next_cursor(9, marks),
            FeedCursor {
                sequence: 6,
                event: Some(last)
            }
        );
        // Not full: moved to the head, named by the head's mark.
        let page = FeedPage::from_read(&q, vec![event(5)], 9);
        assert_eq!(
            page.next_cursor(9, marks),
            FeedCursor {
                sequence: 9,
                event: marks.head
            }
        );
        // Nothing ever written: position 0.
        let empty = FeedQuery { after: None, ..q };
        let page = FeedPage::from_read(&empty, vec![], 0);
        assert_eq!(
            page.next_cursor(0, FeedMarks::default()),
            FeedCursor {
                sequence: 0,
                event: None
            }
        );
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
        let (q, _) = FeedQuery::parse(&raw, org()).unwrap();
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
            assert!(FeedQuery::parse(&raw, org()).is_err(), "{size}");
        }
        let raw = RawFeedQuery {
            types: vec!["person.exploded".into()],
            ..RawFeedQuery::default()
        };
        assert!(
            matches!(FeedQuery::parse(&raw, org()), Err(DomainError::Invalid { field, .. }) if field == "types")
        );
    }

    #[test]
    fn next_moves_past_the_head_only_on_a_page_that_is_not_full() {
        let (q, _) = FeedQuery::parse(
            &RawFeedQuery {
                size: Some("2".into()),
                ..RawFeedQuery::default()
            },
            org(),
        )
        .unwrap();
        assert_eq!(FeedPage::from_read(&q, vec![], 10).next, Cursor(10));
        let q5 = FeedQuery {
            after: Some(Cursor(5)),
            ..q.clone()
        };
        assert_eq!(FeedPage::from_read(&q5, vec![], 3).next, Cursor(5));
    }
}
