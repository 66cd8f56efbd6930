//! `equip`: the service and its admin commands. See `equip --help`.

use std::process::ExitCode;

use clap::Parser;
use equip_server::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    equip_server::logs::init(cli.log_format);
    match equip_server::commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            equip_server::logs::fail(&err);
            ExitCode::FAILURE
        }
    }
}
