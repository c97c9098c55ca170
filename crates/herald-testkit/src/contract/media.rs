//! `MediaCatalog`: uploads' metadata, the network uploads remembered per sender, and the files of inbound
//! messages (written by `TrackingStore::record_inbound_message`).

use super::{Ports, new_organization, new_organization_with_sender};
use crate::fixtures::{SIMULATOR_SENDER_2, at, network_ref, next_ulid, phone, sender};
use herald_domain::Timestamp;
use herald_domain::attachment::MediaKind;
use herald_domain::customer_event::InboundRecord;
use herald_domain::ids::{EventId, InboundId, MediaId, OrganizationId, SenderId};
use herald_domain::media::{ContentRef, InboundMedia, MediaFile, MediaRecord, NetworkUpload, Sha256Digest};
use herald_domain::network::{InboundContent, InboundMessage};
use herald_domain::organization::SenderNumber;
use herald_domain::ports::MediaInsert;
use herald_domain::ports::StoreError;
use herald_domain::values::FileName;

/// A digest no other scenario uses.
fn digest() -> Sha256Digest {
    let mut bytes = [0_u8; 32];
    bytes[..16].copy_from_slice(&next_ulid().to_bytes());
    bytes[16..].copy_from_slice(&next_ulid().to_bytes());
    Sha256Digest::from_bytes(bytes)
}

/// An upload of `sha256` made at `created_at` (expiring 30 days later).
fn upload(organization: OrganizationId, sha256: Sha256Digest, created_at: Timestamp) -> MediaFile {
    MediaFile::new(
        MediaId::from_ulid(next_ulid()),
        organization,
        ContentRef {
            sha256,
            kind: MediaKind::Document,
            mime_type: "application/pdf".to_owned(),
            size: 1_234_567,
        },
        Some(FileName::parse("invoice 2026.pdf").expect("a valid file name")),
        created_at,
    )
}

/// An upload that expires at `expires_at`.
fn expiring(organization: OrganizationId, sha256: Sha256Digest, expires_at: Timestamp) -> MediaFile {
    MediaFile {
        kind: MediaKind::Image,
        mime_type: "image/png".to_owned(),
        filename: None,
        expires_at,
        ..upload(organization, sha256, at(0))
    }
}

async fn insert(ports: &Ports, file: &MediaFile) {
    let stored = ports
        .media
        .insert_media(file, None)
        .await
        .expect("insert_media of a new upload of an existing organization must succeed");
    assert_eq!(
        stored,
        MediaInsert::Stored,
        "insert_media with no limit must store"
    );
}

async fn read(ports: &Ports, organization: &OrganizationId, id: &MediaId) -> Option<MediaRecord> {
    ports.media.media(organization, id).await.expect("media")
}

fn network_upload(
    organization: OrganizationId,
    sender: SenderId,
    sha256: Sha256Digest,
    network_media_id: &str,
    reuse_until: Timestamp,
) -> NetworkUpload {
    NetworkUpload {
        organization_id: organization,
        sender_id: sender,
        sha256,
        network_media_id: network_media_id.to_owned(),
        uploaded_at: at(0),
        reuse_until,
    }
}

async fn remember(ports: &Ports, upload: &NetworkUpload) {
    ports
        .media
        .record_network_upload(upload)
        .await
        .expect("record_network_upload");
}

async fn reusable(
    ports: &Ports,
    organization: &OrganizationId,
    sender: &SenderId,
    sha256: &Sha256Digest,
    now: Timestamp,
) -> Option<String> {
    ports
        .media
        .network_upload(organization, sender, sha256, now)
        .await
        .expect("network_upload")
}

/// An upload reads back exactly (kind, type, size, digest, file name, times); a second insert of the same
/// id is a conflict; an unknown id reads as `None`.
pub async fn media_insert_and_read_round_trip(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let file = upload(org.id, digest(), at(100));
    insert(&ports, &file).await;
    assert_eq!(
        read(&ports, &org.id, &file.id).await,
        Some(MediaRecord::Uploaded(file.clone())),
        "an upload reads back exactly"
    );
    let again = ports.media.insert_media(&file, None).await;
    assert!(
        matches!(again, Err(StoreError::Conflict(_))),
        "insert_media of an existing id must be a Conflict, got {again:?}"
    );
    let unknown = MediaId::from_ulid(next_ulid());
    assert_eq!(read(&ports, &org.id, &unknown).await, None);
}

/// Uploads of every kind are stored and read back with their kind and type: audio and stickers too
/// (the `kind` CHECK of both backends allows all five).
pub async fn media_every_kind_round_trips(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    for (kind, mime_type) in [
        (MediaKind::Document, "application/pdf"),
        (MediaKind::Image, "image/jpeg"),
        (MediaKind::Video, "video/3gpp"),
        (MediaKind::Audio, "audio/ogg"),
        (MediaKind::Sticker, "image/webp"),
    ] {
        let file = MediaFile {
            kind,
            mime_type: mime_type.to_owned(),
            filename: None,
            ..upload(org.id, digest(), at(100))
        };
        insert(&ports, &file).await;
        assert_eq!(
            read(&ports, &org.id, &file.id).await,
            Some(MediaRecord::Uploaded(file.clone())),
            "an upload of kind {} reads back exactly",
            kind.as_str()
        );
    }
}

/// A storage limit counts the organization's unexpired uploads only: another organization's and expired
/// ones leave room, and an upload that would pass the limit stores nothing and says what is held.
pub async fn media_storage_limit_counts_unexpired_uploads_of_the_organization(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let other = new_organization(&ports, "starter").await;
    let size = upload(org.id, digest(), at(0)).size;
    let now = at(40 * 86_400);
    // Expired before `now`: frees its bytes even before the cleanup removes the row.
    insert(&ports, &upload(org.id, digest(), at(0))).await;
    insert(&ports, &upload(other.id, digest(), now)).await;
    let limit = Some(2 * size);
    for _ in 0..2 {
        let file = upload(org.id, digest(), now);
        let stored = ports
            .media
            .insert_media(&file, limit)
            .await
            .expect("insert_media");
        assert_eq!(stored, MediaInsert::Stored, "room for two unexpired uploads");
    }
    let over = upload(org.id, digest(), now);
    let refused = ports
        .media
        .insert_media(&over, limit)
        .await
        .expect("insert_media");
    assert_eq!(
        refused,
        MediaInsert::StorageFull { used: 2 * size },
        "a third upload passes the limit and is told what is held"
    );
    assert_eq!(
        read(&ports, &org.id, &over.id).await,
        None,
        "and nothing is stored"
    );
    let exact = ports
        .media
        .insert_media(&upload(other.id, digest(), now), Some(2 * size))
        .await
        .expect("insert_media");
    assert_eq!(exact, MediaInsert::Stored, "filling the limit exactly is allowed");
}

/// Another organization's upload reads as `None` and cannot be deleted.
pub async fn media_is_scoped_by_organization(ports: Ports) {
    let owner = new_organization(&ports, "starter").await;
    let intruder = new_organization(&ports, "starter").await;
    let file = upload(owner.id, digest(), at(0));
    insert(&ports, &file).await;
    assert_eq!(
        read(&ports, &intruder.id, &file.id).await,
        None,
        "media is scoped by organization"
    );
    assert!(
        !ports
            .media
            .delete_media(&intruder.id, &file.id)
            .await
            .expect("delete_media"),
        "another organization's delete finds nothing"
    );
    assert!(
        read(&ports, &owner.id, &file.id).await.is_some(),
        "and leaves the upload in place"
    );
}

/// A deleted upload is gone; deleting it again answers `false`; other uploads stay.
pub async fn media_delete(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let (gone, kept) = (upload(org.id, digest(), at(0)), upload(org.id, digest(), at(0)));
    insert(&ports, &gone).await;
    insert(&ports, &kept).await;
    assert!(
        ports
            .media
            .delete_media(&org.id, &gone.id)
            .await
            .expect("delete_media")
    );
    assert_eq!(read(&ports, &org.id, &gone.id).await, None);
    assert!(
        !ports
            .media
            .delete_media(&org.id, &gone.id)
            .await
            .expect("delete_media"),
        "deleting a deleted upload answers false"
    );
    assert_eq!(
        read(&ports, &org.id, &kept.id).await,
        Some(MediaRecord::Uploaded(kept))
    );
}

/// A digest is in use while any upload of any organization points at it.
pub async fn media_digest_in_use_across_organizations(ports: Ports) {
    let (first, second) = (
        new_organization(&ports, "starter").await,
        new_organization(&ports, "starter").await,
    );
    let shared = digest();
    let in_use = |sha256: Sha256Digest| {
        let ports = ports.clone();
        async move { ports.media.digest_in_use(&sha256).await.expect("digest_in_use") }
    };
    assert!(!in_use(shared).await, "no upload yet");
    let (mine, theirs) = (upload(first.id, shared, at(0)), upload(second.id, shared, at(0)));
    insert(&ports, &mine).await;
    insert(&ports, &theirs).await;
    assert!(in_use(shared).await);
    assert!(!in_use(digest()).await, "another digest is not in use");
    ports
        .media
        .delete_media(&first.id, &mine.id)
        .await
        .expect("delete_media");
    assert!(
        in_use(shared).await,
        "another organization's upload still points at the bytes"
    );
    ports
        .media
        .delete_media(&second.id, &theirs.id)
        .await
        .expect("delete_media");
    assert!(!in_use(shared).await, "nothing points at the bytes any more");
}

/// `expire_media` deletes uploads expired at or before `now` (never later ones), up to `limit` per call,
/// across organizations, returns each digest once, and forgets network uploads no longer reusable.
pub async fn media_expire_deletes_expired_uploads_and_network_uploads(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let other = new_organization(&ports, "starter").await;
    let (shared, alone, live) = (digest(), digest(), digest());
    let expired = [
        expiring(org.id, shared, at(10)),
        expiring(other.id, shared, at(20)),
        expiring(org.id, alone, at(30)),
    ];
    let later = expiring(org.id, live, at(31));
    for file in expired.iter().chain([&later]) {
        insert(&ports, file).await;
    }
    let stale = network_upload(org.id, sender.id, shared, "stale", at(30));
    let fresh = network_upload(org.id, sender.id, live, "fresh", at(31));
    remember(&ports, &stale).await;
    remember(&ports, &fresh).await;

    let none = ports.media.expire_media(at(9), 10).await.expect("expire_media");
    assert!(none.is_empty(), "nothing has expired yet: {none:?}");
    let first_batch = ports.media.expire_media(at(30), 2).await.expect("expire_media");
    assert_eq!(
        first_batch,
        vec![shared],
        "two uploads were deleted (the limit), both of one digest, returned once"
    );
    assert_eq!(read(&ports, &org.id, &expired[0].id).await, None);
    assert_eq!(read(&ports, &other.id, &expired[1].id).await, None);
    assert!(
        read(&ports, &org.id, &expired[2].id).await.is_some(),
        "beyond the limit, kept for the next call"
    );
    assert_eq!(
        reusable(&ports, &org.id, &sender.id, &shared, at(0)).await,
        None,
        "a network upload whose reuse ended at or before `now` is forgotten"
    );
    assert_eq!(
        reusable(&ports, &org.id, &sender.id, &live, at(0)).await,
        Some("fresh".to_owned()),
        "a network upload still reusable is kept"
    );
    let second_batch = ports.media.expire_media(at(30), 2).await.expect("expire_media");
    assert_eq!(
        second_batch,
        vec![alone],
        "expiry at exactly `now` counts as expired"
    );
    let done = ports.media.expire_media(at(30), 2).await.expect("expire_media");
    assert!(done.is_empty(), "nothing left to expire: {done:?}");
    assert_eq!(
        read(&ports, &org.id, &later.id).await,
        Some(MediaRecord::Uploaded(later)),
        "an upload expiring after `now` is kept"
    );
    assert!(!ports.media.digest_in_use(&shared).await.expect("digest_in_use"));
    assert!(ports.media.digest_in_use(&live).await.expect("digest_in_use"));
}

/// A network upload is reused only before `reuse_until`, only for the sender it was made for and only
/// within its organization.
pub async fn media_network_upload_is_per_sender_and_until_reuse_end(ports: Ports) {
    let (org, first_sender) = new_organization_with_sender(&ports, "starter").await;
    let second_sender = sender(org.id, SIMULATOR_SENDER_2, false);
    ports
        .accounts
        .add_sender(&second_sender)
        .await
        .expect("add_sender");
    let other = new_organization(&ports, "starter").await;
    let sha256 = digest();
    assert_eq!(
        reusable(&ports, &org.id, &first_sender.id, &sha256, at(0)).await,
        None,
        "nothing uploaded yet"
    );
    remember(
        &ports,
        &network_upload(org.id, first_sender.id, sha256, "net-1", at(100)),
    )
    .await;
    assert_eq!(
        reusable(&ports, &org.id, &first_sender.id, &sha256, at(99)).await,
        Some("net-1".to_owned())
    );
    assert_eq!(
        reusable(&ports, &org.id, &first_sender.id, &sha256, at(100)).await,
        None,
        "not reused from reuse_until on"
    );
    assert_eq!(
        reusable(&ports, &org.id, &second_sender.id, &sha256, at(0)).await,
        None,
        "an upload is per sender: another sender's credentials cannot name it"
    );
    assert_eq!(
        reusable(&ports, &org.id, &first_sender.id, &digest(), at(0)).await,
        None,
        "other bytes were not uploaded"
    );
    assert_eq!(
        reusable(&ports, &other.id, &first_sender.id, &sha256, at(0)).await,
        None,
        "network uploads are scoped by organization"
    );
}

/// Recording the same bytes for the same sender again replaces the earlier upload.
pub async fn media_record_network_upload_replaces(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let sha256 = digest();
    remember(&ports, &network_upload(org.id, sender.id, sha256, "old", at(50))).await;
    remember(&ports, &network_upload(org.id, sender.id, sha256, "new", at(200))).await;
    assert_eq!(
        reusable(&ports, &org.id, &sender.id, &sha256, at(10)).await,
        Some("new".to_owned()),
        "the later upload replaces the earlier one"
    );
    assert_eq!(
        reusable(&ports, &org.id, &sender.id, &sha256, at(150)).await,
        Some("new".to_owned()),
        "with its own reuse end"
    );
}

fn inbound_record(
    sender: &SenderNumber,
    wamid: &str,
    content: InboundContent,
    media_id: Option<MediaId>,
) -> InboundRecord {
    InboundRecord {
        id: InboundId::from_ulid(next_ulid()),
        organization_id: sender.organization_id,
        sender_id: sender.id,
        message: InboundMessage {
            phone_number_id: network_ref(sender.phone_number_id.as_str()),
            network_message_id: wamid.to_owned(),
            from: phone("+15557654321").into(),
            from_user_id: None,
            from_name: None,
            received_at: at(10),
            message_type: "document".to_owned(),
            content,
            context_message_id: None,
            referral: None,
            raw: format!(r#"{{"id":"{wamid}"}}"#),
            source_field: herald_domain::network::SourceField::Messages,
            echo: false,
        },
        media_id,
        customer_event_id: EventId::from_ulid(next_ulid()),
        recorded_at: at(11),
    }
}

/// The file of an inbound message is readable as `MediaRecord::Inbound` by its `med_` id, with the
/// receiving sender and the network's id, only in its own organization.
pub async fn media_inbound_file_is_readable_in_its_organization(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let other = new_organization(&ports, "starter").await;
    let media_id = MediaId::from_ulid(next_ulid());
    let record = inbound_record(
        &sender,
        "wamid.DOC",
        InboundContent::Media {
            kind: "document".to_owned(),
            network_media_id: "1357924680".to_owned(),
            mime_type: Some("application/pdf".to_owned()),
            sha256: Some("f00d".to_owned()),
            caption: Some("signed".to_owned()),
            filename: Some("contract.pdf".to_owned()),
            voice: None,
            animated: None,
        },
        Some(media_id),
    );
    assert!(
        ports
            .tracking
            .record_inbound_message(&record)
            .await
            .expect("record_inbound_message")
    );
    assert_eq!(
        read(&ports, &org.id, &media_id).await,
        Some(MediaRecord::Inbound(InboundMedia {
            id: media_id,
            organization_id: org.id,
            sender_id: sender.id,
            network_media_id: "1357924680".to_owned(),
            kind: "document".to_owned(),
            mime_type: Some("application/pdf".to_owned()),
            filename: Some("contract.pdf".to_owned()),
        })),
        "the inbound file reads back with its sender and network id"
    );
    assert_eq!(
        read(&ports, &other.id, &media_id).await,
        None,
        "inbound files are scoped by organization"
    );
    assert!(
        !ports
            .media
            .delete_media(&org.id, &media_id)
            .await
            .expect("delete_media"),
        "delete_media deletes uploads only"
    );
    assert!(read(&ports, &org.id, &media_id).await.is_some());

    // A message without a file has no media id and adds no media.
    let text = inbound_record(
        &sender,
        "wamid.TEXT",
        InboundContent::Text {
            body: "hi".to_owned(),
        },
        None,
    );
    assert!(
        ports
            .tracking
            .record_inbound_message(&text)
            .await
            .expect("record_inbound_message")
    );
    // A redelivery of the file's message changes nothing: the first media id stays the one that reads.
    let redelivered = inbound_record(
        &sender,
        "wamid.DOC",
        InboundContent::Media {
            kind: "document".to_owned(),
            network_media_id: "1357924680".to_owned(),
            mime_type: Some("application/pdf".to_owned()),
            sha256: None,
            caption: None,
            filename: Some("contract.pdf".to_owned()),
            voice: None,
            animated: None,
        },
        Some(MediaId::from_ulid(next_ulid())),
    );
    assert!(
        !ports
            .tracking
            .record_inbound_message(&redelivered)
            .await
            .expect("record_inbound_message"),
        "a redelivered message is not recorded again"
    );
    let redelivered_id = redelivered.media_id.expect("set above");
    assert_eq!(read(&ports, &org.id, &redelivered_id).await, None);
}
