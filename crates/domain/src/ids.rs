//! Typed identifiers. Each wraps a UUID so that a person id can never be passed
//! where a warehouse id is expected.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A string that is not a well-formed UUID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a valid UUID")]
pub struct InvalidId(pub String);

macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// A new random (v4) identifier.
            #[must_use]
            pub fn new() -> Self {
                Self(Uuid::new_v4())
            }

            /// Wraps an existing UUID.
            #[must_use]
            pub const fn from_uuid(uuid: Uuid) -> Self {
                Self(uuid)
            }

            /// The underlying UUID.
            #[must_use]
            pub const fn as_uuid(&self) -> &Uuid {
                &self.0
            }

            /// Parses the hyphenated (or simple) UUID form.
            ///
            /// # Errors
            /// [`InvalidId`] when `s` is not a UUID.
            pub fn parse(s: &str) -> Result<Self, InvalidId> {
                Uuid::parse_str(s.trim()).map(Self).map_err(|_| InvalidId(s.to_owned()))
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.hyphenated().fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = InvalidId;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s)
            }
        }

        impl From<Uuid> for $name {
            fn from(uuid: Uuid) -> Self {
                Self(uuid)
            }
        }
    };
}

id_type!(
    /// Identifies an organization (a tenant).
    OrganizationId
);
id_type!(
    /// Identifies an API key record (not the secret).
    ApiKeyId
);
id_type!(
    /// Identifies a person (a SCIM user).
    PersonId
);
id_type!(
    /// Identifies a group of people (a SCIM Group).
    GroupId
);
id_type!(
    /// Identifies an equipment package.
    PackageId
);
id_type!(
    /// Identifies a SKU (product variant).
    SkuId
);
id_type!(
    /// Identifies a warehouse.
    WarehouseId
);
id_type!(
    /// Identifies a console session opened by signing in with the
    /// organization's identity provider (not the secret of its cookie).
    SessionId
);
id_type!(
    /// Identifies an office.
    OfficeId
);
id_type!(
    /// Identifies an inventory item.
    InventoryItemId
);
id_type!(
    /// Identifies an inventory-level configuration.
    InventoryLevelId
);
id_type!(
    /// Identifies a tag.
    TagId
);
id_type!(
    /// Identifies a return order.
    ReturnOrderId
);
id_type!(
    /// Identifies one item line of a return order.
    ReturnOrderItemId
);
id_type!(
    /// Identifies a retrieval (return kit, label or physical pick-up).
    RetrievalId
);
id_type!(
    /// Identifies a new-joiner reminder.
    ReminderId
);
id_type!(
    /// Identifies one entry of a package's contents.
    PackageItemId
);
id_type!(
    /// Identifies a joiner's order.
    OrderId
);
id_type!(
    /// Identifies one line (one unit) of an order.
    OrderLineId
);
id_type!(
    /// Identifies a shipment of order lines.
    ShipmentId
);
id_type!(
    /// Identifies an email waiting in (or delivered from) the outbox.
    OutboxMessageId
);
id_type!(
    /// Identifies an event (a recorded change).
    EventId
);
id_type!(
    /// Identifies a webhook subscription.
    WebhookId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hyphenated_and_rejects_garbage() {
        let id = PersonId::parse("6f1c2f4e-8d1b-4a53-9a43-3c1c8a0f4b11").unwrap();
        assert_eq!(id.to_string(), "6f1c2f4e-8d1b-4a53-9a43-3c1c8a0f4b11");
        assert_eq!(
            PersonId::parse("not-a-uuid"),
            Err(InvalidId("not-a-uuid".into()))
        );
        assert!(WarehouseId::parse("").is_err());
    }
}
