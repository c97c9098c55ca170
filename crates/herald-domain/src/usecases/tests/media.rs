//! `Media`: uploads held to the plan, files read back from the store or the network, expiry.

use super::*;
use crate::ids::{MediaId, SenderId};
use crate::media::{ContentRef, InboundMedia, MediaFile, MediaRecord, Sha256Digest, StagedFile};
use crate::ports::{
    MediaDownload, MediaInsert, MockAccountStore, MockMediaCatalog, MockMediaStore, MockMessagingNetwork,
    NetworkError,
};
use crate::usecases::{Media, MediaBody, MediaContentError, MediaPorts, UploadMediaError};
use std::sync::Arc;

struct Ports {
    catalog: MockMediaCatalog,
    files: MockMediaStore,
    accounts: MockAccountStore,
    network: MockMessagingNetwork,
}

impl Ports {
    fn new() -> Self {
        Self {
            catalog: MockMediaCatalog::new(),
            files: MockMediaStore::new(),
            accounts: MockAccountStore::new(),
            network: MockMessagingNetwork::new(),
        }
    }

    fn build(self) -> Media {
        Media::new(MediaPorts {
            catalog: Arc::new(self.catalog),
            files: Arc::new(self.files),
            accounts: Arc::new(self.accounts),
            network: Arc::new(self.network),
            clock: Arc::new(clock_at(now())),
            ids: Arc::new(sequential_ids()),
        })
    }
}

fn digest(n: u8) -> Sha256Digest {
    Sha256Digest::from_bytes([n; 32])
}

fn content(size: u64) -> ContentRef {
    ContentRef {
        sha256: digest(1),
        kind: MediaKind::Image,
        mime_type: "image/jpeg".into(),
        size,
    }
}

fn staged(size: u64) -> (StagedFile, std::path::PathBuf) {
    let path = std::env::temp_dir().join(format!("herald-media-{}", Ulid::new()));
    std::fs::write(&path, b"jpeg").unwrap();
    (StagedFile::new(path.clone(), content(size)), path)
}

fn media_id() -> MediaId {
    MediaId::from_ulid(ulid(900))
}

#[test]
fn an_upload_is_committed_recorded_and_lasts_thirty_days() {
    let mut ports = Ports::new();
    ports
        .files
        .expect_commit()
        .times(1)
        .returning(|staged| Ok(staged.content().clone()));
    ports
        .catalog
        .expect_insert_media()
        .withf(|file, limit| file.organization_id == org_id() && file.size == 4 && *limit == Some(STORAGE))
        .times(1)
        .returning(|_, _| Ok(MediaInsert::Stored));
    let (upload, _) = staged(4);

    let file = run(ports
        .build()
        .upload(&organization(AccountStatus::Active), &plan(), upload, None))
    .unwrap();

    assert_eq!(file.id, MediaId::from_ulid(generated(1)));
    assert_eq!(file.kind, MediaKind::Image);
    assert_eq!(file.expires_at, now() + chrono::TimeDelta::days(30));
}

#[test]
fn an_upload_past_the_plans_media_storage_is_refused_and_its_bytes_removed() {
    let mut ports = Ports::new();
    ports
        .files
        .expect_commit()
        .times(1)
        .returning(|staged| Ok(staged.content().clone()));
    ports
        .catalog
        .expect_insert_media()
        .times(1)
        .returning(|_, _| Ok(MediaInsert::StorageFull { used: STORAGE - 3 }));
    // Nothing was recorded; the committed bytes go unless another upload shares them.
    ports
        .catalog
        .expect_delete_media()
        .times(1)
        .returning(|_, _| Ok(false));
    ports
        .catalog
        .expect_digest_in_use()
        .times(1)
        .returning(|_| Ok(false));
    ports.files.expect_remove().times(1).returning(|_| Ok(true));
    let (upload, _) = staged(4);

    let result = run(ports
        .build()
        .upload(&organization(AccountStatus::Active), &plan(), upload, None));

    match result {
        Err(UploadMediaError::StorageFull(full)) => assert_eq!(
            (full.limit, full.used, full.size),
            (STORAGE, STORAGE - 3, 4),
            "the refusal says what the plan allows, what is held and what the file needs"
        ),
        other => panic!("expected StorageFull, got {other:?}"),
    }
}

#[test]
fn a_plan_without_media_or_a_file_over_its_limit_is_refused_and_the_upload_removed() {
    let mut no_media = plan();
    no_media.media_allowed = false;
    let mut small = plan();
    small.max_file_bytes = 3;
    for (plan, too_large) in [(no_media, false), (small, true)] {
        let mut ports = Ports::new();
        ports.files.expect_commit().times(0);
        ports.catalog.expect_insert_media().times(0);
        let (upload, path) = staged(4);

        let result = run(ports
            .build()
            .upload(&organization(AccountStatus::Active), &plan, upload, None));

        if too_large {
            assert!(
                matches!(result, Err(UploadMediaError::TooLarge { limit: 3 })),
                "{result:?}"
            );
        } else {
            assert!(matches!(result, Err(UploadMediaError::PlanForbids)), "{result:?}");
        }
        assert!(!path.exists());
    }
}

#[test]
fn an_expired_upload_reads_as_not_found() {
    let mut ports = Ports::new();
    let file = MediaFile::new(
        media_id(),
        org_id(),
        content(4),
        None,
        now() - chrono::TimeDelta::days(30),
    );
    ports
        .catalog
        .expect_media()
        .returning(move |_, _| Ok(Some(MediaRecord::Uploaded(file.clone()))));
    ports.files.expect_open().times(0);

    let result = run(ports.build().content(&org_id(), &media_id()));

    assert!(matches!(result, Err(MediaContentError::NotFound)), "{result:?}");
}

#[test]
fn inbound_media_is_fetched_from_the_network_with_the_receiving_senders_credentials() {
    let mut ports = Ports::new();
    let receiving = sender(2, SECOND_NUMBER, false);
    let inbound = InboundMedia {
        id: media_id(),
        organization_id: org_id(),
        sender_id: receiving.id,
        network_media_id: "net-5".into(),
        kind: "audio".into(),
        mime_type: Some("audio/ogg".into()),
        filename: None,
    };
    ports
        .catalog
        .expect_media()
        .withf(|org, id| *org == org_id() && *id == media_id())
        .returning(move |_, _| Ok(Some(MediaRecord::Inbound(inbound.clone()))));
    ports
        .accounts
        .expect_senders()
        .returning(|_| Ok(two_senders().into()));
    let expected = receiving.clone();
    ports
        .network
        .expect_download_media()
        .withf(move |s, id| *s == expected && id == "net-5")
        .times(1)
        .returning(|_, _| {
            Ok(MediaDownload {
                mime_type: None,
                size: Some(3),
                body: Box::pin(futures::stream::iter(vec![Ok(b"ogg".to_vec())])),
            })
        });

    let content = run(ports.build().content(&org_id(), &media_id())).unwrap();

    assert_eq!(content.mime_type, "audio/ogg");
    assert_eq!(content.size, Some(3));
    assert!(matches!(content.body, MediaBody::Stream(_)));
}

#[test]
fn inbound_media_the_network_forgot_is_not_found_and_a_network_outage_is_unavailable() {
    for (answer, not_found) in [
        (
            NetworkError::Permanent(crate::message::MessageError {
                code: "media_not_found".into(),
                title: "gone".into(),
                detail: "gone".into(),
                network_code: Some(100),
            }),
            true,
        ),
        (
            NetworkError::Retryable {
                code: None,
                detail: "503".into(),
                retry_after: None,
            },
            false,
        ),
    ] {
        let mut ports = Ports::new();
        let inbound = InboundMedia {
            id: media_id(),
            organization_id: org_id(),
            sender_id: sender(1, DEFAULT_NUMBER, true).id,
            network_media_id: "net-5".into(),
            kind: "image".into(),
            mime_type: None,
            filename: None,
        };
        ports
            .catalog
            .expect_media()
            .returning(move |_, _| Ok(Some(MediaRecord::Inbound(inbound.clone()))));
        ports
            .accounts
            .expect_senders()
            .returning(|_| Ok(two_senders().into()));
        ports
            .network
            .expect_download_media()
            .returning(move |_, _| Err(answer.clone()));

        let result = run(ports.build().content(&org_id(), &media_id()));

        if not_found {
            assert!(matches!(result, Err(MediaContentError::NotFound)), "{result:?}");
        } else {
            assert!(
                matches!(result, Err(MediaContentError::Unavailable(_))),
                "{result:?}"
            );
        }
    }
}

#[test]
fn another_sender_id_than_the_organizations_reads_as_not_found() {
    let mut ports = Ports::new();
    let inbound = InboundMedia {
        id: media_id(),
        organization_id: org_id(),
        sender_id: SenderId::from_ulid(ulid(999)),
        network_media_id: "net-5".into(),
        kind: "image".into(),
        mime_type: None,
        filename: None,
    };
    ports
        .catalog
        .expect_media()
        .returning(move |_, _| Ok(Some(MediaRecord::Inbound(inbound.clone()))));
    ports
        .accounts
        .expect_senders()
        .returning(|_| Ok(two_senders().into()));
    ports.network.expect_download_media().times(0);

    let result = run(ports.build().content(&org_id(), &media_id()));

    assert!(matches!(result, Err(MediaContentError::NotFound)), "{result:?}");
}

#[test]
fn expiry_removes_bytes_only_when_no_upload_points_at_them_any_more() {
    let mut ports = Ports::new();
    ports
        .catalog
        .expect_expire_media()
        .withf(|at, limit| *at == now() && *limit == 50)
        .times(1)
        .returning(|_, _| Ok(vec![digest(1), digest(2)]));
    ports
        .catalog
        .expect_digest_in_use()
        .returning(|sha| Ok(*sha == digest(2)));
    ports
        .files
        .expect_remove()
        .withf(|sha| *sha == digest(1))
        .times(1)
        .returning(|_| Ok(true));

    assert_eq!(run(ports.build().expire(50)).unwrap(), 2);
}
