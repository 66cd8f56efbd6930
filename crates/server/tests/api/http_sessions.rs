//! The session cookie at the gate, in-process on SQLite and PostgreSQL (the
//! sign-in itself, against a real provider, is `http_sso.rs`): an API key
//! wins over a cookie; a malformed, unknown or other organization's session
//! is refused like an unknown key; a session's write needs the CSRF header
//! and its scopes; `/sso`'s own answers to bad input.

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::Utc;
use equip_domain::api_key::{Scope, Scopes};
use equip_domain::ports::SsoRepository;
use equip_domain::sso::{ProviderIdentity, Session, SessionLimits};
use serde_json::json;

use crate::support::TestApp;

on_both_backends!(
    a_session_cookie_is_a_caller_of_its_organization,
    under_https_only_the_host_prefixed_cookie_counts,
    sso_routes_answer_bad_input_without_a_provider,
);

/// A live session of `org` with `scopes`; its cookie's value.
fn session(app: &TestApp, org: equip_domain::ids::OrganizationId, scopes: Scopes) -> String {
    let identity = ProviderIdentity {
        subject: "sub-ana".into(),
        email: Some("ana@example.com".into()),
        ..ProviderIdentity::default()
    };
    let now = Utc::now();
    let (s, token) = Session::open(org, &identity, scopes, now, SessionLimits::default()).unwrap();
    let idle_before = Session::idle_cutoff(now, SessionLimits::default());
    app.store.insert_session(&s, now, idle_before).unwrap();
    token.expose().to_owned()
}

fn with_cookie(req: TestRequest, token: &str) -> TestRequest {
    req.insert_header(("Cookie", format!("equip_session={token}")))
}

async fn a_session_cookie_is_a_caller_of_its_organization(app: TestApp) {
    let app = app.with_sso();
    let w = app.world();
    let reader = session(&app, w.a_org, Scopes::from_list([Scope::WarehousesRead]));
    let path = format!("/api/v1/warehouses/{}", w.a_warehouse);
    let (status, body) = app
        .call(with_cookie(TestRequest::get().uri(&path), &reader))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Another organization's warehouse is not found.
    let theirs = format!("/api/v1/warehouses/{}", w.b_warehouse);
    let (status, _) = app
        .call(with_cookie(TestRequest::get().uri(&theirs), &reader))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Without the scope: 403 that says it is the person's groups.
    let (status, body) = app
        .call(with_cookie(
            TestRequest::get().uri("/api/v1/inventory"),
            &reader,
        ))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(body.to_string().contains("groups"), "{body}");
    // A write without the CSRF header: 403 before anything is validated.
    let writer = session(&app, w.a_org, Scopes::all());
    let create = || {
        TestRequest::post()
            .uri("/api/v1/inventory")
            .set_json(json!({"nonsense": 1}))
    };
    let (status, body) = app.call(with_cookie(create(), &writer)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.to_string().contains("X-Equip-CSRF"), "{body}");
    let (status, _) = app
        .call(with_cookie(
            create().insert_header(("X-Equip-CSRF", "1")),
            &writer,
        ))
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "with the header, the body is read"
    );
    // A key wins over a cookie: the key's organization, the key's scopes.
    let (status, _) = app.call(with_cookie(w.b.get(&theirs), &reader)).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.call(with_cookie(w.limited.get(&path), &writer)).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "the limited key's scopes, not the session's"
    );
    // Malformed, unknown: 401 like an unknown key.
    for bad in ["", "x", &"0".repeat(64), &"zz".repeat(32)] {
        let (status, _) = app
            .call(with_cookie(TestRequest::get().uri(&path), bad))
            .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{bad:?}");
    }
    // `GET /api/v1/api-key` answers about keys only.
    let (status, _) = app
        .call(with_cookie(
            TestRequest::get().uri("/api/v1/api-key"),
            &reader,
        ))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The session says who it is; signed out, it is refused everywhere.
    let (status, me) = app
        .call(with_cookie(TestRequest::get().uri("/sso/session"), &reader))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["email"], "ana@example.com");
    assert_eq!(me["scopes"], json!(["warehouses:read"]));
    let logout = || with_cookie(TestRequest::post().uri("/sso/logout"), &reader);
    assert_eq!(app.call(logout()).await.0, StatusCode::FORBIDDEN);
    let raw = app
        .call_raw(logout().insert_header(("X-Equip-CSRF", "1")))
        .await;
    assert_eq!(raw.status, StatusCode::NO_CONTENT);
    assert!(raw.header("set-cookie").unwrap().contains("Max-Age=0"));
    let (status, _) = app
        .call(with_cookie(TestRequest::get().uri(&path), &reader))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

async fn sso_routes_answer_bad_input_without_a_provider(app: TestApp) {
    let w = app.world();
    // Without SSO (`serve --no-sso`), the cookie is not looked at.
    let token = session(&app, w.a_org, Scopes::all());
    let (status, _) = app
        .call(with_cookie(
            TestRequest::get().uri("/api/v1/warehouses"),
            &token,
        ))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let app = app.with_sso();
    let page = |raw: &crate::support::Raw| {
        assert!(raw
            .content_type
            .as_deref()
            .unwrap_or("")
            .starts_with("text/html"));
        String::from_utf8_lossy(&raw.body).into_owned()
    };
    // An id that is not one, an organization without SSO: 404 pages.
    for path in ["/sso/not-an-id/login", &format!("/sso/{}/login", w.a_org)] {
        let raw = app.call_raw(TestRequest::get().uri(path)).await;
        assert_eq!(raw.status, StatusCode::NOT_FOUND, "{path}");
        assert!(page(&raw).contains("does not sign in with an identity provider"));
    }
    // A callback without a known state, and the provider's own refusal
    // (only an error code is shown: the URL is anyone's to write).
    let raw = app
        .call_raw(TestRequest::get().uri("/sso/callback?code=c&state=s"))
        .await;
    assert_eq!(raw.status, StatusCode::BAD_REQUEST);
    assert!(page(&raw).contains("already used or has expired"));
    let raw = app.call_raw(TestRequest::get().uri("/sso/callback")).await;
    assert_eq!(raw.status, StatusCode::BAD_REQUEST);
    let raw = app
        .call_raw(TestRequest::get().uri("/sso/callback?error=%3Cscript%3Ecall+us"))
        .await;
    assert_eq!(raw.status, StatusCode::BAD_REQUEST);
    let text = page(&raw);
    assert!(
        !text.contains("script") && text.contains("an error"),
        "{text}"
    );
    // No session: 401 with the API's error body.
    let (status, body) = app.call(TestRequest::get().uri("/sso/session")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body["errors"][0]["detail"].is_string(), "{body}");
}

async fn under_https_only_the_host_prefixed_cookie_counts(app: TestApp) {
    let public = equip_http::PublicUrl::configured("https://equip.example.com").unwrap();
    let app = app.with_public_url(public).with_sso();
    let w = app.world();
    let token = session(&app, w.a_org, Scopes::all());
    let path = "/api/v1/warehouses";
    // A cookie without the prefix could have been planted by a sibling site.
    let (status, _) = app
        .call(with_cookie(TestRequest::get().uri(path), &token))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let prefixed = TestRequest::get()
        .uri(path)
        .insert_header(("Cookie", format!("__Host-equip_session={token}")));
    let (status, body) = app.call(prefixed).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}
