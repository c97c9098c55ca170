//! `TemplateStore`: replace (a sync), get, list with filters, scoped by organization and business account.

use super::{Ports, new_organization_with_sender};
use crate::fixtures::{
    self, language, network_ref, simulator_templates, template_hello_world, template_invoice_ready,
    template_name, template_order_shipped,
};
use herald_domain::ids::TemplateId;
use herald_domain::ports::TemplateQuery;
use herald_domain::template::Template;

/// A sync's templates read back exactly, one at a time and listed by name then language, with the status
/// and name filters; a second sync replaces the first.
pub async fn templates_replace_get_and_list(ports: Ports) {
    let (org, _) = new_organization_with_sender(&ports, "starter").await;
    let waba = network_ref(fixtures::SIMULATOR_WABA);
    let seeded = simulator_templates(org.id, &waba);
    ports
        .templates
        .replace_templates(&org.id, &waba, &seeded)
        .await
        .expect("replace_templates");

    let listed = ports
        .templates
        .templates(&org.id, &TemplateQuery::default())
        .await
        .expect("templates");
    assert_eq!(
        listed, seeded,
        "templates() must list the synced templates exactly, by name"
    );
    for template in &seeded {
        let read = ports
            .templates
            .template(&org.id, &waba, &template.name, &template.language)
            .await
            .expect("template");
        assert_eq!(
            read.as_deref(),
            Some(template),
            "template() must answer the template exactly"
        );
    }
    let wrong_language = ports
        .templates
        .template(
            &org.id,
            &waba,
            &template_name("order_shipped"),
            &language("pt_BR"),
        )
        .await
        .expect("template");
    assert_eq!(wrong_language, None, "a template is per language");
    let other_waba = network_ref("2000000009");
    let wrong_waba = ports
        .templates
        .template(
            &org.id,
            &other_waba,
            &template_name("order_shipped"),
            &language("en_US"),
        )
        .await
        .expect("template");
    assert_eq!(wrong_waba, None, "a template is per business account");

    let by = |status: Option<&str>, name: Option<&str>| TemplateQuery {
        status: status.map(str::to_owned),
        name: name.map(template_name),
    };
    let names = |templates: &[Template]| -> Vec<String> {
        templates.iter().map(|t| t.name.as_str().to_owned()).collect()
    };
    for (query, expected) in [
        (by(Some("PAUSED"), None), vec!["spring_sale"]),
        (
            by(Some("APPROVED"), None),
            vec![
                "appointment_named",
                "hello_world",
                "invoice_ready",
                "order_shipped",
                "promo_image",
                "welcome_video",
            ],
        ),
        (by(None, Some("order_shipped")), vec!["order_shipped"]),
        (by(Some("APPROVED"), Some("spring_sale")), vec![]),
        (by(Some("REJECTED"), None), vec![]),
    ] {
        let listed = ports
            .templates
            .templates(&org.id, &query)
            .await
            .expect("templates");
        assert_eq!(names(&listed), expected, "templates() with {query:?}");
    }

    let order_en = template_order_shipped(org.id, &waba);
    let order_pt = Template {
        id: TemplateId::from_ulid(fixtures::next_ulid()),
        language: language("pt_BR"),
        ..template_order_shipped(org.id, &waba)
    };
    let hello = template_hello_world(org.id, &waba);
    let second_sync = vec![order_pt.clone(), hello.clone(), order_en.clone()];
    ports
        .templates
        .replace_templates(&org.id, &waba, &second_sync)
        .await
        .expect("replace_templates");
    let listed = ports
        .templates
        .templates(&org.id, &TemplateQuery::default())
        .await
        .expect("templates");
    assert_eq!(
        listed,
        vec![hello, order_en, order_pt],
        "a sync replaces the set; listing is by name then language"
    );
    let gone = ports
        .templates
        .template(
            &org.id,
            &waba,
            &template_name("invoice_ready"),
            &language("en_US"),
        )
        .await
        .expect("template");
    assert_eq!(gone, None, "a template missing from the new sync is gone");
}

/// Replacing one business account's templates leaves the organization's other accounts alone.
pub async fn templates_replace_is_scoped_by_waba(ports: Ports) {
    let (org, _) = new_organization_with_sender(&ports, "business").await;
    let (waba_1, waba_2) = (network_ref("2000000001"), network_ref("2000000002"));
    let hello = template_hello_world(org.id, &waba_1);
    let order = template_order_shipped(org.id, &waba_1);
    let invoice = template_invoice_ready(org.id, &waba_2);
    ports
        .templates
        .replace_templates(&org.id, &waba_1, &[hello.clone(), order.clone()])
        .await
        .expect("replace_templates");
    ports
        .templates
        .replace_templates(&org.id, &waba_2, std::slice::from_ref(&invoice))
        .await
        .expect("replace_templates");
    let listed = ports
        .templates
        .templates(&org.id, &TemplateQuery::default())
        .await
        .expect("templates");
    assert_eq!(
        listed,
        vec![hello, invoice.clone(), order],
        "templates() lists every business account's templates, by name"
    );

    ports
        .templates
        .replace_templates(&org.id, &waba_1, &[])
        .await
        .expect("replace_templates");
    let listed = ports
        .templates
        .templates(&org.id, &TemplateQuery::default())
        .await
        .expect("templates");
    assert_eq!(
        listed,
        vec![invoice.clone()],
        "an empty sync of one account clears only that account"
    );
    let read = ports
        .templates
        .template(&org.id, &waba_2, &invoice.name, &invoice.language)
        .await
        .expect("template");
    assert_eq!(
        read.as_deref(),
        Some(&invoice),
        "the other account's template is intact"
    );
}

/// Several syncs of the same business account at once (the API's `POST /templates/sync` beside the workers'
/// periodic ones, on a fresh database) all succeed, and leave one row per template: the copies of one of
/// them, never a mix and never a duplicate. Round after round, on an account with no copy yet and then on
/// one that has them.
pub async fn templates_concurrent_syncs_all_succeed(ports: Ports) {
    const SYNCS: usize = 4;
    let (org, _) = new_organization_with_sender(&ports, "starter").await;
    for round in 0..6 {
        // A fresh account every other round: the race of two syncs that both find no row.
        let waba = network_ref(&format!("20000001{:02}", round / 2));
        // Each sync lists the same templates under ids of its own, as a real sync makes them.
        let syncs: Vec<Vec<Template>> = (0..SYNCS)
            .map(|_| {
                simulator_templates(org.id, &waba)
                    .into_iter()
                    .map(|t| Template {
                        id: TemplateId::from_ulid(fixtures::next_ulid()),
                        ..t
                    })
                    .collect()
            })
            .collect();
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(SYNCS));
        let handles: Vec<_> = syncs
            .iter()
            .cloned()
            .map(|copies| {
                let (ports, waba, barrier) = (ports.clone(), waba.clone(), barrier.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    ports.templates.replace_templates(&org.id, &waba, &copies).await
                })
            })
            .collect();
        for handle in handles {
            let result = handle.await.expect("sync task");
            assert!(
                result.is_ok(),
                "round {round}: every concurrent sync must succeed, got {result:?}"
            );
        }
        let listed: Vec<Template> = ports
            .templates
            .templates(&org.id, &TemplateQuery::default())
            .await
            .expect("templates")
            .into_iter()
            .filter(|t| t.waba_id == waba)
            .collect();
        let mut keys: Vec<(String, String)> = listed
            .iter()
            .map(|t| (t.name.as_str().to_owned(), t.language.as_str().to_owned()))
            .collect();
        keys.dedup();
        assert_eq!(
            (listed.len(), keys.len()),
            (syncs[0].len(), syncs[0].len()),
            "round {round}: one row per template, got {keys:?}"
        );
        let ids = |templates: &[Template]| -> std::collections::BTreeSet<TemplateId> {
            templates.iter().map(|t| t.id).collect()
        };
        assert!(
            syncs.iter().any(|copies| ids(copies) == ids(&listed)),
            "round {round}: the rows are one sync's copies, whole"
        );
    }
}
