//! `POST /scim/v2/Users/csv`: a CSV of users (multipart field `file`) run as
//! Bulk operations. The file is read up to [`MAX_CSV_BYTES`] (413 past it),
//! checked whole (UTF-8, header, at most 50,000 rows) before any row
//! runs, then converted row by row ([`equip_scim::csv`]) and run in chunks of
//! the Bulk limit through the same [`BulkRun`] as `POST /scim/v2/Bulk`. The
//! organization's packages are read once per upload to resolve `package_slug`.

use std::collections::HashMap;

use actix_multipart::{Multipart, MultipartError};
use actix_web::http::StatusCode;
use actix_web::web::BytesMut;
use actix_web::{web, HttpRequest, HttpResponse};
use equip_scim::bulk::{BulkMethod, BulkOperation, MAX_OPERATIONS};
use equip_scim::csv::{CsvRow, CsvUpload, MAX_CSV_BYTES};
use equip_scim::error::ScimType;
use futures_util::StreamExt as _;

use super::bulk::BulkRun;
use super::{bad, base_url, run_in_session};
use crate::auth::Authenticated;
use crate::error::{Area, HttpError};
use crate::state::AppState;

fn too_large() -> HttpError {
    HttpError::new(
        Area::Scim,
        StatusCode::PAYLOAD_TOO_LARGE,
        "file",
        format!("the upload is larger than {MAX_CSV_BYTES} bytes (10 MiB)"),
    )
}

fn multipart_error(e: &MultipartError) -> HttpError {
    match e {
        MultipartError::ContentTypeMissing
        | MultipartError::ContentTypeParse
        | MultipartError::ContentTypeIncompatible
        | MultipartError::BoundaryMissing => HttpError::new(
            Area::Scim,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type",
            "expected multipart/form-data with the CSV in the field named file",
        ),
        other => bad(
            ScimType::InvalidSyntax,
            "request",
            format!("unreadable multipart body: {other}"),
        ),
    }
}

/// The bytes of the field `file`; other fields are read and dropped. At most
/// [`MAX_CSV_BYTES`] are kept, whatever the fields.
async fn read_file(mut form: Multipart) -> Result<BytesMut, HttpError> {
    let mut file: Option<BytesMut> = None;
    let mut total = 0usize;
    while let Some(field) = form.next().await {
        let mut field = field.map_err(|e| multipart_error(&e))?;
        let wanted = field.name() == Some("file") && file.is_none();
        let mut bytes = BytesMut::new();
        while let Some(chunk) = field.next().await {
            let chunk = chunk.map_err(|e| multipart_error(&e))?;
            total += chunk.len();
            if total > MAX_CSV_BYTES {
                return Err(too_large());
            }
            if wanted {
                bytes.extend_from_slice(&chunk);
            }
        }
        if wanted {
            file = Some(bytes);
        }
    }
    file.ok_or_else(|| {
        bad(
            ScimType::InvalidSyntax,
            "file",
            "the multipart field file (the CSV) is missing",
        )
    })
}

/// The method of a converted row (`POST` or `PUT`).
fn method(name: &str) -> BulkMethod {
    BulkMethod::parse(name).unwrap_or(BulkMethod::Post)
}

/// `POST /scim/v2/Users/csv`: 200 with the BulkResponse of every row.
pub async fn upload(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    form: Multipart,
) -> Result<HttpResponse, HttpError> {
    let bytes = read_file(form).await?.freeze();
    let base = base_url(&req);
    let text = run_in_session(&state, key, move |ports, org| {
        let upload = CsvUpload::parse(&bytes).map_err(|e| {
            let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::BAD_REQUEST);
            let err = HttpError::new(Area::Scim, status, "file", e.to_string());
            match e.scim_type() {
                Some(t) => err.with_scim_type(t),
                None => err,
            }
        })?;
        let packages: HashMap<String, String> = ports
            .packages(org)
            .map_err(|e| super::domain(e.into()))?
            .into_iter()
            .map(|p| (p.slug, p.id.to_string()))
            .collect();
        let resolve = |slug: &str| packages.get(slug).cloned();
        let mut bulk = BulkRun::new(ports, org, &base, None).without_references();
        let mut rows = upload.operations(resolve).peekable();
        // Chunks of the Bulk limit: each chunk's operations are converted
        // and then run, so at most one chunk of converted rows is in memory.
        while rows.peek().is_some() {
            let chunk: Vec<_> = rows.by_ref().take(MAX_OPERATIONS).collect();
            for row in chunk {
                match row {
                    CsvRow::Operation(op) => bulk.execute(BulkOperation {
                        method: method(op.method),
                        bulk_id: Some(op.bulk_id),
                        path: op.path,
                        version: None,
                        data: Some(op.data),
                    }),
                    CsvRow::Invalid(row) => {
                        let error = row.error_body();
                        bulk.record_failure(method(row.method), Some(row.bulk_id), error);
                    }
                }
            }
        }
        Ok(bulk.finish())
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type(equip_scim::schemas::MEDIA_TYPE)
        .body(text))
}
