//! `equip serve`: migrate, then serve the API.

use std::sync::Arc;

use actix_web::HttpServer;
use anyhow::Context;
use equip_domain::ports::OrganizationRepository;

use super::{connect, DatabaseConfig};
use crate::cli::ServeArgs;

/// Opens and migrates the database, then runs the HTTP server until it is
/// stopped (Ctrl-C or SIGTERM: actix shuts down gracefully).
///
/// # Errors
/// When the database cannot be opened or the address cannot be bound.
pub fn run(db: &DatabaseConfig, args: &ServeArgs) -> anyhow::Result<()> {
    let (store, _applied) = connect(db)?;
    let store = Arc::new(store);
    if store
        .count_organizations()
        .context("cannot read organizations")?
        == 0
    {
        eprintln!(
            "no organization yet: run `equip demo` or `equip org create --name …` and `equip key create --org …`"
        );
    }
    let state = equip_http::AppState::new(Arc::clone(&store));
    let bind = args.bind.clone();
    let workers = args.workers;
    actix_web::rt::System::new().block_on(async move {
        let server = HttpServer::new(move || equip_http::app(state.clone()));
        let server = match workers {
            Some(n) => server.workers(n.max(1)),
            None => server,
        };
        let server = server
            .bind(&bind)
            .with_context(|| format!("cannot listen on {bind}"))?;
        for addr in server.addrs() {
            eprintln!("equip listening on http://{addr}");
        }
        server.run().await.context("the HTTP server failed")
    })
}
