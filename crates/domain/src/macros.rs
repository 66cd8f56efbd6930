//! `wire_enum!`: enums whose variants have one fixed wire/storage name.

/// Defines an enum with `as_str`, `parse` (case-insensitive, error names the
/// field), `ALL`, `Display` and serde using the wire names.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $name:ident, field = $field:literal {
            $( $(#[$vmeta:meta])* $variant:ident => $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The wire and storage name.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $wire ),+ }
            }

            /// Parses the wire name, ignoring case and surrounding spaces.
            ///
            /// # Errors
            /// [`crate::DomainError::Invalid`] naming the field and the value.
            pub fn parse(raw: &str) -> Result<Self, $crate::DomainError> {
                let t = raw.trim();
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str().eq_ignore_ascii_case(t))
                    .ok_or_else(|| $crate::DomainError::invalid(
                        $field,
                        format!("unknown value '{raw}'"),
                    ))
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(d)?;
                Self::parse(&s).map_err(|_| ::serde::de::Error::custom(format!(
                    "unknown {} '{}'; expected one of: {}",
                    $field,
                    s,
                    Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
                )))
            }
        }
    };
}
