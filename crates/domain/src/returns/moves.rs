//! Where a retrieval's moves are decided: each method's path of statuses,
//! and which moves a PATCH may make along it.
//!
//! - RETURN_KIT: REQUESTED → LABEL_CREATED → SHIPPED (the kit to the person)
//!   → DELIVERED → SENT_BACK → ARRIVED_AT_PROCESSING_FACILITY;
//! - INBOUND_LABEL: REQUESTED → LABEL_CREATED → SENT_BACK →
//!   ARRIVED_AT_PROCESSING_FACILITY;
//! - PHYSICAL: REQUESTED → SCHEDULING_PICK_UP → ARRIVED_AT_PROCESSING_FACILITY.
//!
//! A status moves forward along its path, one step or several (a carrier's
//! updates may be missed, never reordered); staying where it is changes
//! nothing. DELIVERY_EXCEPTION may be entered from an in-transit status (a
//! parcel moving: SHIPPED, SENT_BACK) and left for any in-transit status of
//! the path or a later one. Anything else is refused with 409 naming both
//! statuses. A method may be chosen or changed while the retrieval has not
//! left REQUESTED or LABEL_CREATED (nothing is moving yet); the new method
//! starts at REQUESTED, or at the status given with it when that is on its
//! path.

use crate::error::DomainError;
use crate::inventory::RetrievalStatus as S;
use crate::returns::RetrievalType;

/// The statuses a method's retrieval moves through, in order.
#[must_use]
pub const fn path(method: RetrievalType) -> &'static [S] {
    match method {
        RetrievalType::ReturnKit => &[
            S::Requested,
            S::LabelCreated,
            S::Shipped,
            S::Delivered,
            S::SentBack,
            S::ArrivedAtProcessingFacility,
        ],
        RetrievalType::InboundLabel => &[
            S::Requested,
            S::LabelCreated,
            S::SentBack,
            S::ArrivedAtProcessingFacility,
        ],
        RetrievalType::Physical => &[
            S::Requested,
            S::SchedulingPickUp,
            S::ArrivedAtProcessingFacility,
        ],
    }
}

/// A parcel is moving: a delivery exception may happen here.
#[must_use]
pub const fn in_transit(status: S) -> bool {
    matches!(status, S::Shipped | S::SentBack)
}

fn position(method: RetrievalType, status: S) -> Option<usize> {
    path(method).iter().position(|s| *s == status)
}

fn refused(method: RetrievalType, from: S, to: S) -> DomainError {
    DomainError::conflict(
        "retrievalMethod.status",
        format!(
            "a {} retrieval cannot move from {} to {}",
            method.as_str(),
            from.as_str(),
            to.as_str()
        ),
    )
}

/// Whether a retrieval of `method` at `from` may move to `to`; `Ok(false)`
/// when `to` is `from` (nothing changes).
///
/// # Errors
/// [`DomainError::Conflict`] naming both statuses: `to` is not on the
/// method's path, is behind `from`, or is a delivery exception where no
/// parcel is moving.
pub fn check_move(method: RetrievalType, from: S, to: S) -> Result<bool, DomainError> {
    if from == to {
        return Ok(false);
    }
    if to == S::DeliveryException {
        return if in_transit(from) {
            Ok(true)
        } else {
            Err(refused(method, from, to))
        };
    }
    let Some(target) = position(method, to) else {
        return Err(refused(method, from, to));
    };
    if from == S::DeliveryException {
        // Back on the path: to where a parcel moves, or further.
        let first_transit = path(method).iter().position(|s| in_transit(*s));
        return match first_transit {
            Some(at) if target >= at => Ok(true),
            _ => Err(refused(method, from, to)),
        };
    }
    match position(method, from) {
        Some(current) if target > current => Ok(true),
        _ => Err(refused(method, from, to)),
    }
}

/// Whether the method of a retrieval at `current` may be replaced: nothing
/// has left yet (REQUESTED or LABEL_CREATED).
///
/// # Errors
/// [`DomainError::Conflict`] naming the current method and status.
pub fn check_method_change(
    current: RetrievalType,
    status: S,
    new: RetrievalType,
) -> Result<(), DomainError> {
    if current == new || matches!(status, S::Requested | S::LabelCreated) {
        return Ok(());
    }
    Err(DomainError::conflict(
        "retrievalMethod.type",
        format!(
            "the method cannot change from {} to {} once the retrieval is {}",
            current.as_str(),
            new.as_str(),
            status.as_str()
        ),
    ))
}

/// The status a newly chosen method starts at: `given`, when it is on the
/// method's path, else REQUESTED.
///
/// # Errors
/// [`DomainError::Invalid`] when `given` is not on the method's path.
pub fn starting_status(method: RetrievalType, given: Option<S>) -> Result<S, DomainError> {
    match given {
        None => Ok(S::Requested),
        Some(s) if position(method, s).is_some() => Ok(s),
        Some(s) => Err(DomainError::invalid(
            "retrievalMethod.status",
            format!(
                "{} is not a status of a {} retrieval (expected one of {})",
                s.as_str(),
                method.as_str(),
                path(method)
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const METHODS: [RetrievalType; 3] = [
        RetrievalType::ReturnKit,
        RetrievalType::InboundLabel,
        RetrievalType::Physical,
    ];

    #[test]
    fn every_path_starts_requested_and_ends_at_the_facility() {
        for m in METHODS {
            let p = path(m);
            assert_eq!(p.first(), Some(&S::Requested), "{m}");
            assert_eq!(p.last(), Some(&S::ArrivedAtProcessingFacility), "{m}");
        }
    }

    #[test]
    fn forward_moves_are_taken_one_step_or_several_and_backward_ones_refused() {
        let kit = RetrievalType::ReturnKit;
        assert!(check_move(kit, S::Requested, S::LabelCreated).unwrap());
        assert!(check_move(kit, S::LabelCreated, S::Delivered).unwrap());
        assert!(!check_move(kit, S::Shipped, S::Shipped).unwrap());
        let e = check_move(kit, S::Delivered, S::Shipped)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "retrievalMethod.status: a RETURN_KIT retrieval cannot move from DELIVERED to SHIPPED"
        );
    }

    #[test]
    fn a_status_off_the_methods_path_is_refused_naming_both() {
        let e = check_move(RetrievalType::Physical, S::Requested, S::Shipped)
            .unwrap_err()
            .to_string();
        assert!(e.contains("from REQUESTED to SHIPPED"), "{e}");
        let e = check_move(RetrievalType::InboundLabel, S::LabelCreated, S::Delivered);
        assert!(e.is_err());
        assert!(check_move(RetrievalType::ReturnKit, S::Requested, S::Cancelled).is_err());
    }

    #[test]
    fn a_delivery_exception_comes_from_a_moving_parcel_and_goes_back_on_the_path() {
        let kit = RetrievalType::ReturnKit;
        assert!(check_move(kit, S::Shipped, S::DeliveryException).unwrap());
        assert!(check_move(kit, S::SentBack, S::DeliveryException).unwrap());
        assert!(check_move(kit, S::Requested, S::DeliveryException).is_err());
        assert!(check_move(kit, S::Delivered, S::DeliveryException).is_err());
        assert!(check_move(
            RetrievalType::Physical,
            S::SchedulingPickUp,
            S::DeliveryException
        )
        .is_err());
        assert!(check_move(kit, S::DeliveryException, S::Shipped).unwrap());
        assert!(check_move(kit, S::DeliveryException, S::ArrivedAtProcessingFacility).unwrap());
        assert!(check_move(kit, S::DeliveryException, S::LabelCreated).is_err());
        let label = RetrievalType::InboundLabel;
        assert!(check_move(label, S::DeliveryException, S::SentBack).unwrap());
        assert!(check_move(label, S::DeliveryException, S::Shipped).is_err());
    }

    #[test]
    fn the_method_changes_only_before_anything_moves() {
        let (kit, label) = (RetrievalType::ReturnKit, RetrievalType::InboundLabel);
        assert!(check_method_change(kit, S::Requested, label).is_ok());
        assert!(check_method_change(kit, S::LabelCreated, label).is_ok());
        let e = check_method_change(kit, S::Shipped, label)
            .unwrap_err()
            .to_string();
        assert!(e.contains("from RETURN_KIT to INBOUND_LABEL"), "{e}");
        assert!(check_method_change(kit, S::Shipped, kit).is_ok());
    }

    #[test]
    fn a_new_method_starts_requested_or_where_it_is_told_on_its_path() {
        let p = RetrievalType::Physical;
        assert_eq!(starting_status(p, None).unwrap(), S::Requested);
        assert_eq!(
            starting_status(p, Some(S::SchedulingPickUp)).unwrap(),
            S::SchedulingPickUp
        );
        let e = starting_status(p, Some(S::Shipped))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("SHIPPED is not a status of a PHYSICAL retrieval"),
            "{e}"
        );
    }
}
