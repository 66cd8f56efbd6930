//! `equip demo`: a demo organization with a key and realistic data.

use anyhow::Context;
use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::services::admin::{create_organization, issue_api_key};

use super::progress;
use super::{open, DatabaseConfig};
use crate::cli::{DemoArgs, DEFAULT_BIND};
use crate::demo::{self, DemoConfig, Generator};

/// Creates the organization, a key with every scope and the data; prints the
/// key alone on standard output and the organization id and hints on standard
/// error.
///
/// # Errors
/// A bad name, a database failure, or (a generator bug) a refused entry.
pub fn run(db: &DatabaseConfig, args: &DemoArgs) -> anyhow::Result<()> {
    let store = open(db)?;
    let now = Utc::now();
    let org = create_organization(&store, &args.name, now)?;
    let key = issue_api_key(&store, org.id, Scopes::all(), Some("demo".to_owned()), now)?;
    let config = DemoConfig {
        organization: org.id,
        organization_name: org.name.as_str().to_owned(),
        seed: args.seed,
        items: args.items,
        now,
    };
    let preview = Generator::new(config.clone());
    let total = preview.total_entries();
    let first_warehouse = preview.first_warehouse_id();
    let bar = progress::bar(total, "loading demo data");
    let result = demo::load(&store, config, demo::CHUNK, &mut |n| {
        bar.set_position(n as u64);
    });
    bar.finish_and_clear();
    let summary = result.with_context(|| {
        format!(
            "loading the demo data into organization {} failed; the organization exists but may be incomplete",
            org.id
        )
    })?;
    super::refresh_statistics(&store);
    println!("{}", key.secret);
    eprintln!(
        "demo organization '{}': {}\nkey id: {} (all scopes; the key, printed on stdout, is shown only now)\nimported {}",
        org.name.as_str(),
        org.id,
        key.record.id,
        progress::describe(&summary)
    );
    eprintln!(
        "try it:\n  KEY=<the key printed on stdout>\n  equip serve &\n  curl -H \"Authorization: ApiKey $KEY\" http://{DEFAULT_BIND}/api/v1/warehouses/{first_warehouse}"
    );
    Ok(())
}
