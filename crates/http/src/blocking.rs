//! Running synchronous store calls off the async workers.

use actix_web::web;
use equip_domain::DomainError;

use crate::error::{Area, HttpError};

/// Runs `f` on actix's blocking thread pool and maps a domain error to the
/// area's HTTP error.
pub async fn run<T, F>(area: Area, f: F) -> Result<T, HttpError>
where
    F: FnOnce() -> Result<T, DomainError> + Send + 'static,
    T: Send + 'static,
{
    match web::block(f).await {
        Ok(result) => result.map_err(|e| HttpError::from_domain(area, e)),
        Err(e) => Err(HttpError::internal(area, &e)),
    }
}
