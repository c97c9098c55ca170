//! `ErasePerson` (docs/api.md §7.2): queued messages cancelled before the erasure, a new one queued in
//! between met by another round, a person nothing names refused, and the erased files' bytes removed after
//! the commit (those another upload shares kept).

use super::*;
use crate::contact::Recipient;
use crate::erasure::{ErasureOutcome, PersonIdentities};
use crate::media::Sha256Digest;
use crate::message::MessageStatus;
use crate::ports::{
    MockErasureStore, MockMediaCatalog, MockMediaStore, MockScheduleStore, MockSecretSealer, StoreError,
};
use crate::usecases::{EraseError, ErasePerson, ErasePorts};
use std::sync::{Arc, Mutex};

fn person() -> PersonIdentities {
    let mut identities = PersonIdentities::default();
    identities.add(Some(&phone(RECIPIENT)), None);
    identities
}

struct World {
    erasure: MockErasureStore,
    schedule: MockScheduleStore,
    catalog: MockMediaCatalog,
    files: MockMediaStore,
}

impl World {
    fn new() -> Self {
        let mut erasure = MockErasureStore::new();
        erasure.expect_person_identities().returning(|_, _| Ok(person()));
        erasure.expect_erased_files().returning(|_| Ok(Vec::new()));
        erasure.expect_files_removed().returning(|_| Ok(()));
        Self {
            erasure,
            schedule: MockScheduleStore::new(),
            catalog: MockMediaCatalog::new(),
            files: MockMediaStore::new(),
        }
    }

    fn erase(self) -> Result<crate::usecases::Erased, EraseError> {
        let mut sealer = MockSecretSealer::new();
        sealer.expect_person_digest().returning(|_, identity| {
            let mut digest = [0_u8; 32];
            for (slot, byte) in digest.iter_mut().zip(identity.bytes()) {
                *slot = byte;
            }
            digest
        });
        let erase = ErasePerson::new(ErasePorts {
            erasure: Arc::new(self.erasure),
            schedule: Arc::new(self.schedule),
            catalog: Arc::new(self.catalog),
            files: Arc::new(self.files),
            sealer: Arc::new(sealer),
            clock: Arc::new(clock_at(now())),
            ids: Arc::new(sequential_ids()),
        });
        run(erase.erase(&org_id(), &Recipient::Number(phone(RECIPIENT))))
    }
}

#[test]
fn queued_messages_are_cancelled_before_the_erasure_and_a_late_one_by_another_round() {
    let mut world = World::new();
    let order = Arc::new(Mutex::new(Vec::<&str>::new()));
    // The first look finds one queued message; after its cancel, none, until a send slips in between the
    // cancel and the erasure's transaction, which refuses; the next round cancels that one too.
    let queued = Arc::new(Mutex::new(vec![
        vec![stored_message(1).id],
        vec![],
        vec![stored_message(2).id],
        vec![],
    ]));
    let pages = Arc::clone(&queued);
    world
        .erasure
        .expect_queued_messages()
        .returning(move |_, _, _| Ok(pages.lock().unwrap().remove(0)));
    let seen = Arc::clone(&order);
    world.schedule.expect_cancel_many().returning(move |updates| {
        assert!(
            updates
                .iter()
                .all(|u| u.report.status == MessageStatus::Cancelled)
        );
        seen.lock().unwrap().push("cancel");
        Ok(u32::try_from(updates.len()).unwrap())
    });
    let seen = Arc::clone(&order);
    let rounds = Arc::new(Mutex::new(0));
    world.erasure.expect_erase_person().returning(move |erasure| {
        assert!(erasure.marker.as_str().starts_with("erased:"));
        assert_eq!(erasure.markers.len(), 1, "one per identity: the number's key");
        seen.lock().unwrap().push("erase");
        let mut round = rounds.lock().unwrap();
        *round += 1;
        if *round == 1 {
            return Err(StoreError::Conflict(
                "a message to the person is still queued".into(),
            ));
        }
        Ok(ErasureOutcome {
            known: true,
            messages: 3,
            inbound: 1,
            files: Vec::new(),
        })
    });
    let erased = world.erase().unwrap();
    assert_eq!(erased.cancelled, 2);
    assert_eq!((erased.messages, erased.inbound), (3, 1));
    assert_eq!(*order.lock().unwrap(), ["cancel", "erase", "cancel", "erase"]);
}

#[test]
fn a_person_nothing_names_is_not_found() {
    let mut world = World::new();
    world
        .erasure
        .expect_queued_messages()
        .returning(|_, _, _| Ok(Vec::new()));
    world
        .erasure
        .expect_erase_person()
        .returning(|_| Ok(ErasureOutcome::default()));
    assert!(matches!(world.erase(), Err(EraseError::NotFound)));
}

#[test]
fn erased_files_lose_their_bytes_after_the_commit_unless_another_upload_shares_them() {
    let mut world = World::new();
    let alone = Sha256Digest::from_bytes([1; 32]);
    let shared = Sha256Digest::from_bytes([2; 32]);
    world
        .erasure
        .expect_queued_messages()
        .returning(|_, _, _| Ok(Vec::new()));
    world.erasure.expect_erase_person().returning(move |_| {
        Ok(ErasureOutcome {
            known: true,
            files: vec![alone, shared],
            ..ErasureOutcome::default()
        })
    });
    world
        .catalog
        .expect_digest_in_use()
        .returning(move |digest| Ok(*digest == shared));
    world
        .files
        .expect_remove()
        .withf(move |digest| *digest == alone)
        .times(1)
        .returning(|_| Ok(true));
    let erased = world.erase().unwrap();
    assert_eq!(
        erased.files, 2,
        "both are done with: one removed, one still another's"
    );
}
