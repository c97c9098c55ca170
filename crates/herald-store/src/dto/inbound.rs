//! An inbound message's content as stored (`inbound_messages.content`), every kind of
//! [`InboundContent`]. Rows written before a kind was modelled hold `{"kind":"other"}`; their network
//! object is still in the row's `raw` column.

use herald_domain::network::InboundContent;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum InboundContentDto {
    Text {
        body: String,
    },
    Media {
        media_kind: String,
        network_media_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sha256: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        caption: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        voice: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        animated: Option<bool>,
    },
    Location {
        latitude: String,
        longitude: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        address: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    Contacts {
        cards_json: String,
    },
    Reaction {
        network_message_id: String,
        emoji: String,
    },
    ButtonReply {
        id: String,
        title: String,
    },
    ListReply {
        id: String,
        title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    FlowReply {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        response_json: String,
    },
    QuickReply {
        payload: String,
        text: String,
    },
    Order {
        order_json: String,
    },
    System {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        system_type: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wa_id: Option<String>,
    },
    /// A kind Herald does not model: the row's `raw` column holds the network's object.
    Other,
}

impl From<&InboundContent> for InboundContentDto {
    fn from(content: &InboundContent) -> Self {
        match content.clone() {
            InboundContent::Text { body } => Self::Text { body },
            InboundContent::Media {
                kind,
                network_media_id,
                mime_type,
                sha256,
                caption,
                filename,
                voice,
                animated,
            } => Self::Media {
                media_kind: kind,
                network_media_id,
                mime_type,
                sha256,
                caption,
                filename,
                voice,
                animated,
            },
            InboundContent::Location {
                latitude,
                longitude,
                name,
                address,
                url,
            } => Self::Location {
                latitude,
                longitude,
                name,
                address,
                url,
            },
            InboundContent::Contacts { cards_json } => Self::Contacts { cards_json },
            InboundContent::Reaction {
                network_message_id,
                emoji,
            } => Self::Reaction {
                network_message_id,
                emoji,
            },
            InboundContent::ButtonReply { id, title } => Self::ButtonReply { id, title },
            InboundContent::ListReply {
                id,
                title,
                description,
            } => Self::ListReply {
                id,
                title,
                description,
            },
            InboundContent::FlowReply {
                name,
                body,
                response_json,
            } => Self::FlowReply {
                name,
                body,
                response_json,
            },
            InboundContent::QuickReply { payload, text } => Self::QuickReply { payload, text },
            InboundContent::Order { order_json } => Self::Order { order_json },
            InboundContent::System {
                body,
                system_type,
                wa_id,
            } => Self::System {
                body,
                system_type,
                wa_id,
            },
            InboundContent::Other => Self::Other,
        }
    }
}

impl From<InboundContentDto> for InboundContent {
    fn from(dto: InboundContentDto) -> Self {
        match dto {
            InboundContentDto::Text { body } => Self::Text { body },
            InboundContentDto::Media {
                media_kind,
                network_media_id,
                mime_type,
                sha256,
                caption,
                filename,
                voice,
                animated,
            } => Self::Media {
                kind: media_kind,
                network_media_id,
                mime_type,
                sha256,
                caption,
                filename,
                voice,
                animated,
            },
            InboundContentDto::Location {
                latitude,
                longitude,
                name,
                address,
                url,
            } => Self::Location {
                latitude,
                longitude,
                name,
                address,
                url,
            },
            InboundContentDto::Contacts { cards_json } => Self::Contacts { cards_json },
            InboundContentDto::Reaction {
                network_message_id,
                emoji,
            } => Self::Reaction {
                network_message_id,
                emoji,
            },
            InboundContentDto::ButtonReply { id, title } => Self::ButtonReply { id, title },
            InboundContentDto::ListReply {
                id,
                title,
                description,
            } => Self::ListReply {
                id,
                title,
                description,
            },
            InboundContentDto::FlowReply {
                name,
                body,
                response_json,
            } => Self::FlowReply {
                name,
                body,
                response_json,
            },
            InboundContentDto::QuickReply { payload, text } => Self::QuickReply { payload, text },
            InboundContentDto::Order { order_json } => Self::Order { order_json },
            InboundContentDto::System {
                body,
                system_type,
                wa_id,
            } => Self::System {
                body,
                system_type,
                wa_id,
            },
            InboundContentDto::Other => Self::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_written_before_the_new_kinds_still_read() {
        let old = r#"{"kind":"media","media_kind":"audio","network_media_id":"1","mime_type":"audio/ogg"}"#;
        let content = InboundContent::from(serde_json::from_str::<InboundContentDto>(old).unwrap());
        assert!(matches!(content, InboundContent::Media { voice: None, .. }));
        let other = serde_json::from_str::<InboundContentDto>(r#"{"kind":"other"}"#).unwrap();
        assert_eq!(InboundContent::from(other), InboundContent::Other);
    }

    #[test]
    fn every_kind_round_trips() {
        let kinds = [
            InboundContent::Location {
                latitude: "37.4611978".into(),
                longitude: "-122.2164385".into(),
                name: Some("HQ".into()),
                address: None,
                url: None,
            },
            InboundContent::Reaction {
                network_message_id: "wamid.A".into(),
                emoji: String::new(),
            },
            InboundContent::FlowReply {
                name: Some("flow".into()),
                body: None,
                response_json: r#"{"a":1}"#.into(),
            },
            InboundContent::System {
                body: Some("changed".into()),
                system_type: Some("user_changed_number".into()),
                wa_id: Some("15550001111".into()),
            },
        ];
        for kind in kinds {
            let text = serde_json::to_string(&InboundContentDto::from(&kind)).unwrap();
            let back = InboundContent::from(serde_json::from_str::<InboundContentDto>(&text).unwrap());
            assert_eq!(back, kind);
        }
    }
}
