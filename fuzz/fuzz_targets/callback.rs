//! The network's callback bodies (`POST /webhooks/whatsapp`) through `parse_callback`: any bytes give a
//! parse or an error, never a panic; a parse keeps every item it could read.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(parsed) = herald_cloudapi::parse_callback(data) {
        // Debug-formatting walks every parsed value (ids, numbers, texts, errors).
        let _ = format!("{parsed:?}");
    }
});
