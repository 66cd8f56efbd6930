//! [`ApiKeyRepository`] for [`Store`].

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use equip_domain::api_key::ApiKey;
use equip_domain::error::StoreResult;
use equip_domain::ids::{ApiKeyId, OrganizationId};
use equip_domain::ports::ApiKeyRepository;
use equip_domain::StoreError;

use crate::connection::on_inner;
use crate::models::{db_time, ApiKeyRow};
use crate::schema::api_keys;

use crate::store::Store;

impl ApiKeyRepository for Store {
    fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()> {
        let row = ApiKeyRow::from(key);
        let inserted = self.with("apiKey", "an API key with this prefix or id exists", |c| {
            diesel::insert_into(api_keys::table)
                .values(&row)
                .execute(c)?;
            Ok(())
        });
        self.keys_changed();
        inserted
    }

    fn find_api_key_by_prefix(&self, prefix: &str) -> StoreResult<Option<ApiKey>> {
        if let Some(key) = self.memo.key(prefix) {
            return Ok(Some(key));
        }
        let ticket = self.memo.ticket();
        let found = self.read("apiKey", |c| {
            // On the backend's own connection: through the multi-backend
            // connection this statement was prepared again on every request
            // (it runs on every authenticated request). No `.first()`: SQLite
            // prepares a statement with a bound `LIMIT` again each time it is
            // rebound; the prefix is unique anyway.
            let mut rows: Vec<ApiKeyRow> = on_inner!(c, |c| api_keys::table
                .filter(api_keys::prefix.eq(prefix))
                .select(ApiKeyRow::as_select())
                .load(c))?;
            rows.pop().map(ApiKeyRow::into_domain).transpose()
        })?;
        if let (Some(ticket), Some(key)) = (ticket, &found) {
            self.memo.keep_key(ticket, key);
        }
        Ok(found)
    }

    fn find_api_key(
        &self,
        organization: OrganizationId,
        id: ApiKeyId,
    ) -> StoreResult<Option<ApiKey>> {
        // Not from the key memory: it is kept by prefix for the gate, and
        // this read is rare (`GET /api/v1/api-key`).
        let (org, id) = (organization.to_string(), id.to_string());
        self.read("apiKey", |c| {
            api_keys::table
                .filter(api_keys::id.eq(&id))
                .filter(api_keys::organization_id.eq(&org))
                .select(ApiKeyRow::as_select())
                .first(c)
                .optional()?
                .map(ApiKeyRow::into_domain)
                .transpose()
        })
    }

    fn list_api_keys(&self, organization: OrganizationId) -> StoreResult<Vec<ApiKey>> {
        let org = organization.to_string();
        self.read("apiKey", |c| {
            api_keys::table
                .filter(api_keys::organization_id.eq(&org))
                .select(ApiKeyRow::as_select())
                .load(c)?
                .into_iter()
                .map(ApiKeyRow::into_domain)
                .collect()
        })
    }

    fn revoke_api_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> StoreResult<()> {
        let id = id.to_string();
        let found = self.with("apiKey", "", |c| {
            // Only an unrevoked key changes, so the first revocation time stays.
            let changed = diesel::update(
                api_keys::table
                    .filter(api_keys::id.eq(&id))
                    .filter(api_keys::revoked_at.is_null()),
            )
            .set(api_keys::revoked_at.eq(Some(db_time(at))))
            .execute(c)?;
            if changed > 0 {
                return Ok(true);
            }
            let exists: i64 = api_keys::table
                .filter(api_keys::id.eq(&id))
                .count()
                .get_result(c)?;
            Ok(exists > 0)
        });
        self.keys_changed();
        if found? {
            Ok(())
        } else {
            Err(StoreError::NotFound { entity: "apiKey" })
        }
    }
}
