//! The admin commands. Each takes the configuration it needs (no globals) and
//! reports through `anyhow`; `main` prints the error and exits non-zero.

mod demo;
mod dispatch;
mod healthcheck;
mod import;
mod index;
mod keys;
mod migrate;
mod org;
mod progress;
mod serve;
mod sso;
mod table;
mod warehouse;

use anyhow::Context;
use equip_persistence::{PoolOptions, Store};

use crate::cli::{Cli, Command, OrgCommand};

/// Where the database is.
#[derive(Debug, Clone)]
pub struct DatabaseConfig {
    /// `postgres://…`, `sqlite://path` or a plain SQLite path.
    pub url: String,
}

/// Runs the command the command line names.
///
/// # Errors
/// Whatever the command reports; nothing is printed on stdout then.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let db = DatabaseConfig {
        url: cli.database_url,
    };
    match cli.command {
        Command::Serve(args) => serve::run(&db, &args),
        Command::Migrate => migrate::run(&db),
        Command::Org(OrgCommand::Create { name }) => org::create(&db, &name),
        Command::Org(OrgCommand::List { json }) => org::list(&db, json),
        Command::Org(OrgCommand::Sso(command)) => sso::run(&db, command),
        Command::Key(command) => keys::run(&db, command),
        Command::Warehouse(command) => warehouse::run(&db, command),
        Command::Index(command) => index::run(&db, command),
        Command::Import(args) => import::run(&db, &args),
        Command::Demo(args) => demo::run(&db, &args),
        Command::Dispatch(args) => dispatch::run(&db, &args),
        Command::Healthcheck(args) => healthcheck::run(&args),
        Command::Openapi => {
            use std::io::Write;
            std::io::stdout()
                .lock()
                .write_all(equip_http::openapi::document_text().as_bytes())
                .context("cannot write the document")
        }
    }
}

/// [`connect_with`] for a command that exits when done: no idle connection is
/// kept in the background, so none is being opened on a pool thread when the
/// process exits (that crashed `equip import` on PostgreSQL with SIGSEGV in
/// about one run in six, after its work was committed).
fn connect_one_shot(db: &DatabaseConfig) -> anyhow::Result<(Store, Vec<String>)> {
    connect_with(
        db,
        PoolOptions {
            min_idle: 0,
            ..PoolOptions::default()
        },
    )
}

/// The store over `db` (not migrated yet), and its URL fit for messages.
pub(crate) fn connect_only(
    db: &DatabaseConfig,
    options: PoolOptions,
) -> anyhow::Result<(Store, String)> {
    let shown = redact_url(&db.url);
    let store = match Store::connect(&db.url, options) {
        Ok(store) => store,
        // The URL itself is wrong (a mistyped scheme, a password not
        // percent-encoded): said without repeating it, which may hold a
        // password where the redaction would not find it.
        Err(err @ equip_persistence::PersistenceError::InvalidUrl(_)) => {
            return Err(anyhow::Error::new(err).context("--database-url (DATABASE_URL)"));
        }
        Err(err) => {
            return Err(
                anyhow::Error::new(err).context(format!("cannot open the database {shown}"))
            );
        }
    };
    Ok((store, shown))
}

/// Connects to the database with `options` and applies pending migrations (a
/// fresh SQLite file is created and migrated on first use). Returns the names
/// of the migrations applied now.
pub(crate) fn connect_with(
    db: &DatabaseConfig,
    options: PoolOptions,
) -> anyhow::Result<(Store, Vec<String>)> {
    let (store, shown) = connect_only(db, options)?;
    let applied = store
        .run_migrations()
        .with_context(|| format!("cannot migrate the database {shown}"))?;
    tracing::debug!("database {shown} ready");
    Ok((store, applied))
}

/// [`connect_with`], then a write probe (`HealthCheck::check_writable`): a
/// read-only SQLite file or connection, a full disk, a PostgreSQL replica or
/// one with `default_transaction_read_only` is refused with a message saying
/// which (checked also when the migrations fail, which is how a read-only
/// database usually shows first).
pub(crate) fn connect_writable(
    db: &DatabaseConfig,
    options: PoolOptions,
) -> anyhow::Result<(Store, Vec<String>)> {
    use equip_domain::ports::HealthCheck as _;
    let (store, shown) = connect_only(db, options)?;
    let migrated = store.run_migrations();
    if let Err(equip_domain::StoreError::Unavailable(why)) = store.check_writable() {
        anyhow::bail!(
            "the database {shown} cannot be written ({why}); equip serve needs a writable \
             database: check that the SQLite file and its directory are writable and the \
             disk has room, or that PostgreSQL is a primary without \
             default_transaction_read_only"
        );
    }
    let applied = migrated.with_context(|| format!("cannot migrate the database {shown}"))?;
    tracing::debug!("database {shown} ready and writable");
    Ok((store, applied))
}

/// After a load (`import`, `demo`): the planner statistics of the tables it
/// changed enough ([`Store::refresh_statistics`]); a failure is only logged,
/// the load is committed.
fn refresh_statistics(store: &Store) {
    if let Err(e) = store.refresh_statistics() {
        tracing::warn!("could not refresh planner statistics: {e}");
    }
}

/// Opens the database for a command that does not care which migrations ran.
/// Its writes are recorded as the `CLI` actor's.
fn open(db: &DatabaseConfig) -> anyhow::Result<Store> {
    use equip_domain::ports::Acting;
    connect_one_shot(db).map(|(store, _)| store.acting_as(equip_domain::event::Actor::Cli))
}

/// A database URL fit for messages (the password hidden; see
/// [`equip_persistence::redact_url`]).
pub use equip_persistence::redact_url;
