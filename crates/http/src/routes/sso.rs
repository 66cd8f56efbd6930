//! `/sso`: a person's sign-in to the console with their organization's
//! identity provider (docs/sso.md). These routes are outside the key gate:
//! they are where a session begins, says who it is, and ends.
//!
//! - `GET /sso/{org}/login[?next=/console/…]`: a new attempt (state, nonce,
//!   PKCE verifier kept in the store, the state also in a cookie of this
//!   browser), then 303 to the provider.
//! - `GET /sso/callback?code&state`: the attempt taken once, the code
//!   exchanged and the ID token checked (`equip-oidc`), the person's groups
//!   mapped to scopes, a session opened: its cookie set, 303 to the console.
//!   A refusal is a page saying why.
//! - `GET /sso/session`: who is signed in and what they may do (401 without
//!   a live session).
//! - `POST /sso/logout`: ends the session in the store (every instance
//!   refuses it from then on) and removes the cookie.

use actix_web::http::header::{self, ContentType};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::Utc;
use equip_domain::api_key::AuthError;
use equip_domain::email::escape_html;
use equip_domain::ids::OrganizationId;
use equip_domain::services::sso::{self as sign_in, SignInError};
use equip_domain::sso::{hash_token, next_path, LoginAttempt, CONSOLE_PATH};
use equip_oidc::OidcError;
use serde::Deserialize;

use crate::client_address::client_of;
use crate::error::HttpError;
use crate::sso::{
    check_csrf, is_https, session_caller, session_cookie, session_removed, session_set,
    state_cookie, state_removed, state_set,
};
use crate::state::AppState;

/// The `/sso` routes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/sso/{org}/login").route(web::get().to(login)))
        .service(web::resource("/sso/callback").route(web::get().to(callback)))
        .service(web::resource("/sso/session").route(web::get().to(session)))
        .service(web::resource("/sso/logout").route(web::post().to(logout)));
}

#[derive(Debug, Deserialize)]
struct LoginQuery {
    next: Option<String>,
}

#[derive(Debug, Deserialize)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

/// A refusal shown to the person as a page.
struct Page {
    status: StatusCode,
    title: &'static str,
    text: String,
}

impl Page {
    fn new(status: StatusCode, title: &'static str, text: impl Into<String>) -> Self {
        Self {
            status,
            title,
            text: text.into(),
        }
    }

    fn render(&self, secure: bool) -> HttpResponse {
        let body = format!(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{title} · equip</title></head>\n<body>\n<main>\n<h1>{title}</h1>\n\
             <p>{text}</p>\n<p><a href=\"{CONSOLE_PATH}\">Back to the equip console</a></p>\n\
             </main>\n</body></html>\n",
            title = escape_html(self.title),
            text = escape_html(&self.text),
        );
        HttpResponse::build(self.status)
            .content_type(ContentType::html())
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; frame-ancestors 'none'",
            ))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .cookie(state_removed(secure))
            .body(body)
    }
}

fn not_configured() -> Page {
    Page::new(
        StatusCode::NOT_FOUND,
        "This organization does not sign in with an identity provider",
        "There is no sign-in with an identity provider for this organization on this equip. \
         Check the link with your IT team, or sign in to the console with an API key.",
    )
}

fn unknown_attempt() -> Page {
    Page::new(
        StatusCode::BAD_REQUEST,
        "This sign-in link was already used or has expired",
        "Each sign-in link works once, for ten minutes, in the browser that opened it. \
         Go back to the console and sign in again.",
    )
}

/// 429: sign-ins begun too fast (`why`), and when to try again.
fn too_many(why: &str, retry_after_secs: u64) -> Page {
    Page::new(
        StatusCode::TOO_MANY_REQUESTS,
        "Too many sign-ins at once",
        format!("{why} Try again in {retry_after_secs} s."),
    )
}

impl From<SignInError> for Page {
    fn from(e: SignInError) -> Self {
        match e {
            SignInError::NotConfigured => not_configured(),
            SignInError::UnknownAttempt => unknown_attempt(),
            SignInError::NoMappedGroup { email, groups } => Page::new(
                StatusCode::FORBIDDEN,
                "Your groups do not give you access to equip",
                format!(
                    "You signed in as {email}, but none of your groups at the identity provider \
                     ({}) is given access to equip by your organization. Ask your IT team to map \
                     one of your groups to equip (equip org sso role).",
                    if groups.is_empty() {
                        "it sent none".to_owned()
                    } else {
                        groups.join(", ")
                    }
                ),
            ),
            SignInError::Domain(e) => Page::from(HttpError::from(e)),
        }
    }
}

impl From<OidcError> for Page {
    fn from(e: OidcError) -> Self {
        match e {
            OidcError::Unverified(why) => {
                tracing::warn!(why = %why, "an ID token was refused");
                Page::new(
                    StatusCode::UNAUTHORIZED,
                    "The identity provider's answer could not be verified",
                    "equip could not verify who signed in (the provider's signed answer failed \
                     a check), so it did not sign you in. Try again; if it happens again, tell \
                     your IT team.",
                )
            }
            OidcError::Refused(why) => {
                tracing::warn!(why = %why, "the identity provider refused the code");
                Page::new(
                    StatusCode::BAD_GATEWAY,
                    "The identity provider refused the sign-in",
                    format!(
                        "The identity provider answered '{why}' when equip finished the \
                         sign-in. Try again; if it happens again, tell your IT team."
                    ),
                )
            }
            OidcError::Provider(why) | OidcError::Config(why) => {
                tracing::warn!(why = %why, "the identity provider could not be used");
                Page::new(
                    StatusCode::BAD_GATEWAY,
                    "The identity provider could not be reached",
                    "equip could not talk to your organization's identity provider. Try again \
                     in a moment; if it goes on, tell your IT team.",
                )
            }
        }
    }
}

impl From<HttpError> for Page {
    fn from(e: HttpError) -> Self {
        Page::new(
            e.status(),
            "equip could not sign you in",
            "equip is busy or could not finish the sign-in. Try again in a moment.",
        )
    }
}

/// The public base of links, and whether it is https.
fn base_of(state: &AppState, req: &HttpRequest) -> (String, bool) {
    let base = state.public_url().base(req);
    let secure = is_https(&base);
    (base, secure)
}

async fn login(
    req: HttpRequest,
    state: web::Data<AppState>,
    org: web::Path<String>,
    query: web::Query<LoginQuery>,
) -> HttpResponse {
    let (base, secure) = base_of(&state, &req);
    let Ok(org) = OrganizationId::parse(&org) else {
        return not_configured().render(secure);
    };
    let Some(sso) = state.sso() else {
        return not_configured().render(secure);
    };
    // The client's own limit first: a flood from one address is refused
    // before it counts against its organization's.
    let client = client_of(&req, state.public_url().trusts_forwarded_headers());
    if let Some(Err(exceeded)) = client.and_then(|ip| sso.logins_by_address.check(ip)) {
        return too_many(
            "Sign-ins from your address are arriving faster than equip takes them.",
            exceeded.retry_after_secs,
        )
        .render(secure);
    }
    if let Some(Err(exceeded)) = sso.logins.check(*org.as_uuid()) {
        return too_many(
            "This organization's sign-ins are arriving faster than equip takes them.",
            exceeded.retry_after_secs,
        )
        .render(secure);
    }
    if !state.public_url().is_configured() {
        tracing::warn!(
            "a sign-in's redirect URI is built from the request's Host over http:// and its \
             cookies are not Secure: set serve --public-url to equip's https URL"
        );
    }
    let next = next_path(query.next.as_deref());
    let redirect_uri = format!("{base}/sso/callback");
    let ports = state.system_ports();
    let begun = crate::blocking::run(move || {
        Ok::<_, HttpError>((|| -> Result<(String, String), Page> {
            let config = sign_in::config_for_sign_in(&*ports, org)?;
            let authorization = sso.relying_party.authorize(&config, &redirect_uri)?;
            let attempt = LoginAttempt {
                state_hash: hash_token(&authorization.state),
                organization_id: org,
                nonce: authorization.nonce,
                pkce_verifier: authorization.pkce_verifier,
                next,
                created_at: Utc::now(),
            };
            sign_in::begin_sign_in(&*ports, &attempt)?;
            Ok((authorization.url, authorization.state))
        })())
    })
    .await;
    match begun {
        Ok(Ok((url, state_value))) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, url))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .cookie(state_set(&state_value, secure))
            .finish(),
        Ok(Err(page)) => page.render(secure),
        Err(e) => Page::from(e).render(secure),
    }
}

async fn callback(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<CallbackQuery>,
) -> HttpResponse {
    let (base, secure) = base_of(&state, &req);
    if let Some(error) = &query.error {
        // Only an error code (RFC 6749's are lowercase words) is shown: the
        // URL is anyone's to write, and the page is equip's.
        let code = error_code(error).unwrap_or("an error");
        return Page::new(
            StatusCode::BAD_REQUEST,
            "The identity provider did not sign you in",
            format!(
                "The identity provider answered '{code}'. Go back to the console and try \
                 again; if it happens again, tell your IT team."
            ),
        )
        .render(secure);
    }
    let (Some(code), Some(state_value), Some(sso)) =
        (query.code.clone(), query.state.clone(), state.sso())
    else {
        return unknown_attempt().render(secure);
    };
    let browser_state = state_cookie(&req, secure);
    // A session this browser had is ended: one browser, one session.
    let earlier = session_cookie(&req, secure);
    let redirect_uri = format!("{base}/sso/callback");
    let ports = state.system_ports();
    let finished = crate::blocking::run(move || {
        Ok::<_, HttpError>((|| -> Result<_, Page> {
            let now = Utc::now();
            let attempt =
                sign_in::take_attempt(&*ports, &state_value, browser_state.as_deref(), now)?;
            let config = sign_in::config_for_sign_in(&*ports, attempt.organization_id)?;
            let identity = sso.relying_party.finish(
                &config,
                &redirect_uri,
                &code,
                &attempt.pkce_verifier,
                &attempt.nonce,
            )?;
            let (session, token) = sign_in::finish_sign_in(
                &*ports,
                attempt.organization_id,
                &identity,
                now,
                sso.limits,
            )?;
            if let Some(earlier) = earlier {
                sign_in::sign_out(&*ports, &earlier).map_err(SignInError::from)?;
            }
            tracing::info!(
                org_id = %session.organization_id,
                session_id = %session.id,
                "a person signed in to the console"
            );
            Ok((token, attempt.next))
        })())
    })
    .await;
    match finished {
        Ok(Ok((token, next))) => HttpResponse::SeeOther()
            .insert_header((
                header::LOCATION,
                next.unwrap_or_else(|| CONSOLE_PATH.to_owned()),
            ))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .cookie(session_set(token.expose(), secure))
            .cookie(state_removed(secure))
            .finish(),
        Ok(Err(page)) => page.render(secure),
        Err(e) => Page::from(e).render(secure),
    }
}

/// `GET /sso/session`: the signed-in person and what they may do.
async fn session(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, HttpError> {
    let (_, secure) = base_of(&state, &req);
    let (Some(sso), Some(token)) = (state.sso(), session_cookie(&req, secure)) else {
        return Err(HttpError::unauthorized(AuthError::NoSession));
    };
    let ports = state.system_ports();
    let limits = sso.limits;
    let (caller, session) =
        crate::blocking::run(move || session_caller(&*ports, &token, limits, None)).await?;
    let mut body = serde_json::json!({
        "organizationId": caller.organization_id,
        "sessionId": session.id,
        "subject": session.subject,
        "email": session.email,
        "scopes": session.scopes.as_slice().iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "expiresAt": time_text(session.expires_at),
        "idleExpiresAt": time_text(session.idle_expires_at(limits)),
    });
    if let Some(name) = &session.name {
        body["name"] = serde_json::Value::String(name.clone());
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(body))
}

/// `raw` when it is an error code as OAuth 2.0 writes them (lowercase letters
/// and `_`, at most 64).
fn error_code(raw: &str) -> Option<&str> {
    let code = (!raw.is_empty()
        && raw.len() <= 64
        && raw.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
    .then_some(raw);
    code
}

fn time_text(t: chrono::DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// `POST /sso/logout`: the session ended everywhere, its cookie removed.
async fn logout(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, HttpError> {
    check_csrf(&req)?;
    let (_, secure) = base_of(&state, &req);
    if let Some(token) = session_cookie(&req, secure) {
        let ports = state.system_ports();
        crate::blocking::run(move || sign_in::sign_out(&*ports, &token)).await?;
    }
    Ok(HttpResponse::NoContent()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .cookie(session_removed(secure))
        .finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_error_code_is_shown() {
        assert_eq!(error_code("access_denied"), Some("access_denied"));
        assert_eq!(error_code("call +1 555 0100"), None);
        assert_eq!(error_code("<b>"), None);
        assert_eq!(error_code(""), None);
    }
}
