//! Organizations and API keys in memory.

use super::*;

impl OrganizationRepository for InMemoryStore {
    fn insert_organization(&self, organization: &Organization) -> StoreResult<()> {
        let mut s = self.state();
        if s.organizations.iter().any(|o| o.id == organization.id) {
            return Err(StoreError::Duplicate {
                entity: "organization",
                detail: organization.id.to_string(),
            });
        }
        s.organizations.push(organization.clone());
        Ok(())
    }

    fn find_organization(&self, id: OrganizationId) -> StoreResult<Option<Organization>> {
        Ok(self
            .state()
            .organizations
            .iter()
            .find(|o| o.id == id)
            .cloned())
    }

    fn count_organizations(&self) -> StoreResult<u64> {
        Ok(self.state().organizations.len() as u64)
    }

    fn list_organizations(&self) -> StoreResult<Vec<Organization>> {
        let mut all = self.state().organizations.clone();
        all.sort_by_key(|o| (o.created_at, o.id));
        Ok(all)
    }
}

impl ApiKeyRepository for InMemoryStore {
    fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()> {
        let mut s = self.state();
        if s.api_keys
            .iter()
            .any(|k| k.prefix == key.prefix || k.id == key.id)
        {
            return Err(StoreError::Duplicate {
                entity: "apiKey",
                detail: "prefix".into(),
            });
        }
        s.api_keys.push(key.clone());
        Ok(())
    }

    fn find_api_key_by_prefix(&self, prefix: &str) -> StoreResult<Option<ApiKey>> {
        Ok(self
            .state()
            .api_keys
            .iter()
            .find(|k| k.prefix == prefix)
            .cloned())
    }

    fn find_api_key(
        &self,
        organization: OrganizationId,
        id: ApiKeyId,
    ) -> StoreResult<Option<ApiKey>> {
        Ok(self
            .state()
            .api_keys
            .iter()
            .find(|k| k.id == id && k.organization_id == organization)
            .cloned())
    }

    fn list_api_keys(&self, organization: OrganizationId) -> StoreResult<Vec<ApiKey>> {
        Ok(self
            .state()
            .api_keys
            .iter()
            .filter(|k| k.organization_id == organization)
            .cloned()
            .collect())
    }

    fn revoke_api_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> StoreResult<()> {
        let mut s = self.state();
        let key = s
            .api_keys
            .iter_mut()
            .find(|k| k.id == id)
            .ok_or(StoreError::NotFound { entity: "apiKey" })?;
        key.revoked_at.get_or_insert(at);
        Ok(())
    }
}
