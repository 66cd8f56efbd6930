//! `equip serve`: migrate, then serve the API, with the background workers
//! (`crate::workers`: the email outbox and webhook deliveries, planner
//! statistics, event retention) beside it.

use std::sync::Arc;
use std::time::Duration;

use actix_web::HttpServer;
use anyhow::Context;
use equip_delivery::webhooks::{HttpTransport, WebhookDispatcher, WebhookOptions};
use equip_domain::ports::OrganizationRepository;

use equip_http::Limits;
use equip_persistence::{Backend, PoolOptions, Store};

use super::{connect_writable, DatabaseConfig};
use crate::cli::ServeArgs;

/// Time a client has to send a request's head after connecting (or after its
/// previous request on a kept-alive connection); then 408.
const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// Time a closing connection has to shut down cleanly.
const CLIENT_DISCONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long an idle kept-alive connection stays open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Default cap of [`blocking_threads`].
const MAX_DEFAULT_BLOCKING_THREADS: usize = 4;

/// Blocking threads per actix worker: `--blocking-threads`, or the pool's
/// connections shared among the workers (from 2 to 4). More threads than
/// pooled connections only queue on the pool, each idle thread keeps a malloc
/// arena, and every request handed to a sleeping thread costs a wake-up, so
/// fewer threads make each request cheaper in CPU (docs/performance.md,
/// "Blocking threads per worker"). 2 would be cheaper still, but would
/// leave a worker one free thread beside a long CSV upload.
///
/// At most [`MAX_DEFAULT_BLOCKING_THREADS`] by default: on PostgreSQL (pool of
/// 16, so 8 per worker) requests that each run a statement would queue in the
/// database's CPU, and every answer would wait for that queue; with at most 4
/// per worker the tail latency of one-statement requests stays low at the same
/// throughput (docs/performance.md, "Blocking threads per worker").
fn blocking_threads(store: &equip_persistence::Store, args: &ServeArgs) -> usize {
    if let Some(n) = args.blocking_threads {
        return n as usize;
    }
    let pool = match store.backend() {
        equip_persistence::Backend::Sqlite => args
            .db_pool_size
            .min(equip_persistence::SQLITE_MAX_POOL_SIZE),
        equip_persistence::Backend::Postgres => args.db_pool_size,
    } as usize;
    // actix's default number of workers.
    let workers = args.workers.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
    });
    default_blocking_threads(pool, workers)
}

/// The pool's `pool` connections shared among `workers`, from 2 to
/// [`MAX_DEFAULT_BLOCKING_THREADS`].
fn default_blocking_threads(pool: usize, workers: usize) -> usize {
    pool.div_ceil(workers.max(1))
        .clamp(2, MAX_DEFAULT_BLOCKING_THREADS)
}

/// Each organization's share of the store calls (`equip_http::shares`):
/// `--max-store-calls-per-organization` (default half the request pool's
/// connections, on SQLite at most the machine's CPUs) in the process, and half a worker's blocking threads on one
/// worker, each call waiting at most `--max-queue-wait-ms` for its place.
fn shares(store: &Store, args: &ServeArgs) -> equip_http::Shares {
    let per_organization = match args.max_store_calls_per_organization {
        Some(0) => return equip_http::Shares::off(),
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => {
            // SQLite reads run on this process's CPUs.
            let cpus = match store.backend() {
                Backend::Sqlite => Some(
                    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
                ),
                Backend::Postgres => None,
            };
            equip_http::shares::default_per_organization(store.pool_stats().max, cpus)
        }
    };
    let per_worker =
        equip_http::shares::per_worker(blocking_threads(store, args), per_organization);
    equip_http::Shares::new(
        per_organization,
        per_worker,
        Duration::from_millis(args.max_queue_wait_ms),
    )
}

/// Connections of the pool kept for background work (the outbox dispatcher
/// the statistics keeper, the event pruner and the hold release), apart from
/// the request pool; one more when the metrics are served (a scrape reads the
/// queues through it).
const BACKGROUND_CONNECTIONS: u32 = 4;

/// Opens and migrates the database and checks that it can be written (a
/// server that answers every write with 503 is of no use: refused with a
/// message saying why), then runs the HTTP server until it is
/// stopped (Ctrl-C or SIGTERM: actix shuts down gracefully).
///
/// The listen addresses are bound first ([`crate::listen`]): a malformed
/// `--bind` or a port in use is refused before the database is touched.
///
/// # Errors
/// When the address cannot be bound or the database cannot be opened.
pub fn run(db: &DatabaseConfig, args: &ServeArgs) -> anyhow::Result<()> {
    tracing::info!(
        "equip {} (commit {}) starting",
        crate::cli::VERSION,
        crate::cli::COMMIT
    );
    let public_url = match &args.public_url {
        Some(url) => equip_http::PublicUrl::configured(url).context("--public-url")?,
        None => equip_http::PublicUrl::from_host(),
    }
    .trusting_forwarded_headers(args.trust_forwarded_headers);
    // The listen addresses first: `--bind 8080` or a port in use is said
    // before the database is opened, created or migrated.
    let listeners = crate::listen::bind("--bind", &args.bind)?;
    let metrics_listeners = match &args.metrics_bind {
        Some(bind) => Some((bind.clone(), crate::listen::bind("--metrics-bind", bind)?)),
        None => None,
    };
    let (store, _applied) = connect_writable(
        db,
        PoolOptions {
            max_size: args.db_pool_size,
            connection_timeout: Duration::from_secs(args.db_pool_timeout),
            statement_timeout: (args.statement_timeout_ms > 0)
                .then(|| Duration::from_millis(args.statement_timeout_ms)),
            sqlite_memory: sqlite_memory(args),
            ..PoolOptions::default()
        },
    )?;
    // PostgreSQL: API keys answered from memory while the database's change
    // notifications say they are current.
    store
        .watch_changes()
        .context("cannot start listening for database changes")?;
    let store = Arc::new(store.with_listing_index(!args.no_listing_index));
    // Large organizations' listings are read into memory in the background
    // (docs/performance.md, "Inventory listing").
    store.warm_listing_indexes();
    // Background work (the outbox dispatcher, the statistics keeper) has
    // connections of its own: requests that fill the request pool cannot
    // starve it (docs/reliability.md, "Overload").
    let (background, _) = super::connect_only(
        db,
        PoolOptions {
            max_size: BACKGROUND_CONNECTIONS + u32::from(args.metrics_bind.is_some()),
            connection_timeout: Duration::from_secs(args.db_pool_timeout),
            min_idle: 1,
            statement_timeout: None,
            sqlite_memory: sqlite_memory(args),
        },
    )?;
    let background = Arc::new(background);
    if store
        .count_organizations()
        .context("cannot read organizations")?
        == 0
    {
        crate::logs::announce(
            "no organization yet: run `equip demo` or `equip org create --name …` and `equip key create --org …`",
        );
    }
    // The background workers (outbox and webhook dispatchers, planner
    // statistics, event retention), started and stopped together.
    let background_workers = crate::workers::Workers::start(
        &background,
        crate::workers::Plan {
            mail: (!args.no_dispatcher)
                .then(|| super::dispatch::dispatcher(background.clone(), &args.mail))
                .transpose()?,
            webhooks: webhook_dispatcher(db, args)?,
            event_retention_days: args.event_retention_days,
            session_limits: args.sessions.limits()?,
            hold_release: (!args.no_hold_release)
                .then(|| Duration::from_secs(args.hold_release_interval)),
        },
    )?;
    // Metrics (`--metrics-bind`): requests counted by the app, the stores'
    // figures read when scraped.
    let metrics = metrics_listeners.map(|(bind, listeners)| {
        let source: Arc<dyn equip_domain::ports::StatsSource> =
            Arc::new(crate::metrics::StoreStats {
                requests: Arc::clone(&store),
                background: Arc::clone(&background),
            });
        (
            bind,
            listeners,
            Arc::new(equip_http::metrics::Metrics::for_build(
                crate::cli::VERSION,
                crate::cli::COMMIT,
            )),
            source,
        )
    });
    let mut state = equip_http::AppState::with_write_sessions(Arc::clone(&store))
        .with_webhook_addresses(webhook_addresses(args))
        .with_limits(Limits {
            request_timeout: Duration::from_secs(args.request_timeout),
            upload_timeout: Duration::from_secs(args.upload_timeout),
            ..Limits::default()
        })
        .with_public_url(public_url)
        .with_max_queue_wait(Duration::from_millis(args.max_queue_wait_ms))
        .with_rate_limit(equip_http::RateLimit::per_second(args.rate_limit))
        .with_scim_max_results(args.scim_max_results)
        .with_shares(shares(&store, args));
    if let Some((_, _, registry, _)) = &metrics {
        state = state.with_metrics(Arc::clone(registry));
    }
    if !args.no_sso {
        let relying_party = equip_oidc::RelyingParty::new()?;
        state = state.with_sso(equip_http::sso::SsoSupport::new(
            relying_party,
            args.sessions.limits()?,
        ));
    }
    let shutdown_timeout = args.shutdown_timeout;
    let bind = args.bind.clone();
    let workers = args.workers;
    let console = !args.no_console;
    let blocking_threads = blocking_threads(&store, args);
    let served = actix_web::rt::System::new().block_on(async move {
        // Store calls run on each worker's blocking pool (see
        // `blocking_threads`).
        // SIGTERM / Ctrl-C: stop accepting, let requests in flight finish
        // (up to `shutdown_timeout`), then stop.
        let server = HttpServer::new(move || {
            equip_http::app_with(state.clone(), move |cfg| {
                if console {
                    equip_console::configure(cfg);
                }
            })
        })
        // Each connection's socket, to see whether a client has gone
        // before its store work starts (equip_http::client).
        .on_connect(equip_http::client::on_connect)
        .worker_max_blocking_threads(blocking_threads)
        .shutdown_timeout(shutdown_timeout)
        .client_request_timeout(CLIENT_REQUEST_TIMEOUT)
        .client_disconnect_timeout(CLIENT_DISCONNECT_TIMEOUT)
        .keep_alive(KEEP_ALIVE);
        let server = match workers {
            Some(n) => server.workers(n.max(1)),
            None => server,
        };
        let mut server = server;
        for listener in listeners {
            server = server
                .listen(listener)
                .with_context(|| format!("cannot listen on {bind}"))?;
        }
        // The metrics listener: a server of its own (one worker, no
        // signals: it stops when the API server has stopped).
        let metrics_server = match metrics {
            Some((bind, listeners, registry, source)) => {
                let mut server = HttpServer::new(move || {
                    equip_http::metrics::metrics_app(Arc::clone(&registry), Arc::clone(&source))
                })
                .workers(1)
                .worker_max_blocking_threads(2)
                .disable_signals()
                .shutdown_timeout(1)
                .client_request_timeout(CLIENT_REQUEST_TIMEOUT)
                .keep_alive(KEEP_ALIVE);
                for listener in listeners {
                    server = server
                        .listen(listener)
                        .with_context(|| format!("cannot listen on {bind} (--metrics-bind)"))?;
                }
                for addr in server.addrs() {
                    crate::logs::announce(&format!("equip metrics on http://{addr}"));
                }
                Some(server.run())
            }
            None => None,
        };
        for addr in server.addrs() {
            crate::logs::announce(&format!("equip listening on http://{addr}"));
        }
        if console {
            for addr in server.addrs() {
                crate::logs::announce(&format!(
                    "equip console on http://{addr}{}",
                    equip_console::PREFIX
                ));
            }
        }
        let metrics_handle = metrics_server.map(|running| {
            let handle = running.handle();
            actix_web::rt::spawn(running);
            handle
        });
        let served = server.run().await.context("the HTTP server failed");
        if let Some(handle) = metrics_handle {
            handle.stop(false).await;
        }
        served
    });
    // Webhook deliveries record the delivery they are making and release
    // their webhooks; the outbox dispatcher finishes the message it sends.
    background_workers.stop();
    served
}

fn webhook_addresses(args: &ServeArgs) -> equip_domain::webhook::AddressPolicy {
    equip_domain::webhook::AddressPolicy {
        allow_private: args.webhooks.allow_private_webhooks,
    }
}

/// The webhook dispatcher (unless `--no-webhooks`) over a pool of its own:
/// one connection per worker and one for the coordinator.
fn webhook_dispatcher(
    db: &DatabaseConfig,
    args: &ServeArgs,
) -> anyhow::Result<Option<WebhookDispatcher>> {
    let w = &args.webhooks;
    if w.no_webhooks {
        return Ok(None);
    }
    let workers = w.webhook_workers as usize;
    let (pool, _) = super::connect_only(
        db,
        PoolOptions {
            max_size: u32::try_from(workers + 1).unwrap_or(8),
            connection_timeout: Duration::from_secs(args.db_pool_timeout),
            min_idle: 1,
            statement_timeout: None,
            sqlite_memory: sqlite_memory(args),
        },
    )?;
    let timeout = Duration::from_millis(w.webhook_timeout_ms);
    let transport = HttpTransport::new(timeout, webhook_addresses(args))
        .context("cannot set up the webhook HTTP client")?;
    let options = WebhookOptions {
        workers,
        timeout,
        retry: equip_domain::webhook::RetryPolicy {
            base: Duration::from_millis(w.webhook_retry_base_ms),
            ..equip_domain::webhook::RetryPolicy::default()
        },
        retention_days: args.event_retention_days,
        lease: Duration::from_millis(w.webhook_lease_ms),
        ..WebhookOptions::default()
    };
    Ok(Some(WebhookDispatcher::new(
        Arc::new(pool),
        Arc::new(transport),
        options,
    )))
}

/// The SQLite connections' mapping and page cache `serve` was given.
fn sqlite_memory(args: &ServeArgs) -> equip_persistence::SqliteMemory {
    equip_persistence::SqliteMemory {
        mmap_mib: args.sqlite_mmap_mib,
        cache_mib: args.sqlite_cache_mib,
    }
}

#[cfg(test)]
mod tests {
    use super::default_blocking_threads;

    #[test]
    fn blocking_threads_share_the_pool_between_two_and_four_per_worker() {
        // PostgreSQL's default pool of 16 on 2 workers: capped at 4.
        assert_eq!(default_blocking_threads(16, 2), 4);
        // SQLite's pool of 8 on 2 workers: its share.
        assert_eq!(default_blocking_threads(8, 2), 4);
        assert_eq!(default_blocking_threads(6, 2), 3);
        // Never fewer than 2, whatever the pool or the workers.
        assert_eq!(default_blocking_threads(2, 2), 2);
        assert_eq!(default_blocking_threads(1, 8), 2);
        assert_eq!(default_blocking_threads(16, 0), 4);
    }
}
