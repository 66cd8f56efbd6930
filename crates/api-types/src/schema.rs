//! Schema pieces the derives cannot write from a type: the domain's enums
//! (`wire_enum!`) implement no `ToSchema` (the domain knows nothing of the
//! document), so their string schemas are listed here from their `ALL`, for
//! `#[schema(schema_with = …)]`.

use utoipa::openapi::schema::{Array, ArrayBuilder, Object, ObjectBuilder, SchemaType, Type};

/// A string that is one of `values`.
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
