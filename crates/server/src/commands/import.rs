//! `equip import --org ID FILE`.

use std::io::Read;
use std::path::Path;

use anyhow::{anyhow, Context};
use chrono::Utc;
use equip_domain::ids::OrganizationId;
use equip_domain::import::ImportError;
use equip_domain::services::import::{run_import, ImportFailure};

use super::progress;
use super::{open, DatabaseConfig};
use crate::cli::ImportArgs;
use crate::import_document::{entry_line, parse_document};

/// Reads the document, converts it, and imports it atomically. On success a
/// summary goes to standard error; on failure the bad entry is named and
/// nothing is written.
///
/// # Errors
/// An unreadable file, a bad entry, an unknown organization, a database failure.
pub fn run(db: &DatabaseConfig, args: &ImportArgs) -> anyhow::Result<()> {
    let org = OrganizationId::parse(&args.org).context("--org")?;
    let shown = args.file.display().to_string();
    let text = read_document(&args.file).with_context(|| format!("cannot read {shown}"))?;
    let located = |e: &ImportError| match entry_line(&text, &e.entry) {
        Some(line) => anyhow!("{e} (entry at line {line} of {shown}); nothing was imported"),
        None => anyhow!("{e}; nothing was imported"),
    };
    let reading = progress::spinner(
        text.len() > progress::SPINNER_BYTES,
        format!("reading {shown}"),
    );
    let parsed = parse_document(&text, org, Utc::now());
    reading.finish_and_clear();
    let batch = parsed.map_err(|e| located(&e))?;
    let store = open(db)?;
    let bar = progress::bar(batch.len(), "importing");
    let result = run_import(&store, org, &batch, &mut |done| {
        bar.set_position(done as u64)
    });
    bar.finish_and_clear();
    match result {
        Ok(summary) => {
            super::refresh_statistics(&store);
            crate::logs::announce(&format!("imported {}", progress::describe(&summary)));
            Ok(())
        }
        Err(ImportFailure::Entry(e)) => Err(located(&e)),
        Err(ImportFailure::Domain(e)) => {
            Err(anyhow!(e).context("import failed; nothing was imported"))
        }
    }
}

/// The file's text; `-` is standard input.
fn read_document(path: &Path) -> std::io::Result<String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        Ok(text)
    } else {
        std::fs::read_to_string(path)
    }
}
