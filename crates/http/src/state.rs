//! What handlers share: the ports of the domain.

use std::sync::Arc;

use equip_domain::services::directory::DirectoryPorts;
use equip_domain::services::events::HistoryPorts;
use equip_domain::services::inventory::InventoryPorts;
use equip_domain::services::inventory_levels::LevelPorts;
use equip_domain::services::receipts::ReceiptPorts;
use equip_domain::services::reminders::ReminderPorts;

use equip_domain::error::StoreResult;

use crate::blocking::Admission;
use crate::limits::Limits;
use crate::metrics::Metrics;
use crate::public_url::PublicUrl;
use crate::rate_limit::RateLimit;
use crate::shares::Shares;
use equip_domain::api_key::Caller;
use equip_domain::event::Actor;
use equip_domain::ports::{
    Acting, ApiKeyRepository, CatalogRepository, GroupRepository, HealthCheck,
    InventoryLevelRepository, InventoryRepository, OrderRepository, OrganizationRepository,
    PersonRepository, ReturnOrderRepository, WarehouseRepository, WebhookRepository, WriteSessions,
};
use equip_domain::webhook::AddressPolicy;

/// Every port the web layer uses. A storage adapter implementing all of them
/// implements this automatically.
pub trait Ports:
    equip_scim::provisioning::ScimPorts
    + LevelPorts
    + HistoryPorts
    + InventoryPorts
    + ReminderPorts
    + DirectoryPorts
    + ReceiptPorts
    + ApiKeyRepository
    + WarehouseRepository
    + CatalogRepository
    + InventoryLevelRepository
    + InventoryRepository
    + PersonRepository
    + GroupRepository
    + WebhookRepository
    + ReturnOrderRepository
    + OrderRepository
    + OrganizationRepository
    + equip_domain::ports::SsoRepository
    + HealthCheck
{
}

impl<T> Ports for T where
    T: LevelPorts
        + HistoryPorts
        + InventoryPorts
        + ReminderPorts
        + DirectoryPorts
        + ReceiptPorts
        + ApiKeyRepository
        + WarehouseRepository
        + CatalogRepository
        + InventoryLevelRepository
        + InventoryRepository
        + PersonRepository
        + GroupRepository
        + WebhookRepository
        + ReturnOrderRepository
        + OrderRepository
        + OrganizationRepository
        + equip_domain::ports::SsoRepository
        + HealthCheck
{
}

/// Shared application state: cheap to clone.
#[derive(Clone)]
pub struct AppState {
    ports: Arc<dyn Ports>,
    acting: Arc<ActingSource>,
    sessions: Arc<SessionSource>,
    limits: Limits,
    public_url: Arc<PublicUrl>,
    admission: Arc<Admission>,
    webhook_addresses: AddressPolicy,
    rate_limit: RateLimit,
    shares: Arc<Shares>,
    metrics: Option<Arc<Metrics>>,
    scim_max_results: u32,
    page_cap_warnings: Arc<crate::page_cap::PageCapWarnings>,
    sso: Option<Arc<crate::sso::SsoSupport>>,
}

/// The store's ports with their writes attributed to an actor.
type ActingSource = dyn Fn(Actor) -> Arc<dyn Ports> + Send + Sync;

/// Opens a write session of the store, its writes attributed to an actor.
type SessionSource = dyn Fn(Actor) -> StoreResult<Arc<dyn Ports>> + Send + Sync;

impl AppState {
    /// State over a store implementing every port; a request that makes many
    /// writes makes them through the same ports, each waiting for its own
    /// durability. A store that opens write sessions (equip's database store)
    /// belongs in [`AppState::with_write_sessions`] instead, or SCIM Bulk and
    /// CSV uploads wait for durability once per write.
    pub fn new<S: Ports + Acting + 'static>(store: Arc<S>) -> Self {
        let source = Arc::clone(&store);
        Self::with_sessions(
            store,
            Arc::new(move |actor| Ok(Arc::new(source.acting_as(actor)) as Arc<dyn Ports>)),
        )
    }

    /// State over a store that also opens write sessions: a request that makes
    /// many writes (SCIM Bulk, a CSV upload) makes them in one session and
    /// waits for their durability once (see [`WriteSessions`]).
    pub fn with_write_sessions<S: Ports + Acting + WriteSessions + 'static>(store: Arc<S>) -> Self {
        let source = Arc::clone(&store);
        Self::with_sessions(
            store,
            Arc::new(move |actor| {
                source
                    .write_session()
                    .map(|s| Arc::new(s.acting_as(actor)) as Arc<dyn Ports>)
            }),
        )
    }

    fn with_sessions<S: Ports + Acting + 'static>(
        store: Arc<S>,
        sessions: Arc<SessionSource>,
    ) -> Self {
        let source = Arc::clone(&store);
        Self {
            ports: store,
            acting: Arc::new(move |actor| Arc::new(source.acting_as(actor)) as Arc<dyn Ports>),
            sessions,
            limits: Limits::default(),
            public_url: Arc::new(PublicUrl::from_host()),
            admission: Arc::new(Admission::default()),
            webhook_addresses: AddressPolicy::default(),
            rate_limit: RateLimit::off(),
            shares: Arc::new(Shares::off()),
            metrics: None,
            scim_max_results: equip_domain::person_query::MAX_PAGE_SIZE,
            page_cap_warnings: Arc::default(),
            sso: None,
        }
    }

    /// The same state accepting webhook URLs whose host is private (loopback,
    /// RFC 1918, …) when `policy` allows it (`equip serve
    /// --allow-private-webhooks`).
    #[must_use]
    pub fn with_webhook_addresses(mut self, policy: AddressPolicy) -> Self {
        self.webhook_addresses = policy;
        self
    }

    /// The same state counting every request into `metrics` (`equip serve
    /// --metrics-bind`).
    #[must_use]
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Where requests are counted, if anywhere.
    #[must_use]
    pub fn metrics(&self) -> Option<Arc<Metrics>> {
        self.metrics.clone()
    }

    /// Which addresses a webhook URL may point to.
    #[must_use]
    pub fn webhook_addresses(&self) -> AddressPolicy {
        self.webhook_addresses
    }

    /// The same state refusing store calls (503) while others wait and the
    /// last to start had waited longer than `max_wait` (`crate::blocking`;
    /// `Duration::ZERO`: never).
    #[must_use]
    pub fn with_max_queue_wait(mut self, max_wait: std::time::Duration) -> Self {
        self.admission = Arc::new(Admission::new(max_wait));
        self
    }

    /// Admission to the blocking threads, shared by every worker.
    #[must_use]
    pub fn admission(&self) -> Arc<Admission> {
        Arc::clone(&self.admission)
    }

    /// The same state limiting each API key's requests (`equip serve
    /// --rate-limit`); without it, keys are not limited.
    #[must_use]
    pub fn with_rate_limit(mut self, rate_limit: RateLimit) -> Self {
        self.rate_limit = rate_limit;
        self
    }

    /// The same state bounding what one organization's requests may hold of
    /// the store (`equip serve --max-store-calls-per-organization`;
    /// [`crate::shares`]); without it, organizations are not bounded.
    #[must_use]
    pub fn with_shares(mut self, shares: Shares) -> Self {
        self.shares = Arc::new(shares);
        self
    }

    /// The organizations' shares of the store calls, shared by every worker.
    #[must_use]
    pub fn shares(&self) -> Arc<Shares> {
        Arc::clone(&self.shares)
    }

    /// The rate limit of every key (its buckets shared by every worker).
    #[must_use]
    pub fn rate_limit(&self) -> &RateLimit {
        &self.rate_limit
    }

    /// The same state with SCIM lists and searches of Users and Groups
    /// returning pages of up to `max_results` resources (`equip serve
    /// --scim-max-results`; announced as `filter.maxResults`). Kept within
    /// 1 and [`equip_domain::person_query::PAGE_SIZE_LIMIT`].
    #[must_use]
    pub fn with_scim_max_results(mut self, max_results: u32) -> Self {
        self.scim_max_results = max_results.clamp(1, equip_domain::person_query::PAGE_SIZE_LIMIT);
        self
    }

    /// The largest page of a SCIM list or search (default
    /// [`equip_domain::person_query::MAX_PAGE_SIZE`]).
    #[must_use]
    pub fn scim_max_results(&self) -> u32 {
        self.scim_max_results
    }

    /// Notes a SCIM list of `organization` whose `count` asked for `asked`
    /// resources, more than [`Self::scim_max_results`]: counted in the
    /// metrics, and a warning at most once an hour per organization
    /// ([`crate::page_cap`]).
    pub fn scim_count_over_cap(&self, organization: equip_domain::ids::OrganizationId, asked: i64) {
        self.page_cap_warnings.asked_over_cap(
            organization,
            asked,
            self.scim_max_results,
            self.metrics.as_deref(),
        );
    }

    /// The same state with console sign-in through the organizations'
    /// identity providers (`/sso`, and the session cookie on every route).
    #[must_use]
    pub fn with_sso(mut self, sso: crate::sso::SsoSupport) -> Self {
        self.sso = Some(Arc::new(sso));
        self
    }

    /// Sign-in with identity providers, unless it is off.
    #[must_use]
    pub fn sso(&self) -> Option<Arc<crate::sso::SsoSupport>> {
        self.sso.clone()
    }

    /// The same state with links based on `public_url`.
    #[must_use]
    pub fn with_public_url(mut self, public_url: PublicUrl) -> Self {
        self.public_url = Arc::new(public_url);
        self
    }

    /// How the base of links is found.
    #[must_use]
    pub fn public_url(&self) -> &PublicUrl {
        &self.public_url
    }

    /// The same state with other request limits.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The request limits.
    #[must_use]
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The ports bound to one connection, for a request of `caller` that
    /// makes many writes (see [`WriteSessions`]).
    ///
    /// # Errors
    /// No connection in time.
    pub fn write_session(&self, caller: &Caller) -> StoreResult<Arc<dyn Ports>> {
        (self.sessions)(caller.actor())
    }

    /// The ports for a request of `caller`, to move into a blocking closure:
    /// its writes' events name the caller's key.
    #[must_use]
    pub fn ports(&self, caller: &Caller) -> Arc<dyn Ports> {
        (self.acting)(caller.actor())
    }

    /// The ports for what no caller has authenticated yet (the key check,
    /// health): writes through them are equip's own (`SYSTEM`).
    #[must_use]
    pub fn system_ports(&self) -> Arc<dyn Ports> {
        Arc::clone(&self.ports)
    }
}
