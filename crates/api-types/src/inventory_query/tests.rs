//! The documented parameters (the OpenAPI document's, from `IntoParams`) are
//! exactly those the reader takes, each single or repeated as documented, and
//! their schema facts are what the domain's validation accepts.

use super::*;
use equip_domain::error::DomainError;
use equip_domain::inventory_query::InventoryQuery;
use serde_json::Value;

/// The documented parameters, in order: name and schema.
fn documented() -> Vec<(String, Value)> {
    InventoryListParams::into_params(|| None)
        .into_iter()
        .map(|p| {
            let v = serde_json::to_value(&p).unwrap();
            (v["name"].as_str().unwrap().to_owned(), v["schema"].clone())
        })
        .collect()
}

fn is_list(schema: &Value) -> bool {
    schema["type"] == "array"
}

fn query(pairs: &[(&str, &str)]) -> Result<RawInventoryQuery, QueryError> {
    crate::query::read_pairs::<InventoryListParams>(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    )
    .map(RawInventoryQuery::from)
}

#[test]
fn every_field_of_the_raw_query_is_filled_by_exactly_one_documented_parameter() {
    let params = documented();
    assert_eq!(params.len(), 16);
    let pairs: Vec<(String, String)> = params
        .iter()
        .map(|(name, _)| (name.clone(), format!("v-{name}")))
        .collect();
    let raw =
        RawInventoryQuery::from(crate::query::read_pairs::<InventoryListParams>(pairs).unwrap());
    let RawInventoryQuery {
        page,
        size,
        person_id,
        warehouse_id,
        office_id,
        categories,
        deploy_statuses,
        sku_ids,
        search_string,
        updated_at_from,
        updated_at_to,
        assigned_email,
        serial_numbers,
        vendor_skus,
        sort_by,
        sort_direction,
    } = raw;
    let schema = |name: &str| &params.iter().find(|(n, _)| n == name).unwrap().1;
    let singles = [
        (page, "page"),
        (size, "size"),
        (person_id, "personId"),
        (warehouse_id, "warehouseId"),
        (office_id, "officeId"),
        (search_string, "searchString"),
        (updated_at_from, "updatedAtFrom"),
        (updated_at_to, "updatedAtTo"),
        (assigned_email, "assignedEmail"),
        (sort_by, "sortBy"),
        (sort_direction, "sortDirection"),
    ];
    for (value, name) in singles {
        assert_eq!(value, Some(format!("v-{name}")));
        assert!(!is_list(schema(name)), "{name}");
    }
    let lists = [
        (categories, "categories"),
        (deploy_statuses, "deployStatuses"),
        (sku_ids, "skuIds"),
        (serial_numbers, "serialNumber"),
        (vendor_skus, "vendorSku"),
    ];
    for (values, name) in lists {
        assert_eq!(values, vec![format!("v-{name}")]);
        assert!(is_list(schema(name)), "{name}");
    }
}

#[test]
fn a_documented_list_repeats_and_a_documented_single_parameter_does_not() {
    for (name, schema) in documented() {
        let twice = query(&[(&name, "a"), (&name, "b")]);
        if is_list(&schema) {
            assert!(twice.is_ok(), "{name}");
            assert_eq!(schema["maxItems"], MAX_LIST_VALUES, "{name}");
        } else {
            let e = twice.unwrap_err();
            assert_eq!(e, QueryError::Repeated(name.clone()));
            assert_eq!(e.to_string(), format!("{name} may be given only once"));
        }
    }
}

#[test]
fn unknown_parameters_are_refused_and_lists_keep_their_values() {
    let e = query(&[("deployStatus", "AVAILABLE")]).unwrap_err();
    assert_eq!(e.source(), "deployStatus");
    assert!(
        e.to_string()
            .starts_with("unknown query parameter 'deployStatus'; known parameters: page, size,"),
        "{e}"
    );
    // Names are case-sensitive, as docs/api.md writes them.
    assert!(query(&[("PAGE", "1")]).is_err());
    let raw = query(&[("skuIds", "a"), ("skuIds", "b,c"), ("page", "2")]).unwrap();
    assert_eq!(raw.sku_ids, vec!["a", "b,c"]);
    assert_eq!(raw.page.as_deref(), Some("2"));
    let raw = from_query("categories=LAPTOP&categories=phone%2Ctablet&sortBy=product").unwrap();
    assert_eq!(raw.categories, vec!["LAPTOP", "phone,tablet"]);
    assert_eq!(raw.sort_by.as_deref(), Some("product"));
    let e = from_query("categories=LAPTOP&categories=%00").unwrap_err();
    assert_eq!(e.to_string(), "categories must not contain NUL characters");
}

fn parses(name: &str, value: &str) -> Result<InventoryQuery, DomainError> {
    InventoryQuery::parse(&query(&[(name, value)]).unwrap())
}

#[test]
fn schema_facts_match_what_parse_accepts() {
    let defaults = InventoryQuery::parse(&RawInventoryQuery::default()).unwrap();
    for (name, schema) in documented() {
        let item = if is_list(&schema) {
            &schema["items"]
        } else {
            &schema
        };
        if item["type"] == "integer" {
            let n = |key: &str| u32::try_from(item[key].as_u64().unwrap()).unwrap();
            let (min, max, default) = (n("minimum"), n("maximum"), n("default"));
            assert!(parses(&name, &min.to_string()).is_ok(), "{name}");
            assert!(parses(&name, &max.to_string()).is_ok(), "{name}");
            assert!(parses(&name, &(max + 1).to_string()).is_err(), "{name}");
            assert!(parses(&name, &(min - 1).to_string()).is_err(), "{name}");
            let actual = match name.as_str() {
                "page" => defaults.page().get(),
                _ => defaults.size(),
            };
            assert_eq!(actual, default, "{name}");
        } else if let Some(values) = item["enum"].as_array() {
            for v in values {
                let v = v.as_str().unwrap();
                assert!(parses(&name, v).is_ok(), "{name}={v}");
            }
            assert!(parses(&name, "nope").is_err(), "{name}");
        } else if item["format"] == "uuid" {
            assert!(parses(&name, "nope").is_err(), "{name}");
            let id = uuid::Uuid::new_v4().to_string();
            // An unknown id is valid here (the store answers 404).
            assert!(parses(&name, &id).is_ok(), "{name}");
        } else if let Some(max) = item["maxLength"].as_u64() {
            let max = usize::try_from(max).unwrap();
            assert!(parses(&name, &"x".repeat(max)).is_ok(), "{name}");
            assert!(parses(&name, &"x".repeat(max + 1)).is_err(), "{name}");
        } else if item["pattern"] == NOT_BLANK {
            assert!(parses(&name, "x").is_ok(), "{name}");
            assert!(parses(&name, " ").is_err(), "{name}: a blank value");
        } else if item["pattern"] == UTC_TIME_PATTERN {
            assert!(parses(&name, "2024-02-29T23:59:59.5Z").is_ok(), "{name}");
            assert!(parses(&name, "2024-02-30T00:00:00").is_err(), "{name}");
        } else {
            assert_eq!(name, "assignedEmail", "a parameter with no schema facts");
        }
    }
}
