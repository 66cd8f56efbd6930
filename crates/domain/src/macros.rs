//! `wire_enum!`: enums whose variants have one fixed wire/storage name.

/// Defines an enum with `as_str`, `parse` (error names the field), `ALL`,
/// `Display` and serde using the wire names.
///
/// By default `parse` ignores case and says `unknown value '…'`. Optional
/// settings after the field: `case = exact` (names match case-sensitively, after
/// trimming) and `unknown = (|raw| …)` (the message for an unknown name, given
/// the raw text).
macro_rules! wire_enum {
    (@matches exact, $name:expr, $given:expr) => { $name == $given };
    (@matches , $name:expr, $given:expr) => { $name.eq_ignore_ascii_case($given) };
    (@unknown $raw:expr, $message:expr) => { ($message)($raw) };
    (@unknown $raw:expr,) => { format!("unknown value '{}'", $raw) };
    (
        $(#[$meta:meta])*
        $name:ident, field = $field:literal $(, case = $exact:ident)? $(, unknown = ($unknown:expr))? {
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

            /// Parses the wire name, ignoring surrounding spaces (and case,
            /// unless the enum is declared `exact`).
            ///
            /// # Errors
            /// [`crate::DomainError::Invalid`] naming the field and the value.
            pub fn parse(raw: &str) -> Result<Self, $crate::DomainError> {
                let t = raw.trim();
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| wire_enum!(@matches $($exact)?, v.as_str(), t))
                    .ok_or_else(|| $crate::DomainError::invalid(
                        $field,
                        wire_enum!(@unknown raw, $($unknown)?),
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
