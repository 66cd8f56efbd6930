//! SCIM lists whose `count` asks for more than the page cap (`equip serve
//! --scim-max-results`): the page is served at the cap, as RFC 7644
//! §3.4.2.4 allows, but a client that steps `startIndex` by the count it
//! asked instead of by `itemsPerPage` (Okta's user import asks for 100)
//! then skips the resources between the cap and its count on every page,
//! silently. Each such list is counted (`equip_scim_count_over_cap_total`)
//! and a warning naming `--scim-max-results` is logged, at most once an
//! hour per organization so that a full sync does not flood the log.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use equip_domain::ids::OrganizationId;

/// How long after a warning an organization's next one waits.
const QUIET: Duration = Duration::from_secs(60 * 60);

/// Organizations remembered at most; past it, those warned more than
/// [`QUIET`] ago are forgotten (they would be warned again anyway).
const REMEMBERED: usize = 10_000;

/// When each organization was last warned about a count over the cap.
#[derive(Debug, Default)]
pub struct PageCapWarnings {
    last: Mutex<HashMap<OrganizationId, Instant>>,
}

impl PageCapWarnings {
    /// Notes that `organization` asked for `asked` resources a page where at
    /// most `cap` are served: counted in `metrics` (when served) and logged
    /// unless that organization was warned within the hour.
    pub fn asked_over_cap(
        &self,
        organization: OrganizationId,
        asked: i64,
        cap: u32,
        metrics: Option<&crate::metrics::Metrics>,
    ) {
        if let Some(m) = metrics {
            m.count_scim_count_over_cap();
        }
        if self.due(organization, Instant::now()) {
            // The request's span carries `org_id`; the text names it too,
            // for a log read without the span's fields.
            tracing::warn!(
                "organization {organization}: a SCIM list asked for count={asked}, more than the \
                 page cap of {cap}: pages are \
                 served with at most {cap}, so a client that steps startIndex by the count it \
                 asked (Okta's import asks for 100) skips resources; raise the cap with \
                 --scim-max-results (EQUIP_SCIM_MAX_RESULTS) to at least {asked} \
                 (said at most once an hour per organization)"
            );
        }
    }

    /// Whether `organization` is to be warned at `now` (and, if so, that it
    /// was).
    fn due(&self, organization: OrganizationId, now: Instant) -> bool {
        let Ok(mut last) = self.last.lock() else {
            // A panic elsewhere poisoned it: warn rather than stay silent.
            return true;
        };
        if let Some(at) = last.get(&organization) {
            if now.duration_since(*at) < QUIET {
                return false;
            }
        }
        if last.len() >= REMEMBERED {
            last.retain(|_, at| now.duration_since(*at) < QUIET);
        }
        last.insert(organization, now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_organization_is_warned_once_an_hour() {
        let warnings = PageCapWarnings::default();
        let (a, b) = (OrganizationId::new(), OrganizationId::new());
        let t = Instant::now();
        assert!(warnings.due(a, t));
        assert!(!warnings.due(a, t + Duration::from_secs(60)));
        assert!(warnings.due(b, t + Duration::from_secs(60)));
        assert!(!warnings.due(a, t + QUIET - Duration::from_secs(1)));
        assert!(warnings.due(a, t + QUIET + Duration::from_secs(1)));
    }
}
