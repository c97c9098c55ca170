//! `MessageStore`'s idempotency records: claim, release, completion, expiry and take-over.

use super::{Ports, accept_ok, new_organization_with_sender};
use crate::fixtures::{accept_request, at, idempotency_key, next_ulid, text_message};
use chrono::TimeDelta;
use herald_domain::dispatch::ClaimToken;
use herald_domain::ids::OrganizationId;
use herald_domain::ports::{AcceptOutcome, IdempotencyBegin, IdempotencyClaim};
use herald_domain::values::{IdempotencyKey, RequestFingerprint};

/// A claim at `at(seconds)` with the use case's default windows (60 s lock, 24 h retention).
fn claim_at(
    organization_id: OrganizationId,
    key: &IdempotencyKey,
    fingerprint: RequestFingerprint,
    seconds: i64,
) -> IdempotencyClaim {
    let now = at(seconds);
    IdempotencyClaim {
        organization_id,
        key: key.clone(),
        token: ClaimToken(next_ulid()),
        fingerprint,
        now,
        lock_until: now - TimeDelta::seconds(60),
        completed_after: now - TimeDelta::hours(24),
    }
}

/// Started, then InFlight with the stored fingerprint; release frees the key; accept completes it with
/// the message id; release leaves a completed record alone.
pub async fn idempotency_claim_release_complete(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let key = idempotency_key("order-1234/attempt");
    let (fp1, fp2) = (RequestFingerprint::of(b"one"), RequestFingerprint::of(b"two"));
    let begin = |claim: IdempotencyClaim| {
        let ports = ports.clone();
        async move {
            ports
                .messages
                .begin_idempotent(&claim)
                .await
                .expect("begin_idempotent")
        }
    };

    let first = claim_at(org.id, &key, fp1, 0);
    assert_eq!(
        begin(first.clone()).await,
        IdempotencyBegin::Started,
        "a new key starts"
    );
    assert_eq!(
        begin(claim_at(org.id, &key, fp1, 1)).await,
        IdempotencyBegin::InFlight { fingerprint: fp1 },
        "a held key answers InFlight"
    );
    assert_eq!(
        begin(claim_at(org.id, &key, fp2, 2)).await,
        IdempotencyBegin::InFlight { fingerprint: fp1 },
        "InFlight carries the fingerprint of the holder, not of the asker"
    );

    ports
        .messages
        .release_idempotent(&org.id, &first.hold())
        .await
        .expect("release_idempotent");
    let second = claim_at(org.id, &key, fp2, 3);
    assert_eq!(
        begin(second.clone()).await,
        IdempotencyBegin::Started,
        "a released key can be claimed again"
    );
    assert_eq!(
        begin(claim_at(org.id, &key, fp1, 4)).await,
        IdempotencyBegin::InFlight { fingerprint: fp2 },
        "the new claim holds its own fingerprint"
    );

    let message = text_message(org.id, &sender, "+15551234567", at(5));
    accept_ok(&ports, &accept_request(&message, Some(100), Some(second.hold()))).await;
    let completed = IdempotencyBegin::Completed {
        fingerprint: fp2,
        message_id: message.id,
    };
    assert_eq!(
        begin(claim_at(org.id, &key, fp2, 6)).await,
        completed,
        "after accept the key answers Completed with the message id"
    );
    ports
        .messages
        .release_idempotent(&org.id, &second.hold())
        .await
        .expect("release_idempotent");
    assert_eq!(
        begin(claim_at(org.id, &key, fp1, 7)).await,
        completed,
        "release must leave a completed record alone"
    );

    let never_claimed = claim_at(org.id, &idempotency_key("never-claimed"), fp1, 8);
    ports
        .messages
        .release_idempotent(&org.id, &never_claimed.hold())
        .await
        .expect("releasing an unknown key is a no-op");
}

/// A completed record answers until `completed_after` passes it, then is taken over.
pub async fn idempotency_completed_record_expires(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let key = idempotency_key("expiring");
    let (fp1, fp2) = (RequestFingerprint::of(b"one"), RequestFingerprint::of(b"two"));
    let begin = |claim: IdempotencyClaim| {
        let ports = ports.clone();
        async move {
            ports
                .messages
                .begin_idempotent(&claim)
                .await
                .expect("begin_idempotent")
        }
    };
    let claim = claim_at(org.id, &key, fp1, 0);
    assert_eq!(begin(claim.clone()).await, IdempotencyBegin::Started);
    let message = text_message(org.id, &sender, "+15551234567", at(0));
    accept_ok(&ports, &accept_request(&message, None, Some(claim.hold()))).await;

    let almost_a_day = 24 * 3_600 - 10;
    assert_eq!(
        begin(claim_at(org.id, &key, fp1, almost_a_day)).await,
        IdempotencyBegin::Completed {
            fingerprint: fp1,
            message_id: message.id
        },
        "a completed record younger than completed_after still answers Completed"
    );
    let over_a_day = 24 * 3_600 + 60;
    assert_eq!(
        begin(claim_at(org.id, &key, fp2, over_a_day)).await,
        IdempotencyBegin::Started,
        "a completed record older than completed_after is taken over"
    );
    assert_eq!(
        begin(claim_at(org.id, &key, fp1, over_a_day + 1)).await,
        IdempotencyBegin::InFlight { fingerprint: fp2 },
        "the take-over is a pending claim of its own"
    );
}

/// A pending claim older than `lock_until` is abandoned and taken over; a younger one is InFlight.
pub async fn idempotency_abandoned_claim_is_taken_over(ports: Ports) {
    let (org, _) = new_organization_with_sender(&ports, "starter").await;
    let key = idempotency_key("abandoned");
    let (fp1, fp2) = (RequestFingerprint::of(b"one"), RequestFingerprint::of(b"two"));
    let begin = |claim: IdempotencyClaim| {
        let ports = ports.clone();
        async move {
            ports
                .messages
                .begin_idempotent(&claim)
                .await
                .expect("begin_idempotent")
        }
    };
    assert_eq!(
        begin(claim_at(org.id, &key, fp1, 0)).await,
        IdempotencyBegin::Started
    );
    assert_eq!(
        begin(claim_at(org.id, &key, fp2, 30)).await,
        IdempotencyBegin::InFlight { fingerprint: fp1 },
        "a claim younger than the lock is in flight"
    );
    assert_eq!(
        begin(claim_at(org.id, &key, fp2, 120)).await,
        IdempotencyBegin::Started,
        "a pending claim older than lock_until is abandoned and taken over"
    );
    assert_eq!(
        begin(claim_at(org.id, &key, fp1, 121)).await,
        IdempotencyBegin::InFlight { fingerprint: fp2 },
        "the take-over holds the new fingerprint and a fresh lock"
    );
}

/// A request whose claim lapsed (its lock expired and a retry took the key over) can neither complete nor
/// release the key: its accept writes nothing and answers `IdempotencyClaimLost`, its release leaves the new
/// claim in place, and the retry's accept completes the record with the retry's message.
pub async fn idempotency_stale_claim_cannot_complete_or_release_the_new_claim(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let key = idempotency_key("slow-request");
    let (fp1, fp2) = (RequestFingerprint::of(b"one"), RequestFingerprint::of(b"two"));
    let stale = claim_at(org.id, &key, fp1, 0);
    let retry = claim_at(org.id, &key, fp2, 120);
    for claim in [&stale, &retry] {
        assert_eq!(
            ports
                .messages
                .begin_idempotent(claim)
                .await
                .expect("begin_idempotent"),
            IdempotencyBegin::Started,
            "the retry takes the abandoned claim over"
        );
    }

    let late = text_message(org.id, &sender, "+15551234567", at(121));
    assert_eq!(
        ports
            .messages
            .accept(&accept_request(&late, None, Some(stale.hold())))
            .await
            .expect("accept"),
        AcceptOutcome::IdempotencyClaimLost,
        "the stale claim's accept must not complete the retry's record"
    );
    assert_eq!(
        ports.messages.message(&org.id, &late.id).await.expect("message"),
        None,
        "and writes nothing"
    );
    ports
        .messages
        .release_idempotent(&org.id, &stale.hold())
        .await
        .expect("release_idempotent");
    assert_eq!(
        ports
            .messages
            .begin_idempotent(&claim_at(org.id, &key, fp1, 122))
            .await
            .expect("begin_idempotent"),
        IdempotencyBegin::InFlight { fingerprint: fp2 },
        "the stale claim's release leaves the retry's claim in place"
    );

    let retried = text_message(org.id, &sender, "+15551234567", at(123));
    accept_ok(&ports, &accept_request(&retried, None, Some(retry.hold()))).await;
    assert_eq!(
        ports
            .messages
            .begin_idempotent(&claim_at(org.id, &key, fp2, 124))
            .await
            .expect("begin_idempotent"),
        IdempotencyBegin::Completed {
            fingerprint: fp2,
            message_id: retried.id
        },
        "the record names the retry's message"
    );
}
