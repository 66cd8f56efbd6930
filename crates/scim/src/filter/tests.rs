#![allow(clippy::unwrap_used)]
use super::*;

fn ap(s: &str) -> AttrPath {
    parse_attr_path(s).unwrap()
}

fn cmp(path: &str, op: CompareOp, v: CompValue) -> Filter {
    Filter::Compare(ap(path), op, v)
}

fn s(v: &str) -> CompValue {
    CompValue::Str(v.into())
}

#[test]
fn simple_comparisons_and_operators_in_any_case() {
    assert_eq!(
        parse_filter(r#"userName eq "bjensen""#).unwrap(),
        cmp("userName", CompareOp::Eq, s("bjensen"))
    );
    assert_eq!(
        parse_filter(r#"userName EQ "bjensen""#).unwrap(),
        cmp("userName", CompareOp::Eq, s("bjensen"))
    );
    for (word, op) in [
        ("ne", CompareOp::Ne),
        ("co", CompareOp::Co),
        ("Sw", CompareOp::Sw),
        ("ew", CompareOp::Ew),
        ("gt", CompareOp::Gt),
        ("GE", CompareOp::Ge),
        ("lt", CompareOp::Lt),
        ("le", CompareOp::Le),
    ] {
        assert_eq!(
            parse_filter(&format!("title {word} 1")).unwrap(),
            cmp("title", op, CompValue::Number(1.0))
        );
    }
    assert_eq!(
        parse_filter("title pr").unwrap(),
        Filter::Present(ap("title"))
    );
    assert_eq!(
        parse_filter("active eq True").unwrap(),
        cmp("active", CompareOp::Eq, CompValue::Bool(true))
    );
    assert_eq!(
        parse_filter("externalId eq null").unwrap(),
        cmp("externalId", CompareOp::Eq, CompValue::Null)
    );
}

#[test]
fn urn_prefixed_and_sub_attribute_paths() {
    let f =
        parse_filter(r#"urn:ietf:params:scim:schemas:core:2.0:User:name.familyName co "O'Malley""#)
            .unwrap();
    let Filter::Compare(path, CompareOp::Co, CompValue::Str(v)) = f else {
        panic!()
    };
    assert_eq!(
        path.uri.as_deref(),
        Some("urn:ietf:params:scim:schemas:core:2.0:User")
    );
    assert_eq!(path.attr, "name");
    assert_eq!(path.sub_attr.as_deref(), Some("familyName"));
    assert_eq!(v, "O'Malley");
    let f = parse_filter(r#"meta.lastModified gt "2011-05-13T04:42:34Z""#).unwrap();
    assert_eq!(
        f,
        cmp(
            "meta.lastModified",
            CompareOp::Gt,
            s("2011-05-13T04:42:34Z")
        )
    );
}

#[test]
fn precedence_not_over_and_over_or() {
    let f = parse_filter(r#"a eq "1" or b eq "2" and c eq "3""#).unwrap();
    assert_eq!(
        f,
        Filter::Or(
            Box::new(cmp("a", CompareOp::Eq, s("1"))),
            Box::new(Filter::And(
                Box::new(cmp("b", CompareOp::Eq, s("2"))),
                Box::new(cmp("c", CompareOp::Eq, s("3")))
            ))
        )
    );
    let f = parse_filter(r#"(a eq "1" or b eq "2") and not (c eq "3")"#).unwrap();
    assert_eq!(
        f,
        Filter::And(
            Box::new(Filter::Or(
                Box::new(cmp("a", CompareOp::Eq, s("1"))),
                Box::new(cmp("b", CompareOp::Eq, s("2")))
            )),
            Box::new(Filter::Not(Box::new(cmp("c", CompareOp::Eq, s("3")))))
        )
    );
    // Left-associative chains.
    let f = parse_filter("a pr and b pr and c pr").unwrap();
    assert!(matches!(f, Filter::And(ref l, _) if matches!(**l, Filter::And(..))));
}

#[test]
fn escapes_in_strings() {
    let f = parse_filter(r#"displayName eq "say \"hi\" \\ \u00e9 ]) and""#).unwrap();
    assert_eq!(
        f,
        cmp("displayName", CompareOp::Eq, s("say \"hi\" \\ é ]) and"))
    );
}

#[test]
fn value_paths() {
    let f = parse_filter(r#"emails[type eq "work" and value co "@example.com"]"#).unwrap();
    assert_eq!(
        f,
        Filter::ValuePath(
            ap("emails"),
            Box::new(Filter::And(
                Box::new(cmp("type", CompareOp::Eq, s("work"))),
                Box::new(cmp("value", CompareOp::Co, s("@example.com")))
            ))
        )
    );
    let f = parse_filter(
        r#"userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")"#,
    )
    .unwrap();
    assert!(matches!(f, Filter::And(..)));
    // Entra: emails[type eq "work"].value eq "x"
    let f = parse_filter(r#"emails[type eq "work"].value eq "a@b.example""#).unwrap();
    assert_eq!(
        f,
        Filter::ValuePath(
            ap("emails"),
            Box::new(Filter::And(
                Box::new(cmp("type", CompareOp::Eq, s("work"))),
                Box::new(cmp("value", CompareOp::Eq, s("a@b.example")))
            ))
        )
    );
    let f = parse_filter(r#"not (emails[primary eq true]) or x pr"#).unwrap();
    assert!(matches!(f, Filter::Or(ref l, _) if matches!(**l, Filter::Not(_))));
}

#[test]
fn errors_carry_a_position() {
    for bad in [
        "",
        "userName",
        "userName eq",
        r#"userName xx "a""#,
        r#"userName eq "unterminated"#,
        r#"(userName eq "a""#,
        r#"userName eq "a")"#,
        r#"userName eq "a" and"#,
        r#"emails[type eq "work""#,
        r#"emails[type[value eq "x"] eq "y"]"#,
        r#"userName eq bjensen"#,
        r#"userName eq "a" userName eq "b""#,
        "1abc eq 1",
        "not userName eq \"a\"",
        "userName eq \"a\" # x",
    ] {
        let err = parse_filter(bad).unwrap_err();
        assert!(!err.message.is_empty(), "{bad}");
        assert!(err.position <= bad.chars().count(), "{bad}: {err}");
    }
}

#[test]
fn numbers_out_of_range_are_refused() {
    // Found by the scim_filter fuzz target: `1e999` parsed as infinity,
    // which printed as `inf` and did not parse back.
    let err = parse_filter("x gt 1e999").unwrap_err();
    assert_eq!(err.position, 5, "{err}");
    assert!(err.message.contains("out of range"), "{err}");
    assert!(parse_filter("x lt -1e400").is_err());
    assert!(parse_path("emails[x gt 1e999]").is_err());
    let f = parse_filter("x gt 1.7e308").unwrap();
    assert_eq!(f, cmp("x", CompareOp::Gt, CompValue::Number(1.7e308)));
    assert_eq!(parse_filter(&f.to_string()).unwrap(), f);
}

/// Runs `f` on a thread with the 2 MiB stack of the server's workers.
fn on_worker_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    // 600 parentheses overflowed a 2 MiB stack in the parser (debug build),
    // aborting the process.
    on_worker_stack(|| {
        for n in [MAX_FILTER_NESTING + 1, 600, 100_000] {
            let deep = format!("{}a pr{}", "(".repeat(n), ")".repeat(n));
            let err = parse_filter(&deep).unwrap_err();
            assert!(err.message.contains("deeper than 32"), "{err}");
            assert_eq!(err.position, MAX_FILTER_NESTING);
            let nots = format!("{}a pr{}", "not (".repeat(n), ")".repeat(n));
            assert!(parse_filter(&nots).is_err());
            let path = format!("emails[{}a pr{}]", "(".repeat(n), ")".repeat(n));
            assert!(parse_path(&path).is_err());
        }
        let n = MAX_FILTER_NESTING;
        let deepest = format!("{}a pr{}", "not (".repeat(n), ")".repeat(n));
        let f = parse_filter(&deepest).unwrap();
        assert_eq!(f.to_string(), deepest);
        let deepest = format!("emails[{}a pr{}]", "(".repeat(n), ")".repeat(n));
        assert!(parse_filter(&deepest).is_ok());
    });
}

#[test]
fn long_chains_are_refused_not_a_stack_overflow() {
    // A chain of 1,000 conditions parsed, but translating it (and dropping
    // it, printing it) recursed once per condition and overflowed a 2 MiB
    // stack.
    on_worker_stack(|| {
        for n in [MAX_FILTER_CONDITIONS + 1, 1_000, 100_000] {
            let chain = vec!["a pr"; n].join(" or ");
            let err = parse_filter(&chain).unwrap_err();
            assert!(err.message.contains("more than 100 conditions"), "{err}");
            // At the first condition too many.
            assert_eq!(err.position, MAX_FILTER_CONDITIONS * "a pr or ".len());
            let chain = vec![r#"type eq "work""#; n].join(" and ");
            assert!(parse_path(&format!("emails[{chain}]")).is_err());
        }
        let longest = vec!["a pr"; MAX_FILTER_CONDITIONS].join(" or ");
        let f = parse_filter(&longest).unwrap();
        assert_eq!(f.to_string(), longest);
        // The Entra form's trailing condition counts as well.
        let inner = vec![r#"type eq "work""#; MAX_FILTER_CONDITIONS].join(" and ");
        assert!(parse_filter(&format!("emails[{inner}]")).is_ok());
        assert!(parse_filter(&format!(r#"emails[{inner}].value eq "x""#)).is_err());
    });
}

#[test]
fn a_sub_attribute_after_a_value_filter_is_an_attribute_name() {
    // Found by the scim_filter fuzz target: `emails[…].2alue eq "x"` parsed,
    // then printed as `emails[… and 2alue eq "x"]`, which does not parse.
    for (bad, position) in [
        (r#"emails[type eq "work"].2alue eq "x""#, 23),
        (r#"emails[type eq "work"].a.b eq "x""#, 23),
        (r#"emails[type eq "work"].urn:x:value eq "x""#, 23),
        (r#"emails[type eq "work"]. value eq "x""#, 23),
    ] {
        let err = parse_filter(bad).unwrap_err();
        assert_eq!(err.position, position, "{bad}: {err}");
    }
    assert!(parse_path(r#"emails[type eq "work"].2x"#).is_err());
    assert!(parse_path(r#"emails[type eq "work"].value.x"#).is_err());
    assert_eq!(
        parse_path(r#"emails[type eq "work"].$ref"#)
            .unwrap()
            .sub_attr
            .as_deref(),
        Some("$ref")
    );
}

#[test]
fn display_is_canonical_and_parses_back() {
    for (src, printed) in [
        (r#"userName EQ "bjensen""#, r#"userName eq "bjensen""#),
        ("a pr or b pr and c pr", "a pr or b pr and c pr"),
        ("a pr or (b pr or c pr)", "a pr or (b pr or c pr)"),
        ("(a pr or b pr) or c pr", "a pr or b pr or c pr"),
        ("(a pr or b pr) and c pr", "(a pr or b pr) and c pr"),
        ("a pr and (b pr and c pr)", "a pr and (b pr and c pr)"),
        ("NOT(a pr) AND ((b pr))", "not (a pr) and b pr"),
        ("x.y gt 1.50E1", "x.y gt 15"),
        ("x ne -0", "x ne -0"),
        ("active eq TRUE or x eq NULL", "active eq true or x eq null"),
        (
            r#"displayName eq "say \"hi\" \u00e9 \t""#,
            r#"displayName eq "say \"hi\" é \t""#,
        ),
        (
            r#"emails[type eq "work"].value eq "a@b.example""#,
            r#"emails[type eq "work" and value eq "a@b.example"]"#,
        ),
        (
            r#"urn:ietf:params:scim:schemas:core:2.0:User:name.familyName co "O""#,
            r#"urn:ietf:params:scim:schemas:core:2.0:User:name.familyName co "O""#,
        ),
    ] {
        let f = parse_filter(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(f.to_string(), printed, "{src}");
        assert_eq!(parse_filter(printed).unwrap(), f, "{src}");
    }
    for path in [
        "name.givenName",
        r#"emails[type eq "work" and primary eq true].value"#,
        "urn:ietf:params:scim:schemas:extension:equip:1.0:User:packageId",
    ] {
        let p = parse_path(path).unwrap();
        assert_eq!(p.to_string(), path);
    }
}

#[test]
fn patch_paths() {
    let p = parse_path("name.givenName").unwrap();
    assert_eq!(p.attr, ap("name.givenName"));
    assert!(p.filter.is_none() && p.sub_attr.is_none());
    let p = parse_path(r#"emails[type eq "work"].value"#).unwrap();
    assert_eq!(p.attr.attr, "emails");
    assert_eq!(p.filter, Some(cmp("type", CompareOp::Eq, s("work"))));
    assert_eq!(p.sub_attr.as_deref(), Some("value"));
    let p = parse_path("urn:ietf:params:scim:schemas:extension:equip:1.0:User:packageId").unwrap();
    assert_eq!(
        p.attr.uri.as_deref(),
        Some("urn:ietf:params:scim:schemas:extension:equip:1.0:User")
    );
    assert_eq!(p.attr.attr, "packageId");
    assert!(parse_path("emails[").is_err());
    assert!(parse_path("emails x").is_err());
    assert!(parse_path("").is_err());
}
