//! A progress bar on standard error for long imports.

use equip_domain::import::ImportSummary;
use indicatif::{ProgressBar, ProgressStyle};

/// Batches with more entries than this show a progress bar.
pub const PROGRESS_THRESHOLD: usize = 2_000;

/// A bar over `total` entries, or a hidden one for small batches (and, as
/// indicatif does by itself, when standard error is not a terminal).
pub fn bar(total: usize, message: &'static str) -> ProgressBar {
    if total <= PROGRESS_THRESHOLD {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{msg} [{bar:40.cyan/blue}] {human_pos}/{human_len} ({per_sec}, {eta} left)",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(message);
    bar
}

/// Files larger than this show a spinner while they are read.
pub const SPINNER_BYTES: usize = 4 << 20;

/// A spinner for a step of unknown length (reading a large file), or a hidden
/// one when `show` is false.
pub fn spinner(show: bool, message: String) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_message(message);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// `3 warehouses, 2 offices, …` for the summary line.
#[must_use]
pub fn describe(summary: &ImportSummary) -> String {
    [
        (summary.warehouses, "warehouses"),
        (summary.offices, "offices"),
        (summary.skus, "SKUs"),
        (summary.packages, "packages"),
        (summary.people, "people"),
        (summary.inventory, "inventory items"),
        (summary.inventory_levels, "inventory levels"),
        (summary.groups, "groups"),
    ]
    .iter()
    .map(|(n, what)| format!("{n} {what}"))
    .collect::<Vec<_>>()
    .join(", ")
}
