//! Schema pieces the derives cannot write by themselves: the string enums of
//! the domain's `wire_enum!` types (the domain stays free of utoipa, so
//! their schemas are built here from each enum's `ALL`), used with
//! `#[schema(schema_with = …)]`, and arrays described in place.

use utoipa::openapi::schema::{Array, ArrayBuilder, Object, ObjectBuilder, SchemaType, Type};

/// A text with something other than white space (the domain trims values).
pub const NOT_BLANK: &str = r"\S";

/// `{"type": "string", "enum": values}`.
#[must_use]
pub fn one_of<'a>(values: impl IntoIterator<Item = &'a str>) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values))
        .build()
}

/// An array of `items`, described by `description`.
pub fn array_of(items: Object, description: &str) -> ArrayBuilder {
    ArrayBuilder::new()
        .items(items)
        .description(Some(description))
}

/// An array of `items` or `null`, described by `description`.
pub fn nullable_array_of(items: Object, description: &str) -> Array {
    array_of(items, description)
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .build()
}

/// `{"type": ["string", "null"], "enum": [values…, null]}`: one of `values`,
/// or null.
#[must_use]
pub fn nullable_one_of<'a>(values: impl IntoIterator<Item = &'a str>) -> Object {
    let values = values
        .into_iter()
        .map(serde_json::Value::from)
        .chain([serde_json::Value::Null]);
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(values))
        .build()
}

/// The names of a `wire_enum!` type, in declaration order.
macro_rules! names {
    ($enum:ty) => {
        <$enum>::ALL.iter().map(|v| v.as_str())
    };
}
pub(crate) use names;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enums_are_strings_and_nullable_ones_take_null() {
        assert_eq!(
            serde_json::to_value(one_of(["A", "B"])).unwrap(),
            json!({"type": "string", "enum": ["A", "B"]})
        );
        assert_eq!(
            serde_json::to_value(nullable_one_of(["A"])).unwrap(),
            json!({"type": ["string", "null"], "enum": ["A", null]})
        );
    }
}
