//! Request methods of the client's invention (random tokens, huge ones) and the `method` label the request
//! metrics count them under: always one of a closed set, so no method can add a metric series.
#![no_main]

use libfuzzer_sys::fuzz_target;

const LABELS: [&str; 10] = [
    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE", "other",
];

fuzz_target!(|data: (Vec<u8>, u16)| {
    let (mut method, repeat) = data;
    // Huge method names, as a client may send (100 KB of letters), from a short input.
    if let Some(&last) = method.last() {
        method.extend(std::iter::repeat_n(last, usize::from(repeat)));
    }
    if let Some(label) = herald_http::fuzzing::method_label(&method) {
        assert!(LABELS.contains(&label), "{label}");
        let standard = LABELS.iter().any(|l| l.as_bytes() == method.as_slice() && *l != "other");
        assert_eq!(label != "other", standard, "{label}");
    }
});
