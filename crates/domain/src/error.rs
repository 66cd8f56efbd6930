//! Errors of the domain: what storage reports ([`StoreError`]) and what a use
//! case reports to its caller ([`DomainError`]). Mapping to HTTP statuses happens
//! only in the web crate.

/// What a repository (port) implementation can report.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The row does not exist, or belongs to another organization.
    #[error("{entity} not found")]
    NotFound {
        /// The kind of entity, e.g. `"warehouse"`.
        entity: &'static str,
    },
    /// A uniqueness rule enforced by the store was violated.
    #[error("duplicate {entity}: {detail}")]
    Duplicate {
        /// The kind of entity.
        entity: &'static str,
        /// What was duplicated, safe to show to the caller.
        detail: String,
    },
    /// A reference to another row does not resolve (foreign key).
    #[error("{entity} references a missing row: {detail}")]
    MissingReference {
        /// The kind of entity being written.
        entity: &'static str,
        /// What was missing.
        detail: String,
    },
    /// The store could not be reached in time (pool exhausted, server down).
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// The caller went away and the work stopped between two statements
    /// ([`crate::interrupt`]); nothing was written.
    #[error("interrupted: the caller has gone")]
    Interrupted,
    /// Any other failure of the backend. The text is for logs, never for callers.
    #[error("storage failure: {0}")]
    Backend(String),
}

/// What a use case reports to its caller.
#[derive(Debug, thiserror::Error)]
pub enum DomainError {
    /// Input broke a rule; `field` names the offending input.
    #[error("{field}: {message}")]
    Invalid {
        /// The input field or parameter, e.g. `"minimumQuantity"`.
        field: String,
        /// Human-readable description.
        message: String,
    },
    /// A referenced entity does not exist in the caller's organization.
    #[error("{entity} not found")]
    NotFound {
        /// Field or entity name, e.g. `"warehouse"` or `"skuId"`.
        entity: String,
        /// Human-readable description.
        message: String,
    },
    /// The request conflicts with the current state.
    #[error("{entity}: {message}")]
    Conflict {
        /// Field or entity name.
        entity: String,
        /// Human-readable description.
        message: String,
    },
    /// What the input refers to existed once and is gone for good (a feed
    /// cursor from another timeline of the events, after a restore); the
    /// caller must start over rather than correct the input.
    #[error("{field}: {message}")]
    Gone {
        /// The input field or parameter, e.g. `"after"`.
        field: String,
        /// Human-readable description, saying what to do instead.
        message: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(StoreError),
}

impl DomainError {
    /// An [`DomainError::Invalid`] for `field`.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }

    /// A [`DomainError::NotFound`] for `entity`.
    pub fn not_found(entity: impl Into<String>, message: impl Into<String>) -> Self {
        Self::NotFound {
            entity: entity.into(),
            message: message.into(),
        }
    }

    /// A [`DomainError::Gone`] for `field`.
    pub fn gone(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Gone {
            field: field.into(),
            message: message.into(),
        }
    }

    /// A [`DomainError::Conflict`] for `entity`.
    pub fn conflict(entity: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Conflict {
            entity: entity.into(),
            message: message.into(),
        }
    }
}

impl From<StoreError> for DomainError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::NotFound { entity } => {
                Self::not_found(entity, format!("{entity} not found"))
            }
            StoreError::Duplicate { entity, detail } => Self::conflict(entity, detail),
            other => Self::Store(other),
        }
    }
}

/// Result of a repository call.
pub type StoreResult<T> = Result<T, StoreError>;
