//! The query-string extractor of every operation that takes parameters:
//! [`Query<T>`] reads the request's query string into a parameter struct of
//! `equip_api_types` with [`equip_api_types::query::read`], which takes
//! exactly the parameters the struct documents (its `IntoParams`, the OpenAPI
//! document's list). A refusal is a 400 whose `source` names the parameter.

use std::future::{ready, Ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use equip_api_types::query::{read, QueryError};
use serde::de::DeserializeOwned;
use utoipa::IntoParams;

use crate::error::HttpError;

/// The query string read as `T`.
pub struct Query<T>(pub T);

impl<T> Query<T> {
    /// The parameters.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T: DeserializeOwned + IntoParams> FromRequest for Query<T> {
    type Error = HttpError;
    type Future = Ready<Result<Self, HttpError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(read(req.query_string()).map(Query).map_err(HttpError::from))
    }
}

/// 400 naming the parameter (or `query` for the query string as a whole).
impl From<QueryError> for HttpError {
    fn from(e: QueryError) -> Self {
        Self::invalid(e.source(), e.to_string())
    }
}
