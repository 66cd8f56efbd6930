//! The inputs of `POST /api/v1/inventory` and `PATCH /api/v1/inventory/{id}`:
//! each field's wire name, what a good value is (for the 400 that names it),
//! and how its JSON value is read. The HTTP layer reads a body with these and
//! refuses any field not in [`CREATE`] or [`PATCH`].

use chrono::NaiveDate;
use serde_json::Value;

use equip_domain::error::DomainError;
use equip_domain::ids::SkuId;
use equip_domain::inventory::{
    Assignee, AssigneeType, Condition, DeployReason, DeployStatus, SuppliedBy,
};

/// One field of an item input.
#[derive(Clone, Copy)]
pub struct InputField<T> {
    /// Wire name.
    pub name: &'static str,
    /// What a good value is, as the 400 says it (`{name} must be {expected}`).
    pub expected: &'static str,
    /// Reads a non-null value; `None` when it is not a good value.
    pub decode: fn(&Value) -> Option<T>,
}

impl<T> std::fmt::Debug for InputField<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn texts(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// Tags as labels: `["a", "b"]` or `[{"label": "a"}, …]` (ids are kept by label).
fn tag_labels(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|t| match t {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => o.get("label")?.as_str().map(str::to_owned),
            _ => None,
        })
        .collect()
}

fn date(v: &Value) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(v.as_str()?, "%Y-%m-%d").ok()
}

fn wire<T>(v: &Value, parse: fn(&str) -> Result<T, DomainError>) -> Option<T> {
    v.as_str().and_then(|s| parse(s).ok())
}

fn assignee(v: &Value) -> Option<Assignee> {
    let o = v.as_object()?;
    let kind = AssigneeType::parse(o.get("type")?.as_str()?).ok()?;
    let id = uuid::Uuid::parse_str(o.get("id")?.as_str()?).ok()?;
    Some(Assignee::new(kind, id))
}

/// `skuId`.
pub const SKU_ID: InputField<SkuId> = InputField {
    name: "skuId",
    expected: "a UUID",
    decode: |v| v.as_str().and_then(|s| SkuId::parse(s).ok()),
};
/// `serialNumber`.
pub const SERIAL_NUMBER: InputField<String> = InputField {
    name: "serialNumber",
    expected: "a string",
    decode: text,
};
/// `imei`.
pub const IMEI: InputField<Vec<String>> = InputField {
    name: "imei",
    expected: "an array of strings",
    decode: texts,
};
/// `deployStatus`.
pub const DEPLOY_STATUS: InputField<DeployStatus> = InputField {
    name: "deployStatus",
    expected: "a deploy status",
    decode: |v| wire(v, DeployStatus::parse),
};
/// `deployReason`.
pub const DEPLOY_REASON: InputField<DeployReason> = InputField {
    name: "deployReason",
    expected: "a deploy reason",
    decode: |v| wire(v, DeployReason::parse),
};
/// `condition`.
pub const CONDITION: InputField<Condition> = InputField {
    name: "condition",
    expected: "a condition",
    decode: |v| wire(v, Condition::parse),
};
/// `assignedTo`.
pub const ASSIGNED_TO: InputField<Assignee> = InputField {
    name: "assignedTo",
    expected: "an object {\"type\": PERSON|WAREHOUSE|OFFICE, \"id\": UUID}",
    decode: assignee,
};
/// `tags`.
pub const TAGS: InputField<Vec<String>> = InputField {
    name: "tags",
    expected: "an array of labels",
    decode: tag_labels,
};
/// `renewalDate`.
pub const RENEWAL_DATE: InputField<NaiveDate> = InputField {
    name: "renewalDate",
    expected: "a date YYYY-MM-DD",
    decode: date,
};
/// `description`.
pub const DESCRIPTION: InputField<String> = InputField {
    name: "description",
    expected: "a string",
    decode: text,
};
/// `procurementMethod`.
pub const PROCUREMENT_METHOD: InputField<String> = InputField {
    name: "procurementMethod",
    expected: "a string",
    decode: text,
};
/// `suppliedBy`.
pub const SUPPLIED_BY: InputField<SuppliedBy> = InputField {
    name: "suppliedBy",
    expected: "OPERATOR or ORGANIZATION",
    decode: |v| wire(v, SuppliedBy::parse),
};

/// The fields `POST` takes; any other is refused.
pub const CREATE: [&str; 12] = [
    SKU_ID.name,
    SERIAL_NUMBER.name,
    IMEI.name,
    DEPLOY_STATUS.name,
    DEPLOY_REASON.name,
    CONDITION.name,
    ASSIGNED_TO.name,
    TAGS.name,
    RENEWAL_DATE.name,
    DESCRIPTION.name,
    PROCUREMENT_METHOD.name,
    SUPPLIED_BY.name,
];

/// The fields `PATCH` takes; any other is refused.
pub const PATCH: [&str; 7] = [
    DEPLOY_STATUS.name,
    DEPLOY_REASON.name,
    CONDITION.name,
    ASSIGNED_TO.name,
    TAGS.name,
    RENEWAL_DATE.name,
    DESCRIPTION.name,
];

#[cfg(test)]
mod tests {
    use super::*;
    use equip_domain::ids::WarehouseId;
    use serde_json::json;

    #[test]
    fn inputs_are_fields_of_the_item_the_api_returns() {
        // Every input names a field of the returned item (the create/patch
        // body is a subset of what GET shows), and PATCH is a subset of POST.
        for name in CREATE {
            assert!(
                crate::item::FIELDS.contains(&name),
                "{name} is not a field of the item"
            );
        }
        for name in PATCH {
            assert!(CREATE.contains(&name), "{name}");
        }
    }

    #[test]
    fn values_decode_as_the_api_documents() {
        let id = WarehouseId::new();
        assert_eq!(
            (ASSIGNED_TO.decode)(&json!({"type": "warehouse", "id": id.to_string()})),
            Some(Assignee::Warehouse(id))
        );
        assert_eq!(
            (ASSIGNED_TO.decode)(&json!({"type": "ROBOT", "id": id.to_string()})),
            None
        );
        assert_eq!(
            (TAGS.decode)(&json!(["a", {"label": "b", "id": "x"}])),
            Some(vec!["a".to_owned(), "b".to_owned()])
        );
        assert_eq!((TAGS.decode)(&json!([1])), None);
        assert_eq!(
            (RENEWAL_DATE.decode)(&json!("2026-02-29")),
            None,
            "not a calendar date"
        );
        assert_eq!(
            (DEPLOY_STATUS.decode)(&json!("available")),
            Some(DeployStatus::Available)
        );
        assert_eq!((IMEI.decode)(&json!(["1", 2])), None);
    }
}
