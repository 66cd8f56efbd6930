//! Shared set-up of the black-box HTTP tests: a fresh database per test (SQLite or
//! PostgreSQL), the real application over it, and two organizations with keys,
//! warehouses (owned, shared and granted, shared and not granted) and SKUs.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

/// Generates `mod sqlite` and `mod postgres` with one `#[actix_web::test]` per
/// name, each running the async test function of that name (taking a
/// [`TestApp`]) over a fresh database of that backend. PostgreSQL tests skip
/// (with a message) when PostgreSQL is unreachable outside CI.
#[allow(unused_macros)] // not every test binary uses it
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[actix_web::test]
                async fn $name() {
                    let app = super::TestApp::sqlite().await;
                    super::$name(app).await;
                }
            )*
        }
        mod postgres {
            $(
                #[actix_web::test]
                async fn $name() {
                    let Some(app) = super::TestApp::postgres().await else { return };
                    super::$name(app).await;
                }
            )*
        }
    };
}

pub mod consistency;
pub mod inventory;
pub mod pg_cluster;
pub mod process;
pub mod receiver;
pub mod reminders;
pub mod scim;
pub mod scratch;

use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::ServiceResponse;
use actix_web::http::StatusCode;
use actix_web::test::{self, TestRequest};
use actix_web::web::Bytes;
use chrono::Utc;
use equip_domain::api_key::{Scope, Scopes};
use equip_domain::catalog::Sku;
use equip_domain::ids::{OrganizationId, SkuId, WarehouseId};
use equip_domain::import::ImportBatch;
use equip_domain::location::{Warehouse, WarehouseAddress, WarehouseOwner};
use equip_domain::ports::ApiKeyRepository;
use equip_domain::services::{admin, import};
use equip_http::{AppState, Limits};
use equip_persistence::test_support::TestDatabase;
use equip_persistence::{PoolOptions, Store};
use serde_json::Value;

/// A caller holding one API key.
#[derive(Debug, Clone)]
pub struct Client {
    /// The key, as shown once at creation.
    pub key: String,
}

impl Client {
    /// Adds this client's `Authorization` header.
    pub fn with(&self, req: TestRequest) -> TestRequest {
        req.insert_header(("Authorization", format!("ApiKey {}", self.key)))
    }

    /// GET `path`.
    pub fn get(&self, path: &str) -> TestRequest {
        self.with(TestRequest::get().uri(path))
    }

    /// DELETE `path`.
    pub fn delete(&self, path: &str) -> TestRequest {
        self.with(TestRequest::delete().uri(path))
    }

    /// POST `body` as JSON to `path`.
    pub fn post_json(&self, path: &str, body: &Value) -> TestRequest {
        self.with(TestRequest::post().uri(path)).set_json(body)
    }
}

/// The seeded data.
#[derive(Debug, Clone)]
pub struct World {
    /// Organization A, all scopes.
    pub a: Client,
    /// Organization B, all scopes.
    pub b: Client,
    /// Organization A, only `inventory:read`.
    pub limited: Client,
    /// A revoked key of A.
    pub revoked_key: String,
    pub a_org: OrganizationId,
    pub b_org: OrganizationId,
    /// Owned by A, with an address in Berlin.
    pub a_warehouse: WarehouseId,
    /// Owned by B (Hamburg).
    pub b_warehouse: WarehouseId,
    /// Shared, granted to A (address not configured).
    pub shared_granted: WarehouseId,
    /// Shared, granted to B only.
    pub shared_not_granted: WarehouseId,
    pub a_sku: SkuId,
    pub b_sku: SkuId,
}

/// A response with the parts tests look at.
pub struct Raw {
    pub status: StatusCode,
    pub content_type: Option<String>,
    pub body: Bytes,
    pub allow: Option<String>,
    pub location: Option<String>,
    /// Every header of the response.
    pub headers: actix_web::http::header::HeaderMap,
}

impl Raw {
    /// The header called `name`, as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// The application over a fresh database.
pub struct TestApp {
    pub store: Arc<Store>,
    state: AppState,
    world: World,
    _db: TestDatabase,
}

impl TestApp {
    /// Over a fresh SQLite database.
    pub async fn sqlite() -> Self {
        Self::over(TestDatabase::sqlite())
    }

    /// Over a fresh PostgreSQL database, or `None` (test skipped, with a message)
    /// when PostgreSQL is not reachable outside CI.
    pub async fn postgres() -> Option<Self> {
        TestDatabase::postgres().map(Self::over)
    }

    fn over(db: TestDatabase) -> Self {
        Self::over_with(db, PoolOptions::default(), Limits::default())
    }

    /// Over `db`, with its own pool settings and request limits.
    pub fn over_with(db: TestDatabase, pool: PoolOptions, limits: Limits) -> Self {
        let store = Arc::new(db.store_with(pool));
        let world = seed(&store);
        // As `equip serve` does: on PostgreSQL, keys are answered from
        // memory while change notifications say they are current.
        store.watch_changes().unwrap();
        Self {
            state: AppState::with_write_sessions(Arc::clone(&store)).with_limits(limits),
            store,
            world,
            _db: db,
        }
    }

    /// The same application refusing store calls past `max_wait` of queueing
    /// (`equip serve --max-queue-wait-ms`).
    #[must_use]
    pub fn with_max_queue_wait(mut self, max_wait: Duration) -> Self {
        self.state = self.state.with_max_queue_wait(max_wait);
        self
    }

    /// The same application limiting each API key to `per_second` requests
    /// a second with bursts of twice that (`equip serve --rate-limit`; 0:
    /// off). Without it the tests' keys are not limited.
    #[must_use]
    pub fn with_rate_limit(mut self, per_second: u32) -> Self {
        self.state = self
            .state
            .with_rate_limit(equip_http::RateLimit::per_second(per_second));
        self
    }

    /// The same application accepting webhook URLs on private addresses
    /// (`equip serve --allow-private-webhooks`): the tests' receivers listen
    /// on loopback.
    #[must_use]
    pub fn allowing_private_webhooks(mut self) -> Self {
        self.state = self
            .state
            .with_webhook_addresses(equip_domain::webhook::AddressPolicy {
                allow_private: true,
            });
        self
    }

    /// The same application with SCIM pages of up to `max_results`
    /// (`equip serve --scim-max-results`).
    #[must_use]
    pub fn with_scim_max_results(mut self, max_results: u32) -> Self {
        self.state = self.state.with_scim_max_results(max_results);
        self
    }

    /// The same application taking console sessions (`/sso`, the session
    /// cookie; no provider is called by what the tests send).
    #[must_use]
    pub fn with_sso(mut self) -> Self {
        self.state = self.state.with_sso(equip_http::sso::SsoSupport::new(
            equip_oidc::RelyingParty::new().unwrap(),
            equip_domain::sso::SessionLimits::default(),
        ));
        self
    }

    /// The test database.
    pub fn db(&self) -> &TestDatabase {
        &self._db
    }

    /// The same application with links based on `public_url`.
    #[must_use]
    pub fn with_public_url(mut self, public_url: equip_http::PublicUrl) -> Self {
        self.state = self.state.with_public_url(public_url);
        self
    }

    /// The application behind a real HTTP server on a free loopback port
    /// (for what only a socket shows: bodies not read, `HEAD` without a
    /// body); its address. The server lives as long as the test's runtime.
    pub fn serve(&self) -> String {
        self.serve_with_blocking_threads(4)
    }

    /// [`Self::serve`] with `threads` blocking threads (where store calls
    /// run and queue).
    pub fn serve_with_blocking_threads(&self, threads: usize) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let state = self.state.clone();
        let server = actix_web::HttpServer::new(move || equip_http::app(state.clone()))
            .on_connect(equip_http::client::on_connect)
            .worker_max_blocking_threads(threads)
            .workers(1)
            .disable_signals()
            .listen(listener)
            .unwrap()
            .run();
        actix_web::rt::spawn(server);
        addr
    }

    /// The seeded data.
    pub fn world(&self) -> World {
        self.world.clone()
    }

    /// Sends one request; the JSON body (or `Null` when empty).
    pub async fn call(&self, req: TestRequest) -> (StatusCode, Value) {
        let raw = self.call_raw(req).await;
        let body = if raw.body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&raw.body).unwrap_or_else(|e| {
                panic!(
                    "body is not JSON ({e}): {}",
                    String::from_utf8_lossy(&raw.body)
                )
            })
        };
        (raw.status, body)
    }

    /// Sends one request; status, headers and raw body.
    pub async fn call_raw(&self, req: TestRequest) -> Raw {
        let service = test::init_service(equip_http::app(self.state.clone())).await;
        // An error returned by a middleware (a broken request limit) is
        // answered by actix with the error's response, as here.
        let resp = match test::try_call_service(&service, req.to_request()).await {
            Ok(resp) => resp.map_into_boxed_body(),
            Err(err) => ServiceResponse::new(
                TestRequest::default().to_http_request(),
                err.error_response(),
            ),
        };
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let content_type = header("content-type");
        let allow = header("allow");
        let location = header("location");
        let status = resp.status();
        let headers = resp.headers().clone();
        let body = test::read_body(resp).await;
        Raw {
            status,
            content_type,
            body,
            allow,
            location,
            headers,
        }
    }

    /// Sends all requests at once through one service; their statuses.
    pub async fn call_concurrently(&self, reqs: Vec<TestRequest>) -> Vec<StatusCode> {
        let service = test::init_service(equip_http::app(self.state.clone())).await;
        let calls = reqs
            .into_iter()
            .map(|r| test::call_service(&service, r.to_request()));
        futures_util::future::join_all(calls)
            .await
            .into_iter()
            .map(|r| r.status())
            .collect()
    }
}

fn sku(org: OrganizationId, title: &str) -> Sku {
    Sku {
        id: SkuId::new(),
        organization_id: org,
        title: title.into(),
        category_code: "LAPTOP".into(),
        category_name: "Laptops".into(),
        vendor_code: "LENOVO".into(),
        vendor_name: "Lenovo".into(),
        vendor_sku: "21HM".into(),
    }
}

fn warehouse(owner: WarehouseOwner, name: &str, address: Option<WarehouseAddress>) -> Warehouse {
    Warehouse {
        id: WarehouseId::new(),
        owner,
        name: name.into(),
        address,
    }
}

fn seed(store: &Store) -> World {
    let now = Utc::now();
    let a_org = admin::create_organization(store, "Org A", now).unwrap().id;
    let b_org = admin::create_organization(store, "Org B", now).unwrap().id;
    let key = |org, scopes| admin::issue_api_key(store, org, scopes, None, now).unwrap();
    let a = key(a_org, Scopes::all());
    let b = key(b_org, Scopes::all());
    let limited = key(a_org, Scopes::from_list([Scope::InventoryRead]));
    let revoked = key(a_org, Scopes::all());
    store.revoke_api_key(revoked.record.id, now).unwrap();

    let a_wh = warehouse(
        WarehouseOwner::Organization(a_org),
        "Berlin Central",
        Some(WarehouseAddress {
            street1: Some("Invalidenstraße 1".into()),
            city: Some("Berlin".into()),
            postal_code: Some("10115".into()),
            country_code: Some("DE".into()),
            ..WarehouseAddress::default()
        }),
    );
    let b_wh = warehouse(
        WarehouseOwner::Organization(b_org),
        "Hamburg Port",
        Some(WarehouseAddress {
            city: Some("Hamburg".into()),
            country_code: Some("DE".into()),
            ..WarehouseAddress::default()
        }),
    );
    let shared_a = warehouse(WarehouseOwner::Shared, "Operator EU Hub", None);
    let shared_b = warehouse(WarehouseOwner::Shared, "Operator US Hub", None);
    let a_sku = sku(a_org, "ThinkPad X1 Carbon");
    let b_sku = sku(b_org, "ThinkPad T14");
    let world = World {
        a: Client { key: a.secret },
        b: Client { key: b.secret },
        limited: Client {
            key: limited.secret,
        },
        revoked_key: revoked.secret,
        a_org,
        b_org,
        a_warehouse: a_wh.id,
        b_warehouse: b_wh.id,
        shared_granted: shared_a.id,
        shared_not_granted: shared_b.id,
        a_sku: a_sku.id,
        b_sku: b_sku.id,
    };
    let batch_a = ImportBatch {
        warehouses: vec![a_wh, shared_a],
        skus: vec![a_sku],
        ..ImportBatch::default()
    };
    let batch_b = ImportBatch {
        warehouses: vec![b_wh, shared_b],
        skus: vec![b_sku],
        ..ImportBatch::default()
    };
    import::run_import(store, a_org, &batch_a, &mut |_| {}).unwrap();
    import::run_import(store, b_org, &batch_b, &mut |_| {}).unwrap();
    world
}

/// Revokes the API key whose secret is `secret` (as a client presents it).
pub fn revoke_key(store: &dyn equip_domain::ports::ApiKeyRepository, secret: &str) {
    let presented =
        equip_domain::api_key::PresentedKey::from_header(&format!("ApiKey {secret}")).unwrap();
    let record = store
        .find_api_key_by_prefix(presented.prefix())
        .unwrap()
        .unwrap();
    store.revoke_api_key(record.id, chrono::Utc::now()).unwrap();
}

/// `s` percent-encoded for a query string (unreserved characters kept).
pub fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The status line, headers and everything after them, of one request.
pub fn raw_exchange(addr: &str, request: &str) -> (String, Vec<u8>) {
    let mut conn = std::net::TcpStream::connect(addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    std::io::Write::write_all(&mut conn, request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    std::io::Read::read_to_end(&mut conn, &mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    (
        String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase(),
        raw[split + 4..].to_vec(),
    )
}

/// The repository's root (for its scripts).
pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether this runs in CI (`CI=true`), where nothing may be skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The Python of a test venv that `scripts/<script>` prepares and prints
/// (e.g. `smtp-venv.sh`). `None`, with a message naming `what` the test
/// skips, when it cannot be had outside CI; in CI that fails the test.
pub fn venv_python(script: &str, what: &str) -> Option<std::path::PathBuf> {
    use std::process::{Command, Stdio};
    let out = Command::new("bash")
        .arg(repo_root().join("scripts").join(script))
        .stderr(Stdio::inherit())
        .output();
    let found = match out {
        Ok(o) if o.status.success() => {
            let path = String::from_utf8_lossy(&o.stdout).trim().to_owned();
            Some(std::path::PathBuf::from(path)).filter(|p| p.exists())
        }
        _ => None,
    };
    if found.is_none() {
        assert!(
            !in_ci(),
            "CI: the {what} test venv could not be prepared (scripts/{script})"
        );
        eprintln!(
            "skipping {what} test: its venv could not be prepared \
             (run scripts/{script}; needs python3 and PyPI access)"
        );
    }
    found
}
