//! Prometheus metrics (`equip serve --metrics-bind`; docs/reliability.md,
//! "Metrics").
//!
//! - [`Metrics`]: the request counter and latency histogram, counted by the
//!   [`RequestMetrics`] middleware around the whole application. Labels are
//!   the route's template (`/api/v1/inventory/{id}`, `unmatched` for a path
//!   no route matches), the method (the standard ones, else `OTHER`) and the
//!   status, so their number is bounded whatever clients send.
//! - [`metrics_app`]: the application of the metrics listener: `GET /metrics`
//!   in the OpenMetrics text format (which Prometheus reads), no key. The
//!   service's other figures ([`StatsSource`]: pool, queues, events, key
//!   memory) are read on the blocking pool when it is scraped.

use std::cell::OnceCell;
use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{
    forward_ready, ResourceMap, Service, ServiceFactory, ServiceRequest, ServiceResponse, Transform,
};
use actix_web::http::{Method, Uri};
use actix_web::{web, App, Error, HttpResponse};
use futures_util::future::Either;
use prometheus_client::encoding::text::{encode_eof, encode_registry};
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use equip_domain::ports::StatsSource;
use equip_domain::service_stats::ServiceStats;

/// The content type of the exposition.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The route label of a request no route matched.
pub const UNMATCHED: &str = "unmatched";

/// Upper bounds of the latency histogram's buckets, in seconds.
const LATENCY_BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// The request method as a label: the standard methods, anything else
/// `OTHER`.
#[allow(clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
enum MethodLabel {
    GET,
    HEAD,
    POST,
    PUT,
    PATCH,
    DELETE,
    OPTIONS,
    OTHER,
}

impl MethodLabel {
    fn of(method: &Method) -> Self {
        match *method {
            Method::GET => Self::GET,
            Method::HEAD => Self::HEAD,
            Method::POST => Self::POST,
            Method::PUT => Self::PUT,
            Method::PATCH => Self::PATCH,
            Method::DELETE => Self::DELETE,
            Method::OPTIONS => Self::OPTIONS,
            _ => Self::OTHER,
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: MethodLabel,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BuildLabels {
    version: String,
    commit: String,
}

type LatencyFamily = Family<RouteLabels, Histogram, fn() -> Histogram>;

/// The request figures of the web layer and their registry. Shared by every
/// worker (`Arc`); counting takes a read lock and an atomic add.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: LatencyFamily,
    scim_count_over_cap: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// [`Self::new`], with `equip_build_info{version, commit} 1`: which build
    /// answers (a gauge, as Prometheus's own `*_build_info` are, so that
    /// `* on (instance) group_left (version, commit)` joins it to others).
    #[must_use]
    pub fn for_build(version: &str, commit: &str) -> Self {
        let mut metrics = Self::new();
        let info = Family::<BuildLabels, Gauge>::default();
        info.get_or_create(&BuildLabels {
            version: version.to_owned(),
            commit: commit.to_owned(),
        })
        .set(1);
        metrics.registry.register(
            "equip_build_info",
            "The build of this process: its version and the commit it was built from (always 1)",
            info,
        );
        metrics
    }

    /// An empty registry of the request metrics.
    #[must_use]
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "equip_http_requests",
            "HTTP requests answered, by route template, method and status",
            requests.clone(),
        );
        let latency = LatencyFamily::new_with_constructor(|| Histogram::new(LATENCY_BUCKETS));
        registry.register_with_unit(
            "equip_http_request_duration",
            "Time from a request's arrival to its response's head, by route template",
            Unit::Seconds,
            latency.clone(),
        );
        let scim_count_over_cap = Counter::default();
        registry.register(
            "equip_scim_count_over_cap",
            "SCIM lists and searches whose count asked for more than the page cap \
             (--scim-max-results) and were served at the cap",
            scim_count_over_cap.clone(),
        );
        Self {
            registry,
            requests,
            latency,
            scim_count_over_cap,
        }
    }

    /// Counts a SCIM list served at the page cap because its `count` asked
    /// for more (`crate::page_cap`).
    pub fn count_scim_count_over_cap(&self) {
        self.scim_count_over_cap.inc();
    }

    /// Counts one request.
    fn observe(&self, route: String, method: &Method, status: u16, seconds: f64) {
        let labels = RequestLabels {
            route,
            method: MethodLabel::of(method),
            status,
        };
        self.requests.get_or_create(&labels).inc();
        let route = RouteLabels {
            route: labels.route,
        };
        self.latency.get_or_create(&route).observe(seconds);
    }

    /// The exposition: these metrics, then `stats`, then the end marker.
    ///
    /// # Errors
    /// Only a formatting failure (never for a `String`).
    pub fn encode(&self, stats: &ServiceStats) -> Result<String, std::fmt::Error> {
        let mut out = String::with_capacity(8 * 1024);
        encode_registry(&mut out, &self.registry)?;
        encode_registry(&mut out, &stats_registry(stats))?;
        encode_eof(&mut out)?;
        Ok(out)
    }
}

/// The figures of one scrape as constant metrics.
fn stats_registry(stats: &ServiceStats) -> Registry {
    let now = chrono::Utc::now();
    let mut r = Registry::default();
    let pool = &stats.pool;
    r.register(
        "equip_db_pool_max_connections",
        "Most connections the request pool opens",
        ConstGauge::new(i64::from(pool.max)),
    );
    r.register(
        "equip_db_pool_connections_in_use",
        "Connections of the request pool checked out now",
        ConstGauge::new(i64::from(pool.in_use)),
    );
    r.register(
        "equip_db_pool_connections_idle",
        "Open connections of the request pool nobody holds",
        ConstGauge::new(i64::from(pool.idle)),
    );
    r.register(
        "equip_db_pool_waits",
        "Checkouts from the request pool that waited longer than 1 ms",
        ConstCounter::new(pool.waits),
    );
    r.register_with_unit(
        "equip_db_pool_wait",
        "Time spent checking connections out of the request pool",
        Unit::Seconds,
        ConstCounter::new(pool.wait_seconds),
    );
    r.register(
        "equip_db_pool_timeouts",
        "Checkouts from the request pool that got no connection within the timeout",
        ConstCounter::new(pool.timeouts),
    );
    r.register(
        "equip_events_written",
        "Events written by this process",
        ConstCounter::new(stats.events_written),
    );
    r.register(
        "equip_api_key_cache_hits",
        "API keys answered from memory (PostgreSQL)",
        ConstCounter::new(stats.api_key_cache.hits),
    );
    r.register(
        "equip_api_key_cache_misses",
        "API key lookups that went to the database",
        ConstCounter::new(stats.api_key_cache.misses),
    );
    let listing = &stats.listing_index;
    r.register(
        "equip_listing_index_organizations",
        "Organizations whose inventory listing is held in memory",
        ConstGauge::new(listing.organizations),
    );
    r.register(
        "equip_listing_index_items",
        "Items held by the listing indexes",
        ConstGauge::new(listing.items),
    );
    r.register(
        "equip_listing_index_orders",
        "Sort orders the listing indexes have built",
        ConstGauge::new(listing.orders),
    );
    r.register_with_unit(
        "equip_listing_index",
        "Heap memory of the listing indexes (rows, texts, orders; by capacity)",
        Unit::Bytes,
        ConstGauge::new(listing.bytes),
    );
    if let Some(p) = &stats.process {
        register_process(&mut r, p);
    }
    r.register(
        "equip_queue_stats_up",
        "1 when this scrape read the outbox and webhook queues from the database, else 0",
        ConstGauge::new(i64::from(
            stats.outbox.is_some() && stats.webhooks.is_some(),
        )),
    );
    if let Some(outbox) = &stats.outbox {
        r.register(
            "equip_mail_outbox_pending",
            "Emails waiting in the outbox (retries included)",
            ConstGauge::new(outbox.pending),
        );
        r.register(
            "equip_mail_outbox_dead",
            "Emails given up on",
            ConstGauge::new(outbox.dead),
        );
        r.register_with_unit(
            "equip_mail_outbox_oldest_pending_age",
            "Age of the oldest pending email (0 when none)",
            Unit::Seconds,
            ConstGauge::new(seconds(outbox.oldest_pending_age(now))),
        );
    }
    if let Some(webhooks) = &stats.webhooks {
        r.register(
            "equip_webhooks_behind",
            "Active webhooks with events after their position",
            ConstGauge::new(webhooks.behind),
        );
        r.register_with_unit(
            "equip_webhooks_oldest_undelivered_age",
            "Age of the oldest event an active webhook has yet to deliver (0 when none)",
            Unit::Seconds,
            ConstGauge::new(seconds(webhooks.oldest_undelivered_age(now))),
        );
    }
    r
}

/// The process's figures under the names Prometheus's client libraries give
/// them (`process_*`), and the two parts of its resident memory.
fn register_process(r: &mut Registry, p: &equip_domain::service_stats::ProcessStats) {
    r.register_with_unit(
        "process_cpu",
        "Total user and system CPU time spent",
        Unit::Seconds,
        ConstCounter::new(p.cpu_seconds),
    );
    r.register_with_unit(
        "process_resident_memory",
        "Resident memory size",
        Unit::Bytes,
        ConstGauge::new(p.resident_bytes),
    );
    r.register_with_unit(
        "process_virtual_memory",
        "Virtual memory size",
        Unit::Bytes,
        ConstGauge::new(p.virtual_bytes),
    );
    r.register(
        "process_open_fds",
        "Open file descriptors",
        ConstGauge::new(p.open_fds),
    );
    if let Some(max) = p.max_fds {
        r.register(
            "process_max_fds",
            "Most open file descriptors (the soft limit)",
            ConstGauge::new(max),
        );
    }
    r.register(
        "process_threads",
        "Threads of the process",
        ConstGauge::new(p.threads),
    );
    r.register_with_unit(
        "process_start_time",
        "Start time of the process since the Unix epoch",
        Unit::Seconds,
        ConstGauge::new(p.start_time_seconds),
    );
    r.register_with_unit(
        "equip_process_resident_anonymous_memory",
        "The anonymous part of the resident memory (what the process allocated: RssAnon)",
        Unit::Bytes,
        ConstGauge::new(p.resident_anonymous_bytes),
    );
    r.register_with_unit(
        "equip_process_resident_file_memory",
        "The file-backed part of the resident memory (mapped files such as SQLite's database, \
         the kernel's page cache: RssFile)",
        Unit::Bytes,
        ConstGauge::new(p.resident_file_bytes),
    );
}

#[allow(clippy::cast_precision_loss)]
fn seconds(d: chrono::Duration) -> f64 {
    d.num_milliseconds() as f64 / 1000.0
}

/// Middleware factory counting every request into [`Metrics`] (nothing when
/// `None`).
#[derive(Clone)]
pub struct RequestMetrics(pub Option<Arc<Metrics>>);

impl<S, B> Transform<S, ServiceRequest> for RequestMetrics
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Transform = RequestMetricsService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RequestMetricsService {
            service,
            metrics: self.0.clone(),
            routes: OnceCell::new(),
        }))
    }
}

/// The middleware.
pub struct RequestMetricsService<S> {
    service: S,
    metrics: Option<Arc<Metrics>>,
    /// The application's routes, kept on the first request: the template of
    /// a request that ended in an error (no response to ask) is found in it.
    routes: OnceCell<Rc<ResourceMap>>,
}

type Counted<B> = Pin<Box<dyn Future<Output = Result<ServiceResponse<B>, Error>>>>;

impl<S, B> Service<ServiceRequest> for RequestMetricsService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Future = Either<S::Future, Counted<B>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let Some(metrics) = &self.metrics else {
            return Either::Left(self.service.call(req));
        };
        let metrics = Arc::clone(metrics);
        let started = Instant::now();
        let method = req.method().clone();
        // Shares the request's bytes: no copy.
        let uri: Uri = req.uri().clone();
        let routes = Rc::clone(
            self.routes
                .get_or_init(|| Rc::new(req.resource_map().clone())),
        );
        let fut = self.service.call(req);
        Either::Right(Box::pin(async move {
            let res = fut.await;
            let seconds = started.elapsed().as_secs_f64();
            let (route, status) = match &res {
                Ok(r) => (r.request().match_pattern(), r.status().as_u16()),
                Err(e) => (
                    routes.match_pattern(uri.path()),
                    e.as_response_error().status_code().as_u16(),
                ),
            };
            let route = route.unwrap_or_else(|| UNMATCHED.to_owned());
            metrics.observe(route, &method, status, seconds);
            res
        }))
    }
}

/// The metrics listener's application: `GET /metrics` (no key), 404
/// otherwise.
pub fn metrics_app(
    metrics: Arc<Metrics>,
    source: Arc<dyn StatsSource>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(web::Data::new(Scrape { metrics, source }))
        .route("/metrics", web::get().to(scrape))
}

struct Scrape {
    metrics: Arc<Metrics>,
    source: Arc<dyn StatsSource>,
}

async fn scrape(scrape: web::Data<Scrape>) -> HttpResponse {
    let source = Arc::clone(&scrape.source);
    // The queues are read from the database: on the blocking pool.
    let stats = match web::block(move || source.service_stats(chrono::Utc::now())).await {
        Ok(stats) => stats,
        Err(e) => {
            tracing::warn!("metrics: could not read the service's figures: {e}");
            return HttpResponse::ServiceUnavailable().finish();
        }
    };
    match scrape.metrics.encode(&stats) {
        Ok(body) => HttpResponse::Ok().content_type(CONTENT_TYPE).body(body),
        Err(e) => {
            tracing::warn!("metrics: could not encode: {e}");
            HttpResponse::InternalServerError().finish()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_route_method_and_status_and_ends_with_eof() {
        let metrics = Metrics::new();
        metrics.observe("/api/v1/inventory".into(), &Method::GET, 200, 0.002);
        metrics.observe("/api/v1/inventory".into(), &Method::GET, 200, 0.003);
        metrics.observe(
            UNMATCHED.into(),
            &Method::from_bytes(b"BREW").unwrap(),
            404,
            0.0,
        );
        let text = metrics.encode(&ServiceStats::default()).unwrap();
        assert!(text.contains(
            "equip_http_requests_total{route=\"/api/v1/inventory\",method=\"GET\",status=\"200\"} 2"
        ));
        assert!(text.contains(
            "equip_http_requests_total{route=\"unmatched\",method=\"OTHER\",status=\"404\"} 1"
        ));
        assert!(text.contains(
            "equip_http_request_duration_seconds_bucket{le=\"0.0025\",route=\"/api/v1/inventory\"} 1"
        ));
        assert!(text.contains("equip_queue_stats_up 0"));
        assert!(!text.contains("equip_mail_outbox_pending"));
        assert!(text.ends_with("# EOF\n"));
    }
}
