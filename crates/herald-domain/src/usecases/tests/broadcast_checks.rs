//! `Broadcasts`: every row's files read in one store call, the shared header's errors named where the
//! client wrote them, and the dry run, which judges as the create does and writes nothing.

use super::*;
use crate::error::ValidationErrors;
use crate::ids::MediaId;
use crate::media::{ContentRef, MediaFile, MediaRecord, Sha256Digest};
use crate::ports::{
    MockAccountStore, MockBroadcastStore, MockMediaCatalog, MockMessageStore, MockRateLimiter,
    MockScheduleStore, MockTemplateStore, RateDecision,
};
use crate::template::{BodyValues, HeaderValue, TemplateVariables};
use crate::usecases::{
    BroadcastCommand, BroadcastCreated, BroadcastDraft, BroadcastError, BroadcastPorts, BroadcastRecipient,
    Broadcasts, PaceSettings, SendSettings,
};
use std::collections::HashMap;
use std::sync::Arc;

/// Ports that pass the account, sender and template checks, for a template with an image header and
/// one body variable. Nothing is written unless a test says so.
struct Ports {
    accounts: MockAccountStore,
    broadcasts: MockBroadcastStore,
    messages: MockMessageStore,
    templates: MockTemplateStore,
    catalog: MockMediaCatalog,
    limiter: MockRateLimiter,
}

impl Ports {
    fn new() -> Self {
        let mut accounts = MockAccountStore::new();
        accounts
            .expect_senders()
            .returning(|_| Ok(vec![sender(1, DEFAULT_NUMBER, true)].into()));
        let mut templates = MockTemplateStore::new();
        templates.expect_template().returning(|_, waba, _, _| {
            Ok(Some(
                template(waba, "APPROVED", HeaderSpec::Media(MediaKind::Image), 1).into(),
            ))
        });
        let mut broadcasts = MockBroadcastStore::new();
        broadcasts.expect_accept().times(0);
        broadcasts.expect_keyed().times(0);
        Self {
            accounts,
            broadcasts,
            messages: MockMessageStore::new(),
            templates,
            catalog: MockMediaCatalog::new(),
            limiter: MockRateLimiter::new(),
        }
    }

    fn build(self) -> Broadcasts {
        Broadcasts::new(
            BroadcastPorts {
                accounts: Arc::new(self.accounts),
                broadcasts: Arc::new(self.broadcasts),
                messages: Arc::new(self.messages),
                schedule: Arc::new(MockScheduleStore::new()),
                templates: Arc::new(self.templates),
                catalog: Arc::new(self.catalog),
                limiter: Arc::new(self.limiter),
                clock: Arc::new(clock_at(now())),
                ids: Arc::new(sequential_ids()),
            },
            SendSettings::default(),
            PaceSettings::default(),
        )
    }
}

fn allowed() -> RateDecision {
    RateDecision::Allowed {
        limit: 40,
        remaining: 39,
        reset_seconds: 1,
    }
}

fn media_id(n: u128) -> MediaId {
    MediaId::from_ulid(ulid(n))
}

fn image(id: MediaId) -> HeaderValue {
    HeaderValue::Media(MediaAttachment {
        kind: MediaKind::Image,
        source: MediaSource::Stored(id),
        filename: None,
    })
}

fn upload(n: u128) -> MediaFile {
    MediaFile::new(
        media_id(n),
        org_id(),
        ContentRef {
            sha256: Sha256Digest::from_bytes([7; 32]),
            kind: MediaKind::Image,
            mime_type: "image/png".into(),
            size: 10,
        },
        None,
        now() - seconds(60),
    )
}

fn row(to: &str, header: Option<u128>) -> Result<BroadcastRecipient, ValidationErrors> {
    Ok(BroadcastRecipient {
        to: crate::contact::Recipient::Number(phone(to)),
        variables: TemplateVariables {
            header: header.map(|n| image(media_id(n))),
            body: BodyValues::Positional(vec![template_text("Ana")]),
            ..TemplateVariables::default()
        },
        client_reference: None,
    })
}

fn command(
    header: Option<u128>,
    rows: Vec<Result<BroadcastRecipient, ValidationErrors>>,
) -> BroadcastCommand {
    BroadcastCommand {
        organization: organization(AccountStatus::Active),
        plan: plan(),
        draft: Ok(BroadcastDraft {
            template: template_ref(),
            from: None,
            send_at: None,
            header: header.map(|n| image(media_id(n))),
            recipients: rows,
        }),
        idempotency: None,
    }
}

/// Rows with files of their own, and rows taking the shared header: `media` is read once (the shared
/// header, checked before the rows), `uploads` once for every row's files, each id once.
#[test]
fn every_rows_files_are_read_in_one_store_call() {
    let mut ports = Ports::new();
    ports
        .limiter
        .expect_check()
        .times(1)
        .returning(|_, _, _| Ok(allowed()));
    ports
        .catalog
        .expect_media()
        .times(1)
        .returning(|_, _| Ok(Some(MediaRecord::Uploaded(upload(9)))));
    ports
        .catalog
        .expect_uploads()
        .withf(|_, ids| ids == [media_id(1), media_id(2), media_id(3), media_id(9)])
        .times(1)
        .returning(|_, _| Ok([1, 2, 9].map(|n| (media_id(n), upload(n))).into()));
    ports.broadcasts.checkpoint();
    ports
        .broadcasts
        .expect_accept()
        .times(1)
        .returning(|_| Ok(crate::ports::BroadcastAcceptOutcome::Accepted));
    let rows = vec![
        row("+15551000001", Some(1)),
        row("+15551000002", Some(2)),
        row("+15551000003", Some(3)),
        row("+15551000004", None),
        row("+15551000005", None),
        row("+15551000006", Some(1)),
    ];

    let result = run(ports.build().create(command(Some(9), rows))).unwrap();

    let BroadcastCreated::Accepted { view, rejected } = result else {
        panic!("{result:?}");
    };
    assert_eq!(view.broadcast.total, 5);
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].index, 2, "the row whose file is no upload");
    assert_eq!(rejected[0].errors.errors()[0].field, "variables.header.media_id");
}

/// The shared header is `header` in the body: its missing file is named so, not as a row's variable.
#[test]
fn a_shared_headers_missing_file_is_named_header_media_id() {
    let mut ports = Ports::new();
    ports
        .limiter
        .expect_check()
        .times(1)
        .returning(|_, _, _| Ok(allowed()));
    ports.catalog.expect_media().times(1).returning(|_, _| Ok(None));
    ports.catalog.expect_uploads().times(0);

    let result = run(ports
        .build()
        .create(command(Some(9), vec![row("+15551000001", None)])));

    let Err(BroadcastError::Invalid { errors, rejected }) = result else {
        panic!("{result:?}");
    };
    assert!(rejected.is_empty());
    let fields: Vec<&str> = errors.errors().iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["header.media_id"]);
}

/// A dry run judges every row as the create would and reads the quota, but spends no send, looks at no
/// key and writes nothing; the quota that cannot take every valid row is its refusal.
#[test]
fn a_dry_run_judges_every_row_and_writes_nothing() {
    let mut ports = Ports::new();
    ports.limiter.expect_check().times(0);
    ports
        .limiter
        .expect_peek()
        .times(1)
        .returning(|_, _, _| Ok(allowed()));
    ports.catalog.expect_media().times(0);
    ports
        .catalog
        .expect_uploads()
        .times(1)
        .returning(|_, _| Ok(HashMap::from([(media_id(1), upload(1))])));
    ports.messages.expect_usage().times(1).returning(|_, _| Ok(998));
    let rows = vec![
        row("+15551000001", Some(1)),
        Err(ValidationErrors::single("to", "not a number")),
        row("+15551000002", Some(1)),
        row("+15551000003", Some(1)),
        row("+15551000001", Some(1)),
    ];

    let dry = run(ports.build().dry_run(command(None, rows))).unwrap();

    assert!(!dry.would_accept());
    assert_eq!(dry.accepted, 3);
    let indexes: Vec<usize> = dry.rejected.iter().map(|r| r.index).collect();
    assert_eq!(indexes, [1, 4], "the field error and the repeat");
    assert_eq!(
        dry.pricing.as_ref().map(|p| (p.category.as_str(), p.billable)),
        Some(("utility", true))
    );
    let [
        BroadcastError::QuotaExceeded {
            limit,
            needed,
            remaining,
            ..
        },
    ] = dry.refusals.as_slice()
    else {
        panic!("{:?}", dry.refusals);
    };
    assert_eq!((*limit, *needed, *remaining), (1_000, 3, 2));
}

/// Past a refusal the dry run goes on where it can: a spent send rate is listed and the template still
/// looked at; a template that is not approved ends it, as no row can be judged against it.
#[test]
fn a_dry_run_lists_each_refusal_until_the_rows_cannot_be_judged() {
    let mut ports = Ports::new();
    ports.templates.checkpoint();
    ports.templates.expect_template().returning(|_, waba, _, _| {
        Ok(Some(
            template(waba, "PENDING", HeaderSpec::Media(MediaKind::Image), 1).into(),
        ))
    });
    ports.limiter.expect_peek().times(1).returning(|_, _, _| {
        Ok(RateDecision::Limited {
            limit: 40,
            retry_after_seconds: 1,
        })
    });
    ports.catalog.expect_uploads().times(0);
    ports.messages.expect_usage().times(0);

    let dry = run(ports.build().dry_run(command(
        None,
        vec![row("+15551000001", Some(1)), row("+15551000002", Some(7))],
    )))
    .unwrap();

    let kinds: Vec<&str> = dry
        .refusals
        .iter()
        .map(|r| match r {
            BroadcastError::RateLimited { .. } => "rate",
            BroadcastError::TemplateNotApproved(_) => "template",
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["rate", "template"]);
    assert_eq!(dry.accepted, 0);
    assert!(dry.rejected.is_empty());
    assert_eq!(
        dry.pricing.as_ref().map(|p| p.category.as_str()),
        Some("utility"),
        "the category is known from the template"
    );
}
