//! Rows of organizations and their API keys.

use super::*;
use crate::schema::{api_keys, organizations};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = organizations, treat_none_as_default_value = false)]
pub(crate) struct OrganizationRow {
    pub id: String,
    pub name: String,
    pub created_at: NaiveDateTime,
}

impl From<&Organization> for OrganizationRow {
    fn from(o: &Organization) -> Self {
        Self {
            id: o.id.to_string(),
            name: o.name.as_str().to_owned(),
            created_at: db_time(o.created_at),
        }
    }
}

impl OrganizationRow {
    pub(crate) fn into_domain(self) -> DbResult<Organization> {
        Ok(Organization {
            id: parse_id(&self.id)?,
            name: OrganizationName::parse(&self.name)
                .map_err(|e| DbError::corrupt(e.to_string()))?,
            created_at: utc(self.created_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = api_keys, treat_none_as_default_value = false)]
pub(crate) struct ApiKeyRow {
    pub id: String,
    pub organization_id: String,
    pub prefix: String,
    pub hash: String,
    pub scopes: String,
    pub label: Option<String>,
    pub created_at: NaiveDateTime,
    pub revoked_at: Option<NaiveDateTime>,
}

impl From<&ApiKey> for ApiKeyRow {
    fn from(k: &ApiKey) -> Self {
        Self {
            id: k.id.to_string(),
            organization_id: k.organization_id.to_string(),
            prefix: k.prefix.clone(),
            hash: k.hash.clone(),
            scopes: k.scopes.to_storage(),
            label: k.label.clone(),
            created_at: db_time(k.created_at),
            revoked_at: k.revoked_at.map(db_time),
        }
    }
}

impl ApiKeyRow {
    pub(crate) fn into_domain(self) -> DbResult<ApiKey> {
        Ok(ApiKey {
            id: parse_id::<ApiKeyId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            prefix: self.prefix,
            hash: self.hash,
            scopes: Scopes::parse_list(&self.scopes)
                .map_err(|e| DbError::corrupt(e.to_string()))?,
            label: self.label,
            created_at: utc(self.created_at),
            revoked_at: self.revoked_at.map(utc),
        })
    }
}
