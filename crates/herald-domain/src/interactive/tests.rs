use super::*;
use crate::attachment::{MediaKind, MediaSource};
use crate::ids::MediaId;

const MEDIA: &str = "med_01HZX3N5Q2V8K4T6W9Y1B3D5F7";

fn button(id: &str, title: &str) -> ButtonDraft {
    ButtonDraft {
        kind: Some("reply".into()),
        id: Some(id.into()),
        title: Some(title.into()),
    }
}

fn buttons(list: Vec<ButtonDraft>) -> InteractiveDraft {
    InteractiveDraft {
        kind: "button".into(),
        body: Some("Pick one".into()),
        action: ActionDraft {
            buttons: Some(list),
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    }
}

fn row(id: &str) -> RowDraft {
    RowDraft {
        id: Some(id.into()),
        title: Some(format!("Row {id}")),
        description: None,
    }
}

fn list(sections: Vec<SectionDraft>) -> InteractiveDraft {
    InteractiveDraft {
        kind: "list".into(),
        body: Some("Choose".into()),
        action: ActionDraft {
            button: Some("Options".into()),
            sections: Some(sections),
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    }
}

fn section(title: Option<&str>, rows: Vec<RowDraft>) -> SectionDraft {
    SectionDraft {
        title: title.map(Into::into),
        rows,
    }
}

fn flow(parameters: ParametersDraft) -> InteractiveDraft {
    InteractiveDraft {
        kind: "flow".into(),
        body: Some("Book a table".into()),
        action: ActionDraft {
            name: Some("flow".into()),
            parameters,
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    }
}

fn navigate() -> ParametersDraft {
    ParametersDraft {
        flow_message_version: Some("3".into()),
        flow_id: Some("1234567890".into()),
        flow_cta: Some("Book".into()),
        screen: Some("WELCOME".into()),
        ..ParametersDraft::default()
    }
}

/// The fields named by the errors of `draft`, in order.
fn refused(draft: &InteractiveDraft) -> Vec<String> {
    match Interactive::parse(draft) {
        Ok(parsed) => panic!("accepted: {parsed:?}"),
        Err(errors) => errors.errors().iter().map(|e| e.field.clone()).collect(),
    }
}

#[test]
fn three_reply_buttons_with_a_media_header_are_accepted() {
    let mut draft = buttons(vec![
        button("yes", "Yes"),
        button("no", "No"),
        button("later", "Later"),
    ]);
    draft.header = Some(HeaderDraft {
        kind: "image".into(),
        media_id: Some(MEDIA.into()),
        ..HeaderDraft::default()
    });
    draft.footer = Some("Reply within a day".into());
    let parsed = Interactive::parse(&draft).expect("valid");
    assert_eq!(parsed.action.wire_type(), "button");
    let InteractiveAction::Buttons(buttons) = &parsed.action else {
        panic!("not buttons: {parsed:?}");
    };
    assert_eq!(buttons.len(), 3);
    assert_eq!(buttons[2].id.as_str(), "later");
    let Some(InteractiveHeader::Media(media)) = &parsed.header else {
        panic!("no media header: {parsed:?}");
    };
    assert_eq!(media.kind, MediaKind::Image);
    assert_eq!(
        media.source,
        MediaSource::Stored(MediaId::parse(MEDIA).expect("id"))
    );
    assert_eq!(
        parsed.footer.as_ref().map(Text::as_str),
        Some("Reply within a day")
    );
}

#[test]
fn a_fourth_button_or_none_is_refused() {
    let four = buttons(vec![
        button("a", "A"),
        button("b", "B"),
        button("c", "C"),
        button("d", "D"),
    ]);
    assert_eq!(refused(&four), ["action.buttons"]);
    assert_eq!(refused(&buttons(vec![])), ["action.buttons"]);
}

#[test]
fn a_button_title_over_20_characters_is_named_by_its_path() {
    let draft = buttons(vec![
        button("a", "A"),
        button("b", "B"),
        button("c", &"é".repeat(BUTTON_TITLE_MAX + 1)),
    ]);
    assert_eq!(refused(&draft), ["action.buttons[2].reply.title"]);
    let exactly = buttons(vec![button("c", &"é".repeat(BUTTON_TITLE_MAX))]);
    assert!(Interactive::parse(&exactly).is_ok());
}

#[test]
fn button_ids_and_titles_must_be_unique_and_ids_fit_256() {
    let draft = buttons(vec![
        button("same", "One"),
        button("same", "One"),
        button(&"i".repeat(257), "Two"),
    ]);
    assert_eq!(
        refused(&draft),
        [
            "action.buttons[1].reply.id",
            "action.buttons[1].reply.title",
            "action.buttons[2].reply.id"
        ]
    );
}

#[test]
fn every_error_of_a_request_is_reported_at_once() {
    let mut draft = buttons(vec![ButtonDraft {
        kind: Some("url".into()),
        id: None,
        title: Some(String::new()),
    }]);
    draft.body = None;
    draft.footer = Some("f".repeat(FOOTER_MAX + 1));
    draft.header = Some(HeaderDraft {
        kind: "text".into(),
        text: Some("h".repeat(HEADER_TEXT_MAX + 1)),
        ..HeaderDraft::default()
    });
    assert_eq!(
        refused(&draft),
        [
            "action.buttons[0].type",
            "action.buttons[0].reply.id",
            "action.buttons[0].reply.title",
            "body.text",
            "footer.text",
            "header.text"
        ]
    );
}

#[test]
fn a_list_of_ten_rows_over_two_titled_sections_is_accepted() {
    let draft = list(vec![
        section(Some("Near"), (0..4).map(|i| row(&i.to_string())).collect()),
        section(Some("Far"), (4..10).map(|i| row(&i.to_string())).collect()),
    ]);
    let parsed = Interactive::parse(&draft).expect("valid");
    let InteractiveAction::List { button, sections } = &parsed.action else {
        panic!("not a list: {parsed:?}");
    };
    assert_eq!(button.as_str(), "Options");
    assert_eq!(sections.iter().map(|s| s.rows.len()).sum::<usize>(), 10);
}

#[test]
fn a_list_counts_its_rows_across_sections_and_needs_section_titles_when_several() {
    let eleven = list(vec![
        section(Some("A"), (0..6).map(|i| row(&i.to_string())).collect()),
        section(None, (6..11).map(|i| row(&i.to_string())).collect()),
    ]);
    assert_eq!(refused(&eleven), ["action.sections", "action.sections[1].title"]);
    let one_untitled = list(vec![section(None, vec![row("only")])]);
    assert!(Interactive::parse(&one_untitled).is_ok());
    let eleven_sections = list(
        (0..11)
            .map(|i| section(Some("S"), vec![row(&i.to_string())]))
            .collect(),
    );
    assert_eq!(refused(&eleven_sections), ["action.sections"]);
}

#[test]
fn list_rows_keep_meta_s_limits_and_unique_ids() {
    let draft = list(vec![section(
        None,
        vec![
            RowDraft {
                id: Some("r".repeat(ROW_ID_MAX + 1)),
                title: Some("t".repeat(ROW_TITLE_MAX + 1)),
                description: Some("d".repeat(ROW_DESCRIPTION_MAX + 1)),
            },
            row("x"),
            row("x"),
        ],
    )]);
    assert_eq!(
        refused(&draft),
        [
            "action.sections[0].rows[0].id",
            "action.sections[0].rows[0].title",
            "action.sections[0].rows[0].description",
            "action.sections[0].rows[2].id"
        ]
    );
}

#[test]
fn a_list_body_may_be_4096_characters_and_a_button_body_1024() {
    let mut long_list = list(vec![section(None, vec![row("a")])]);
    long_list.body = Some("b".repeat(LIST_BODY_MAX));
    assert!(Interactive::parse(&long_list).is_ok());
    long_list.body = Some("b".repeat(LIST_BODY_MAX + 1));
    assert_eq!(refused(&long_list), ["body.text"]);
    let mut long_buttons = buttons(vec![button("a", "A")]);
    long_buttons.body = Some("b".repeat(BODY_MAX + 1));
    assert_eq!(refused(&long_buttons), ["body.text"]);
}

#[test]
fn a_list_takes_a_text_header_only() {
    let mut draft = list(vec![section(None, vec![row("a")])]);
    draft.header = Some(HeaderDraft {
        kind: "video".into(),
        media_id: Some(MEDIA.into()),
        ..HeaderDraft::default()
    });
    assert_eq!(refused(&draft), ["header.type"]);
}

#[test]
fn a_cta_url_needs_a_short_label_and_an_absolute_url() {
    let cta = |display: &str, url: &str| InteractiveDraft {
        kind: "cta_url".into(),
        body: Some("See the menu".into()),
        action: ActionDraft {
            name: Some("cta_url".into()),
            parameters: ParametersDraft {
                display_text: Some(display.into()),
                url: Some(url.into()),
                ..ParametersDraft::default()
            },
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    };
    let parsed = Interactive::parse(&cta("Menu", "https://example.com/menu?x=1")).expect("valid");
    assert!(
        matches!(&parsed.action, InteractiveAction::CtaUrl { url, .. } if url.as_str() == "https://example.com/menu?x=1")
    );
    assert_eq!(
        refused(&cta(&"m".repeat(CTA_DISPLAY_TEXT_MAX + 1), "ftp://example.com")),
        ["action.parameters.display_text", "action.parameters.url"]
    );
    assert_eq!(
        refused(&cta("Menu", "https:///nohost")),
        ["action.parameters.url"]
    );
}

#[test]
fn a_location_request_is_body_only() {
    let mut draft = InteractiveDraft {
        kind: "location_request_message".into(),
        body: Some("Where should we deliver?".into()),
        action: ActionDraft {
            name: Some("send_location".into()),
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    };
    assert_eq!(
        Interactive::parse(&draft).expect("valid").action,
        InteractiveAction::LocationRequest
    );
    draft.footer = Some("x".into());
    draft.header = Some(HeaderDraft {
        kind: "text".into(),
        text: Some("Hi".into()),
        ..HeaderDraft::default()
    });
    draft.action.name = Some("location".into());
    assert_eq!(refused(&draft), ["action.name", "footer", "header"]);
}

#[test]
fn a_navigate_flow_names_its_screen_and_keeps_its_data() {
    let mut parameters = navigate();
    parameters.data = Some(r#"{"party":2}"#.into());
    parameters.flow_token = Some("booking-42".into());
    let parsed = Interactive::parse(&flow(parameters)).expect("valid");
    let InteractiveAction::Flow(flow) = &parsed.action else {
        panic!("not a flow: {parsed:?}");
    };
    assert_eq!(flow.flow, FlowRef::Id(Text("1234567890".into())));
    assert!(!flow.draft);
    assert_eq!(
        flow.action,
        FlowAction::Navigate {
            screen: Text("WELCOME".into()),
            data: Some(r#"{"party":2}"#.into())
        }
    );
    assert_eq!(flow.token.as_ref().map(Text::as_str), Some("booking-42"));
}

#[test]
fn a_flow_is_refused_for_each_rule_meta_states() {
    let mut both = navigate();
    both.flow_name = Some("booking".into());
    assert_eq!(refused(&flow(both)), ["action.parameters.flow_id"]);

    let mut emoji = navigate();
    emoji.flow_cta = Some("Book 🍽".into());
    assert_eq!(refused(&flow(emoji)), ["action.parameters.flow_cta"]);

    let mut no_screen = navigate();
    no_screen.screen = None;
    no_screen.data_not_an_object = true;
    assert_eq!(
        refused(&flow(no_screen)),
        [
            "action.parameters.flow_action_payload.data",
            "action.parameters.flow_action_payload.screen"
        ]
    );

    let mut version = navigate();
    version.flow_message_version = Some("2".into());
    version.mode = Some("preview".into());
    version.flow_id = Some("abc".into());
    assert_eq!(
        refused(&flow(version)),
        [
            "action.parameters.flow_message_version",
            "action.parameters.flow_id",
            "action.parameters.mode"
        ]
    );
}

#[test]
fn a_data_exchange_flow_takes_no_payload() {
    let mut parameters = navigate();
    parameters.flow_action = Some("data_exchange".into());
    assert_eq!(
        refused(&flow(parameters.clone())),
        ["action.parameters.flow_action_payload"]
    );
    parameters.screen = None;
    parameters.mode = Some("draft".into());
    let parsed = Interactive::parse(&flow(parameters)).expect("valid");
    assert!(
        matches!(&parsed.action, InteractiveAction::Flow(f) if f.draft && f.action == FlowAction::DataExchange)
    );
}

#[test]
fn an_unknown_type_is_refused_by_name() {
    let draft = InteractiveDraft {
        kind: "carousel".into(),
        body: Some("x".into()),
        ..InteractiveDraft::default()
    };
    assert_eq!(refused(&draft), ["type"]);
}

#[test]
fn control_characters_are_refused_but_the_body_keeps_line_breaks() {
    let mut draft = buttons(vec![button("a", "A\u{0}")]);
    draft.body = Some("Line one\nLine two".into());
    assert_eq!(refused(&draft), ["action.buttons[0].reply.title"]);
}

/// What the store keeps is the draft; reading it back must give the very message that was accepted.
#[test]
fn every_kind_parses_back_from_its_draft() {
    let mut with_media = buttons(vec![button("a", "A"), button("b", "B")]);
    with_media.header = Some(HeaderDraft {
        kind: "document".into(),
        media_id: Some(MEDIA.into()),
        filename: Some("menu.pdf".into()),
        ..HeaderDraft::default()
    });
    with_media.footer = Some("Thanks".into());
    let mut sections = list(vec![
        section(Some("Mains"), vec![row("1"), row("2")]),
        section(Some("Drinks"), vec![row("3")]),
    ]);
    sections.header = Some(HeaderDraft {
        kind: "text".into(),
        text: Some("Menu".into()),
        ..HeaderDraft::default()
    });
    if let Some(sections) = sections.action.sections.as_mut() {
        sections[0].rows[0].description = Some("Spicy".into());
    }
    let cta = InteractiveDraft {
        kind: "cta_url".into(),
        body: Some("See the order".into()),
        action: ActionDraft {
            name: Some("cta_url".into()),
            parameters: ParametersDraft {
                display_text: Some("Open".into()),
                url: Some("https://example.com/o/1".into()),
                ..ParametersDraft::default()
            },
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    };
    let ask_location = InteractiveDraft {
        kind: "location_request_message".into(),
        body: Some("Where are you?".into()),
        action: ActionDraft {
            name: Some("send_location".into()),
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    };
    let navigate = flow(ParametersDraft {
        flow_id: Some("1234".into()),
        flow_cta: Some("Book".into()),
        flow_token: Some("t-1".into()),
        mode: Some("draft".into()),
        screen: Some("START".into()),
        data: Some(r#"{"party":2}"#.into()),
        ..ParametersDraft::default()
    });
    let exchange = flow(ParametersDraft {
        flow_name: Some("booking".into()),
        flow_cta: Some("Book".into()),
        flow_action: Some("data_exchange".into()),
        ..ParametersDraft::default()
    });
    for draft in [with_media, sections, cta, ask_location, navigate, exchange] {
        let message = Interactive::parse(&draft).expect("valid");
        assert_eq!(
            Interactive::parse(&message.to_draft()).expect("valid again"),
            message
        );
    }
}
