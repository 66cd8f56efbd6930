#![allow(clippy::unwrap_used)]

use super::*;
use crate::api_key::Scope;

fn groups(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

fn role(group: &str, scopes: &[Scope]) -> RoleMapping {
    RoleMapping::new(group, Scopes::from_list(scopes.iter().copied())).unwrap()
}

fn at(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap()
}

#[test]
fn issuers_must_be_https_except_on_this_machine() {
    assert_eq!(
        check_issuer(" https://example.okta.com ").unwrap(),
        "https://example.okta.com"
    );
    assert!(check_issuer("https://login.microsoftonline.com/tenant/v2.0").is_ok());
    for loopback in [
        "http://127.0.0.1:4000",
        "http://localhost:9/x",
        "http://[::1]:1",
    ] {
        assert!(check_issuer(loopback).is_ok(), "{loopback}");
    }
    for bad in [
        "http://idp.example.com",
        "ftp://idp.example.com",
        "https://idp.example.com/?tenant=1",
        "https://idp.example.com/#x",
        "https://user:pw@idp.example.com",
        "idp.example.com",
        "",
    ] {
        let err = check_issuer(bad).unwrap_err();
        assert!(
            matches!(&err, DomainError::Invalid { field, .. } if field == "issuer"),
            "{bad}: {err}"
        );
    }
}

#[test]
fn a_configuration_always_asks_openid_and_defaults_its_scopes_and_claim() {
    let org = OrganizationId::new();
    let secret = || ClientSecret::new(" s3cret\n").unwrap();
    let c = SsoConfig::new(
        org,
        "https://idp.example.com",
        " equip ",
        secret(),
        &[],
        None,
        at(0),
    )
    .unwrap();
    assert_eq!(c.scopes, groups(&["openid", "email", "profile", "groups"]));
    assert_eq!(c.groups_claim, "groups");
    assert_eq!(c.client_id, "equip");
    assert_eq!(c.client_secret.expose(), "s3cret");
    let c = SsoConfig::new(
        org,
        "https://idp.example.com",
        "equip",
        secret(),
        &groups(&["email", "email", "roles"]),
        Some("roles"),
        at(0),
    )
    .unwrap();
    assert_eq!(c.scopes, groups(&["openid", "email", "roles"]));
    assert_eq!(c.groups_claim, "roles");
    assert!(SsoConfig::new(org, "https://i", "", secret(), &[], None, at(0)).is_err());
    assert!(SsoConfig::new(
        org,
        "https://i",
        "c",
        secret(),
        &groups(&["a b"]),
        None,
        at(0)
    )
    .is_err());
    assert!(ClientSecret::new("  \n").is_err());
    assert!(!format!("{:?}", secret()).contains("s3cret"));
}

#[test]
fn a_person_gets_the_union_of_their_mapped_groups_and_nothing_without_one() {
    let roles = [
        role("IT Admins", &[Scope::InventoryRead, Scope::InventoryWrite]),
        role("Readers", &[Scope::InventoryRead, Scope::OrdersRead]),
    ];
    assert_eq!(
        scopes_for(&groups(&["Sales", "Readers", "IT Admins"]), &roles),
        Some(Scopes::from_list([
            Scope::InventoryRead,
            Scope::InventoryWrite,
            Scope::OrdersRead
        ]))
    );
    assert_eq!(
        scopes_for(&groups(&["Readers"]), &roles),
        Some(Scopes::from_list([Scope::InventoryRead, Scope::OrdersRead]))
    );
    assert_eq!(scopes_for(&groups(&["Sales"]), &roles), None);
    assert_eq!(scopes_for(&[], &roles), None);
    // Matched exactly: Entra ID's ids and Okta's names are not folded.
    assert_eq!(scopes_for(&groups(&["it admins"]), &roles), None);
    assert!(RoleMapping::new("Empty", Scopes::default()).is_err());
    assert!(RoleMapping::new("  ", Scopes::all()).is_err());
}

#[test]
fn the_email_shown_falls_back_to_the_user_name_then_the_subject() {
    let mut id = ProviderIdentity {
        subject: "sub-1".into(),
        ..ProviderIdentity::default()
    };
    assert_eq!(id.shown_email(), "sub-1");
    id.preferred_username = Some("ana@contoso.onmicrosoft.com".into());
    assert_eq!(id.shown_email(), "ana@contoso.onmicrosoft.com");
    id.email = Some("ana@example.com".into());
    assert_eq!(id.shown_email(), "ana@example.com");
}

#[test]
fn groups_is_asked_by_default_only_of_a_provider_that_lists_it() {
    let okta = groups(&["openid", "email", "profile", "groups", "offline_access"]);
    assert_eq!(
        default_scopes(&okta),
        groups(&["openid", "email", "profile", "groups"])
    );
    let entra = groups(&["openid", "profile", "email", "offline_access"]);
    assert_eq!(
        default_scopes(&entra),
        groups(&["openid", "email", "profile"])
    );
    assert_eq!(default_scopes(&[]), groups(&["openid", "email", "profile"]));
}

#[test]
fn a_session_ends_when_idle_or_too_old_and_is_touched_once_a_minute() {
    let limits = SessionLimits::new(Duration::hours(8), Duration::days(7)).unwrap();
    let id = ProviderIdentity {
        subject: "s".into(),
        email: Some("a@example.com".into()),
        ..ProviderIdentity::default()
    };
    let (mut session, token) =
        Session::open(OrganizationId::new(), &id, Scopes::all(), at(0), limits).unwrap();
    assert_eq!(session.token_hash, hash_token(token.expose()));
    assert!(looks_like_token(token.expose()));
    assert!(!format!("{token:?}").contains(token.expose()));
    assert_eq!(session.expires_at, at(7 * 86_400));
    assert_eq!(
        session.verdict(at(30), limits),
        SessionVerdict::Live { touch: false }
    );
    assert_eq!(
        session.verdict(at(60), limits),
        SessionVerdict::Live { touch: true }
    );
    assert_eq!(
        session.verdict(at(8 * 3600), limits),
        SessionVerdict::Expired
    );
    // Used every few hours, it still ends after seven days.
    session.last_seen_at = at(7 * 86_400 - 120);
    assert_eq!(
        session.verdict(at(7 * 86_400 - 1), limits),
        SessionVerdict::Live { touch: true }
    );
    assert_eq!(
        session.verdict(at(7 * 86_400), limits),
        SessionVerdict::Expired
    );
    assert_eq!(session.idle_expires_at(limits), at(7 * 86_400));
    assert!(SessionLimits::new(Duration::zero(), Duration::days(1)).is_err());
    // A short idle timeout records uses often enough that a session in use
    // never idles out.
    let short = SessionLimits::new(Duration::seconds(4), Duration::days(1)).unwrap();
    assert_eq!(Session::touch_every(short), Duration::seconds(1));
    session.last_seen_at = at(0);
    session.expires_at = at(86_400);
    assert_eq!(
        session.verdict(at(1), short),
        SessionVerdict::Live { touch: true }
    );
    assert_eq!(
        session.verdict(at(3), short),
        SessionVerdict::Live { touch: true }
    );
    assert_eq!(session.verdict(at(4), short), SessionVerdict::Expired);
}

#[test]
fn two_sessions_have_different_tokens() {
    let id = ProviderIdentity {
        subject: "s".into(),
        ..ProviderIdentity::default()
    };
    let limits = SessionLimits::default();
    let org = OrganizationId::new();
    let (a, ta) = Session::open(org, &id, Scopes::all(), at(0), limits).unwrap();
    let (b, tb) = Session::open(org, &id, Scopes::all(), at(0), limits).unwrap();
    assert_ne!(ta.expose(), tb.expose());
    assert_ne!(a.id, b.id);
}

#[test]
fn an_attempt_lives_ten_minutes() {
    let attempt = LoginAttempt {
        state_hash: hash_token("state"),
        organization_id: OrganizationId::new(),
        nonce: "n".into(),
        pkce_verifier: "v".into(),
        next: None,
        created_at: at(0),
    };
    assert!(!attempt.expired(at(599)));
    assert!(attempt.expired(at(600)));
    assert_eq!(LoginAttempt::cutoff(at(600)), at(0));
}

#[test]
fn a_sign_in_returns_only_to_the_console() {
    assert_eq!(
        next_path(Some("/console/#/items/1")).as_deref(),
        Some("/console/#/items/1")
    );
    assert_eq!(
        next_path(Some("/console/?q=a..b#/x")).as_deref(),
        Some("/console/?q=a..b#/x")
    );
    for bad in [
        "https://evil.example/console/",
        "//evil.example/console/",
        "/console//evil.example",
        "/console/\\evil",
        "/console/../api/v1/inventory",
        "/console/./../sso/x/login",
        "/console/%2e%2e/api/v1",
        "/api/v1/inventory",
        "/console",
        "",
    ] {
        assert_eq!(next_path(Some(bad)), None, "{bad}");
    }
    assert_eq!(next_path(None), None);
}
