//! Where an offboarding's completion is decided. A person being offboarded
//! (OFFBOARDING) is OFFBOARDED, with the event `person.offboarded`, once none
//! of their return lines is open: every line received or written off, or at
//! once when they held nothing. A return created for an OFFBOARDING person
//! (a repair found late) keeps them OFFBOARDING until it closes too.
//!
//! Every change that closes a line (a receipt, a write-off) or that could
//! leave nothing open (an offboarding with nothing deployed) asks
//! [`complete`] in its transaction, having read the person's stored state
//! (locked) and counted their open lines, and writes what it decided.

use chrono::{DateTime, Utc};

use crate::event::NewEvent;
use crate::ids::PersonId;
use crate::person::PersonStatus;
use crate::person::StoredPersonState;

/// An offboarding that completes: the person's new state and its event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The person.
    pub person: PersonId,
    /// Their new status (OFFBOARDED).
    pub status: PersonStatus,
    /// Their new version (the stored one plus one).
    pub version: i64,
    /// Their last change.
    pub updated_at: DateTime<Utc>,
    /// `person.offboarded`.
    pub event: NewEvent,
}

/// Whether the offboarding of `person`, stored as `stored`, completes at
/// `at` with `open_lines` of their return lines still open; `None` when it
/// does not (they are not OFFBOARDING, or something is still to come back).
#[must_use]
pub fn complete(
    person: PersonId,
    stored: StoredPersonState,
    open_lines: usize,
    at: DateTime<Utc>,
) -> Option<Completion> {
    (stored.status == PersonStatus::Offboarding && open_lines == 0).then(|| Completion {
        person,
        status: PersonStatus::Offboarded,
        version: stored.version + 1,
        updated_at: at,
        event: NewEvent::offboarded(person),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::event::EventType;

    fn stored(status: PersonStatus) -> StoredPersonState {
        StoredPersonState { status, version: 7 }
    }

    #[test]
    fn an_offboarding_person_with_nothing_open_is_offboarded() {
        let (person, at) = (PersonId::new(), Utc::now());
        let c = complete(person, stored(PersonStatus::Offboarding), 0, at).unwrap();
        assert_eq!(c.status, PersonStatus::Offboarded);
        assert_eq!((c.version, c.updated_at), (8, at));
        assert_eq!(c.event.kind, EventType::PersonOffboarded);
        assert_eq!(c.event.changes["status"].from, "OFFBOARDING");
        assert_eq!(c.event.changes["status"].to, "OFFBOARDED");
    }

    #[test]
    fn an_open_line_keeps_the_offboarding_going() {
        let c = complete(
            PersonId::new(),
            stored(PersonStatus::Offboarding),
            1,
            Utc::now(),
        );
        assert_eq!(c, None);
    }

    #[test]
    fn only_an_offboarding_person_completes_and_only_once() {
        for status in [PersonStatus::Active, PersonStatus::Offboarded] {
            assert_eq!(
                complete(PersonId::new(), stored(status), 0, Utc::now()),
                None
            );
        }
    }
}
