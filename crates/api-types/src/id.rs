//! Ids in request bodies, read as the path and query ids are: a UUID string,
//! surrounding white space ignored, any of the forms `uuid` parses.

use std::str::FromStr;

use equip_domain::ids::InvalidId;
use serde::de::{Deserializer, Error, Unexpected, Visitor};

struct IdVisitor<T>(std::marker::PhantomData<T>);

impl<T: FromStr<Err = InvalidId>> Visitor<'_> for IdVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a UUID string")
    }

    fn visit_str<E: Error>(self, raw: &str) -> Result<T, E> {
        raw.parse()
            .map_err(|_| E::invalid_value(Unexpected::Str(raw), &self))
    }
}

/// A required id (`#[serde(deserialize_with = "crate::id::required")]`).
///
/// # Errors
/// Not a string, or not a UUID.
pub fn required<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr<Err = InvalidId>,
{
    d.deserialize_str(IdVisitor(std::marker::PhantomData))
}

/// An id or `null` (`#[serde(default, deserialize_with = "crate::id::or_null")]`).
///
/// # Errors
/// Neither null nor a UUID string.
pub fn or_null<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr<Err = InvalidId>,
{
    struct OrNull<T>(std::marker::PhantomData<T>);
    impl<'de, T: FromStr<Err = InvalidId>> Visitor<'de> for OrNull<T> {
        type Value = Option<T>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a UUID string or null")
        }

        fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            required(d).map(Some)
        }
    }
    d.deserialize_option(OrNull(std::marker::PhantomData))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use equip_domain::ids::PersonId;
    use serde::Deserialize;
    use serde_json::json;

    use crate::read::{from_value, Fault};

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Body {
        #[serde(deserialize_with = "super::required")]
        person_id: PersonId,
        #[serde(default, deserialize_with = "super::or_null")]
        sender_id: Option<PersonId>,
    }

    #[test]
    fn ids_are_read_as_everywhere_else() {
        let id = PersonId::new();
        let body: Body = from_value(json!({"personId": format!(" {id} ")})).unwrap();
        assert_eq!((body.person_id, body.sender_id), (id, None));
        let upper = id.to_string().to_uppercase();
        let body: Body = from_value(json!({"personId": id, "senderId": upper})).unwrap();
        assert_eq!(body.sender_id, Some(id));
        let body: Body = from_value(json!({"personId": id, "senderId": null})).unwrap();
        assert_eq!(body.sender_id, None);
        for (bad, path, why) in [
            (
                json!({"personId": "nope"}),
                "personId",
                "invalid value: string \"nope\", expected a UUID string",
            ),
            (
                json!({"personId": 17}),
                "personId",
                "invalid type: integer `17`, expected a UUID string",
            ),
            (
                json!({"personId": id, "senderId": ""}),
                "senderId",
                "invalid value: string \"\", expected a UUID string",
            ),
        ] {
            let e = from_value::<Body>(bad).unwrap_err();
            assert_eq!(
                (e.path.as_str(), e.fault),
                (path, Fault::Invalid(why.into()))
            );
        }
        // A required id given `null` is missing, as an absent one is.
        let e = from_value::<Body>(json!({"personId": null})).unwrap_err();
        assert_eq!((e.path.as_str(), e.fault), ("personId", Fault::Missing));
    }
}
