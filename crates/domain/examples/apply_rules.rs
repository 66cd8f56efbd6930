//! Another service applying equip's rules without equip's server or database:
//! it checks an item's status change, validates a person from its own HR feed,
//! and runs the inventory-level use cases over the in-memory store.
//!
//! Run with `cargo run -p equip-domain --example apply_rules --features testing`
//! (the in-memory store is behind that feature).

use chrono::Utc;
use equip_domain::inventory::{check_deploy_reason, check_transition, DeployReason, DeployStatus};
use equip_domain::person::is_valid_cpf;
use equip_domain::services::inventory_levels::{
    create_inventory_level, deactivate_inventory_level, NewInventoryLevel,
};
use equip_domain::testing::{fixtures, InMemoryStore};
use equip_domain::DomainError;

fn main() -> Result<(), DomainError> {
    // 1. Deploy rules: a move to UNAVAILABLE needs a reason; ARCHIVED is final.
    match check_deploy_reason(DeployStatus::Unavailable, None) {
        Err(e) => println!("refused as expected: {e}"),
        Ok(()) => println!("unexpectedly accepted"),
    }
    check_deploy_reason(
        DeployStatus::Unavailable,
        Some(DeployReason::RequiresRepair),
    )?;
    println!("UNAVAILABLE with REQUIRES_REPAIR: accepted");
    if let Err(e) = check_transition(DeployStatus::Archived, DeployStatus::Available) {
        println!("refused as expected: {e}");
    }

    // 2. Person rules usable on their own.
    println!(
        "CPF 529.982.247-25 valid: {}",
        is_valid_cpf("529.982.247-25")
    );

    // 3. Use cases over the in-memory ports.
    let store = InMemoryStore::default();
    let seeded = fixtures::seed(&store);
    let input = NewInventoryLevel {
        sku_id: seeded.sku.id,
        warehouse_id: seeded.warehouse.id,
        minimum_quantity: 5,
        target_quantity: 20,
    };
    let level = create_inventory_level(&store, seeded.org.id, input, Utc::now())?.level;
    println!("created level {} (min 5, target 20)", level.id);
    if let Err(e) = create_inventory_level(&store, seeded.org.id, input, Utc::now()) {
        println!("second active level refused: {e}");
    }
    deactivate_inventory_level(&store, seeded.org.id, level.id, Utc::now())?;
    println!("deactivated; the record is kept for audit");
    Ok(())
}
