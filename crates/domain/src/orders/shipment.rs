//! What shipping lines and recording a delivery do to an order (to be
//! written: `ship` and `deliver` over the order a store read under its
//! lock).
