//! Herald's signatures checked by an independent implementation (the `standardwebhooks` crate).

use herald_webhooks::{WebhookSecret, sign, verify};
use reqwest::header::{HeaderMap, HeaderValue};
use standardwebhooks::Webhook;

use crate::helpers::{BODY, now, secret};

fn headers(msg_id: &str, timestamp: i64, signature: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert("webhook-id", HeaderValue::from_str(msg_id).unwrap());
    headers.insert(
        "webhook-timestamp",
        HeaderValue::from_str(&timestamp.to_string()).unwrap(),
    );
    headers.insert("webhook-signature", HeaderValue::from_str(signature).unwrap());
    headers
}

#[test]
fn specification_vector_matches_the_reference_signer() {
    let text = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let ours = sign(
        &[&WebhookSecret::parse(text).unwrap()],
        "msg_p5jXN8AQM9LWM0D4loKWxJek",
        1_614_265_330,
        br#"{"test": 2432232314}"#,
    );
    let theirs = Webhook::new(text)
        .unwrap()
        .sign(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            br#"{"test": 2432232314}"#,
        )
        .unwrap();
    assert_eq!(ours, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    assert_eq!(ours, theirs);
}

#[test]
fn generated_secrets_verify_with_the_reference_verifier() {
    for i in 0..20 {
        let secret = secret();
        let msg_id = format!("evt_{i}");
        let ts = now();
        let signature = sign(&[&secret], &msg_id, ts, BODY);
        Webhook::new(&secret.expose())
            .unwrap()
            .verify(BODY, &headers(&msg_id, ts, &signature))
            .unwrap();
        // And the other way round: the reference signer's output passes our verify.
        let theirs = Webhook::new(&secret.expose())
            .unwrap()
            .sign(&msg_id, ts, BODY)
            .unwrap();
        assert!(verify(&secret, &msg_id, ts, BODY, &theirs));
    }
}

#[test]
fn rotation_signatures_each_verify_and_a_stranger_does_not() {
    let (old, new, stranger) = (secret(), secret(), secret());
    let ts = now();
    let signature = sign(&[&old, &new], "evt_rot", ts, BODY);
    assert_eq!(signature.split(' ').count(), 2);
    let hdrs = headers("evt_rot", ts, &signature);
    Webhook::new(&old.expose()).unwrap().verify(BODY, &hdrs).unwrap();
    Webhook::new(&new.expose()).unwrap().verify(BODY, &hdrs).unwrap();
    assert!(
        Webhook::new(&stranger.expose())
            .unwrap()
            .verify(BODY, &hdrs)
            .is_err()
    );
    // A changed body must not verify.
    assert!(Webhook::new(&old.expose()).unwrap().verify(b"{}", &hdrs).is_err());
}
