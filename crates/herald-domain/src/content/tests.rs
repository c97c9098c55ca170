use super::*;

fn fields(result: Result<impl std::fmt::Debug, ValidationErrors>) -> Vec<String> {
    match result {
        Ok(value) => panic!("accepted: {value:?}"),
        Err(errors) => errors.errors().iter().map(|e| e.field.clone()).collect(),
    }
}

fn place(latitude: &str, longitude: &str) -> LocationDraft {
    LocationDraft {
        latitude: Some(latitude.into()),
        longitude: Some(longitude.into()),
        ..LocationDraft::default()
    }
}

#[test]
fn a_location_keeps_its_coordinates_as_written() {
    let mut draft = place("-33.8688", "151.2093");
    draft.name = Some("Opera House".into());
    let location = Location::parse(&draft).expect("valid");
    assert_eq!(location.latitude.as_str(), "-33.8688");
    assert!((location.longitude.value() - 151.2093).abs() < 1e-9);
    assert_eq!(location.name.as_ref().map(Field::as_str), Some("Opera House"));
    assert!(Location::parse(&place("90", "-180")).is_ok());
}

#[test]
fn coordinates_off_the_globe_or_not_numbers_are_refused() {
    assert_eq!(fields(Location::parse(&place("90.0001", "0"))), ["latitude"]);
    assert_eq!(fields(Location::parse(&place("0", "-180.5"))), ["longitude"]);
    assert_eq!(
        fields(Location::parse(&place("NaN", "inf"))),
        ["latitude", "longitude"]
    );
    assert_eq!(
        fields(Location::parse(&LocationDraft::default())),
        ["latitude", "longitude"]
    );
    let mut long_name = place("1", "2");
    long_name.address = Some("a".repeat(PLACE_TEXT_MAX + 1));
    assert_eq!(fields(Location::parse(&long_name)), ["address"]);
}

fn card(formatted: Option<&str>, first: Option<&str>) -> ContactDraft {
    ContactDraft {
        formatted_name: formatted.map(Into::into),
        first_name: first.map(Into::into),
        ..ContactDraft::default()
    }
}

#[test]
fn a_contact_card_needs_a_formatted_name_and_one_more_name_part() {
    let mut full = card(Some("Ada Lovelace"), Some("Ada"));
    full.phones = vec![(Some("+44 20 7946 0958".into()), Some("WORK".into()))];
    full.emails = vec![(Some("ada@example.com".into()), None)];
    full.addresses = vec![[
        Some("12 St James's Sq".into()),
        Some("London".into()),
        None,
        None,
        None,
        Some("GB".into()),
        None,
    ]];
    full.org = Some([Some("Analytical Engines".into()), None, Some("Countess".into())]);
    full.birthday = Some("1815-12-10".into());
    let cards = ContactCard::parse_all(&[full]).expect("valid");
    assert_eq!(cards[0].phones[0].label.as_ref().map(Field::as_str), Some("WORK"));
    assert_eq!(
        cards[0].addresses[0].city.as_ref().map(Field::as_str),
        Some("London")
    );
    assert_eq!(
        cards[0].addresses[0].country_code.as_ref().map(Field::as_str),
        Some("GB")
    );
    assert_eq!(
        cards[0]
            .org
            .as_ref()
            .and_then(|o| o.title.as_ref())
            .map(Field::as_str),
        Some("Countess")
    );

    assert_eq!(
        fields(ContactCard::parse_all(&[
            card(Some("A"), Some("A")),
            card(None, None)
        ])),
        ["contacts[1].name.formatted_name", "contacts[1].name"]
    );
}

#[test]
fn contact_cards_are_counted_and_their_entries_checked() {
    assert_eq!(fields(ContactCard::parse_all(&[])), ["contacts"]);
    let many = vec![card(Some("A"), Some("A")); CONTACTS_MAX + 1];
    assert_eq!(fields(ContactCard::parse_all(&many)), ["contacts"]);
    let mut bad = card(Some("A"), Some("A"));
    bad.phones = vec![(None, Some("HOME".into()))];
    bad.birthday = Some("1815-02-30".into());
    bad.urls = vec![(Some("u".into()), None); CARD_ENTRIES_MAX + 1];
    assert_eq!(
        fields(ContactCard::parse_all(&[bad])),
        [
            "contacts[0].phones[0].phone",
            "contacts[0].urls",
            "contacts[0].birthday"
        ]
    );
}

#[test]
fn a_reaction_names_an_outbound_or_inbound_message() {
    let outbound = MessageRef::parse("msg_01HZX3N5Q2V8K4T6W9Y1B3D5F7").expect("msg");
    assert!(matches!(outbound, MessageRef::Outbound(_)));
    assert_eq!(outbound.to_string(), "msg_01HZX3N5Q2V8K4T6W9Y1B3D5F7");
    assert!(matches!(
        MessageRef::parse("inb_01HZX3N5Q2V8K4T6W9Y1B3D5F7"),
        Ok(MessageRef::Inbound(_))
    ));
    assert!(MessageRef::parse("wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBJDQjZCMzlEQUE4OTJBMTE4RTUA").is_err());
    assert!(MessageRef::parse("msg_short").is_err());
}

#[test]
fn one_emoji_of_any_shape_is_a_reaction_and_empty_removes_it() {
    for emoji in ["👍", "👍🏽", "❤️", "👨‍👩‍👧‍👦", "🇧🇷", "1️⃣", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "☕"]
    {
        assert!(Emoji::parse(emoji).is_ok(), "{emoji} refused");
    }
    assert!(Emoji::parse("").expect("empty").removes());
    assert!(!Emoji::parse("🎉").expect("emoji").removes());
}

#[test]
fn text_or_several_emoji_are_not_a_reaction() {
    for text in ["ok", "👍👍", "👍 ", "a👍", "12", "\u{0}", "🇧", "👨‍👩‍👧‍👦👨‍👩‍👧‍👦"]
    {
        assert!(Emoji::parse(text).is_err(), "{text:?} accepted");
    }
}

/// What the store keeps is the draft; reading it back must give the very location and cards accepted.
#[test]
fn locations_and_cards_parse_back_from_their_drafts() {
    let mut draft = place("-33.8688", "151.2093");
    draft.name = Some("Opera House".into());
    draft.address = Some("Bennelong Point".into());
    let location = Location::parse(&draft).expect("valid");
    assert_eq!(Location::parse(&location.to_draft()).expect("valid"), location);

    let card = ContactDraft {
        formatted_name: Some("Ana Díaz".into()),
        first_name: Some("Ana".into()),
        phones: vec![(Some("+15551234567".into()), Some("WORK".into()))],
        emails: vec![(Some("ana@example.com".into()), None)],
        urls: vec![(Some("https://example.com".into()), None)],
        addresses: vec![[
            Some("1 Main St".into()),
            Some("Springfield".into()),
            None,
            Some("12345".into()),
            Some("USA".into()),
            Some("US".into()),
            Some("HOME".into()),
        ]],
        org: Some([Some("Acme".into()), None, Some("CEO".into())]),
        birthday: Some("1990-02-28".into()),
        ..ContactDraft::default()
    };
    let cards = ContactCard::parse_all(&[card]).expect("valid");
    let drafts: Vec<ContactDraft> = cards.iter().map(ContactCard::to_draft).collect();
    assert_eq!(ContactCard::parse_all(&drafts).expect("valid"), cards);
}
