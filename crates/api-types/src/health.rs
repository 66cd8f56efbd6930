//! The answers of `GET /healthz` and `GET /readyz`.

use serde::Serialize;
use utoipa::ToSchema;

/// `{"status": "ok"}`: the process serves requests.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Live {
    #[schema(inline)]
    status: LiveStatus,
}

/// `{"status": "ready"}`: the database answers and can be written.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Ready {
    #[schema(inline)]
    status: ReadyStatus,
}

// The one status of each answer (undocumented: a doc comment would become
// the schema's description).
#[derive(Debug, Serialize, ToSchema)]
enum LiveStatus {
    #[serde(rename = "ok")]
    Ok,
}

#[derive(Debug, Serialize, ToSchema)]
enum ReadyStatus {
    #[serde(rename = "ready")]
    Ready,
}

/// The answer of `/healthz`.
pub const LIVE: Live = Live {
    status: LiveStatus::Ok,
};

/// The answer of `/readyz` when ready.
pub const READY: Ready = Ready {
    status: ReadyStatus::Ready,
};
