//! The organization's inventory at a glance (the console's overview): how
//! many items each status and category holds, and how many retention holds
//! end soon.

use std::collections::HashMap;

use chrono::{Days, NaiveDate};

use crate::inventory::DeployStatus;

/// How many days ahead a summary looks for holds that end.
pub const HOLDS_ENDING_WITHIN_DAYS: u64 = 7;

/// Items of one status and category.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // plain data
pub struct StatusCount {
    pub deploy_status: DeployStatus,
    /// The category code of the items' SKU.
    pub category: String,
    pub count: u64,
}

/// The summary of an organization's items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InventorySummary {
    /// One entry per status and category with items, by status (in the API's
    /// order of statuses) then category code; no zero counts.
    pub counts: Vec<StatusCount>,
    /// Items whose retention hold ends (their `unlockDate`) within
    /// [`holds_window`].
    pub holds_ending_soon: u64,
}

/// The unlock dates a summary counts as "ending soon": from `today` through
/// `today` + [`HOLDS_ENDING_WITHIN_DAYS`], both included.
#[must_use]
pub fn holds_window(today: NaiveDate) -> (NaiveDate, NaiveDate) {
    let last = today
        .checked_add_days(Days::new(HOLDS_ENDING_WITHIN_DAYS))
        .unwrap_or(NaiveDate::MAX);
    (today, last)
}

/// The summary as shown: categories named by the code the SKUs carry (a
/// store may keep them in any case: categories match ignoring case, as the
/// listing's filter does; where SKUs spell one category differently, the
/// first spelling in byte order names it), counts of one status and category
/// added up, zero counts dropped, ordered by status then category.
#[must_use]
pub fn summarized(
    counts: Vec<StatusCount>,
    holds_ending_soon: u64,
    sku_categories: &[&str],
) -> InventorySummary {
    let mut spelling: HashMap<String, &str> = HashMap::new();
    for code in sku_categories {
        spelling
            .entry(code.to_lowercase())
            .and_modify(|s| {
                if code < s {
                    *s = code;
                }
            })
            .or_insert(code);
    }
    let mut merged: HashMap<(DeployStatus, String), u64> = HashMap::new();
    for c in counts {
        let key = c.category.to_lowercase();
        let name = spelling.get(&key).map_or(c.category, |s| (*s).to_owned());
        *merged.entry((c.deploy_status, name)).or_default() += c.count;
    }
    let mut counts: Vec<StatusCount> = merged
        .into_iter()
        .filter(|(_, count)| *count > 0)
        .map(|((deploy_status, category), count)| StatusCount {
            deploy_status,
            category,
            count,
        })
        .collect();
    counts.sort_by(|a, b| {
        status_rank(a.deploy_status)
            .cmp(&status_rank(b.deploy_status))
            .then_with(|| a.category.cmp(&b.category))
    });
    InventorySummary {
        counts,
        holds_ending_soon,
    }
}

fn status_rank(status: DeployStatus) -> usize {
    DeployStatus::ALL
        .iter()
        .position(|s| *s == status)
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn the_window_is_a_week_from_today_both_days_included() {
        assert_eq!(
            holds_window(day("2026-11-28")),
            (day("2026-11-28"), day("2026-12-05"))
        );
    }

    #[test]
    fn counts_drop_zeros_and_follow_the_status_order_then_the_category() {
        let c = |s, cat: &str, n| StatusCount {
            deploy_status: s,
            category: cat.into(),
            count: n,
        };
        let summary = summarized(
            vec![
                c(DeployStatus::ALL[1], "PHONE", 2),
                c(DeployStatus::ALL[0], "PHONE", 0),
                c(DeployStatus::ALL[1], "LAPTOP", 3),
                c(DeployStatus::ALL[0], "MONITOR", 1),
            ],
            4,
            &["PHONE", "LAPTOP"],
        );
        assert_eq!(
            summary.counts,
            vec![
                c(DeployStatus::ALL[0], "MONITOR", 1),
                c(DeployStatus::ALL[1], "LAPTOP", 3),
                c(DeployStatus::ALL[1], "PHONE", 2),
            ]
        );
        assert_eq!(summary.holds_ending_soon, 4);
    }

    #[test]
    fn categories_are_named_as_the_skus_spell_them_and_merged_ignoring_case() {
        let c = |cat: &str, n| StatusCount {
            deploy_status: DeployStatus::Available,
            category: cat.into(),
            count: n,
        };
        let summary = summarized(
            vec![c("laptop", 2), c("Laptop", 1), c("tablet", 5)],
            0,
            &["Laptop", "LAPTOP"],
        );
        // "LAPTOP" < "Laptop" in byte order; a category no SKU names stays as stored.
        assert_eq!(summary.counts, vec![c("LAPTOP", 3), c("tablet", 5)]);
    }
}
