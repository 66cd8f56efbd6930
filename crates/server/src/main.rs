//! `equip`: the service and its admin commands. See `equip --help`.

use std::process::ExitCode;

use clap::Parser;
use equip_server::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if matches!(cli.command, Command::Serve(_)) {
        with_two_malloc_arenas();
    }
    equip_server::logs::init(cli.log_format);
    match equip_server::commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            equip_server::logs::fail(&err);
            ExitCode::FAILURE
        }
    }
}

/// glibc gives threads that allocate at once arenas of their own, up to 8 per
/// core, and memory freed in one stays with it: at 1,000,000 items under 32
/// listing clients on SQLite, `serve`'s anonymous memory was 287–317 MB with
/// glibc's default and 229–231 MB with two arenas, at the same latency
/// (docs/operations.md, "Memory"). glibc reads `MALLOC_ARENA_MAX` once,
/// before `main`: so `serve` started without it runs itself again with it
/// set to 2 (the same process id, arguments and environment otherwise). A
/// value the operator set is kept; should the new run fail to start, this
/// one serves as it is.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn with_two_malloc_arenas() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut args = std::env::args_os();
    let mut again = std::process::Command::new(exe);
    if let Some(name) = args.next() {
        again.arg0(name);
    }
    // `exec` returns only when the new run could not start.
    let error = again.args(args).env("MALLOC_ARENA_MAX", "2").exec();
    eprintln!("equip: serving with glibc's default malloc arenas ({error})");
}

/// Other allocators than glibc's keep their own defaults.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn with_two_malloc_arenas() {}
