//! The console's files, embedded at build time.
//!
//! Every file under `crates/console/assets/` is listed here (a test fails
//! when one is missing), with its content type and an entity tag computed at
//! build time.

/// One embedded file.
pub struct Asset {
    /// Its path under `/console/`.
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub body: &'static [u8],
    /// FNV-1a of its bytes: the entity tag.
    digest: u64,
}

impl Asset {
    /// The strong entity tag of its bytes.
    #[must_use]
    pub fn etag(&self) -> String {
        format!("\"{:016x}\"", self.digest)
    }
}

/// FNV-1a (64 bits), at compile time: stable across builds of the same bytes.
const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    hash
}

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const SVG: &str = "image/svg+xml";

macro_rules! asset {
    ($path:literal, $type:expr) => {{
        const BODY: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/", $path));
        Asset {
            path: $path,
            content_type: $type,
            body: BODY,
            digest: fnv1a(BODY),
        }
    }};
}

/// Every file of the console.
pub const ASSETS: &[Asset] = &[
    asset!("index.html", HTML),
    asset!("console.css", CSS),
    asset!("favicon.svg", SVG),
    asset!("js/app.js", JS),
    asset!("js/api.js", JS),
    asset!("js/csv.js", JS),
    asset!("js/router.js", JS),
    asset!("js/scopes.js", JS),
    asset!("js/ui.js", JS),
    asset!("js/signin.js", JS),
    asset!("js/inventory.js", JS),
    asset!("js/item.js", JS),
    asset!("js/history.js", JS),
    asset!("js/people.js", JS),
    asset!("js/person.js", JS),
    asset!("js/upload.js", JS),
    asset!("js/warehouses.js", JS),
    asset!("js/levels.js", JS),
    asset!("js/personpicker.js", JS),
    asset!("js/itemrules.js", JS),
    asset!("js/holders.js", JS),
    asset!("js/bulk.js", JS),
    asset!("js/lifecycle.js", JS),
    asset!("js/returns.js", JS),
    asset!("js/return.js", JS),
    asset!("js/receipt.js", JS),
    asset!("js/orders.js", JS),
    asset!("js/order.js", JS),
    asset!("js/packages.js", JS),
    asset!("js/package.js", JS),
    asset!("js/names.js", JS),
    asset!("js/export.js", JS),
    asset!("js/pickers.js", JS),
    asset!("js/overview.js", JS),
    asset!("js/search.js", JS),
    asset!("js/spec.js", JS),
    asset!("js/words.js", JS),
];

/// The file at `path` (relative to `/console/`), if the console has it.
#[must_use]
pub fn find(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.path == path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn files(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path: PathBuf = entry.unwrap().path();
            if path.is_dir() {
                files(&path, base, out);
            } else {
                let rel = path.strip_prefix(base).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }

    #[test]
    fn every_file_under_assets_is_embedded_once() {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let mut on_disk = Vec::new();
        files(&base, &base, &mut on_disk);
        on_disk.sort();
        let mut listed: Vec<String> = ASSETS.iter().map(|a| a.path.to_owned()).collect();
        listed.sort();
        assert_eq!(
            listed, on_disk,
            "ASSETS must list exactly the files in assets/"
        );
    }

    fn text(asset: &Asset) -> &'static str {
        std::str::from_utf8(asset.body).unwrap()
    }

    #[test]
    fn the_page_has_no_inline_script_style_or_handler() {
        // The Content-Security-Policy forbids them, so they would silently
        // not run: fail here instead.
        let html = text(find("index.html").unwrap()).to_ascii_lowercase();
        for (i, _) in html.match_indices("<script") {
            let tag_end = html[i..].find('>').unwrap() + i;
            assert!(
                html[i..tag_end].contains(" src="),
                "inline <script> at byte {i}"
            );
        }
        assert!(!html.contains("<style"), "inline <style>");
        assert!(!html.contains(" style="), "style attribute");
        assert!(
            !html.contains(" onclick=") && !html.contains(" onload="),
            "inline handler"
        );
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "a link off equip"
        );
    }

    /// What the sign-in screen keeps across tabs: the organization id of
    /// single sign-on (not a secret), read and written in exactly these two
    /// places; nothing else of the console uses `localStorage`.
    const KEPT_ACROSS_TABS: [&str; 2] = [
        "localStorage.getItem(SSO_ORG)",
        "localStorage.setItem(SSO_ORG, org)",
    ];

    #[test]
    fn the_scripts_keep_the_key_in_session_storage_and_build_no_html_from_text() {
        for asset in ASSETS.iter().filter(|a| a.content_type == JS) {
            let mut js = text(asset).to_owned();
            if asset.path == "js/signin.js" {
                for allowed in KEPT_ACROSS_TABS {
                    assert_eq!(js.matches(allowed).count(), 1, "{allowed}");
                    js = js.replace(allowed, "");
                }
            }
            for banned in [
                "localStorage",
                "document.cookie",
                "innerHTML",
                "outerHTML",
                "insertAdjacentHTML",
                "document.write",
                "eval(",
                "new Function",
                "http://",
                "https://",
            ] {
                assert!(!js.contains(banned), "{} uses {banned}", asset.path);
            }
        }
    }

    #[test]
    fn entity_tags_follow_the_bytes() {
        assert_ne!(fnv1a(b"a"), fnv1a(b"b"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        let tags: std::collections::HashSet<String> = ASSETS.iter().map(Asset::etag).collect();
        assert_eq!(tags.len(), ASSETS.len());
    }
}
