//! `ManageTemplates`: what reaches the network's review, what is refused before it, and the copy answered
//! from the sync that follows.

use super::*;
use crate::ids::MediaId;
use crate::media::{MediaFile, MediaRecord, Sha256Digest};
use crate::ports::{
    MockAccountStore, MockMediaCatalog, MockMediaStore, MockMessagingNetwork, MockTemplateReview,
    MockTemplateStore, NetworkTemplate, SubmittedTemplate,
};
use crate::template::definition::{Node, TemplateDefinition};
use crate::usecases::{ManageTemplates, SyncTemplates, TemplateReviewError, TemplateReviewPorts};
use std::sync::{Arc, Mutex};

const SAMPLE: &str = "med_01HZX3N5Q2V8K4T6W9Y1B3D5F7";

fn text(value: &str) -> Node {
    Node::Text(value.to_owned())
}

fn object(fields: Vec<(&str, Node)>) -> Node {
    Node::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// `order_update` (en_US, UTILITY), with a document header sampled from a Herald upload when `sample`.
fn definition(sample: bool) -> TemplateDefinition {
    let mut components = Vec::new();
    if sample {
        components.push(object(vec![
            ("type", text("HEADER")),
            ("format", text("DOCUMENT")),
            ("example", object(vec![("media_id", text(SAMPLE))])),
        ]));
    }
    components.push(object(vec![
        ("type", text("BODY")),
        ("text", text("Your order ships today.")),
    ]));
    TemplateDefinition::parse(&object(vec![
        ("name", text("order_update")),
        ("language", text("en_US")),
        ("category", text("UTILITY")),
        ("components", Node::List(components)),
    ]))
    .unwrap()
}

fn listed(status: &str) -> NetworkTemplate {
    NetworkTemplate {
        name: TemplateName::parse("order_update").unwrap(),
        language: LanguageCode::parse("en_US").unwrap(),
        status: TemplateStatus::parse(status).unwrap(),
        category: "UTILITY".into(),
        structure: definition(false).structure(),
        network_id: Some("594425479261596".into()),
        health: Default::default(),
    }
}

/// The ports, with a template store that keeps what the sync writes and the network's listing given.
struct Setup {
    accounts: MockAccountStore,
    templates: MockTemplateStore,
    network: MockMessagingNetwork,
    catalog: MockMediaCatalog,
    files: MockMediaStore,
    review: MockTemplateReview,
    stored: Arc<Mutex<Vec<Template>>>,
    /// The recorded author of `order_update` (the only name the tests create), if any.
    author: Arc<Mutex<Option<OrganizationId>>>,
}

impl Setup {
    fn new(listing: Vec<NetworkTemplate>) -> Self {
        let stored: Arc<Mutex<Vec<Template>>> = Arc::new(Mutex::new(Vec::new()));
        let mut accounts = MockAccountStore::new();
        accounts.expect_senders().returning(|_| Ok(two_senders().into()));
        // The test organization owns its business accounts unless a test says otherwise.
        accounts
            .expect_business_account_organizations()
            .returning(|_| Ok(vec![org_id()]));
        let mut templates = MockTemplateStore::new();
        let author: Arc<Mutex<Option<OrganizationId>>> = Arc::new(Mutex::new(None));
        let read = Arc::clone(&author);
        templates
            .expect_template_author()
            .returning(move |_, _| Ok(*read.lock().unwrap()));
        let claim = Arc::clone(&author);
        templates
            .expect_claim_template()
            .returning(move |org, _, _, _| Ok(*claim.lock().unwrap().get_or_insert(*org)));
        let release = Arc::clone(&author);
        templates.expect_release_template().returning(move |org, _, _| {
            let mut author = release.lock().unwrap();
            if *author == Some(*org) {
                *author = None;
            }
            Ok(())
        });
        let read = Arc::clone(&stored);
        templates
            .expect_templates()
            .returning(move |_, _| Ok(read.lock().unwrap().clone()));
        let write = Arc::clone(&stored);
        templates
            .expect_replace_templates()
            .returning(move |_, waba, copies| {
                let mut all = write.lock().unwrap();
                all.retain(|t| &t.waba_id != waba);
                all.extend(copies.iter().cloned());
                Ok(())
            });
        accounts
            .expect_record_webhook_fields_missing()
            .returning(|_, _, _| Ok(()));
        let mut network = MockMessagingNetwork::new();
        network
            .expect_app_subscription()
            .returning(|_| Ok(crate::ports::AppSubscription::Subscribed));
        network.expect_templates().returning(move |sender| {
            Ok(if sender.is_default {
                listing.clone()
            } else {
                Vec::new()
            })
        });
        Self {
            accounts,
            templates,
            network,
            catalog: MockMediaCatalog::new(),
            files: MockMediaStore::new(),
            review: MockTemplateReview::new(),
            stored,
            author,
        }
    }

    fn build(self) -> ManageTemplates {
        let accounts: Arc<dyn crate::ports::AccountStore> = Arc::new(self.accounts);
        let templates: Arc<dyn crate::ports::TemplateStore> = Arc::new(self.templates);
        let sync = SyncTemplates::new(
            Arc::clone(&accounts),
            Arc::clone(&templates),
            Arc::new(self.network),
            Arc::new(clock_at(now())),
            Arc::new(sequential_ids()),
        );
        ManageTemplates::new(
            TemplateReviewPorts {
                accounts,
                templates,
                catalog: Arc::new(self.catalog),
                files: Arc::new(self.files),
                review: Arc::new(self.review),
            },
            Arc::new(sync),
        )
    }
}

fn submitted() -> SubmittedTemplate {
    SubmittedTemplate {
        network_id: "594425479261596".into(),
        status: TemplateStatus::parse("PENDING").unwrap(),
        category: "UTILITY".into(),
    }
}

#[test]
fn a_creation_goes_to_the_default_senders_account_and_answers_the_synced_copy() {
    let mut setup = Setup::new(vec![listed("PENDING")]);
    let default_waba = sender(1, DEFAULT_NUMBER, true).waba_id;
    setup
        .review
        .expect_submit_template()
        .withf(move |sender, definition, samples| {
            sender.waba_id == default_waba && definition.name.as_str() == "order_update" && samples.is_empty()
        })
        .times(1)
        .returning(|_, _, _| Ok(submitted()));
    let stored = Arc::clone(&setup.stored);
    let copy = run(setup.build().create(&org_id(), None, &definition(false))).unwrap();
    assert_eq!(copy.status.as_str(), "PENDING");
    assert_eq!(copy.network_id.as_deref(), Some("594425479261596"));
    assert_eq!(stored.lock().unwrap().len(), 1, "the copy comes from the sync");
}

#[test]
fn an_existing_template_or_an_unknown_sender_never_reaches_the_network() {
    let mut setup = Setup::new(vec![listed("APPROVED")]);
    setup.review.expect_submit_template().times(0);
    setup.stored.lock().unwrap().push(Template {
        network_id: Some("1".into()),
        ..template(
            &sender(1, DEFAULT_NUMBER, true).waba_id,
            "APPROVED",
            HeaderSpec::None,
            0,
        )
    });
    setup.stored.lock().unwrap()[0].name = TemplateName::parse("order_update").unwrap();
    setup.stored.lock().unwrap()[0].language = LanguageCode::parse("en_US").unwrap();
    let manage = setup.build();
    assert!(matches!(
        run(manage.create(&org_id(), None, &definition(false))),
        Err(TemplateReviewError::Exists(..))
    ));
    assert!(matches!(
        run(manage.create(&org_id(), Some(&phone("+15559990000")), &definition(false))),
        Err(TemplateReviewError::UnknownSender)
    ));
}

fn upload(kind: MediaKind) -> MediaFile {
    MediaFile {
        id: MediaId::parse(SAMPLE).unwrap(),
        organization_id: org_id(),
        kind,
        mime_type: "application/pdf".into(),
        size: 4,
        sha256: Sha256Digest::from_bytes([7; 32]),
        filename: None,
        created_at: now(),
        expires_at: now() + chrono::TimeDelta::days(30),
    }
}

#[test]
fn a_sample_upload_goes_to_the_review_by_its_handle() {
    let mut setup = Setup::new(vec![listed("PENDING")]);
    setup
        .catalog
        .expect_media()
        .returning(|_, _| Ok(Some(MediaRecord::Uploaded(upload(MediaKind::Document)))));
    setup
        .files
        .expect_open()
        .returning(|_| Ok(Some(tempfile_with(b"%PDF"))));
    setup
        .review
        .expect_upload_sample()
        .withf(|_, upload| upload.size == 4 && upload.mime_type == "application/pdf")
        .times(1)
        .returning(|_, _| Ok("4::ZG9j".into()));
    setup
        .review
        .expect_submit_template()
        .withf(|_, _, samples| {
            samples.get(&MediaId::parse(SAMPLE).unwrap()).map(String::as_str) == Some("4::ZG9j")
        })
        .times(1)
        .returning(|_, _, _| Ok(submitted()));
    run(setup.build().create(&org_id(), None, &definition(true))).unwrap();
}

#[test]
fn a_sample_of_another_kind_than_its_header_is_refused_before_the_network() {
    let mut setup = Setup::new(Vec::new());
    setup
        .catalog
        .expect_media()
        .returning(|_, _| Ok(Some(MediaRecord::Uploaded(upload(MediaKind::Image)))));
    setup.review.expect_upload_sample().times(0);
    setup.review.expect_submit_template().times(0);
    let refused = run(setup.build().create(&org_id(), None, &definition(true)));
    assert!(
        matches!(
            refused,
            Err(TemplateReviewError::SampleMismatch {
                expected: "document",
                actual: "image",
                ..
            })
        ),
        "{refused:?}"
    );
}

#[test]
fn deleting_one_language_names_its_network_id() {
    let mut setup = Setup::new(Vec::new());
    let mut copy = template(
        &sender(1, DEFAULT_NUMBER, true).waba_id,
        "APPROVED",
        HeaderSpec::None,
        0,
    );
    copy.name = TemplateName::parse("order_update").unwrap();
    copy.network_id = Some("594425479261596".into());
    setup.stored.lock().unwrap().push(copy);
    setup
        .review
        .expect_delete_template()
        .withf(|_, name, id| name.as_str() == "order_update" && id.as_deref() == Some("594425479261596"))
        .times(1)
        .returning(|_, _, _| Ok(()));
    let manage = setup.build();
    run(manage.delete(
        &org_id(),
        None,
        &TemplateName::parse("order_update").unwrap(),
        Some(&LanguageCode::parse("en_US").unwrap()),
    ))
    .unwrap();
    assert!(matches!(
        run(manage.delete(&org_id(), None, &TemplateName::parse("missing").unwrap(), None)),
        Err(TemplateReviewError::NotFound)
    ));
}

fn tempfile_with(bytes: &[u8]) -> std::fs::File {
    use std::io::{Seek as _, Write as _};
    let path = std::env::temp_dir().join(format!("herald-sample-{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    file.write_all(bytes).unwrap();
    file.rewind().unwrap();
    let _ = std::fs::remove_file(&path);
    file
}

/// A template of `name` in the default sender's business account, with its network id.
fn stored_copy(name: &str) -> Template {
    let mut copy = template(
        &sender(1, DEFAULT_NUMBER, true).waba_id,
        "APPROVED",
        HeaderSpec::None,
        0,
    );
    copy.name = TemplateName::parse(name).unwrap();
    copy.network_id = Some("594425479261596".into());
    copy
}

/// On a business account shared with another organization, a template that organization created through
/// Herald is not this one's: its edit and its deletion answer `NotFound` and never reach the network, and
/// creating a language of it is refused as taken.
#[test]
fn another_organizations_template_on_a_shared_account_is_never_changed() {
    let other = OrganizationId::from_ulid(ulid(77));
    let setup = Setup::new(vec![listed("APPROVED")]);
    *setup.author.lock().unwrap() = Some(other);
    setup.stored.lock().unwrap().push(stored_copy("order_update"));
    let mut setup = setup;
    setup.review.expect_delete_template().times(0);
    setup.review.expect_edit_template().times(0);
    setup.review.expect_submit_template().times(0);
    let manage = setup.build();
    let name = TemplateName::parse("order_update").unwrap();
    assert!(matches!(
        run(manage.delete(&org_id(), None, &name, None)),
        Err(TemplateReviewError::NotFound)
    ));
    assert!(matches!(
        run(manage.edit(&org_id(), None, &definition(false))),
        Err(TemplateReviewError::NotFound)
    ));
    let mut other_language = definition(false);
    other_language.language = LanguageCode::parse("pt_BR").unwrap();
    assert!(matches!(
        run(manage.create(&org_id(), None, &other_language)),
        Err(TemplateReviewError::Exists(..))
    ));
}

/// A template made outside Herald belongs to the account's owner: an organization the account is shared
/// with cannot delete it; its own template it deletes, and the name is free again afterwards.
#[test]
fn a_sharing_organization_deletes_its_own_templates_only() {
    let owner = OrganizationId::from_ulid(ulid(77));
    let mut setup = Setup::new(Vec::new());
    setup.accounts = MockAccountStore::new();
    setup
        .accounts
        .expect_senders()
        .returning(|_| Ok(two_senders().into()));
    setup
        .accounts
        .expect_business_account_organizations()
        .returning(move |_| Ok(vec![owner, org_id()]));
    setup
        .accounts
        .expect_record_webhook_fields_missing()
        .returning(|_, _, _| Ok(()));
    setup.stored.lock().unwrap().push(stored_copy("order_update"));
    setup
        .review
        .expect_delete_template()
        .times(1)
        .returning(|_, _, _| Ok(()));
    let author = Arc::clone(&setup.author);
    let manage = setup.build();
    let name = TemplateName::parse("order_update").unwrap();
    assert!(matches!(
        run(manage.delete(&org_id(), None, &name, None)),
        Err(TemplateReviewError::NotFound)
    ));
    *author.lock().unwrap() = Some(org_id());
    run(manage.delete(&org_id(), None, &name, None)).unwrap();
    assert_eq!(*author.lock().unwrap(), None, "the name is free again");
}
