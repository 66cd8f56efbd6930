//! `equip demo`: a demo organization with a key and realistic data.

use anyhow::Context;
use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::services::admin::{create_organization, find_organization_named, issue_api_key};

use super::progress;
use super::{open, DatabaseConfig};
use crate::cli::{DemoArgs, DEFAULT_BIND, DEFAULT_DATABASE_URL};
use crate::demo::{self, DemoConfig, Generator};

/// Creates the organization, a key with every scope and the data; prints the
/// key alone on standard output and the organization id and hints on standard
/// error. When the database has an organization of that name already (an
/// earlier `equip demo`), it says so and prints a new key of that
/// organization instead, changing nothing else.
///
/// # Errors
/// A bad name, a database failure, or (a generator bug) a refused entry.
pub fn run(db: &DatabaseConfig, args: &DemoArgs) -> anyhow::Result<()> {
    let store = open(db)?;
    let now = Utc::now();
    if let Some(existing) = find_organization_named(&store, &args.name)? {
        let key = issue_api_key(
            &store,
            existing.id,
            Scopes::all(),
            Some("demo".to_owned()),
            now,
        )?;
        // The first line as a new demo's, so that what reads it (a script
        // after the organization's id) reads both.
        crate::logs::announce(&format!(
            "demo organization '{}': {}\n\
             this database has it already (made by an earlier equip demo): its data is left \
             as it is, and a new key is issued for it\n\
             key id: {} (all scopes; the organization's keys: equip key list --org {}; \
             another demo organization: equip demo --name NAME)\n\
             the demo organization's new API key (shown only now, on stdout):",
            existing.name.as_str(),
            existing.id,
            key.record.id,
            existing.id,
        ));
        println!("{}", key.secret);
        return Ok(());
    }
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
    let result = demo::load(&store, config.clone(), demo::CHUNK, &mut |n| {
        bar.set_position(n as u64);
    });
    bar.finish_and_clear();
    let summary = result.with_context(|| {
        format!(
            "loading the demo data into organization {} failed; the organization exists but may be incomplete",
            org.id
        )
    })?;
    // A few leavers, their returns mid-way (docs/returns.md).
    let leavers = demo::leavers::run(&store, &config)
        .with_context(|| {
            format!(
                "offboarding the demo's leavers in organization {} failed",
                org.id
            )
        })?
        .len();
    // Joiners' orders at every stage, one cancelled, one waiting for stock
    // (docs/orders.md).
    let joiners = demo::joiners::run(&store, &config).with_context(|| {
        format!(
            "moving the demo's joiners' orders in organization {} failed",
            org.id
        )
    })?;
    super::refresh_statistics(&store);
    crate::logs::announce(&format!(
        "demo organization '{}': {}\nkey id: {} (all scopes)\nimported {}\noffboarded {leavers} leavers, their returns mid-way\njoiners' orders: {}",
        org.name.as_str(),
        org.id,
        key.record.id,
        progress::describe(&summary),
        joiners.describe()
    ));
    // Runs as written: `equip` is on no PATH after `cargo run`, so the hint
    // names this binary by its path, and the database when it is not the
    // default.
    let program = shell_word(&program_path());
    let database = if db.url == DEFAULT_DATABASE_URL {
        String::new()
    } else {
        format!(
            " --database-url {}",
            shell_word(&super::redact_url(&db.url))
        )
    };
    crate::logs::announce(&format!(
        "try it, with the key below in $KEY (KEY=$({program}{database} demo) keeps it there):\n  \
         {program}{database} serve &\n  \
         curl -H \"Authorization: ApiKey $KEY\" http://{DEFAULT_BIND}/api/v1/warehouses/{first_warehouse}\n\
         the demo organization's API key (all scopes; shown only now, on stdout):"
    ));
    // The key last, alone on stdout, right under its label: it does not
    // scroll away behind the summary.
    println!("{}", key.secret);
    Ok(())
}

/// The path this binary was started from (`target/release/equip` after
/// `cargo run --release`), or `equip` when the system cannot say.
fn program_path() -> String {
    std::env::current_exe()
        .ok()
        .map_or_else(|| "equip".to_owned(), |p| p.display().to_string())
}

/// `word` as one shell word: as it is when it holds only characters no shell
/// treats specially, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | ':' | '@' | '+' | ',')
        });
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn hint_words_are_quoted_for_the_shell() {
        assert_eq!(
            shell_word("/home/a/equip/target/release/equip"),
            "/home/a/equip/target/release/equip"
        );
        assert_eq!(shell_word("/home/a b/equip"), "'/home/a b/equip'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }
}
