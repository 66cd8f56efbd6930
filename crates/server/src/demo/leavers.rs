//! The demo's leavers, run after its import through the same rules as the
//! API (offboarding, `returns::change`): a few people offboarded and their
//! returns left mid-way, so that the console and the API show the lifecycle
//! out of the box (docs/returns.md):
//!
//! 1. a return just opened (PENDING);
//! 2. a return kit SHIPPED, with tracking;
//! 3. a kit SENT_BACK with one line written off (LOST_BY_WORKER);
//! 4. every line written off (NOT_COMPLETED): the person OFFBOARDED.
//!
//! The people are the first ACTIVE ones (in the generator's order) who hold
//! enough DEPLOYED items; the same seed gives the same leavers.

use equip_domain::error::DomainError;
use equip_domain::ids::PersonId;
use equip_domain::inventory::RetrievalStatus;
use equip_domain::inventory_query::{InventoryQuery, RawInventoryQuery};
use equip_domain::person::PersonStatus;
use equip_domain::ports::{InventoryRepository, PersonRepository, ReturnOrderRepository};
use equip_domain::returns::change::{LineChange, RetrievalChange, ReturnOrderChange, Tracking};
use equip_domain::returns::order::ReturnOrder;
use equip_domain::returns::query::{RawReturnOrderQuery, ReturnOrderQuery};
use equip_domain::returns::{ClosedReason, RetrievalType};

use super::{DemoConfig, Generator};

/// What the leavers need of a store.
pub trait LeaverPorts: PersonRepository + ReturnOrderRepository + InventoryRepository {}
impl<T: PersonRepository + ReturnOrderRepository + InventoryRepository> LeaverPorts for T {}

/// The stages, in the order they are filled: (items needed, what is done).
const STAGES: [(u64, Stage); 4] = [
    (2, Stage::PartlyWrittenOff),
    (1, Stage::Pending),
    (1, Stage::KitShipped),
    (1, Stage::Completed),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Pending,
    KitShipped,
    PartlyWrittenOff,
    Completed,
}

/// People the leavers are looked for among, at most.
const CANDIDATES: usize = 200;

/// Offboards the demo's leavers and moves their returns; the people
/// offboarded.
///
/// # Errors
/// A store failure, or (a bug) a change the rules refuse.
pub fn run(ports: &dyn LeaverPorts, config: &DemoConfig) -> Result<Vec<PersonId>, DomainError> {
    let org = config.organization;
    let today = config.now.date_naive();
    let people = Generator::new(config.clone()).base().people;
    let mut open: Vec<(u64, Stage)> = STAGES.to_vec();
    let mut offboarded = Vec::new();
    for person in people
        .iter()
        .filter(|p| p.status == PersonStatus::Active && !p.is_new_joiner(today))
        .take(CANDIDATES)
    {
        let held = deployed(ports, config, person.id)?;
        let Some(slot) = open.iter().position(|(need, _)| held >= *need) else {
            continue;
        };
        let (_, stage) = open.remove(slot);
        ports.offboard_person(org, person.id, None, config.clock())?;
        offboarded.push(person.id);
        if stage == Stage::Completed {
            // Every open line of every order of theirs (an imported return
            // too) written off: nothing is left to come back.
            for order in orders_of(ports, config, person.id)? {
                if order.open_lines() > 0 {
                    advance(ports, config, &order, stage)?;
                }
            }
        } else if let Some(order) = orders_of(ports, config, person.id)?
            .into_iter()
            .find(|o| o.retrieval.is_none() && o.open_lines() > 0)
        {
            // The order the offboarding opened (no method chosen yet), not
            // an imported return of theirs, which may be further along.
            advance(ports, config, &order, stage)?;
        }
        if open.is_empty() {
            break;
        }
    }
    Ok(offboarded)
}

/// How many items are DEPLOYED to `person`.
fn deployed(
    ports: &dyn LeaverPorts,
    config: &DemoConfig,
    person: PersonId,
) -> Result<u64, DomainError> {
    let query = InventoryQuery::parse(&RawInventoryQuery {
        person_id: Some(person.to_string()),
        deploy_statuses: vec!["DEPLOYED".into()],
        size: Some("1".into()),
        ..RawInventoryQuery::default()
    })?;
    Ok(ports
        .list_inventory(config.organization, &query)?
        .total_records)
}

/// The person's return orders, newest first.
fn orders_of(
    ports: &dyn LeaverPorts,
    config: &DemoConfig,
    person: PersonId,
) -> Result<Vec<ReturnOrder>, DomainError> {
    let query = ReturnOrderQuery::parse(&RawReturnOrderQuery {
        person_id: Some(person.to_string()),
        ..RawReturnOrderQuery::default()
    })?;
    Ok(ports
        .list_return_orders(config.organization, &query)?
        .orders)
}

fn kit(status: Option<RetrievalStatus>, code: Option<String>) -> ReturnOrderChange {
    ReturnOrderChange {
        retrieval: Some(RetrievalChange {
            method: RetrievalType::ReturnKit,
            status,
            tracking: Tracking {
                inbound_tracking_link: code
                    .as_ref()
                    .map(|c| Some(format!("https://tracking.example/{c}"))),
                inbound_tracking_code: code.map(Some),
                ..Tracking::default()
            },
        }),
        ..ReturnOrderChange::default()
    }
}

fn write_off(order: &ReturnOrder, lines: usize, reasons: &[ClosedReason]) -> ReturnOrderChange {
    ReturnOrderChange {
        lines: order
            .lines
            .iter()
            .filter(|l| l.active())
            .take(lines)
            .zip(reasons.iter().cycle())
            .map(|(l, r)| LineChange {
                id: l.id,
                itad_requested: None,
                closed_reason: Some(*r),
            })
            .collect(),
        ..ReturnOrderChange::default()
    }
}

/// Moves the order to its stage, a change at a time as a people team would.
fn advance(
    ports: &dyn LeaverPorts,
    config: &DemoConfig,
    order: &ReturnOrder,
    stage: Stage,
) -> Result<(), DomainError> {
    let org = config.organization;
    let code = format!(
        "1Z{}",
        order.id.as_uuid().simple().to_string()[..16].to_ascii_uppercase()
    );
    let changes: Vec<ReturnOrderChange> = match stage {
        Stage::Pending => Vec::new(),
        Stage::KitShipped => vec![
            kit(None, Some(code)),
            kit(Some(RetrievalStatus::LabelCreated), None),
            kit(Some(RetrievalStatus::Shipped), None),
        ],
        Stage::PartlyWrittenOff => vec![
            kit(None, Some(code)),
            kit(Some(RetrievalStatus::Shipped), None),
            kit(Some(RetrievalStatus::SentBack), None),
            write_off(order, 1, &[ClosedReason::LostByWorker]),
        ],
        Stage::Completed => vec![write_off(
            order,
            order.lines.len(),
            &[ClosedReason::BoughtOut, ClosedReason::GiftedByEmployer],
        )],
    };
    for change in &changes {
        ports.change_return_order(org, order.id, change, config.clock())??;
    }
    Ok(())
}
