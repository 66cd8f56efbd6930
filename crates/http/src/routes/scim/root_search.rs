//! `POST /scim/v2/.search`: a search at the root, over users then groups
//! (`equip_scim::provisioning::search`).

use actix_web::{web, HttpRequest, HttpResponse};
use equip_scim::list::ListInputs;
use equip_scim::provisioning::search::RootSearch;
use equip_scim::provisioning::ScimError;
use serde_json::Value;

use super::{base_url, run, scim_text};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// `POST /scim/v2/.search`.
pub async fn search(
    scoped: Scoped,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let inputs = ListInputs::from_search_body(&body).map_err(ScimError::from)?;
    let cap = scoped.state().scim_max_results();
    let asked = inputs.count_over(cap);
    let search = RootSearch::new(inputs, cap)?;
    if let Some(asked) = asked {
        scoped
            .state()
            .scim_count_over_cap(scoped.organization(), asked);
    }
    let body = run(scoped, base_url(&req), move |p| p.search_all(search)).await?;
    Ok(scim_text(body))
}
