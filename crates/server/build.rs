//! The commit the binary is built from, for `equip --version` and the
//! `equip_build_info` metric: `EQUIP_COMMIT` when the build sets it (a
//! container build or a source tarball, without a git checkout), else
//! `git rev-parse --short=12 HEAD` of the checkout, else `unknown`.
//!
//! Built again when the commit moves (the checkout's own `HEAD`, its branch
//! and `packed-refs`) and when the checkout being built changes: two
//! worktrees of the repository sharing one `CARGO_TARGET_DIR` share this
//! script's output (cargo keys it by the package, not by where its sources
//! are), so `EQUIP_CHECKOUT`, the checkout's directory set by
//! `.cargo/config.toml`, is one of its inputs
//! (`scripts/check-commit-label.sh` builds two worktrees on one target dir).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=EQUIP_COMMIT");
    println!("cargo:rerun-if-env-changed=EQUIP_CHECKOUT");
    let given = std::env::var("EQUIP_COMMIT")
        .ok()
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty());
    let commit = given.or_else(|| {
        // Built again when HEAD moves: a commit, a checkout, a worktree's
        // own HEAD (git-path resolves where each file is).
        for path in ["HEAD", "packed-refs"] {
            if let Some(p) = git(&["rev-parse", "--git-path", path]) {
                println!("cargo:rerun-if-changed={p}");
            }
        }
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            if let Some(p) = git(&["rev-parse", "--git-path", &branch]) {
                println!("cargo:rerun-if-changed={p}");
            }
        }
        git(&["rev-parse", "--short=12", "HEAD"])
    });
    let commit = commit
        .filter(|c| {
            c.chars()
                .all(|ch| ch.is_ascii_alphanumeric() || "-_.".contains(ch))
        })
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=EQUIP_COMMIT={commit}");
}
