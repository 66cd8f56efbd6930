//! # equip-console
//!
//! The web console for IT admins and people teams: plain HTML, CSS and
//! JavaScript modules, embedded in the binary at build time and served at
//! `/console/` by `equip serve` (the server mounts [`configure`]). It has no
//! server-side logic of its own: the page signs in with an API key and reads
//! and writes everything through equip's public API with that key, so scopes
//! and tenant isolation are exactly the API's (docs/console.md).
//!
//! Every answer of the console carries a strict Content-Security-Policy (only
//! equip's own scripts, styles and API; no inline script or style), refuses
//! framing and MIME sniffing, and sends no referrer. Assets are revalidated on
//! every load (`Cache-Control: no-cache`) with an entity tag computed at build
//! time, so an upgraded binary is picked up at once and an unchanged asset
//! costs a 304.

mod assets;

use actix_web::http::header::{self, HeaderValue};
use actix_web::{guard, web, HttpRequest, HttpResponse, HttpResponseBuilder};

pub use assets::{Asset, ASSETS};

/// Where the console is mounted.
pub const PREFIX: &str = "/console/";

/// The console's Content-Security-Policy: its own scripts and styles only, no
/// inline script or style, requests only to its own origin (the API), never
/// framed, no `<base>` and no form posts elsewhere.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self'; connect-src 'self'; manifest-src 'self'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Adds the console's routes: `/console` (redirects to `/console/`),
/// `/console/` (the page) and `/console/<asset>`. Other methods than `GET`
/// and `HEAD` answer 405; unknown assets 404.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/console")
            .route(web::route().guard(read()).to(redirect))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/console/{path:.*}")
            .route(web::route().guard(read()).to(serve))
            .default_service(web::to(method_not_allowed)),
    );
}

fn read() -> impl guard::Guard {
    guard::Any(guard::Get()).or(guard::Head())
}

async fn redirect() -> HttpResponse {
    secured(HttpResponse::PermanentRedirect())
        .insert_header((header::LOCATION, PREFIX))
        .finish()
}

async fn method_not_allowed() -> HttpResponse {
    secured(HttpResponse::MethodNotAllowed())
        .insert_header((header::ALLOW, "GET, HEAD"))
        .content_type("text/plain; charset=utf-8")
        .body("405 method not allowed: the console's files are read with GET\n")
}

async fn serve(req: HttpRequest, path: web::Path<String>) -> HttpResponse {
    let path = path.into_inner();
    let name = if path.is_empty() { "index.html" } else { &path };
    let Some(asset) = assets::find(name) else {
        return secured(HttpResponse::NotFound())
            .content_type("text/plain; charset=utf-8")
            .body("404 not found: no such file in the console\n");
    };
    let tag = asset.etag();
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"));
    let mut response = secured(if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    });
    response
        .insert_header((header::ETAG, tag))
        .insert_header((header::CACHE_CONTROL, "no-cache"));
    if fresh {
        return response.finish();
    }
    // For HEAD, actix sends the headers (with the body's length) and no body.
    response.insert_header((header::CONTENT_TYPE, asset.content_type));
    response.body(asset.body)
}

/// A response builder with the console's security headers.
fn secured(mut builder: HttpResponseBuilder) -> HttpResponseBuilder {
    builder
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ))
        .insert_header((header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")))
        .insert_header((
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .insert_header((
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        .insert_header((
            header::HeaderName::from_static("cross-origin-opener-policy"),
            HeaderValue::from_static("same-origin"),
        ));
    builder
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use actix_web::http::StatusCode;
    use actix_web::{test, App};

    async fn get(path: &str, headers: &[(&str, &str)]) -> actix_web::dev::ServiceResponse {
        let app = test::init_service(App::new().configure(configure)).await;
        let mut req = test::TestRequest::get().uri(path);
        for (k, v) in headers {
            req = req.insert_header((*k, *v));
        }
        test::call_service(&app, req.to_request()).await
    }

    fn header<'a>(res: &'a actix_web::dev::ServiceResponse, name: &str) -> &'a str {
        res.headers()
            .get(name)
            .map_or("", |v| v.to_str().unwrap_or(""))
    }

    #[actix_web::test]
    async fn the_page_is_served_with_the_security_headers() {
        let res = get("/console/", &[]).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "content-type"), "text/html; charset=utf-8");
        assert_eq!(
            header(&res, "content-security-policy"),
            CONTENT_SECURITY_POLICY
        );
        assert_eq!(header(&res, "x-frame-options"), "DENY");
        assert_eq!(header(&res, "x-content-type-options"), "nosniff");
        assert_eq!(header(&res, "referrer-policy"), "no-referrer");
        let body = test::read_body(res).await;
        assert!(std::str::from_utf8(&body).unwrap().contains("<main"));
    }

    #[actix_web::test]
    async fn every_asset_is_served_with_its_type_and_headers() {
        for asset in ASSETS {
            let res = get(&format!("/console/{}", asset.path), &[]).await;
            assert_eq!(res.status(), StatusCode::OK, "{}", asset.path);
            assert_eq!(header(&res, "content-type"), asset.content_type);
            assert_eq!(header(&res, "x-frame-options"), "DENY");
            assert_eq!(header(&res, "etag"), asset.etag());
        }
    }

    #[actix_web::test]
    async fn an_unchanged_asset_is_not_sent_again() {
        let tag = assets::find("index.html").unwrap().etag();
        let res = get("/console/", &[("If-None-Match", &tag)]).await;
        assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
        let res = get("/console/", &[("If-None-Match", "\"other\"")]).await;
        assert_eq!(res.status(), StatusCode::OK);
    }

    #[actix_web::test]
    async fn the_bare_prefix_redirects_and_unknown_files_are_404() {
        let res = get("/console", &[]).await;
        assert_eq!(res.status(), StatusCode::PERMANENT_REDIRECT);
        assert_eq!(header(&res, "location"), "/console/");
        for path in [
            "/console/nothing.js",
            "/console/../Cargo.toml",
            "/console/js/../../src/lib.rs",
            "/console/%2e%2e/Cargo.toml",
        ] {
            let res = get(path, &[]).await;
            assert_eq!(res.status(), StatusCode::NOT_FOUND, "{path}");
            assert_eq!(header(&res, "x-frame-options"), "DENY");
        }
    }

    #[actix_web::test]
    async fn other_methods_are_refused() {
        let app = test::init_service(App::new().configure(configure)).await;
        let req = test::TestRequest::post().uri("/console/").to_request();
        let res = test::call_service(&app, req).await;
        assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(header(&res, "allow"), "GET, HEAD");
        let req = test::TestRequest::default()
            .method(actix_web::http::Method::HEAD)
            .uri("/console/console.css")
            .to_request();
        let res = test::call_service(&app, req).await;
        assert_eq!(res.status(), StatusCode::OK);
    }
}
