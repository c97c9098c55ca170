//! `PhoneNumber::parse`: accepts exactly strict E.164 (`+`, 8–15 digits, the first not 0) and round-trips.
#![no_main]

use herald_domain::values::PhoneNumber;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let expected = text.strip_prefix('+').is_some_and(|digits| {
        (8..=15).contains(&digits.len())
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0')
    });
    match PhoneNumber::parse(text) {
        Ok(number) => {
            assert!(expected, "accepted {text:?}");
            assert_eq!(number.as_str(), text);
            assert_eq!(format!("+{}", number.digits()), text);
            assert_eq!(PhoneNumber::parse(number.as_str()).ok(), Some(number));
        }
        Err(_) => assert!(!expected, "refused {text:?}"),
    }
});
