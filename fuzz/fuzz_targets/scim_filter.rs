//! The SCIM filter parser (`equip_scim::filter::parse_filter`): any text is
//! either refused with a position inside it, or parsed into a filter that
//! prints back to text parsing to the same filter (printing is a fixpoint),
//! and whose translation into the domain's person filter does not panic.
#![no_main]

use equip_scim::filter::parse_filter;
use equip_scim::list::to_person_filter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    match parse_filter(src) {
        Err(e) => assert!(
            e.position <= src.chars().count(),
            "error position {} past the end of {src:?}",
            e.position
        ),
        Ok(filter) => {
            let printed = filter.to_string();
            let again = parse_filter(&printed)
                .unwrap_or_else(|e| panic!("{src:?} printed as {printed:?}, which fails: {e}"));
            assert_eq!(again, filter, "{src:?} printed as {printed:?}");
            assert_eq!(again.to_string(), printed, "printing is not a fixpoint");
            // Unsupported attributes are errors, never panics.
            let _ = to_person_filter(&filter);
        }
    }
});
