//! equip as an OpenID Connect relying party (docs/sso.md), over the
//! `openidconnect` crate: the provider's discovery document and keys (kept
//! for an hour, read again when an ID token names a key they do not have:
//! the provider rotated its keys), the authorization request (Authorization
//! Code with PKCE S256, `state` and `nonce`), and the code's exchange, whose
//! ID token's signature, issuer, audience, expiry and nonce the crate
//! checks. What it returns is the domain's [`ProviderIdentity`]; what to do
//! with it (the person's scopes, the session) is the domain's.
//!
//! Every call is blocking (the `ureq` client): run it off the async workers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use equip_domain::sso::{ProviderIdentity, SsoConfig};
use openidconnect::core::{
    CoreAuthDisplay, CoreAuthPrompt, CoreAuthenticationFlow, CoreErrorResponseType,
    CoreGenderClaim, CoreJsonWebKey, CoreJweContentEncryptionAlgorithm, CoreJwsSigningAlgorithm,
    CoreProviderMetadata, CoreRevocableToken, CoreRevocationErrorResponse,
    CoreTokenIntrospectionResponse, CoreTokenType,
};
use openidconnect::{
    AdditionalClaims, AuthorizationCode, Client, ClientId, ClientSecret, CsrfToken,
    EmptyExtraTokenFields, EndpointMaybeSet, EndpointNotSet, EndpointSet, IdTokenFields, IssuerUrl,
    Nonce, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope, StandardErrorResponse,
    StandardTokenResponse, TokenResponse,
};
use serde::{Deserialize, Serialize};

/// How long a provider's discovery document and keys are used before they
/// are read again.
const METADATA_LIFETIME: Duration = Duration::from_secs(3600);
/// Keys are read again for an unknown key id at most this often (only a
/// sign-in the provider completed can ask it: it needs a code and a state).
const REFRESH_AT_MOST_EVERY: Duration = Duration::from_secs(1);
/// How far the provider's clock may be ahead of or behind equip's.
const CLOCK_SKEW: chrono::TimeDelta = chrono::TimeDelta::seconds(60);
/// Each call to the provider gives up after this long.
const PROVIDER_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a sign-in could not go on with the provider.
#[derive(Debug, thiserror::Error)]
pub enum OidcError {
    /// The provider could not be reached, or answered something that is not
    /// OpenID Connect (502).
    #[error("the identity provider could not be reached or answered unexpectedly: {0}")]
    Provider(String),
    /// The provider refused the code (expired, used, or the client's
    /// credentials are wrong) (502: the person can only try again).
    #[error("the identity provider refused the sign-in: {0}")]
    Refused(String),
    /// The ID token failed a check: signature, issuer, audience, expiry or
    /// nonce (401).
    #[error("the identity provider's answer could not be verified: {0}")]
    Unverified(String),
    /// The configuration cannot be used (a URL equip builds is not one).
    #[error("the sign-in configuration cannot be used: {0}")]
    Config(String),
}

/// A call to the provider that failed before it answered.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TransportError(String);

/// One request to the provider over equip's `ureq` agent (native TLS, no
/// redirects, 10 s): the `SyncHttpClient` of `openidconnect`. A 4xx or 5xx
/// answer is handed back as an answer (the token endpoint's error body says
/// why it refused a code).
fn send(
    agent: &ureq::Agent,
    request: &openidconnect::HttpRequest,
) -> Result<openidconnect::HttpResponse, TransportError> {
    use openidconnect::http;
    use std::io::Read;
    let url = request.uri().to_string();
    let mut call = agent.request(request.method().as_str(), &url);
    for (name, value) in request.headers() {
        let value = value
            .to_str()
            .map_err(|_| TransportError(format!("header {name} is not text")))?;
        call = call.set(name.as_str(), value);
    }
    let answered = if request.method() == http::Method::GET {
        call.call()
    } else {
        call.send_bytes(request.body())
    };
    let response = match answered {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => return Err(TransportError(e.to_string())),
    };
    let mut builder = http::Response::builder().status(response.status());
    if let Some(content_type) = response.header("content-type") {
        builder = builder.header(http::header::CONTENT_TYPE, content_type);
    }
    let mut body = Vec::new();
    response
        .into_reader()
        .take(1 << 20)
        .read_to_end(&mut body)
        .map_err(|e| TransportError(e.to_string()))?;
    builder
        .body(body)
        .map_err(|e| TransportError(e.to_string()))
}

/// The claims of an ID token besides the standard ones, by name (the groups
/// claim's name is the operator's choice).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
struct OtherClaims(HashMap<String, serde_json::Value>);
impl AdditionalClaims for OtherClaims {}

type IdFields = IdTokenFields<
    OtherClaims,
    EmptyExtraTokenFields,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm,
>;
type TokenAnswer = StandardTokenResponse<IdFields, CoreTokenType>;
/// The client as discovery makes it: an authorization URL, a token URL and
/// a userinfo URL that may or may not be set.
type OidcClient = Client<
    OtherClaims,
    CoreAuthDisplay,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJsonWebKey,
    CoreAuthPrompt,
    StandardErrorResponse<CoreErrorResponseType>,
    TokenAnswer,
    CoreTokenIntrospectionResponse,
    CoreRevocableToken,
    CoreRevocationErrorResponse,
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// A sign-in begun: where to send the browser, and what the callback needs.
#[derive(Debug)]
pub struct Authorization {
    /// The provider's authorization URL with every parameter.
    pub url: String,
    /// The `state` sent (the store keeps its hash).
    pub state: String,
    /// The `nonce` the ID token must carry.
    pub nonce: String,
    /// The PKCE code verifier.
    pub pkce_verifier: String,
}

struct Cached {
    metadata: CoreProviderMetadata,
    fetched: Instant,
}

/// The relying party: an HTTP client and the providers' documents it read.
/// Cheap to clone; shared by every request of a process.
#[derive(Clone)]
pub struct RelyingParty {
    agent: ureq::Agent,
    providers: Arc<Mutex<HashMap<String, Cached>>>,
}

impl std::fmt::Debug for RelyingParty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelyingParty").finish_non_exhaustive()
    }
}

impl RelyingParty {
    /// A relying party whose calls time out after 10 s and never follow a
    /// redirect.
    ///
    /// # Errors
    /// [`OidcError::Config`] when the system's TLS cannot be set up.
    pub fn new() -> Result<Self, OidcError> {
        let tls = native_tls()?;
        let agent = ureq::AgentBuilder::new()
            .tls_connector(Arc::new(tls))
            .redirects(0)
            .timeout(PROVIDER_TIMEOUT)
            .build();
        Ok(Self {
            agent,
            providers: Arc::new(Mutex::new(HashMap::new())),
        })
    }

    /// The HTTP client `openidconnect` calls the provider with.
    fn http(
        &self,
    ) -> impl Fn(openidconnect::HttpRequest) -> Result<openidconnect::HttpResponse, TransportError> + '_
    {
        move |request| send(&self.agent, &request)
    }

    /// Reads the issuer's discovery document and keys now (`equip org sso
    /// set` checks an issuer with it); the scopes it says it supports.
    ///
    /// # Errors
    /// [`OidcError::Provider`] when it cannot be read or is not a provider's.
    pub fn discover(&self, issuer: &str) -> Result<Vec<String>, OidcError> {
        let metadata = self.metadata(issuer, true)?;
        Ok(metadata
            .scopes_supported()
            .map(|s| s.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default())
    }

    /// The provider's documents, from memory when younger than an hour (or
    /// `fresh`: read now).
    fn metadata(&self, issuer: &str, fresh: bool) -> Result<CoreProviderMetadata, OidcError> {
        {
            let providers = self
                .providers
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(cached) = providers.get(issuer) {
                let age = cached.fetched.elapsed();
                let wanted_fresh = fresh && age >= REFRESH_AT_MOST_EVERY;
                if age < METADATA_LIFETIME && !wanted_fresh {
                    return Ok(cached.metadata.clone());
                }
            }
        }
        let url =
            IssuerUrl::new(issuer.to_owned()).map_err(|e| OidcError::Config(e.to_string()))?;
        let metadata = CoreProviderMetadata::discover(&url, &self.http())
            .map_err(|e| OidcError::Provider(chain(&e)))?;
        self.providers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                issuer.to_owned(),
                Cached {
                    metadata: metadata.clone(),
                    fetched: Instant::now(),
                },
            );
        Ok(metadata)
    }

    fn client(
        &self,
        config: &SsoConfig,
        redirect_uri: &str,
        fresh: bool,
    ) -> Result<OidcClient, OidcError> {
        let metadata = self.metadata(&config.issuer, fresh)?;
        let redirect = RedirectUrl::new(redirect_uri.to_owned())
            .map_err(|e| OidcError::Config(e.to_string()))?;
        Ok(OidcClient::from_provider_metadata(
            metadata,
            ClientId::new(config.client_id.clone()),
            Some(ClientSecret::new(config.client_secret.expose().to_owned())),
        )
        .set_redirect_uri(redirect))
    }

    /// Begins a sign-in: the provider's authorization URL, with a fresh
    /// `state`, `nonce` and PKCE challenge (S256).
    ///
    /// # Errors
    /// [`OidcError::Provider`] when the provider's documents cannot be read.
    pub fn authorize(
        &self,
        config: &SsoConfig,
        redirect_uri: &str,
    ) -> Result<Authorization, OidcError> {
        let client = self.client(config, redirect_uri, false)?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .set_pkce_challenge(challenge);
        for scope in config.scopes.iter().filter(|s| s.as_str() != "openid") {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state, nonce) = request.url();
        Ok(Authorization {
            url: url.to_string(),
            state: state.secret().clone(),
            nonce: nonce.secret().clone(),
            pkce_verifier: verifier.secret().clone(),
        })
    }

    /// Finishes a sign-in: exchanges `code` (with the PKCE verifier) at the
    /// token endpoint, checks the ID token (signature against the provider's
    /// keys, read again once when it names an unknown key; issuer; audience;
    /// expiry with a minute's allowance; `nonce`) and answers who signed in,
    /// with their groups from the configured claim (from userinfo when the
    /// ID token has none and the provider has a userinfo endpoint).
    ///
    /// # Errors
    /// [`OidcError::Refused`] when the provider refuses the code,
    /// [`OidcError::Unverified`] when the ID token fails a check,
    /// [`OidcError::Provider`] when the provider cannot be reached.
    pub fn finish(
        &self,
        config: &SsoConfig,
        redirect_uri: &str,
        code: &str,
        pkce_verifier: &str,
        nonce: &str,
    ) -> Result<ProviderIdentity, OidcError> {
        let client = self.client(config, redirect_uri, false)?;
        let answer = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| OidcError::Provider(e.to_string()))?
            .set_pkce_verifier(PkceCodeVerifier::new(pkce_verifier.to_owned()))
            .request(&self.http())
            .map_err(|e| match e {
                openidconnect::RequestTokenError::ServerResponse(r) => {
                    OidcError::Refused(r.error().to_string())
                }
                other => OidcError::Provider(chain(&other)),
            })?;
        let token = answer
            .id_token()
            .ok_or_else(|| OidcError::Unverified("the answer has no ID token".into()))?;
        let nonce = Nonce::new(nonce.to_owned());
        let verified = {
            let verifier = client
                .id_token_verifier()
                .set_time_fn(|| chrono::Utc::now() - CLOCK_SKEW);
            match token.claims(&verifier, &nonce) {
                Ok(claims) => Ok(claims.clone()),
                Err(openidconnect::ClaimsVerificationError::SignatureVerification(
                    openidconnect::SignatureVerificationError::NoMatchingKey,
                )) => Err(None),
                Err(e) => Err(Some(e)),
            }
        };
        let (claims, client) = match verified {
            Ok(claims) => (claims, client),
            // A key the provider's keys do not have: it may have rotated
            // them. Read them again and check once more.
            Err(None) => {
                let client = self.client(config, redirect_uri, true)?;
                let claims = {
                    let verifier = client
                        .id_token_verifier()
                        .set_time_fn(|| chrono::Utc::now() - CLOCK_SKEW);
                    token
                        .claims(&verifier, &nonce)
                        .map_err(|e| OidcError::Unverified(e.to_string()))?
                        .clone()
                };
                (claims, client)
            }
            Err(Some(e)) => return Err(OidcError::Unverified(e.to_string())),
        };
        check_times(
            claims.issue_time(),
            claims.additional_claims().0.get("nbf"),
            chrono::Utc::now(),
        )
        .map_err(OidcError::Unverified)?;
        let mut identity = ProviderIdentity {
            subject: claims.subject().to_string(),
            email: claims.email().map(|e| e.to_string()),
            preferred_username: claims.preferred_username().map(|u| u.to_string()),
            name: claims
                .name()
                .and_then(|n| n.get(None))
                .map(|n| n.to_string()),
            groups: groups_of(&claims.additional_claims().0, &config.groups_claim),
        };
        let has_claim = claims
            .additional_claims()
            .0
            .contains_key(&config.groups_claim);
        if !has_claim {
            self.groups_from_userinfo(&client, &answer, config, &mut identity);
        }
        Ok(identity)
    }

    /// The groups claim from the userinfo endpoint, when the provider has
    /// one and the ID token had no groups claim (a failure leaves the
    /// person without groups: refused, with the page saying why).
    fn groups_from_userinfo(
        &self,
        client: &OidcClient,
        answer: &TokenAnswer,
        config: &SsoConfig,
        identity: &mut ProviderIdentity,
    ) {
        use openidconnect::OAuth2TokenResponse;
        let Ok(request) = client.user_info(answer.access_token().clone(), None) else {
            return;
        };
        let info: Result<openidconnect::UserInfoClaims<OtherClaims, CoreGenderClaim>, _> =
            request.request(&self.http());
        match info {
            Ok(info) if info.subject().as_str() == identity.subject => {
                identity.groups = groups_of(&info.additional_claims().0, &config.groups_claim);
            }
            Ok(_) => tracing::warn!("the provider's userinfo names another subject; ignored"),
            Err(e) => {
                tracing::warn!(error = %chain(&e), "the provider's userinfo could not be read")
            }
        }
    }
}

/// The groups in claim `name`: an array of strings (other values ignored),
/// or one string.
fn groups_of(claims: &HashMap<String, serde_json::Value>, name: &str) -> Vec<String> {
    match claims.get(name) {
        Some(serde_json::Value::Array(values)) => values
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        Some(serde_json::Value::String(one)) => vec![one.clone()],
        _ => Vec::new(),
    }
}

fn native_tls() -> Result<native_tls::TlsConnector, OidcError> {
    native_tls::TlsConnector::new().map_err(|e| OidcError::Config(e.to_string()))
}

/// An error with its causes, on one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The ID token's times against equip's clock `now`: issued (`iat`) no
/// later than [`CLOCK_SKEW`] from now, and valid (`nbf`, when the token has
/// one; RFC 7519 §4.1.5) from no later than that either. (The expiry is
/// checked by the verifier with the same allowance.) A token the provider
/// says it issued in the future is refused, not accepted early.
///
/// # Errors
/// Which check failed, for the log.
fn check_times(
    issued: chrono::DateTime<chrono::Utc>,
    not_before: Option<&serde_json::Value>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), String> {
    let latest = now + CLOCK_SKEW;
    if issued > latest {
        return Err(format!(
            "the ID token was issued in the future (iat {issued}, more than {} s ahead)",
            CLOCK_SKEW.num_seconds()
        ));
    }
    let Some(nbf) = not_before else {
        return Ok(());
    };
    let nbf = nbf
        .as_f64()
        .filter(|n| n.is_finite())
        .and_then(|n| {
            // Whole seconds; a fraction (allowed by NumericDate) rounds down.
            #[allow(clippy::cast_possible_truncation)]
            let secs = n.floor() as i64;
            chrono::DateTime::from_timestamp(secs, 0)
        })
        .ok_or_else(|| "the ID token's nbf is not a time".to_owned())?;
    if nbf > latest {
        return Err(format!(
            "the ID token is not valid yet (nbf {nbf}, more than {} s ahead)",
            CLOCK_SKEW.num_seconds()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn groups_are_read_from_an_array_or_one_string() {
        let mut claims = HashMap::new();
        claims.insert(
            "groups".into(),
            serde_json::json!(["IT Admins", 7, "Readers"]),
        );
        claims.insert("role".into(), serde_json::json!("Admins"));
        assert_eq!(groups_of(&claims, "groups"), ["IT Admins", "Readers"]);
        assert_eq!(groups_of(&claims, "role"), ["Admins"]);
        assert!(groups_of(&claims, "missing").is_empty());
    }

    #[test]
    fn times_ahead_are_allowed_the_clock_skew_and_no_more() {
        use chrono::TimeZone;
        let now = chrono::Utc.with_ymd_and_hms(2026, 12, 2, 14, 0, 0).unwrap();
        let secs = |s: i64| now + chrono::TimeDelta::seconds(s);
        let at = |s: i64| serde_json::json!(secs(s).timestamp());
        assert_eq!(check_times(now, None, now), Ok(()));
        assert_eq!(check_times(secs(-3600), Some(&at(-3600)), now), Ok(()));
        // A minute of skew either way is allowed...
        assert_eq!(check_times(secs(60), Some(&at(60)), now), Ok(()));
        // ...and no more.
        let iat = check_times(secs(61), None, now).unwrap_err();
        assert!(iat.contains("issued in the future"), "{iat}");
        let two_hours = check_times(secs(7200), None, now).unwrap_err();
        assert!(two_hours.contains("iat"), "{two_hours}");
        let nbf = check_times(now, Some(&at(61)), now).unwrap_err();
        assert!(nbf.contains("not valid yet"), "{nbf}");
        // A fraction of a second is allowed by NumericDate.
        let fraction = serde_json::json!(secs(30).timestamp() as f64 + 0.5);
        assert_eq!(check_times(now, Some(&fraction), now), Ok(()));
        for bad in [serde_json::json!("soon"), serde_json::json!(null)] {
            assert!(check_times(now, Some(&bad), now).is_err(), "{bad}");
        }
    }
}
