//! [`Sql`]: a hand-written statement built from pieces — literal SQL text and
//! typed bind values — for the statements Diesel's DSL does not express well
//! (the inventory listing's page and refresh, the SCIM people filter).
//!
//! - Pieces are pushed structurally ([`Sql::push_sql`], [`Sql::push_bind`]);
//!   a value never becomes part of the text, and the text is never scanned
//!   for placeholders.
//! - The statement is a Diesel [`QueryFragment`] for both backends of the
//!   connection: each bind is written in the backend's placeholder form (`?`
//!   on SQLite, `$1`, `$2`, … on PostgreSQL) by Diesel itself.
//! - Caching: Diesel prepares a statement once per connection and keeps it,
//!   keyed by its SQL text, unless the statement says it is unsafe to cache.
//!   A statement of a bounded number of shapes is kept; one whose shape is
//!   open-ended (an `IN` list longer than [`CACHED_LIST_MAX`], a `VALUES`
//!   list, or whatever its builder marks with [`Sql::uncached`]) is not, as
//!   each shape would stay prepared on every connection (the cache has no
//!   bound).

use chrono::{NaiveDate, NaiveDateTime};
use diesel::backend::Backend as DieselBackend;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Bool, Date, HasSqlType, Nullable, Text, Timestamp, Untyped};
use diesel::sqlite::Sqlite;

use crate::connection::{on_inner, Backend, DbConnection};

/// `COLLATE "C"` where the backend needs it for byte order (PostgreSQL; SQLite
/// compares text bytewise by default), with its leading space. The text
/// indexes are built in that order, so comparisons and sorts written with it
/// can use them.
pub(crate) fn byte_order(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "",
        Backend::Postgres => " COLLATE \"C\"",
    }
}

/// The row of a `SELECT COUNT(*) AS n` statement.
#[derive(QueryableByName)]
pub(crate) struct CountRow {
    #[diesel(sql_type = BigInt)]
    pub(crate) n: i64,
}

/// The row of a statement that returns ids (`… AS id`).
#[derive(QueryableByName)]
pub(crate) struct IdRow {
    #[diesel(sql_type = Text)]
    pub(crate) id: String,
}

/// Ids per `IN (…)` list: under SQLite's default limit of 999 bind
/// parameters, with room for the statement's own.
pub(crate) const ID_CHUNK: usize = 900;

/// `IN` lists longer than this make a statement uncacheable: their shapes
/// are open-ended, and each would stay prepared on every connection.
pub(crate) const CACHED_LIST_MAX: usize = 8;

/// A bound value, with its SQL type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Bind {
    Text(String),
    /// Text or NULL.
    NullableText(Option<String>),
    Bool(bool),
    Time(NaiveDateTime),
    Date(NaiveDate),
    BigInt(i64),
}

impl From<String> for Bind {
    fn from(v: String) -> Self {
        Self::Text(v)
    }
}

impl From<&str> for Bind {
    fn from(v: &str) -> Self {
        Self::Text(v.to_owned())
    }
}

impl From<Option<String>> for Bind {
    fn from(v: Option<String>) -> Self {
        Self::NullableText(v)
    }
}

impl From<bool> for Bind {
    fn from(v: bool) -> Self {
        Self::Bool(v)
    }
}

impl From<NaiveDateTime> for Bind {
    fn from(v: NaiveDateTime) -> Self {
        Self::Time(v)
    }
}

impl From<NaiveDate> for Bind {
    fn from(v: NaiveDate) -> Self {
        Self::Date(v)
    }
}

impl From<i64> for Bind {
    fn from(v: i64) -> Self {
        Self::BigInt(v)
    }
}

/// One piece of a statement.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Bind(Bind),
}

/// A statement as a sequence of text and binds; see the module docs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sql {
    pieces: Vec<Piece>,
    cacheable: bool,
}

impl Default for Sql {
    fn default() -> Self {
        Self {
            pieces: Vec::new(),
            cacheable: true,
        }
    }
}

impl Sql {
    /// Appends literal SQL text.
    pub(crate) fn push_sql(&mut self, sql: &str) -> &mut Self {
        match self.pieces.last_mut() {
            Some(Piece::Text(text)) => text.push_str(sql),
            _ => self.pieces.push(Piece::Text(sql.to_owned())),
        }
        self
    }

    /// Appends a placeholder bound to `value`.
    pub(crate) fn push_bind(&mut self, value: impl Into<Bind>) -> &mut Self {
        self.pieces.push(Piece::Bind(value.into()));
        self
    }

    /// `(?, ?, …)` with the values; uncacheable past [`CACHED_LIST_MAX`].
    pub(crate) fn push_text_list<'a>(
        &mut self,
        values: impl IntoIterator<Item = &'a str>,
    ) -> &mut Self {
        self.push_sql("(");
        let mut n = 0;
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.push_sql(", ");
            }
            self.push_bind(v);
            n += 1;
        }
        self.push_sql(")");
        if n > CACHED_LIST_MAX {
            self.cacheable = false;
        }
        self
    }

    /// ` = ?` for one value, ` IN (?, ?, …)` for several: one value lets the
    /// planners treat the column as fixed and use an index for the order too.
    pub(crate) fn push_any_of<'a>(&mut self, values: &'a [impl AsRef<str> + 'a]) -> &mut Self {
        if let [one] = values {
            self.push_sql(" = ").push_bind(one.as_ref())
        } else {
            self.push_sql(" IN ")
                .push_text_list(values.iter().map(AsRef::as_ref))
        }
    }

    /// Appends the pieces of `other` (and its cacheability).
    pub(crate) fn push_sql_of(&mut self, other: &Sql) -> &mut Self {
        for piece in &other.pieces {
            match piece {
                Piece::Text(text) => {
                    self.push_sql(text);
                }
                Piece::Bind(bind) => {
                    self.push_bind(bind.clone());
                }
            }
        }
        self.cacheable &= other.cacheable;
        self
    }

    /// Marks the statement as not to be kept prepared on the connection.
    pub(crate) fn uncached(&mut self) -> &mut Self {
        self.cacheable = false;
        self
    }

    /// Whether the connection keeps the statement prepared; for tests.
    #[cfg(test)]
    pub(crate) fn is_cacheable(&self) -> bool {
        self.cacheable
    }

    /// Runs the statement on the backend's own connection.
    pub(crate) fn execute(&self, c: &mut DbConnection) -> QueryResult<usize> {
        on_inner!(c, |c| RunQueryDsl::execute(self, c))
    }

    /// Runs the statement and decodes its rows by column name.
    pub(crate) fn load<R>(&self, c: &mut DbConnection) -> QueryResult<Vec<R>>
    where
        R: QueryableByName<Sqlite> + QueryableByName<Pg> + 'static,
    {
        on_inner!(c, |c| RunQueryDsl::load(self, c))
    }

    /// The SQL text and binds the backend gets (`… -- binds: […]`), as
    /// Diesel renders them; for tests.
    #[cfg(test)]
    pub(crate) fn rendered(&self, backend: crate::connection::Backend) -> String {
        match backend {
            crate::connection::Backend::Sqlite => {
                diesel::debug_query::<Sqlite, _>(self).to_string()
            }
            crate::connection::Backend::Postgres => diesel::debug_query::<Pg, _>(self).to_string(),
        }
    }

    /// The SQL text the backend gets, without the binds; for tests.
    #[cfg(test)]
    pub(crate) fn text(&self, backend: crate::connection::Backend) -> String {
        let rendered = self.rendered(backend);
        match rendered.split_once(" -- binds: ") {
            Some((sql, _)) => sql.to_owned(),
            None => rendered,
        }
    }

    /// The bound values, in order; for tests.
    #[cfg(test)]
    pub(crate) fn binds(&self) -> Vec<Bind> {
        self.pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Bind(b) => Some(b.clone()),
                Piece::Text(_) => None,
            })
            .collect()
    }
}

impl QueryId for Sql {
    type QueryId = ();
    // Cached by SQL text (and bind types), not by type.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Sql {
    type SqlType = Untyped;
}

impl<DB> QueryFragment<DB> for Sql
where
    DB: DieselBackend
        + HasSqlType<Text>
        + HasSqlType<Bool>
        + HasSqlType<Timestamp>
        + HasSqlType<Date>
        + HasSqlType<BigInt>,
    String: ToSql<Text, DB>,
    bool: ToSql<Bool, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
    NaiveDate: ToSql<Date, DB>,
    i64: ToSql<BigInt, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        if !self.cacheable {
            out.unsafe_to_cache_prepared();
        }
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => out.push_sql(text),
                Piece::Bind(Bind::Text(v)) => out.push_bind_param::<Text, String>(v)?,
                Piece::Bind(Bind::NullableText(v)) => {
                    out.push_bind_param::<Nullable<Text>, Option<String>>(v)?;
                }
                Piece::Bind(Bind::Bool(v)) => out.push_bind_param::<Bool, bool>(v)?,
                Piece::Bind(Bind::Time(v)) => {
                    out.push_bind_param::<Timestamp, NaiveDateTime>(v)?;
                }
                Piece::Bind(Bind::Date(v)) => out.push_bind_param::<Date, NaiveDate>(v)?,
                Piece::Bind(Bind::BigInt(v)) => out.push_bind_param::<BigInt, i64>(v)?,
            }
        }
        Ok(())
    }
}

impl<Conn> RunQueryDsl<Conn> for &Sql {}

/// Ids (or any keys) as the rows store them: their text.
pub(crate) fn texts<'a, T: ToString + 'a>(keys: impl IntoIterator<Item = &'a T>) -> Vec<String> {
    keys.into_iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::Backend;

    #[test]
    fn binds_take_each_backends_placeholder() {
        let mut sql = Sql::default();
        sql.push_sql("SELECT a FROM t WHERE b = ")
            .push_bind("x")
            .push_sql(" AND c = ")
            .push_bind(2_i64);
        assert_eq!(
            sql.rendered(Backend::Sqlite),
            "SELECT a FROM t WHERE b = ? AND c = ? -- binds: [\"x\", 2]"
        );
        assert_eq!(
            sql.rendered(Backend::Postgres),
            "SELECT a FROM t WHERE b = $1 AND c = $2 -- binds: [\"x\", 2]"
        );
    }

    #[test]
    fn a_question_mark_in_a_value_or_the_text_is_not_a_placeholder() {
        let mut sql = Sql::default();
        sql.push_sql("SELECT '?' WHERE x = ").push_bind("why?");
        assert_eq!(
            sql.rendered(Backend::Postgres),
            "SELECT '?' WHERE x = $1 -- binds: [\"why?\"]"
        );
    }

    #[test]
    fn long_in_lists_are_not_kept_prepared() {
        let few: Vec<String> = (0..CACHED_LIST_MAX).map(|i| i.to_string()).collect();
        let mut sql = Sql::default();
        sql.push_sql("x").push_any_of(&few);
        assert!(sql.is_cacheable());
        let many: Vec<String> = (0..=CACHED_LIST_MAX).map(|i| i.to_string()).collect();
        let mut long = Sql::default();
        long.push_sql("x").push_any_of(&many);
        assert!(!long.is_cacheable());
        // Appending carries the shape's cacheability.
        sql.push_sql_of(&long);
        assert!(!sql.is_cacheable());
    }

    #[test]
    fn one_value_is_an_equality() {
        let mut sql = Sql::default();
        sql.push_sql("x").push_any_of(&["a"]);
        assert_eq!(sql.text(Backend::Sqlite), "x = ?");
        let mut two = Sql::default();
        two.push_sql("x").push_any_of(&["a", "b"]);
        assert_eq!(two.text(Backend::Postgres), "x IN ($1, $2)");
    }
}
