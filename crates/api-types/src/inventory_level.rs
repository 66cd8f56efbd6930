//! Inventory levels as the API shows and takes them (docs/api.md, "Inventory
//! levels").

use chrono::{DateTime, Utc};
use equip_domain::ids::{InventoryLevelId, SkuId, WarehouseId};
use equip_domain::inventory_level::{StockedLevel, MAX_QUANTITY};
use equip_domain::services::inventory_levels::NewInventoryLevel;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::time;

/// An inventory level: the quantities a warehouse should hold of a SKU, and
/// what it holds.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = InventoryLevel)]
pub struct LevelBody {
    #[schema(value_type = Uuid)]
    id: InventoryLevelId,
    #[schema(value_type = Uuid)]
    sku_id: SkuId,
    #[schema(value_type = Uuid)]
    warehouse_id: WarehouseId,
    #[schema(value_type = isize, minimum = 0, maximum = 1_000_000)]
    minimum_quantity: i32,
    #[schema(value_type = isize, minimum = 0, maximum = 1_000_000)]
    target_quantity: i32,
    /// AVAILABLE items of the SKU assigned to the warehouse, now.
    #[schema(minimum = 0)]
    available_quantity: i64,
    /// availableQuantity < minimumQuantity.
    below_minimum: bool,
    active: bool,
    #[serde(serialize_with = "time::millis")]
    created_at: DateTime<Utc>,
    #[serde(serialize_with = "time::millis_or_null")]
    #[schema(required)]
    deactivated_at: Option<DateTime<Utc>>,
}

impl From<&StockedLevel> for LevelBody {
    fn from(stocked: &StockedLevel) -> Self {
        let l = &stocked.level;
        Self {
            id: l.id,
            sku_id: l.sku_id,
            warehouse_id: l.warehouse_id,
            minimum_quantity: l.minimum_quantity,
            target_quantity: l.target_quantity,
            available_quantity: stocked.available_quantity,
            below_minimum: stocked.below_minimum(),
            active: l.is_active(),
            created_at: l.created_at,
            deactivated_at: l.deactivated_at,
        }
    }
}

/// `{"data": [level, …]}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LevelList {
    /// The levels, newest first.
    pub data: Vec<LevelBody>,
}

/// 0 <= minimumQuantity <= targetQuantity.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = InventoryLevelCreate)]
pub struct LevelCreate {
    #[serde(deserialize_with = "crate::id::required")]
    #[schema(value_type = Uuid)]
    sku_id: SkuId,
    #[serde(deserialize_with = "crate::id::required")]
    #[schema(value_type = Uuid)]
    warehouse_id: WarehouseId,
    #[schema(value_type = isize, minimum = 0, maximum = 1_000_000)]
    minimum_quantity: i32,
    #[schema(value_type = isize, minimum = 0, maximum = 1_000_000)]
    target_quantity: i32,
}

impl From<LevelCreate> for NewInventoryLevel {
    fn from(c: LevelCreate) -> Self {
        Self {
            sku_id: c.sku_id,
            warehouse_id: c.warehouse_id,
            minimum_quantity: c.minimum_quantity,
            target_quantity: c.target_quantity,
        }
    }
}

// The schemas' `maximum` is a literal (utoipa takes no constant there).
const _: () = assert!(MAX_QUANTITY == 1_000_000, "the quantities' maximum");

/// The query of `GET /api/v1/inventory-levels`. Other parameters are ignored.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct LevelQuery {
    /// Include deactivated levels (true or false, case-insensitive).
    #[param(value_type = Option<bool>, default = false)]
    include_inactive: Option<String>,
}

impl LevelQuery {
    /// Whether deactivated levels are listed: `includeInactive` is `true` or
    /// `false` (any case, surrounding white space ignored); absent: false.
    ///
    /// # Errors
    /// The value, when it is neither: what the 400 says.
    pub fn include_inactive(&self) -> Result<bool, String> {
        match self.include_inactive.as_deref().map(str::trim) {
            None => Ok(false),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
            Some(v) => Err(format!("includeInactive must be true or false, not '{v}'")),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::read::{from_value, Fault};
    use serde_json::json;

    #[test]
    fn a_level_is_shown_with_its_stock_and_millisecond_times() {
        use equip_domain::inventory_level::InventoryLevel;
        let level = InventoryLevel {
            id: InventoryLevelId::new(),
            organization_id: equip_domain::ids::OrganizationId::new(),
            sku_id: SkuId::new(),
            warehouse_id: WarehouseId::new(),
            minimum_quantity: 3,
            target_quantity: 12,
            created_at: DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap(),
            deactivated_at: None,
        };
        let stocked = StockedLevel {
            level: level.clone(),
            available_quantity: 2,
        };
        let json = serde_json::to_value(LevelBody::from(&stocked)).unwrap();
        assert_eq!(
            json,
            json!({
                "id": level.id, "skuId": level.sku_id, "warehouseId": level.warehouse_id,
                "minimumQuantity": 3, "targetQuantity": 12,
                "availableQuantity": 2, "belowMinimum": true, "active": true,
                "createdAt": "2023-11-14T22:13:20.123Z", "deactivatedAt": null,
            })
        );
    }

    #[test]
    fn a_create_names_the_field_at_fault_and_refuses_unknown_ones() {
        let ok = json!({"skuId": SkuId::new(), "warehouseId": WarehouseId::new(),
            "minimumQuantity": 1, "targetQuantity": 2});
        let with = |key: &str, value| {
            let mut b = ok.clone();
            b[key] = value;
            b
        };
        assert!(from_value::<LevelCreate>(ok.clone()).is_ok());
        for (body, path) in [
            (with("skuId", json!("nope")), "skuId"),
            (with("warehouseId", json!(17)), "warehouseId"),
            (with("minimumQuantity", json!("3")), "minimumQuantity"),
            (with("targetQuantity", json!(1.5)), "targetQuantity"),
            (
                with("targetQuantity", json!(3_000_000_000_i64)),
                "targetQuantity",
            ),
        ] {
            let e = from_value::<LevelCreate>(body).unwrap_err();
            assert_eq!(e.path, path);
            assert!(matches!(e.fault, Fault::Invalid(_)), "{e:?}");
        }
        let e = from_value::<LevelCreate>(with("padding", json!("x"))).unwrap_err();
        assert_eq!(e.path, "padding");
        assert!(matches!(e.fault, Fault::Unknown { .. }));
        let mut missing = ok;
        missing.as_object_mut().unwrap().remove("targetQuantity");
        let e = from_value::<LevelCreate>(missing).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.fault),
            ("targetQuantity", Fault::Missing)
        );
    }

    #[test]
    fn include_inactive_is_true_or_false_in_any_case() {
        let q = |v: Option<&str>| LevelQuery {
            include_inactive: v.map(str::to_owned),
        };
        assert_eq!(q(None).include_inactive(), Ok(false));
        assert_eq!(q(Some(" TRUE ")).include_inactive(), Ok(true));
        assert_eq!(q(Some("False")).include_inactive(), Ok(false));
        assert!(q(Some("maybe"))
            .include_inactive()
            .unwrap_err()
            .contains("'maybe'"));
    }
}
