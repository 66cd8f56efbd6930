//! List and search requests on `/Users` (RFC 7644 §3.4.2, §3.4.3): the filter
//! translated into the domain's [`PersonFilter`], sorting, paging, and the
//! ListResponse. The inputs ([`ListInputs`]) and the ListResponse serve
//! `/Groups` too ([`crate::group_list`]).

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{json, Value};

use equip_domain::filter::{Condition, Field as DField, Filter as DFilter};
use equip_domain::person_query::{
    check_filter_text, EmailField, EmailFilter, FieldKind, FilterValue, PersonField, PersonFilter,
    PersonLeaf, PersonQuery, ProfileText, SortOrder, PAGE_SIZE_LIMIT,
};

use crate::filter::{parse_filter, AttrPath, CompValue, CompareOp, Filter};
use crate::meta::TIMESTAMP_DIGITS;
use crate::schemas;
use crate::user_schema::{resolve, Schema};

/// A list input that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    /// The filter does not parse or names something equip cannot filter on
    /// (`scimType` `invalidFilter`).
    #[error("invalid filter: {0}")]
    Filter(String),
    /// Another input is wrong (`invalidValue`), naming it.
    #[error("{param}: {message}")]
    Param {
        /// The input.
        param: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// A list input that cannot be used: 400 `invalidFilter` (about `filter`) or
/// `invalidValue` (about the parameter).
impl From<ListError> for crate::error::ScimError {
    fn from(e: ListError) -> Self {
        use crate::error::ScimType;
        match e {
            ListError::Filter(m) => Self::bad(ScimType::InvalidFilter, "filter", m),
            ListError::Param { param, message } => {
                Self::bad(ScimType::InvalidValue, param, message)
            }
        }
    }
}

pub(crate) fn filter_err(message: impl Into<String>) -> ListError {
    ListError::Filter(message.into())
}

fn person_field(path: &AttrPath) -> Result<Field, ListError> {
    let r = resolve(path).ok_or_else(|| {
        filter_err(format!(
            "'{path}' is not an attribute of User that equip supports"
        ))
    })?;
    let attr = r.attr.map(|a| a.name);
    let sub = r.sub.map(|a| a.name);
    let field = match (r.schema, attr, sub) {
        (Schema::Core, Some("id"), None) => Field::Person(PersonField::Id),
        (Schema::Core, Some("externalId"), None) => Field::Person(PersonField::ExternalId),
        (Schema::Core, Some("userName"), None) => Field::Person(PersonField::UserName),
        (Schema::Core, Some("name"), Some("givenName")) => Field::Person(PersonField::GivenName),
        (Schema::Core, Some("name"), Some("familyName")) => Field::Person(PersonField::FamilyName),
        (Schema::Core, Some("displayName"), None) => Field::Person(PersonField::DisplayName),
        (Schema::Core, Some("active"), None) => Field::Person(PersonField::Active),
        (Schema::Core, Some("meta"), Some("created")) => Field::Person(PersonField::Created),
        (Schema::Core, Some("meta"), Some("lastModified")) => {
            Field::Person(PersonField::LastModified)
        }
        (Schema::Core, Some("emails"), None | Some("value")) => Field::Email(EmailField::Value),
        (Schema::Core, Some("emails"), Some("type")) => Field::Email(EmailField::Kind),
        (Schema::Core, Some("emails"), Some("primary")) => Field::Email(EmailField::Primary),
        (Schema::Extension, Some("packageId"), None) => Field::Person(PersonField::PackageId),
        (Schema::Extension, Some("startDate"), None) => Field::Person(PersonField::StartDate),
        (Schema::Core, Some(attr), sub) => match profile_text(attr, sub) {
            Some(t) => Field::Person(PersonField::Profile(t)),
            None => return Err(not_filterable(path)),
        },
        _ => return Err(not_filterable(path)),
    };
    Ok(field)
}

fn not_filterable(path: &AttrPath) -> ListError {
    filter_err(format!(
        "filtering on '{path}' is not supported; see docs/scim.md for the attributes"
    ))
}

/// The profile text a core attribute (canonical names) is, if it is one.
fn profile_text(attr: &str, sub: Option<&str>) -> Option<ProfileText> {
    Some(match (attr, sub) {
        ("name", Some("formatted")) => ProfileText::FormattedName,
        ("name", Some("middleName")) => ProfileText::MiddleName,
        ("name", Some("honorificPrefix")) => ProfileText::HonorificPrefix,
        ("name", Some("honorificSuffix")) => ProfileText::HonorificSuffix,
        ("nickName", None) => ProfileText::NickName,
        ("title", None) => ProfileText::Title,
        ("userType", None) => ProfileText::UserType,
        ("preferredLanguage", None) => ProfileText::PreferredLanguage,
        ("locale", None) => ProfileText::Locale,
        ("timezone", None) => ProfileText::Timezone,
        ("profileUrl", None) => ProfileText::ProfileUrl,
        _ => return None,
    })
}

#[derive(Debug, Clone, Copy)]
enum Field {
    Person(PersonField),
    Email(EmailField),
}

/// What a comparison becomes: a comparison, or presence for `eq null` / `ne null`.
pub(crate) enum Cond {
    Compare(CompareOp, FilterValue),
    Present(bool),
}

/// The comparison of a field of `kind` with `v` by `o`, checked (the value's
/// type, the operators the kind allows).
pub(crate) fn condition(
    path: &AttrPath,
    kind: FieldKind,
    o: CompareOp,
    v: &CompValue,
) -> Result<Cond, ListError> {
    if *v == CompValue::Null {
        return match o {
            CompareOp::Eq => Ok(Cond::Present(false)),
            CompareOp::Ne => Ok(Cond::Present(true)),
            _ => Err(filter_err(format!(
                "'{path}': only eq and ne compare with null"
            ))),
        };
    }
    let text_op = matches!(o, CompareOp::Co | CompareOp::Sw | CompareOp::Ew);
    let order_op = matches!(
        o,
        CompareOp::Gt | CompareOp::Ge | CompareOp::Lt | CompareOp::Le
    );
    let value = match (kind, v) {
        (FieldKind::Text { .. } | FieldKind::Identifier, CompValue::Str(s)) => {
            check_filter_text(s).map_err(|e| filter_err(format!("'{path}': {e}")))?;
            FilterValue::Text(s.clone())
        }
        (FieldKind::Bool, CompValue::Bool(b)) if !text_op && !order_op => FilterValue::Bool(*b),
        (FieldKind::Bool, _) => {
            return Err(filter_err(format!(
                "'{path}' is a boolean: use eq or ne with true or false"
            )))
        }
        (FieldKind::Time, CompValue::Str(s)) if !text_op => FilterValue::Time(
            DateTime::parse_from_rfc3339(s)
                .map(|d| d.with_timezone(&Utc))
                .map_err(|_| filter_err(format!("'{path}': '{s}' is not an RFC 3339 date-time")))?,
        ),
        (FieldKind::Date, CompValue::Str(s)) if !text_op => FilterValue::Date(
            NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .map_err(|_| filter_err(format!("'{path}': '{s}' is not a date YYYY-MM-DD")))?,
        ),
        _ => {
            return Err(filter_err(format!(
                "'{path}' cannot be compared with {v:?} using this operator"
            )))
        }
    };
    Ok(Cond::Compare(o, value))
}

/// A condition of a parsed SCIM filter: what a resource translates into its
/// own leaves (`and`, `or` and `not` are translated once, by [`translate`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Attr<'a> {
    /// `path op value`.
    Compare(&'a AttrPath, CompareOp, &'a CompValue),
    /// `path pr`.
    Present(&'a AttrPath),
    /// `path[filter]`.
    ValuePath(&'a AttrPath, &'a Filter),
}

impl<'a> Attr<'a> {
    /// The attribute the condition names.
    pub(crate) const fn path(self) -> &'a AttrPath {
        match self {
            Self::Compare(p, ..) | Self::Present(p) | Self::ValuePath(p, _) => p,
        }
    }

    /// The operator and value of a comparison; `None` for `pr`.
    const fn comparison(self) -> Option<(CompareOp, &'a CompValue)> {
        match self {
            Self::Compare(_, o, v) => Some((o, v)),
            Self::Present(_) | Self::ValuePath(..) => None,
        }
    }
}

/// The one walk from a parsed SCIM filter to the domain's filter tree:
/// `and`, `or` and `not` become the domain's (`not` refused with the message
/// `not_refused`, when given); each condition becomes what `leaf` makes of it.
pub(crate) fn translate<L>(
    f: &Filter,
    not_refused: Option<&str>,
    leaf: &mut impl FnMut(Attr<'_>) -> Result<DFilter<L>, ListError>,
) -> Result<DFilter<L>, ListError> {
    Ok(match f {
        Filter::And(a, b) => DFilter::and(
            translate(a, not_refused, leaf)?,
            translate(b, not_refused, leaf)?,
        ),
        Filter::Or(a, b) => DFilter::or(
            translate(a, not_refused, leaf)?,
            translate(b, not_refused, leaf)?,
        ),
        Filter::Not(a) => match not_refused {
            Some(message) => return Err(filter_err(message)),
            None => DFilter::negate(translate(a, not_refused, leaf)?),
        },
        Filter::Compare(p, o, v) => leaf(Attr::Compare(p, *o, v))?,
        Filter::Present(p) => leaf(Attr::Present(p))?,
        Filter::ValuePath(p, inner) => leaf(Attr::ValuePath(p, inner))?,
    })
}

/// A condition on a single-valued `field` of the resource: `field pr`, or
/// `field op value` checked ([`condition`]), `eq null` as absence, and times
/// compared as they are shown (milliseconds, [`DFilter::time_as_shown`]).
pub(crate) fn field_condition<F: DField, L: From<Condition<F>>>(
    attr: Attr<'_>,
    field: F,
) -> Result<DFilter<L>, ListError> {
    let Some((o, v)) = attr.comparison() else {
        return Ok(DFilter::present(field));
    };
    Ok(match condition(attr.path(), field.kind(), o, v)? {
        Cond::Compare(o, FilterValue::Time(t)) => {
            DFilter::time_as_shown(field, o, t, TIMESTAMP_DIGITS)
        }
        Cond::Compare(o, v) => DFilter::compare(field, o, v),
        Cond::Present(true) => DFilter::present(field),
        Cond::Present(false) => DFilter::negate(DFilter::present(field)),
    })
}

/// A condition on a `field` of a multi-valued attribute written outside
/// brackets (`emails.value eq "x"`, `members pr`): some element satisfies it
/// (`any` wraps the element's condition into the resource's leaf), except
/// `ne`, which holds when no element equals the value. `op_allowed` refuses
/// the operators the attribute cannot be compared with.
pub(crate) fn any_element_condition<F: DField, L>(
    attr: Attr<'_>,
    field: F,
    op_allowed: impl FnOnce(CompareOp) -> Result<(), ListError>,
    any: impl Fn(DFilter<Condition<F>>) -> L,
) -> Result<DFilter<L>, ListError> {
    let any = |c| DFilter::Leaf(any(DFilter::Leaf(c)));
    let Some((o, v)) = attr.comparison() else {
        return Ok(any(Condition::Present(field)));
    };
    Ok(match condition(attr.path(), field.kind(), o, v)? {
        // "no element equals x" for ne: every element differs.
        Cond::Compare(CompareOp::Ne, v) => {
            DFilter::negate(any(Condition::Compare(field, CompareOp::Eq, v)))
        }
        Cond::Compare(o, v) => {
            op_allowed(o)?;
            any(Condition::Compare(field, o, v))
        }
        Cond::Present(true) => any(Condition::Present(field)),
        Cond::Present(false) => DFilter::negate(any(Condition::Present(field))),
    })
}

/// A condition inside `emails[…]`, whose names are the address's
/// sub-attributes: type, value, primary.
fn email_leaf(attr: Attr<'_>) -> Result<EmailFilter, ListError> {
    let p = match attr {
        Attr::ValuePath(..) => return Err(filter_err("value filters cannot be nested")),
        Attr::Compare(p, ..) | Attr::Present(p) => p,
    };
    let not_email = || filter_err(format!("'{p}' is not a sub-attribute of emails"));
    if p.sub_attr.is_some() || p.uri.is_some() {
        return Err(not_email());
    }
    let inner = AttrPath {
        uri: None,
        attr: "emails".into(),
        sub_attr: Some(p.attr.clone()),
    };
    let Field::Email(field) = person_field(&inner)? else {
        return Err(not_email());
    };
    field_condition(attr, field)
}

/// A condition of a filter on users.
fn person_leaf(attr: Attr<'_>) -> Result<PersonFilter, ListError> {
    let path = attr.path();
    if let Attr::ValuePath(_, inner) = attr {
        return match resolve(path).and_then(|r| r.attr).map(|a| a.name) {
            Some("emails") if path.sub_attr.is_none() => Ok(PersonFilter::any_email(translate(
                inner,
                None,
                &mut email_leaf,
            )?)),
            _ => Err(filter_err(format!(
                "value filters are supported on emails only, not on '{path}'"
            ))),
        };
    }
    match person_field(path)? {
        Field::Person(p) => field_condition(attr, p),
        Field::Email(e) => any_element_condition(attr, e, |_| Ok(()), PersonLeaf::AnyEmail),
    }
}

/// Translates a parsed filter into the domain's [`PersonFilter`].
///
/// # Errors
/// [`ListError::Filter`] for attributes equip does not filter on, and values
/// of the wrong type.
pub fn to_person_filter(f: &Filter) -> Result<PersonFilter, ListError> {
    translate(f, None, &mut person_leaf)
}

/// Parses and translates a filter string.
///
/// # Errors
/// [`ListError::Filter`].
pub fn parse_person_filter(raw: &str) -> Result<PersonFilter, ListError> {
    let f = parse_filter(raw).map_err(|e| filter_err(e.to_string()))?;
    to_person_filter(&f)
}

/// The list inputs as strings (query parameters, or a SearchRequest body
/// flattened by [`ListInputs::from_search_body`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListInputs {
    /// `filter`.
    pub filter: Option<String>,
    /// `startIndex`.
    pub start_index: Option<String>,
    /// `count`.
    pub count: Option<String>,
    /// `sortBy`.
    pub sort_by: Option<String>,
    /// `sortOrder`.
    pub sort_order: Option<String>,
    /// `attributes`, comma-separated.
    pub attributes: Option<String>,
    /// `excludedAttributes`, comma-separated.
    pub excluded_attributes: Option<String>,
}

fn json_scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(|i| {
                    i.as_str()
                        .map(str::to_owned)
                        .or_else(|| Some(i.to_string()))
                })
                .collect::<Vec<_>>()
                .join(","),
        ),
        other => Some(other.to_string()),
    }
}

impl ListInputs {
    /// Reads a SearchRequest body (RFC 7644 §3.4.3); attribute names are
    /// matched case-insensitively, attribute lists may be arrays or strings.
    ///
    /// # Errors
    /// [`ListError::Param`] when the body is not an object.
    pub fn from_search_body(body: &Value) -> Result<Self, ListError> {
        let obj = body.as_object().ok_or(ListError::Param {
            param: "request",
            message: "the SearchRequest must be a JSON object".into(),
        })?;
        Ok(Self::read(|name| {
            obj.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .and_then(|(_, v)| json_scalar(v))
        }))
    }

    /// Reads each input by its wire name with `get` (the one list of the
    /// names, for the query string and the SearchRequest body alike).
    pub fn read(get: impl Fn(&str) -> Option<String>) -> Self {
        Self {
            filter: get("filter"),
            start_index: get("startIndex"),
            count: get("count"),
            sort_by: get("sortBy"),
            sort_order: get("sortOrder"),
            attributes: get("attributes"),
            excluded_attributes: get("excludedAttributes"),
        }
    }

    /// The domain query; its page is at most `max_results` long (the
    /// deployment's `filter.maxResults`, at most [`PAGE_SIZE_LIMIT`]).
    ///
    /// # Errors
    /// [`ListError::Filter`] for the filter; [`ListError::Param`] for a
    /// non-integer `startIndex` / `count`, an unknown `sortBy` or `sortOrder`.
    pub fn query(&self, max_results: u32) -> Result<PersonQuery, ListError> {
        let (start_index, count) = self.page(max_results)?;
        let filter = match self.filter.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(raw) => Some(parse_person_filter(raw)?),
        };
        let sort = match self.sort_by.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(raw) => Some(sort_field(raw)?),
        };
        Ok(PersonQuery {
            filter,
            sort,
            order: self.order()?,
            start_index,
            count,
        })
    }

    /// The `count` asked for, when it is more than a page may hold (`max`,
    /// at most [`PAGE_SIZE_LIMIT`]): the page is served at the cap, and a
    /// client that steps `startIndex` by the count it asked rather than by
    /// `itemsPerPage` (Okta's import) skips the resources past it.
    #[must_use]
    pub fn count_over(&self, max: u32) -> Option<i64> {
        let asked = self.count.as_deref()?.trim().parse::<i64>().ok()?;
        (asked > i64::from(max.min(PAGE_SIZE_LIMIT))).then_some(asked)
    }

    /// `startIndex` and `count`, the page at most `max` long (and never
    /// longer than [`PAGE_SIZE_LIMIT`]).
    pub(crate) fn page(&self, max: u32) -> Result<(u64, u32), ListError> {
        let max = max.min(PAGE_SIZE_LIMIT);
        let int = |param: &'static str, raw: &Option<String>| -> Result<Option<i64>, ListError> {
            match raw.as_deref().map(str::trim) {
                None | Some("") => Ok(None),
                Some(s) => s.parse::<i64>().map(Some).map_err(|_| ListError::Param {
                    param,
                    message: format!("'{s}' is not an integer"),
                }),
            }
        };
        // RFC 7644 §3.4.2.4: startIndex < 1 means 1; a negative count means 0.
        let start_index = int("startIndex", &self.start_index)?.unwrap_or(1).max(1);
        let count = int("count", &self.count)?
            .unwrap_or(i64::from(max))
            .clamp(0, i64::from(max));
        Ok((
            u64::try_from(start_index).unwrap_or(1),
            u32::try_from(count).unwrap_or(max),
        ))
    }

    /// `sortOrder`.
    pub(crate) fn order(&self) -> Result<SortOrder, ListError> {
        match self.sort_order.as_deref().map(str::trim) {
            None | Some("") => Ok(SortOrder::Ascending),
            Some(s) if s.eq_ignore_ascii_case("ascending") => Ok(SortOrder::Ascending),
            Some(s) if s.eq_ignore_ascii_case("descending") => Ok(SortOrder::Descending),
            Some(s) => Err(ListError::Param {
                param: "sortOrder",
                message: format!("'{s}' is neither ascending nor descending"),
            }),
        }
    }
}

fn sort_field(raw: &str) -> Result<PersonField, ListError> {
    let bad = || ListError::Param {
        param: "sortBy",
        message: format!(
            "cannot sort by '{raw}'; sortable: id, externalId, userName, name.givenName, \
             name.familyName, displayName, active, meta.created, meta.lastModified, the \
             profile's texts (name.formatted, name.middleName, name.honorificPrefix, \
             name.honorificSuffix, nickName, title, userType, preferredLanguage, locale, \
             timezone, profileUrl), and the extension's startDate"
        ),
    };
    let path = crate::filter::parse_path(raw).map_err(|_| bad())?;
    if path.filter.is_some() {
        return Err(bad());
    }
    match person_field(&path.attr) {
        Ok(Field::Person(p)) if p != PersonField::PackageId => Ok(p),
        Ok(Field::Email(EmailField::Value)) => Ok(PersonField::UserName),
        _ => Err(bad()),
    }
}

/// A ListResponse with `resources` (already projected) for a page starting at
/// `start_index`. With `count_only` (count=0) the Resources array is empty.
#[must_use]
pub fn list_response(total: u64, start_index: u64, resources: Vec<Value>) -> Value {
    json!({
        "schemas": [schemas::LIST_RESPONSE],
        "totalResults": total,
        "itemsPerPage": resources.len(),
        "startIndex": start_index,
        "Resources": resources,
    })
}

/// A ListResponse as JSON text from resources already serialized (see
/// [`crate::user::person_json`]).
#[must_use]
pub fn list_response_text(total: u64, start_index: u64, resources: &[String]) -> String {
    format!(
        "{{\"schemas\":[\"{}\"],\"totalResults\":{total},\"itemsPerPage\":{},\"startIndex\":{start_index},\"Resources\":[{}]}}",
        schemas::LIST_RESPONSE,
        resources.len(),
        resources.join(",")
    )
}

#[cfg(test)]
mod tests;
