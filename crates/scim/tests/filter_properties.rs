//! Property tests of the SCIM filter grammar (`equip_scim::filter`):
//!
//! - printing is the inverse of parsing: for generated filters `f` (every
//!   shape the parser can return: comparisons with any string, finite number,
//!   boolean or null, presence, `and`/`or` chains in any association, `not`,
//!   value filters, URN-prefixed and sub-attribute paths, attribute names that
//!   are keywords), `parse(print(f)) == f`;
//! - parsing forgets only spelling: the same filter written with other case,
//!   whitespace, redundant parentheses, number and string spellings, and the
//!   Entra `attr[…].sub op value` form parses to the same filter, which prints
//!   as `print(f)` (so printing a parsed filter is a fixpoint);
//! - PATCH paths round-trip the same way;
//! - any token soup is parsed or refused with a position inside the input,
//!   and what parses round-trips.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use equip_scim::filter::{
    parse_filter, parse_path, AttrPath, CompValue, CompareOp, Filter, PatchPath,
};
use proptest::prelude::*;
use proptest::sample::select;

const OPS: [CompareOp; 9] = [
    CompareOp::Eq,
    CompareOp::Ne,
    CompareOp::Co,
    CompareOp::Sw,
    CompareOp::Ew,
    CompareOp::Gt,
    CompareOp::Ge,
    CompareOp::Lt,
    CompareOp::Le,
];

/// An attribute or sub-attribute name, keywords included.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[A-Za-z$][A-Za-z0-9_$-]{0,6}",
        1 => select(vec!["not", "and", "or", "pr", "eq", "true", "null", "NOT", "Or"])
            .prop_map(str::to_owned),
    ]
}

fn uri() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        4 => Just(None),
        1 => Just(Some("urn:ietf:params:scim:schemas:core:2.0:User".to_owned())),
        1 => Just(Some("urn:ietf:params:scim:schemas:extension:equip:1.0:User".to_owned())),
        1 => "[A-Za-z_$.:][A-Za-z0-9_.:$-]{0,12}".prop_map(Some),
        1 => Just(Some(String::new())),
    ]
}

fn attr_path(sub: bool) -> impl Strategy<Value = AttrPath> {
    let sub_attr = if sub {
        proptest::option::of(name()).boxed()
    } else {
        Just(None).boxed()
    };
    (uri(), name(), sub_attr).prop_map(|(uri, attr, sub_attr)| AttrPath {
        uri,
        attr,
        sub_attr,
    })
}

fn value() -> impl Strategy<Value = CompValue> {
    prop_oneof![
        3 => any::<String>().prop_map(CompValue::Str),
        1 => "[a-z@. \"\\\\/]{0,8}".prop_map(CompValue::Str),
        1 => (-1000i32..1000).prop_map(|n| CompValue::Number(f64::from(n))),
        1 => any::<f64>()
            .prop_filter("finite", |n| n.is_finite())
            .prop_map(CompValue::Number),
        1 => any::<bool>().prop_map(CompValue::Bool),
        1 => Just(CompValue::Null),
    ]
}

fn condition() -> BoxedStrategy<Filter> {
    prop_oneof![
        3 => (attr_path(true), select(OPS.to_vec()), value())
            .prop_map(|(p, op, v)| Filter::Compare(p, op, v)),
        1 => attr_path(true).prop_map(Filter::Present),
    ]
    .boxed()
}

/// `and`, `or`, `not` over `leaf`.
fn tree(leaf: BoxedStrategy<Filter>) -> BoxedStrategy<Filter> {
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Filter::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Filter::Or(Box::new(a), Box::new(b))),
            inner.prop_map(|a| Filter::Not(Box::new(a))),
        ]
    })
    .boxed()
}

/// A filter inside a value filter: no value filter of its own.
fn inner_filter() -> BoxedStrategy<Filter> {
    tree(condition())
}

/// Any filter the parser can return.
fn filter() -> BoxedStrategy<Filter> {
    let value_path =
        (attr_path(false), inner_filter()).prop_map(|(p, f)| Filter::ValuePath(p, Box::new(f)));
    tree(prop_oneof![3 => condition(), 1 => value_path].boxed())
}

fn patch_path() -> impl Strategy<Value = PatchPath> {
    prop_oneof![
        attr_path(true).prop_map(|attr| PatchPath {
            attr,
            filter: None,
            sub_attr: None,
        }),
        (
            attr_path(false),
            inner_filter(),
            proptest::option::of(name())
        )
            .prop_map(|(attr, f, sub_attr)| PatchPath {
                attr,
                filter: Some(f),
                sub_attr,
            }),
    ]
}

/// Spelling choices, taken in turn from random bytes.
struct Noise {
    bytes: Vec<u8>,
    at: usize,
}

impl Noise {
    fn next(&mut self) -> u8 {
        let b = self.bytes[self.at % self.bytes.len()];
        self.at += 1;
        b.wrapping_add(u8::try_from(self.at / self.bytes.len() % 256).unwrap())
    }

    fn space(&mut self) -> &'static str {
        [" ", " ", " ", "  ", "\t", "\n", " \r\n "][usize::from(self.next() % 7)]
    }

    fn word(&mut self, word: &str) -> String {
        match self.next() % 3 {
            0 => word.to_ascii_lowercase(),
            1 => word.to_ascii_uppercase(),
            _ => word
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if i % 2 == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect(),
        }
    }

    fn value(&mut self, v: &CompValue) -> String {
        match v {
            CompValue::Str(s) => self.string(s),
            CompValue::Number(n) => match self.next() % 3 {
                0 => format!("{n:e}"),
                1 => format!("{n:E}"),
                _ => format!("{n}"),
            },
            CompValue::Bool(b) => self.word(&b.to_string()),
            CompValue::Null => self.word("null"),
        }
    }

    /// A JSON string with characters escaped at random.
    fn string(&mut self, s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '/' if self.next().is_multiple_of(2) => out.push_str("\\/"),
                '\n' if self.next().is_multiple_of(2) => out.push_str("\\n"),
                c if u32::from(c) < 0x20 || self.next().is_multiple_of(4) => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04X}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    fn condition(&mut self, f: &Filter) -> Option<String> {
        match f {
            Filter::Compare(p, op, v) => Some(format!(
                "{p}{}{}{}{}",
                self.space(),
                self.word(equip_scim::filter::op_name(*op)),
                self.space(),
                self.value(v)
            )),
            Filter::Present(p) => Some(format!("{p}{}{}", self.space(), self.word("pr"))),
            _ => None,
        }
    }

    /// `f` at a position of binding strength `at` (0: or, 1: and, 2: unary).
    fn filter(&mut self, f: &Filter, at: u8) -> String {
        let needs = match f {
            Filter::Or(..) => 0,
            Filter::And(..) => 1,
            _ => 2,
        };
        let redundant = self.next().is_multiple_of(8);
        if needs < at || redundant {
            let (l, r) = (self.space(), self.space());
            return format!("({l}{}{r})", self.filter(f, 0));
        }
        match f {
            Filter::Compare(..) | Filter::Present(..) => self.condition(f).unwrap(),
            Filter::Or(a, b) => {
                let a = self.filter(a, 0);
                let (s1, s2) = (self.space(), self.space());
                let or = self.word("or");
                format!("{a}{s1}{or}{s2}{}", self.filter(b, 1))
            }
            Filter::And(a, b) => {
                let a = self.filter(a, 1);
                let (s1, s2) = (self.space(), self.space());
                let and = self.word("and");
                format!("{a}{s1}{and}{s2}{}", self.filter(b, 2))
            }
            Filter::Not(a) => {
                let not = self.word("not");
                let s = if self.next().is_multiple_of(2) {
                    ""
                } else {
                    " "
                };
                format!("{not}{s}({})", self.filter(a, 0))
            }
            Filter::ValuePath(p, inner) => {
                // Entra's spelling when the last condition is a plain attribute.
                if let Filter::And(a, b) = &**inner {
                    if let Filter::Compare(sub, ..) | Filter::Present(sub) = &**b {
                        if sub.uri.is_none()
                            && sub.sub_attr.is_none()
                            && self.next().is_multiple_of(2)
                        {
                            let cond = self.condition(b).unwrap();
                            let cond = cond.strip_prefix(sub.attr.as_str()).unwrap();
                            return format!("{p}[{}].{}{cond}", self.filter(a, 0), sub.attr);
                        }
                    }
                }
                format!("{p}[{}]", self.filter(inner, 0))
            }
        }
    }
}

const TOKENS: [&str; 22] = [
    "(",
    ")",
    "[",
    "]",
    "].",
    " and ",
    " or ",
    "not",
    " pr",
    " eq ",
    " GT ",
    "\"s\"",
    "\"\\u00e9\\\"\"",
    "1",
    "-2.5e3",
    "1e999",
    "true",
    "null",
    "a",
    "emails",
    "b.c",
    "urn:x:y",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn printing_then_parsing_gives_the_filter_back(f in filter()) {
        let printed = f.to_string();
        let parsed = parse_filter(&printed);
        prop_assert_eq!(parsed.as_ref(), Ok(&f), "printed as {}", printed);
    }

    #[test]
    fn any_spelling_parses_to_the_filter_and_prints_canonically(
        f in filter(),
        bytes in proptest::collection::vec(any::<u8>(), 1..64),
    ) {
        let spelled = Noise { bytes, at: 0 }.filter(&f, 0);
        let parsed = parse_filter(&spelled);
        prop_assert_eq!(parsed.as_ref(), Ok(&f), "spelled {}", spelled);
        prop_assert_eq!(parsed.unwrap().to_string(), f.to_string());
    }

    #[test]
    fn patch_paths_round_trip(p in patch_path()) {
        let printed = p.to_string();
        let parsed = parse_path(&printed);
        prop_assert_eq!(parsed.as_ref(), Ok(&p), "printed as {}", printed);
    }

    #[test]
    fn token_soup_is_parsed_or_refused_with_a_position(
        tokens in proptest::collection::vec(select(TOKENS.to_vec()), 0..16),
    ) {
        let src = tokens.concat();
        match parse_filter(&src) {
            Ok(f) => {
                let printed = f.to_string();
                prop_assert_eq!(parse_filter(&printed), Ok(f.clone()), "{} printed as {}", src, printed);
                prop_assert_eq!(parse_filter(&printed).unwrap().to_string(), printed);
            }
            Err(e) => prop_assert!(e.position <= src.chars().count(), "{}: {}", src, e),
        }
        match parse_path(&src) {
            Ok(p) => prop_assert_eq!(parse_path(&p.to_string()), Ok(p)),
            Err(e) => prop_assert!(e.position <= src.chars().count(), "{}: {}", src, e),
        }
    }
}
