//! The command line (README, "The CLI"). Every command takes `--database-url`
//! (env `DATABASE_URL`, default `./equip.db`). Commands that create something
//! print its id (for a key: the key) alone on standard output; everything meant
//! for a person goes to standard error.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use equip_domain::api_key::Scope;

/// Default location of the embedded SQLite database.
pub const DEFAULT_DATABASE_URL: &str = "./equip.db";
/// Default listen address of `equip serve`.
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
/// Default seed of `equip demo`.
pub const DEFAULT_SEED: u64 = 20_261_121;
/// Default number of inventory items `equip demo` creates.
pub const DEFAULT_DEMO_ITEMS: usize = 400;

/// `equip serve --statement-timeout-ms` by default: five seconds.
pub const DEFAULT_STATEMENT_TIMEOUT_MS: u64 = 5000;

/// The version of this build: the package's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The commit this binary was built from (`build.rs`: `EQUIP_COMMIT` if the
/// build set it, else the checkout's `HEAD`, else `unknown`).
pub const COMMIT: &str = env!("EQUIP_COMMIT");
/// What `equip --version` prints after the name.
const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("EQUIP_COMMIT"),
    ")"
);

/// equip: equipment inventory and people provisioning service.
#[derive(Debug, Parser)]
#[command(name = "equip", version = VERSION_LINE, propagate_version = true)]
pub struct Cli {
    /// Database: a SQLite path (or sqlite://path) or a postgres:// URL.
    #[arg(
        long,
        global = true,
        env = "DATABASE_URL",
        default_value = DEFAULT_DATABASE_URL,
        hide_env_values = true
    )]
    pub database_url: String,

    /// Log lines as text (the default) or as one JSON object per line for a
    /// log collector (`time`, `level`, `target`, `message`, and a request's
    /// `request_id`, `method`, `route`, `status`, `latency_ms`, `org_id`,
    /// `key_id`); with JSON, everything a command writes on standard error
    /// is a JSON line. Filtered by `RUST_LOG` (default `info`).
    #[arg(long, global = true, env = "EQUIP_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP service (runs pending migrations first).
    Serve(Box<ServeArgs>),
    /// Run pending database migrations and list them.
    Migrate,
    /// Manage organizations.
    #[command(subcommand)]
    Org(OrgCommand),
    /// Manage API keys.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Grant or revoke an organization's access to a shared (operator)
    /// warehouse.
    #[command(subcommand)]
    Warehouse(WarehouseCommand),
    /// The inventory listing's read model (docs/operations.md, "The listing
    /// follows equip's writes").
    #[command(subcommand)]
    Index(IndexCommand),
    /// Import an organization's data from a JSON document (see docs/import.md).
    Import(ImportArgs),
    /// Create a demo organization with realistic data; prints its API key.
    Demo(DemoArgs),
    /// Deliver the email outbox (`--once`: what is due now, then exit).
    Dispatch(DispatchArgs),
    /// Print the OpenAPI 3.1 document of the JSON API (as served at
    /// `GET /openapi.json` and kept in docs/openapi.json); needs no database.
    Openapi,
    /// Ask a running `equip serve` whether it is ready (`GET /readyz`); exit
    /// 0 only when it answers 200 (a container's HEALTHCHECK); needs no
    /// database.
    Healthcheck(HealthcheckArgs),
}

/// `equip healthcheck`.
#[derive(Debug, Args)]
pub struct HealthcheckArgs {
    /// The address `equip serve` listens on (its `--bind`; an unspecified
    /// host such as 0.0.0.0 is asked on loopback).
    #[arg(long, env = "EQUIP_BIND", default_value = DEFAULT_BIND)]
    pub bind: String,
}

/// How log lines are written (`--log-format`, any command).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// `time LEVEL span{fields}: target: message fields`
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// `equip serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "EQUIP_BIND", default_value = DEFAULT_BIND)]
    pub bind: String,
    /// Address of a second listener serving Prometheus metrics at
    /// `GET /metrics` (no key: bind it where only the scraper reaches it;
    /// docs/operations.md, "Metrics"). Off unless given.
    #[arg(long, env = "EQUIP_METRICS_BIND")]
    pub metrics_bind: Option<String>,
    /// Number of HTTP worker threads (default: one per CPU core).
    #[arg(long, env = "EQUIP_WORKERS")]
    pub workers: Option<usize>,
    /// Threads per HTTP worker that run store calls (default: the pool's
    /// connections divided among the workers, from 2 to 4; more would only
    /// queue for a connection or for the database's CPU, and each sleeping
    /// thread costs a wake-up per request).
    #[arg(long, env = "EQUIP_BLOCKING_THREADS", value_parser = clap::value_parser!(u32).range(1..))]
    pub blocking_threads: Option<u32>,
    /// Past capacity: when the last store call to start had waited longer
    /// than this many milliseconds for a thread, and others still wait, new
    /// requests are answered 503 with `Retry-After` at once instead of
    /// queueing (0: never; docs/reliability.md, "Overload").
    #[arg(long, env = "EQUIP_MAX_QUEUE_WAIT_MS", default_value_t = equip_http::blocking::DEFAULT_MAX_QUEUE_WAIT_MS)]
    pub max_queue_wait_ms: u64,
    /// Requests a second each API key may make, with bursts of twice that;
    /// past it, 429 with `Retry-After`. Counted per process (0: no limit;
    /// docs/api.md, "Rate limits").
    #[arg(long, env = "EQUIP_RATE_LIMIT", default_value_t = equip_http::rate_limit::DEFAULT_PER_SECOND)]
    pub rate_limit: u32,
    /// Most store calls one organization's requests may have running or
    /// waiting for a thread at once, so that one organization cannot take
    /// the whole pool (default: half the pool's connections, at least 1, on
    /// SQLite at most the machine's CPUs; 0: no limit). A call that waits longer than --max-queue-wait-ms for its
    /// organization's place is answered 429 with `Retry-After`
    /// (docs/reliability.md, "Fairness between organizations").
    #[arg(long, env = "EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION")]
    pub max_store_calls_per_organization: Option<u32>,
    /// PostgreSQL: the longest one statement of a request may run, in
    /// milliseconds (`statement_timeout`); past it the statement is
    /// cancelled and the request answered 503 (0: no limit; SQLite: not
    /// applied, see docs/reliability.md, "Fairness between organizations").
    #[arg(long, env = "EQUIP_STATEMENT_TIMEOUT_MS", default_value_t = DEFAULT_STATEMENT_TIMEOUT_MS)]
    pub statement_timeout_ms: u64,
    /// Do not keep organizations' inventory listings in memory: every
    /// listing page is then chosen by SQL (slower for searches and filtered
    /// pages; docs/performance.md, "Inventory listing"). The index costs
    /// about 130 bytes of memory per item.
    #[arg(long, env = "EQUIP_NO_LISTING_INDEX")]
    pub no_listing_index: bool,
    /// SQLite: MiB of the database file each connection reads through a
    /// memory mapping (shared page cache, counted as the process's mapped
    /// file, not its own memory; 0: none; at most 2047, SQLite's own limit;
    /// docs/operations.md, "Memory").
    #[arg(long, env = "EQUIP_SQLITE_MMAP_MIB", default_value_t = equip_persistence::SqliteMemory::default().mmap_mib, value_parser = clap::value_parser!(u32).range(0..=2047))]
    pub sqlite_mmap_mib: u32,
    /// SQLite: MiB of each connection's own page cache (the process's
    /// memory; docs/operations.md, "Memory").
    #[arg(long, env = "EQUIP_SQLITE_CACHE_MIB", default_value_t = equip_persistence::SqliteMemory::default().cache_mib, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub sqlite_cache_mib: u32,
    /// Do not run the outbox dispatcher in this process (run `equip dispatch`
    /// elsewhere).
    #[arg(long, env = "EQUIP_NO_DISPATCHER")]
    pub no_dispatcher: bool,
    /// Do not serve the web console at `/console/` (docs/console.md); the API
    /// is unchanged.
    #[arg(long, env = "EQUIP_NO_CONSOLE")]
    pub no_console: bool,
    /// Days events are kept; older ones are deleted in the background
    /// (docs/events.md, "Retention").
    #[arg(long, env = "EQUIP_EVENT_RETENTION_DAYS", default_value_t = 90, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub event_retention_days: u32,
    /// Seconds between two passes of the hold release (docs/returns.md,
    /// "Holds"): each pass releases every hold whose unlockDate has come.
    #[arg(long, env = "EQUIP_HOLD_RELEASE_INTERVAL", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub hold_release_interval: u64,
    /// Do not release due holds from this process (another instance does).
    #[arg(long, env = "EQUIP_NO_HOLD_RELEASE")]
    pub no_hold_release: bool,
    /// Seconds a request may take before it is answered 503 (docs/reliability.md, "Limits").
    #[arg(long, env = "EQUIP_REQUEST_TIMEOUT", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout: u64,
    /// Seconds a Bulk request, CSV upload or warehouse receipt may run: no
    /// entry starts after it, and the answer is 503 with every entry's result.
    #[arg(long, env = "EQUIP_UPLOAD_TIMEOUT", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub upload_timeout: u64,
    /// Seconds a request waits for a free database connection before it is
    /// answered 503.
    #[arg(long, env = "EQUIP_DB_POOL_TIMEOUT", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    pub db_pool_timeout: u64,
    /// Most database connections (SQLite: at most 8).
    #[arg(long, env = "EQUIP_DB_POOL_SIZE", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub db_pool_size: u32,
    /// On SIGTERM or Ctrl-C: seconds to let requests in flight finish before
    /// their connections are closed.
    #[arg(long, env = "EQUIP_SHUTDOWN_TIMEOUT", default_value_t = 30)]
    pub shutdown_timeout: u64,
    /// Largest page of a SCIM list or search of Users and Groups, announced
    /// as `filter.maxResults` in `/scim/v2/ServiceProviderConfig`; a larger
    /// `count` gets this many. Identity providers that step `startIndex` by
    /// the `count` they asked for (Okta asks 100) need at least that
    /// (docs/scim.md).
    #[arg(long, env = "EQUIP_SCIM_MAX_RESULTS", default_value_t = equip_domain::person_query::MAX_PAGE_SIZE, value_parser = clap::value_parser!(u32).range(1..=i64::from(equip_domain::person_query::PAGE_SIZE_LIMIT)))]
    pub scim_max_results: u32,
    /// The base URL of the links equip returns (`Location`, SCIM
    /// `meta.location`), e.g. `https://equip.example.com`. Unset: `http://`
    /// and the request's `Host`.
    #[arg(long, env = "EQUIP_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Take the scheme and host of links from `Forwarded` /
    /// `X-Forwarded-Proto` / `X-Forwarded-Host` (ignored for links when
    /// `--public-url` is set), and the client's address that sign-ins are
    /// limited by from `Forwarded: for` / `X-Forwarded-For`. Only behind a
    /// proxy that sets them and drops a client's own.
    #[arg(long, env = "EQUIP_TRUST_FORWARDED_HEADERS")]
    pub trust_forwarded_headers: bool,
    /// How mail is delivered.
    #[command(flatten)]
    pub mail: MailArgs,
    /// How webhooks are delivered.
    #[command(flatten)]
    pub webhooks: WebhookArgs,
    /// Console sign-in with the organizations' identity providers.
    #[command(flatten)]
    pub sessions: SessionArgs,
    /// Turn off sign-in with identity providers (`/sso`) and session
    /// cookies: only API keys are taken.
    #[arg(long, env = "EQUIP_NO_SSO")]
    pub no_sso: bool,
}

/// How long console sessions live (docs/sso.md): a number and a unit, `s`,
/// `m`, `h` or `d` (as `8h`, `7d`, `90m`). Unset: the domain's
/// `SessionLimits::default()` (8 hours idle, 7 days in all).
#[derive(Debug, Clone, Args)]
pub struct SessionArgs {
    /// A session unused this long ends [default: 8h].
    #[arg(long, env = "EQUIP_SESSION_IDLE_TIMEOUT", value_parser = parse_duration)]
    pub session_idle_timeout: Option<chrono::Duration>,
    /// A session ends this long after its sign-in, used or not [default: 7d].
    #[arg(long, env = "EQUIP_SESSION_MAX_AGE", value_parser = parse_duration)]
    pub session_max_age: Option<chrono::Duration>,
}

impl SessionArgs {
    /// The limits they set, the domain's defaults for those unset.
    ///
    /// # Errors
    /// A limit under a second.
    pub fn limits(&self) -> anyhow::Result<equip_domain::sso::SessionLimits> {
        let defaults = equip_domain::sso::SessionLimits::default();
        Ok(equip_domain::sso::SessionLimits::new(
            self.session_idle_timeout.unwrap_or(defaults.idle),
            self.session_max_age.unwrap_or(defaults.max_age),
        )?)
    }
}

/// `8h`, `7d`, `90m`, `30s`: a whole number and a unit, at most 365 days.
fn parse_duration(raw: &str) -> Result<chrono::Duration, String> {
    let raw = raw.trim();
    let split = raw.find(|c: char| !c.is_ascii_digit()).unwrap_or(raw.len());
    let (number, unit) = raw.split_at(split);
    let n: i64 = number
        .parse()
        .map_err(|_| format!("'{raw}' is not a duration such as 8h, 7d, 90m or 30s"))?;
    let seconds = match unit {
        "s" => n,
        "m" => n.saturating_mul(60),
        "h" => n.saturating_mul(3600),
        "d" => n.saturating_mul(86_400),
        _ => {
            return Err(format!(
                "'{raw}': the unit must be s, m, h or d (as 8h or 7d)"
            ))
        }
    };
    if !(1..=365 * 86_400).contains(&seconds) {
        return Err(format!("'{raw}' must be between 1s and 365d"));
    }
    Ok(chrono::Duration::seconds(seconds))
}

/// Webhook delivery settings of `serve` (docs/webhooks.md).
#[derive(Debug, Clone, Args)]
pub struct WebhookArgs {
    /// Accept webhook URLs whose host is (or resolves to) a private, loopback,
    /// link-local or otherwise reserved address, and deliver to them. Off by
    /// default: such URLs are refused at creation and at delivery. For tests
    /// and closed networks only.
    #[arg(long, env = "EQUIP_ALLOW_PRIVATE_WEBHOOKS")]
    pub allow_private_webhooks: bool,
    /// Do not deliver webhooks from this process (they can still be managed
    /// through the API; another instance delivers them).
    #[arg(long, env = "EQUIP_NO_WEBHOOKS")]
    pub no_webhooks: bool,
    /// Webhooks delivered at once (one thread and connection each).
    #[arg(long, env = "EQUIP_WEBHOOK_WORKERS", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub webhook_workers: u32,
    /// Milliseconds one delivery may take (connection, request and answer)
    /// before it counts as a failed attempt (default 10 s). Meant for tests.
    #[arg(long, env = "EQUIP_WEBHOOK_TIMEOUT_MS", default_value_t = 10_000, hide = true, value_parser = clap::value_parser!(u64).range(100..))]
    pub webhook_timeout_ms: u64,
    /// Milliseconds before the first retry of a failed delivery; each further
    /// retry waits twice as long, up to 5 minutes (default 1 s). Meant for tests.
    #[arg(long, env = "EQUIP_WEBHOOK_RETRY_BASE_MS", default_value_t = 1_000, hide = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub webhook_retry_base_ms: u64,
    /// Milliseconds a dispatcher's claim of a webhook lasts without renewal;
    /// after a crash, another instance resumes its deliveries when it runs
    /// out (default 60 s). Meant for tests.
    #[arg(long, env = "EQUIP_WEBHOOK_LEASE_MS", default_value_t = 60_000, hide = true, value_parser = clap::value_parser!(u64).range(1_000..))]
    pub webhook_lease_ms: u64,
}

/// Default spool directory (used when no SMTP URL is configured).
pub const DEFAULT_SPOOL_DIR: &str = "./spool";

/// Mail delivery settings, shared by `serve` and `dispatch`.
#[derive(Debug, Clone, Args)]
pub struct MailArgs {
    /// SMTP relay: smtp://[user:pass@]host[:port][?tls=required|opportunistic]
    /// or smtps://[user:pass@]host[:port]. When unset, mail goes to the spool
    /// directory.
    #[arg(long, env = "EQUIP_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,
    /// From address of outgoing mail, e.g. "People Team <people@acme.example>".
    #[arg(long, env = "EQUIP_MAIL_FROM", default_value = equip_delivery::mail::DEFAULT_FROM)]
    pub mail_from: String,
    /// Directory of .eml files when no SMTP URL is configured.
    #[arg(long, env = "EQUIP_SPOOL_DIR", default_value = DEFAULT_SPOOL_DIR)]
    pub spool_dir: PathBuf,
    /// Seconds between outbox passes when nothing is due.
    #[arg(long, env = "EQUIP_DISPATCH_INTERVAL", default_value_t = 5)]
    pub dispatch_interval: u64,
    /// SMTP command time-out in seconds.
    #[arg(long, env = "EQUIP_SMTP_TIMEOUT", default_value_t = 20)]
    pub smtp_timeout: u64,
}

/// `equip dispatch`.
#[derive(Debug, Args)]
pub struct DispatchArgs {
    /// Deliver what is due now, print a summary, and exit.
    #[arg(long)]
    pub once: bool,
    /// How mail is delivered.
    #[command(flatten)]
    pub mail: MailArgs,
}

/// `equip org …`.
#[derive(Debug, Subcommand)]
pub enum OrgCommand {
    /// Create an organization; prints its id.
    Create {
        /// Display name.
        #[arg(long)]
        name: String,
    },
    /// List every organization, oldest first: id, created, name.
    List {
        /// One JSON array instead of a table (`id`, `name`, `createdAt`).
        #[arg(long)]
        json: bool,
    },
    /// Console sign-in with the organization's identity provider (OpenID
    /// Connect; docs/sso.md).
    #[command(subcommand)]
    Sso(SsoCommand),
}

/// `equip org sso …`.
#[derive(Debug, Subcommand)]
pub enum SsoCommand {
    /// Set the organization's identity provider (its discovery document is
    /// read now to check the issuer). Role mappings and sessions stay.
    Set {
        /// Organization id.
        #[arg(long)]
        org: String,
        /// The provider's issuer URL (https; http only on this machine), e.g.
        /// https://example.okta.com or
        /// https://login.microsoftonline.com/TENANT/v2.0.
        #[arg(long)]
        issuer: String,
        /// equip's client id at the provider (it may begin with `-`: a
        /// provider's generated ids are random base64url).
        #[arg(long, allow_hyphen_values = true)]
        client_id: String,
        /// A file holding equip's client secret (never given on the command
        /// line, where other users could read it).
        #[arg(long)]
        client_secret_file: PathBuf,
        /// A scope to ask (repeatable or comma-separated; `openid` is always
        /// asked). Default: openid, email, profile, and groups when the
        /// provider lists it.
        #[arg(long = "scope", value_delimiter = ',', value_name = "SCOPE")]
        scopes: Vec<String>,
        /// The claim holding the person's groups (default `groups`).
        #[arg(long)]
        groups_claim: Option<String>,
    },
    /// Show the organization's identity provider (never its secret), the
    /// role mappings, and the paths to register with the provider.
    Show {
        /// Organization id.
        #[arg(long)]
        org: String,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Remove the organization's identity provider and role mappings, and
    /// end every session of the organization.
    Clear {
        /// Organization id.
        #[arg(long)]
        org: String,
    },
    /// Map a provider group to equip scopes (replacing its earlier
    /// mapping), or remove its mapping.
    Role {
        /// Organization id.
        #[arg(long)]
        org: String,
        /// The group as the provider sends it in the groups claim (Okta: its
        /// name; Entra ID: its object id).
        #[arg(long)]
        group: String,
        #[arg(long = "scope", value_delimiter = ',', value_name = "SCOPE", help = scope_help(), required_unless_present_any = ["all_scopes", "remove"])]
        scopes: Vec<String>,
        /// Every scope.
        #[arg(long, conflicts_with_all = ["scopes", "remove"])]
        all_scopes: bool,
        /// Remove the group's mapping (sessions already open keep their
        /// scopes until they end; `sessions --revoke-all` ends them).
        #[arg(long, conflicts_with = "scopes")]
        remove: bool,
    },
    /// List the organization's live sessions, or end them.
    Sessions {
        /// Organization id.
        #[arg(long)]
        org: String,
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// End this session (its id, from the list).
        #[arg(long, value_name = "SESSION_ID")]
        revoke: Option<String>,
        /// End every session of the organization.
        #[arg(long, conflicts_with = "revoke")]
        revoke_all: bool,
        /// How long sessions live, as `serve` has it (which sessions are
        /// live).
        #[command(flatten)]
        limits: SessionArgs,
    },
}

/// `equip warehouse …`.
#[derive(Debug, Subcommand)]
pub enum WarehouseCommand {
    /// Grant an organization access to a shared (operator) warehouse.
    Grant {
        /// The shared warehouse's id.
        #[arg(long)]
        warehouse: String,
        /// Organization id.
        #[arg(long)]
        org: String,
    },
    /// Take an organization's access to a shared warehouse back (refused while
    /// it has inventory levels or items there).
    Revoke {
        /// The shared warehouse's id.
        #[arg(long)]
        warehouse: String,
        /// Organization id.
        #[arg(long)]
        org: String,
    },
}

/// `equip index …`.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Re-read an organization's inventory listing from its items: for rows
    /// changed in the database directly, which the listing follows only at
    /// the item's next write through equip. Running `equip serve` instances
    /// answer from the re-read rows at their next listing request.
    Rebuild {
        /// Organization id.
        #[arg(long)]
        org: String,
    },
}

/// The help of `equip key create --scope`, listing every scope the domain
/// knows (`Scope::ALL`), so it cannot fall behind.
fn scope_help() -> String {
    let names: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
    format!(
        "A scope the key gets (repeatable or comma-separated; default: all). Scopes: {}",
        names.join(", ")
    )
}

/// `equip key …`.
#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Issue an API key; prints the key (shown only this once).
    Create {
        /// Organization id.
        #[arg(long)]
        org: String,
        #[arg(long = "scope", value_delimiter = ',', value_name = "SCOPE", help = scope_help())]
        scopes: Vec<String>,
        /// Issue the key without any scope: it can call only
        /// `GET /api/v1/api-key` (which organization it acts for).
        #[arg(long, conflicts_with = "scopes")]
        no_scopes: bool,
        /// A label for people, e.g. "Okta provisioning".
        #[arg(long)]
        label: Option<String>,
    },
    /// List an organization's keys, revoked ones included, oldest first: id,
    /// prefix, label, scopes, created, revoked. Never the key itself (equip
    /// keeps only its hash).
    List {
        /// Organization id (`equip org list` shows them).
        #[arg(long)]
        org: String,
        /// One JSON array instead of a table (`id`, `prefix`, `label`,
        /// `scopes`, `createdAt`, `revokedAt`).
        #[arg(long)]
        json: bool,
    },
    /// Revoke an API key by its id; it stops working at once.
    Revoke {
        /// The key's id (printed on standard error when it was created).
        id: String,
    },
}

/// `equip import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Organization id.
    #[arg(long)]
    pub org: String,
    /// The JSON document; `-` reads standard input.
    pub file: PathBuf,
}

/// `equip demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Name of the demo organization.
    #[arg(long, default_value = "Demo Org")]
    pub name: String,
    /// Seed of the generator: the same seed gives the same data.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Number of inventory items.
    #[arg(long, default_value_t = DEFAULT_DEMO_ITEMS)]
    pub items: usize,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// A provider's generated client id is random base64url, so one in 32
    /// begins with `-` (the test provider's did, and `org sso set` refused it
    /// as an unknown flag).
    #[test]
    fn a_client_id_may_begin_with_a_hyphen() {
        let cli = Cli::try_parse_from([
            "equip",
            "org",
            "sso",
            "set",
            "--org",
            "0bf94b88-e548-47b6-a9a9-142da56b09f7",
            "--issuer",
            "https://idp.example",
            "--client-id",
            "-waxMVeSzgOy7CIomXYW",
            "--client-secret-file",
            "/tmp/secret",
        ])
        .unwrap();
        let Command::Org(OrgCommand::Sso(SsoCommand::Set { client_id, .. })) = cli.command else {
            panic!("not org sso set");
        };
        assert_eq!(client_id, "-waxMVeSzgOy7CIomXYW");
    }

    #[test]
    fn scopes_repeat_or_split_on_commas() {
        let cli = Cli::try_parse_from([
            "equip",
            "key",
            "create",
            "--org",
            "x",
            "--scope",
            "scim,inventory:read",
            "--scope",
            "warehouses:read",
        ])
        .unwrap();
        match cli.command {
            Command::Key(KeyCommand::Create { scopes, .. }) => {
                assert_eq!(scopes, ["scim", "inventory:read", "warehouses:read"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_scope_help_names_every_scope_and_no_scopes_excludes_scope() {
        let mut cli = Cli::command();
        let create = cli
            .find_subcommand_mut("key")
            .and_then(|k| k.find_subcommand_mut("create"))
            .unwrap();
        let help = create.render_help().to_string();
        for scope in Scope::ALL {
            assert!(help.contains(scope.as_str()), "{scope:?} missing: {help}");
        }
        assert!(help.contains("--no-scopes"), "{help}");
        let parsed = |args: &[&str]| {
            Cli::try_parse_from(
                ["equip", "key", "create", "--org", "x"]
                    .iter()
                    .chain(args)
                    .copied(),
            )
        };
        match parsed(&["--no-scopes"]).unwrap().command {
            Command::Key(KeyCommand::Create {
                scopes, no_scopes, ..
            }) => {
                assert!(no_scopes);
                assert!(scopes.is_empty());
            }
            other => panic!("{other:?}"),
        }
        let err = parsed(&["--no-scopes", "--scope", "scim"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::ArgumentConflict);
    }

    #[test]
    fn the_log_format_is_taken_by_every_command_before_or_after_it() {
        let cli = Cli::try_parse_from(["equip", "serve", "--log-format", "json"]).unwrap();
        assert_eq!(cli.log_format, LogFormat::Json);
        let cli = Cli::try_parse_from(["equip", "--log-format", "json", "migrate"]).unwrap();
        assert_eq!(cli.log_format, LogFormat::Json);
        let cli = Cli::try_parse_from([
            "equip",
            "org",
            "create",
            "--name",
            "A",
            "--log-format",
            "json",
        ])
        .unwrap();
        assert_eq!(cli.log_format, LogFormat::Json);
    }

    #[test]
    fn database_url_is_accepted_after_the_subcommand() {
        let cli = Cli::try_parse_from(["equip", "migrate", "--database-url", "/tmp/x.db"]).unwrap();
        assert_eq!(cli.database_url, "/tmp/x.db");
    }

    #[test]
    fn session_durations_parse_and_the_help_states_the_domains_defaults() {
        let defaults = equip_domain::sso::SessionLimits::default();
        assert_eq!(parse_duration("8h").unwrap(), defaults.idle);
        assert_eq!(parse_duration("7d").unwrap(), defaults.max_age);
        assert_eq!(
            parse_duration("90m").unwrap(),
            chrono::Duration::minutes(90)
        );
        assert_eq!(
            parse_duration(" 30s ").unwrap(),
            chrono::Duration::seconds(30)
        );
        for bad in ["", "8", "h", "8w", "0s", "-1h", "366d", "1.5h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        let cli = Cli::try_parse_from(["equip", "serve"]).unwrap();
        let Command::Serve(args) = cli.command else {
            panic!("not serve");
        };
        assert_eq!(args.sessions.limits().unwrap(), defaults);
        let help = Cli::command()
            .find_subcommand_mut("serve")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(
            help.contains("[default: 8h]") && help.contains("[default: 7d]"),
            "{help}"
        );
    }
}
