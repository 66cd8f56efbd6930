//! What follows a write in the equipment lifecycle, written once over the
//! unit-of-work port ([`crate::ports::UnitOfWork`]) so that every store runs
//! the same sequence (docs/workflows.md). Each module is one trigger; the
//! rules it applies are the domain's pure functions (`orders::allocation`,
//! `orders::fulfilment`, `inventory_level::crossing`).

pub mod stock;
