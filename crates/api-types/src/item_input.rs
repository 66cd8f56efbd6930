//! The bodies of `POST /api/v1/inventory` ([`InventoryItemCreate`]) and
//! `PATCH /api/v1/inventory/{id}` ([`InventoryItemPatch`]), read with
//! [`crate::read`] (unknown fields refused, a bad value named by its path)
//! and turned into the domain's [`NewItem`] and [`ItemChanges`]. Their
//! schemas in the OpenAPI document are derived from the same types.
//!
//! In a PATCH, an absent field is left as it is and `null` clears it
//! (`deployStatus` and `condition` cannot be cleared: `null` is refused).

use std::fmt;

use chrono::NaiveDate;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use utoipa::openapi::schema::{
    ArrayBuilder, Object, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, Type,
};
use utoipa::openapi::KnownFormat;
use utoipa::ToSchema;

use equip_domain::ids::SkuId;
use equip_domain::inventory::{
    Assignee, AssigneeType, Condition, DeployReason, DeployStatus, SuppliedBy,
};
use equip_domain::services::inventory::{ItemChanges, NewItem};
use equip_domain::text::{LONG_TEXT_MAX, SHORT_TEXT_MAX};

use crate::item::{assignee_type, condition, deploy_reason, deploy_status};
use crate::read::{double_option, not_null};
use crate::schema::{names, nullable_one_of, NOT_BLANK};

// The schemas' `maxLength` are literals (utoipa takes no constant there).
const _: () = assert!(
    SHORT_TEXT_MAX == 256,
    "serialNumber, procurementMethod, imei, tags"
);
const _: () = assert!(LONG_TEXT_MAX == 2048, "description");

/// The body of `POST /api/v1/inventory`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InventoryItemCreate {
    #[serde(deserialize_with = "sku_id")]
    #[schema(value_type = uuid::Uuid)]
    sku_id: SkuId,
    #[serde(default)]
    #[schema(max_length = 256)]
    serial_number: Option<String>,
    #[serde(default)]
    #[schema(schema_with = imei)]
    imei: Option<Vec<String>>,
    #[schema(schema_with = deploy_status)]
    deploy_status: DeployStatus,
    #[serde(default)]
    #[schema(schema_with = deploy_reason)]
    deploy_reason: Option<DeployReason>,
    #[schema(schema_with = condition)]
    condition: Condition,
    #[serde(default)]
    #[schema(schema_with = assignee)]
    assigned_to: Option<AssigneeInput>,
    #[serde(default)]
    #[schema(schema_with = tags)]
    tags: Option<Vec<TagInput>>,
    #[serde(default)]
    #[schema(value_type = Option<NaiveDate>)]
    renewal_date: Option<Day>,
    #[serde(default)]
    #[schema(max_length = 2048)]
    description: Option<String>,
    #[serde(default)]
    #[schema(max_length = 256)]
    procurement_method: Option<String>,
    #[serde(default)]
    #[schema(schema_with = supplied_by)]
    supplied_by: Option<SuppliedBy>,
}

/// The body of `PATCH /api/v1/inventory/{id}`: only the fields given change; `null` clears a nullable one.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InventoryItemPatch {
    #[serde(default, deserialize_with = "not_null")]
    #[schema(schema_with = deploy_status)]
    deploy_status: Option<DeployStatus>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(schema_with = deploy_reason)]
    deploy_reason: Option<Option<DeployReason>>,
    #[serde(default, deserialize_with = "not_null")]
    #[schema(schema_with = condition)]
    condition: Option<Condition>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(schema_with = assignee)]
    assigned_to: Option<Option<AssigneeInput>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(schema_with = tags)]
    tags: Option<Option<Vec<TagInput>>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<NaiveDate>)]
    renewal_date: Option<Option<Day>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 2048)]
    description: Option<Option<String>>,
}

impl From<InventoryItemCreate> for NewItem {
    fn from(b: InventoryItemCreate) -> Self {
        Self {
            sku_id: b.sku_id,
            serial_number: b.serial_number,
            imei: b.imei.unwrap_or_default(),
            deploy_status: b.deploy_status,
            deploy_reason: b.deploy_reason,
            condition: b.condition,
            assigned_to: b.assigned_to.map(|a| a.0),
            tags: labels(b.tags.unwrap_or_default()),
            renewal_date: b.renewal_date.map(|d| d.0),
            description: b.description,
            procurement_method: b.procurement_method,
            supplied_by: b.supplied_by.unwrap_or(SuppliedBy::Organization),
        }
    }
}

impl From<InventoryItemPatch> for ItemChanges {
    fn from(b: InventoryItemPatch) -> Self {
        Self {
            deploy_status: b.deploy_status,
            deploy_reason: b.deploy_reason,
            condition: b.condition,
            assigned_to: b.assigned_to.map(|a| a.map(|a| a.0)),
            // null empties the list.
            tags: b.tags.map(|t| labels(t.unwrap_or_default())),
            renewal_date: b.renewal_date.map(|d| d.map(|d| d.0)),
            description: b.description,
        }
    }
}

fn labels(tags: Vec<TagInput>) -> Vec<String> {
    tags.into_iter().map(|t| t.0).collect()
}

/// `skuId`: a UUID, as the domain reads one (surrounding spaces ignored).
fn sku_id<'de, D: Deserializer<'de>>(d: D) -> Result<SkuId, D::Error> {
    let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
    SkuId::parse(&text).map_err(de::Error::custom)
}

/// A calendar date, `YYYY-MM-DD`.
#[derive(Debug)]
struct Day(NaiveDate);

impl<'de> Deserialize<'de> for Day {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
        NaiveDate::parse_from_str(&text, "%Y-%m-%d")
            .map(Day)
            .map_err(|_| de::Error::custom(format!("'{text}' is not a date YYYY-MM-DD")))
    }
}

/// `assignedTo`: `{"type": PERSON|WAREHOUSE|OFFICE, "id": UUID}`; other
/// members (the `label` a GET shows) are ignored. A bad `type` or `id` is
/// named as `assignedTo`, the holder as a whole.
#[derive(Debug)]
struct AssigneeInput(Assignee);

impl<'de> Deserialize<'de> for AssigneeInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(expecting = "an object {\"type\": PERSON|WAREHOUSE|OFFICE, \"id\": UUID}")]
        struct Raw {
            #[serde(rename = "type")]
            kind: String,
            id: String,
        }
        let raw = Raw::deserialize(d)?;
        let kind = AssigneeType::parse(&raw.kind).map_err(|_| {
            de::Error::custom(format!(
                "unknown type '{}'; expected one of: {}",
                raw.kind,
                names!(AssigneeType).collect::<Vec<_>>().join(", ")
            ))
        })?;
        let id = uuid::Uuid::parse_str(&raw.id)
            .map_err(|_| de::Error::custom(format!("'{}' is not a valid UUID", raw.id)))?;
        Ok(Self(Assignee::new(kind, id)))
    }
}

/// One of `tags`: a label, or an object with a `label` (other members, as
/// the tag's `id` a GET shows, are ignored: labels already on the item keep
/// their ids).
#[derive(Debug)]
struct TagInput(String);

impl<'de> Deserialize<'de> for TagInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Label;
        impl<'de> Visitor<'de> for Label {
            type Value = TagInput;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a label or an object {\"label\"}")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<TagInput, E> {
                Ok(TagInput(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<TagInput, E> {
                Ok(TagInput(v))
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TagInput, A::Error> {
                let mut label = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "label" && label.is_none() {
                        label = Some(map.next_value::<String>()?);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                label
                    .map(TagInput)
                    .ok_or_else(|| de::Error::missing_field("label"))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<TagInput, A::Error> {
                Err(de::Error::invalid_type(de::Unexpected::Seq, &self))
            }
        }
        d.deserialize_any(Label)
    }
}

fn supplied_by() -> Object {
    let mut schema = nullable_one_of(names!(SuppliedBy));
    schema.description = Some("Default ORGANIZATION.".to_owned());
    schema
}

/// `schema` or `null`.
fn nullable(schema: impl Into<Schema>) -> Schema {
    OneOfBuilder::new()
        .item(schema.into())
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .build()
        .into()
}

/// A short text with something other than white space.
fn short_label() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(NOT_BLANK))
        .max_length(Some(SHORT_TEXT_MAX))
        .build()
}

fn imei() -> Schema {
    nullable(ArrayBuilder::new().items(short_label()))
}

fn assignee() -> Schema {
    nullable(
        ObjectBuilder::new()
            .required("type")
            .required("id")
            .property("type", assignee_type())
            .property(
                "id",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid))),
            ),
    )
}

fn tags() -> Schema {
    nullable(
        ArrayBuilder::new()
            .description(Some(
                "Labels, as strings or {\"label\"} objects; labels already on the item keep their tag ids.",
            ))
            .items(
                OneOfBuilder::new().item(short_label()).item(
                    ObjectBuilder::new()
                        .required("label")
                        .property("label", short_label()),
                ),
            ),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::read::{from_value, Fault};
    use equip_domain::ids::WarehouseId;
    use serde_json::json;

    fn create(extra: serde_json::Value) -> Result<NewItem, crate::read::ShapeError> {
        let mut body = json!({
            "skuId": uuid::Uuid::new_v4(),
            "deployStatus": "AVAILABLE",
            "condition": "NEW",
        });
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        from_value::<InventoryItemCreate>(body).map(NewItem::from)
    }

    fn patch(body: serde_json::Value) -> Result<ItemChanges, crate::read::ShapeError> {
        from_value::<InventoryItemPatch>(body).map(ItemChanges::from)
    }

    #[test]
    fn inputs_are_fields_of_the_item_the_api_returns() {
        // Every input names a field of the returned item (the create/patch
        // body is a subset of what GET shows), and PATCH is a subset of POST.
        fn props<T: utoipa::PartialSchema>() -> Vec<String> {
            let v = serde_json::to_value(T::schema()).unwrap();
            v["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect()
        }
        let create = props::<InventoryItemCreate>();
        assert_eq!(create.len(), 12);
        for name in &create {
            assert!(
                crate::item::FIELDS.contains(&name.as_str()),
                "{name} is not a field of the item"
            );
        }
        for name in props::<InventoryItemPatch>() {
            assert!(create.contains(&name), "{name}");
        }
    }

    #[test]
    fn values_read_as_the_api_documents() {
        let id = WarehouseId::new();
        let new = create(json!({
            "assignedTo": {"type": "warehouse", "id": id.to_string(), "label": "Berlin"},
            "tags": ["a", {"label": "b", "id": "x"}],
            "renewalDate": "2028-02-29",
            "deployReason": null,
        }))
        .unwrap();
        assert_eq!(new.assigned_to, Some(Assignee::Warehouse(id)));
        assert_eq!(new.tags, vec!["a".to_owned(), "b".to_owned()]);
        assert_eq!(new.renewal_date, NaiveDate::from_ymd_opt(2028, 2, 29));
        assert_eq!(new.deploy_reason, None);
        assert_eq!(new.supplied_by, SuppliedBy::Organization, "the default");
        assert!(new.imei.is_empty());
        let new = create(
            json!({"deployStatus": "available", "skuId": " 0b9e1c1e-6f5e-4c1a-9d55-2f6f3f0f3a10 "}),
        )
        .unwrap();
        assert_eq!(
            new.deploy_status,
            DeployStatus::Available,
            "names ignore case"
        );
    }

    #[test]
    fn a_bad_value_is_named_by_its_path() {
        let at = |extra| create(extra).unwrap_err().path;
        let id = WarehouseId::new().to_string();
        assert_eq!(
            at(json!({"assignedTo": {"type": "ROBOT", "id": id}})),
            "assignedTo"
        );
        assert_eq!(
            at(json!({"assignedTo": {"type": "PERSON", "id": "x"}})),
            "assignedTo"
        );
        assert_eq!(
            at(json!({"assignedTo": {"type": "PERSON"}})),
            "assignedTo.id"
        );
        assert_eq!(at(json!({"tags": [1]})), "tags[0]");
        assert_eq!(at(json!({"tags": [{"id": "x"}]})), "tags[0].label");
        assert_eq!(at(json!({"renewalDate": "2026-02-29"})), "renewalDate");
        assert_eq!(at(json!({"imei": ["1", 2]})), "imei[1]");
        assert_eq!(at(json!({"skuId": "nope"})), "skuId");
        assert_eq!(at(json!({"suppliedBy": "VENDOR"})), "suppliedBy");
        let e = create(json!({"colour": "red"})).unwrap_err();
        assert_eq!(e.path, "colour");
        assert!(matches!(e.fault, Fault::Unknown { .. }));
        let e = from_value::<InventoryItemCreate>(
            json!({"skuId": uuid::Uuid::new_v4(), "condition": "NEW"}),
        )
        .unwrap_err();
        assert_eq!((e.path.as_str(), e.fault), ("deployStatus", Fault::Missing));
    }

    #[test]
    fn a_patch_leaves_absent_fields_and_clears_null_ones() {
        assert_eq!(patch(json!({})).unwrap(), ItemChanges::default());
        let c = patch(json!({
            "deployReason": null,
            "assignedTo": null,
            "tags": null,
            "renewalDate": null,
            "description": null,
        }))
        .unwrap();
        assert_eq!(c.deploy_reason, Some(None));
        assert_eq!(c.assigned_to, Some(None));
        assert_eq!(c.tags, Some(vec![]), "null empties the tags");
        assert_eq!(c.renewal_date, Some(None));
        assert_eq!(c.description, Some(None));
        let c = patch(json!({"deployStatus": "ARCHIVED", "condition": "USED", "description": "d"}))
            .unwrap();
        assert_eq!(c.deploy_status, Some(DeployStatus::Archived));
        assert_eq!(c.condition, Some(Condition::Used));
        assert_eq!(c.description, Some(Some("d".to_owned())));
        for field in ["deployStatus", "condition"] {
            let e = patch(json!({ field: null })).unwrap_err();
            assert_eq!(e.path, field);
            assert_eq!(e.fault, Fault::Invalid("cannot be null".into()));
        }
        let e = patch(json!({"serialNumber": "x"})).unwrap_err();
        assert_eq!(e.path, "serialNumber", "not a patchable field");
    }
}
