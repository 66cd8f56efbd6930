//! `POST /scim/v2/Users/csv`: a CSV of users (multipart field `file`) read
//! up to [`MAX_CSV_BYTES`] (413 past it), then run as Bulk operations by
//! `equip_scim::provisioning::csv_run` on a write session.

use actix_multipart::{Multipart, MultipartError};
use actix_web::web::BytesMut;
use actix_web::{HttpRequest, HttpResponse};
use equip_scim::csv::MAX_CSV_BYTES;
use equip_scim::error::ScimType;
use equip_scim::provisioning::csv_run::run_csv;
use equip_scim::provisioning::ScimError;
use futures_util::StreamExt as _;

use super::{base_url, bulk_answer, run_in_session};
use crate::error::HttpError;
use crate::scoped::Scoped;

fn too_large() -> ScimError {
    ScimError::new(
        413,
        "file",
        format!("the upload is larger than {MAX_CSV_BYTES} bytes (10 MiB)"),
    )
}

fn multipart_error(e: &MultipartError) -> ScimError {
    match e {
        MultipartError::ContentTypeMissing
        | MultipartError::ContentTypeParse
        | MultipartError::ContentTypeIncompatible
        | MultipartError::BoundaryMissing => ScimError::new(
            415,
            "Content-Type",
            "expected multipart/form-data with the CSV in the field named file",
        ),
        other => ScimError::bad(
            ScimType::InvalidSyntax,
            "request",
            format!("unreadable multipart body: {other}"),
        ),
    }
}

/// The bytes of the field `file`; other fields are read and dropped. At most
/// [`MAX_CSV_BYTES`] are kept, whatever the fields.
async fn read_file(mut form: Multipart) -> Result<BytesMut, ScimError> {
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
        ScimError::bad(
            ScimType::InvalidSyntax,
            "file",
            "the multipart field file (the CSV) is missing",
        )
    })
}

/// `POST /scim/v2/Users/csv`: 200 with the BulkResponse of every row.
pub async fn upload(
    scoped: Scoped,
    req: HttpRequest,
    form: Multipart,
) -> Result<HttpResponse, HttpError> {
    let bytes = read_file(form).await?.freeze();
    let answer = run_in_session(scoped, base_url(&req), move |p| run_csv(p, &bytes)).await?;
    Ok(bulk_answer(answer))
}
