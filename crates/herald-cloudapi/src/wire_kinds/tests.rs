use super::*;
use herald_domain::content::{ContactDraft, LocationDraft};
use herald_domain::ids::MediaId;
use herald_domain::interactive::{
    ActionDraft, ButtonDraft, HeaderDraft, InteractiveDraft, ParametersDraft, RowDraft, SectionDraft,
};

const MEDIA: &str = "med_01HZX3N5Q2V8K4T6W9Y1B3D5F7";

fn parse(draft: InteractiveDraft) -> Interactive {
    Interactive::parse(&draft).expect("valid draft")
}

fn uploaded() -> NetworkMediaIds {
    [(MediaId::parse(MEDIA).expect("id"), "1013859600285441".to_owned())].into()
}

#[test]
fn reply_buttons_with_an_image_header_go_out_in_meta_s_shape() {
    let message = parse(InteractiveDraft {
        kind: "button".into(),
        header: Some(HeaderDraft {
            kind: "image".into(),
            media_id: Some(MEDIA.into()),
            ..HeaderDraft::default()
        }),
        body: Some("Change or cancel?".into()),
        footer: Some("Lucky Shrub".into()),
        action: ActionDraft {
            buttons: Some(vec![
                ButtonDraft {
                    kind: Some("reply".into()),
                    id: Some("change".into()),
                    title: Some("Change".into()),
                },
                ButtonDraft {
                    kind: None,
                    id: Some("cancel".into()),
                    title: Some("Cancel".into()),
                },
            ]),
            ..ActionDraft::default()
        },
    });
    assert_eq!(
        interactive(&message, &uploaded()).expect("body"),
        json!({
            "type": "button",
            "header": { "type": "image", "image": { "id": "1013859600285441" } },
            "body": { "text": "Change or cancel?" },
            "footer": { "text": "Lucky Shrub" },
            "action": { "buttons": [
                { "type": "reply", "reply": { "id": "change", "title": "Change" } },
                { "type": "reply", "reply": { "id": "cancel", "title": "Cancel" } }
            ] }
        })
    );
    let missing = interactive(&message, &NetworkMediaIds::new());
    assert!(matches!(missing, Err(NetworkError::Permanent(e)) if e.code == "media_unavailable"));
}

#[test]
fn a_list_goes_out_with_its_sections_and_rows() {
    let message = parse(InteractiveDraft {
        kind: "list".into(),
        header: Some(HeaderDraft {
            kind: "text".into(),
            text: Some("Shipping".into()),
            ..HeaderDraft::default()
        }),
        body: Some("Which option?".into()),
        footer: None,
        action: ActionDraft {
            button: Some("Options".into()),
            sections: Some(vec![SectionDraft {
                title: None,
                rows: vec![
                    RowDraft {
                        id: Some("express".into()),
                        title: Some("Express".into()),
                        description: Some("Next day".into()),
                    },
                    RowDraft {
                        id: Some("ground".into()),
                        title: Some("Ground".into()),
                        description: None,
                    },
                ],
            }]),
            ..ActionDraft::default()
        },
    });
    assert_eq!(
        interactive(&message, &NetworkMediaIds::new()).expect("body"),
        json!({
            "type": "list",
            "header": { "type": "text", "text": "Shipping" },
            "body": { "text": "Which option?" },
            "action": {
                "button": "Options",
                "sections": [ { "rows": [
                    { "id": "express", "title": "Express", "description": "Next day" },
                    { "id": "ground", "title": "Ground" }
                ] } ]
            }
        })
    );
}

fn with_action(kind: &str, name: &str, parameters: ParametersDraft) -> Interactive {
    parse(InteractiveDraft {
        kind: kind.into(),
        body: Some("Tap below".into()),
        action: ActionDraft {
            name: Some(name.into()),
            parameters,
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    })
}

#[test]
fn cta_url_location_request_and_flows_go_out_in_meta_s_shape() {
    let cta = with_action(
        "cta_url",
        "cta_url",
        ParametersDraft {
            display_text: Some("See dates".into()),
            url: Some("https://example.com/dates".into()),
            ..ParametersDraft::default()
        },
    );
    assert_eq!(
        interactive(&cta, &NetworkMediaIds::new()).expect("body")["action"],
        json!({ "name": "cta_url", "parameters": { "display_text": "See dates", "url": "https://example.com/dates" } })
    );

    let location = with_action(
        "location_request_message",
        "send_location",
        ParametersDraft::default(),
    );
    assert_eq!(
        interactive(&location, &NetworkMediaIds::new()).expect("body"),
        json!({ "type": "location_request_message", "body": { "text": "Tap below" }, "action": { "name": "send_location" } })
    );

    let navigate = with_action(
        "flow",
        "flow",
        ParametersDraft {
            flow_id: Some("1234567890".into()),
            flow_cta: Some("Book".into()),
            flow_token: Some("tok-1".into()),
            screen: Some("WELCOME".into()),
            data: Some(r#"{"party":2}"#.into()),
            mode: Some("draft".into()),
            ..ParametersDraft::default()
        },
    );
    assert_eq!(
        interactive(&navigate, &NetworkMediaIds::new()).expect("body")["action"],
        json!({ "name": "flow", "parameters": {
            "flow_message_version": "3",
            "flow_id": "1234567890",
            "flow_cta": "Book",
            "flow_token": "tok-1",
            "mode": "draft",
            "flow_action": "navigate",
            "flow_action_payload": { "screen": "WELCOME", "data": { "party": 2 } }
        } })
    );

    let exchange = with_action(
        "flow",
        "flow",
        ParametersDraft {
            flow_name: Some("booking".into()),
            flow_cta: Some("Book".into()),
            flow_action: Some("data_exchange".into()),
            ..ParametersDraft::default()
        },
    );
    assert_eq!(
        interactive(&exchange, &NetworkMediaIds::new()).expect("body")["action"],
        json!({ "name": "flow", "parameters": {
            "flow_message_version": "3", "flow_name": "booking", "flow_cta": "Book", "flow_action": "data_exchange"
        } })
    );
}

#[test]
fn location_contacts_reaction_and_context_go_out_in_meta_s_shape() {
    let place = Location::parse(&LocationDraft {
        latitude: Some("37.44216251868683".into()),
        longitude: Some("-122.16153582049394".into()),
        name: Some("Philz Coffee".into()),
        address: None,
    })
    .expect("place");
    assert_eq!(
        location(&place),
        json!({ "latitude": 37.44216251868683, "longitude": -122.16153582049394, "name": "Philz Coffee" })
    );

    let cards = ContactCard::parse_all(&[ContactDraft {
        formatted_name: Some("Barbara J. Johnson".into()),
        first_name: Some("Barbara".into()),
        phones: vec![(Some("+1 (940) 555-1234".into()), Some("HOME".into()))],
        addresses: vec![[
            None,
            Some("Menlo Park".into()),
            None,
            None,
            None,
            Some("US".into()),
            Some("WORK".into()),
        ]],
        org: Some([Some("Lucky Shrub".into()), None, None]),
        birthday: Some("1999-01-23".into()),
        ..ContactDraft::default()
    }])
    .expect("cards");
    assert_eq!(
        contacts(&cards),
        json!([{
            "name": { "formatted_name": "Barbara J. Johnson", "first_name": "Barbara" },
            "phones": [ { "phone": "+1 (940) 555-1234", "type": "HOME" } ],
            "addresses": [ { "city": "Menlo Park", "country_code": "US", "type": "WORK" } ],
            "org": { "company": "Lucky Shrub" },
            "birthday": "1999-01-23"
        }])
    );

    assert_eq!(
        reaction(
            "wamid.HBgLMTY0NjcwNDM1OTUVAgARGBI1RjQyNUE3NEYxMzAzMzQ5MkEA",
            "\u{1F600}"
        ),
        json!({ "message_id": "wamid.HBgLMTY0NjcwNDM1OTUVAgARGBI1RjQyNUE3NEYxMzAzMzQ5MkEA", "emoji": "😀" })
    );
    assert_eq!(reaction("wamid.X", "")["emoji"], json!(""));
    assert_eq!(context("wamid.Y"), json!({ "message_id": "wamid.Y" }));
}
