//! Rows of `inbound_messages` as the inbound resource reads them.

use super::shared::*;
use crate::dto::InboundContentDto;
use crate::event_body::inbound_object;
use chrono::SecondsFormat;
use herald_domain::contact::Recipient;
use herald_domain::content::MessageRef;
use herald_domain::customer_event::{InboundBody, InboundLinks};
use herald_domain::ids::{InboundId, MediaId, OrganizationId, SenderId};
use herald_domain::network::SourceField;
use herald_domain::ports::{InboundView, StoreError};
use herald_domain::values::PhoneNumber;
use herald_domain::values::UserId;
use serde_json::{Value, json};

row! {
    /// An inbound message with everything the resource shows.
    #[derive(Debug)]
    pub(crate) struct InboundRow in inbound_messages {
        pub id: String,
        pub organization_id: String,
        pub sender_id: String,
        pub from_number: String,
        pub network_message_id: String,
        pub message_type: String,
        pub content: String,
        pub from_name: Option<String>,
        pub context_message_id: Option<String>,
        pub raw: String,
        pub received_at: Time,
        pub media_id: Option<String>,
        pub context_ref: Option<String>,
        pub reaction_ref: Option<String>,
        pub referral: Option<String>,
        pub read_at: Option<Time>,
        pub from_user_id: Option<String>,
        pub source_field: String,
        pub echo: bool,
    }
}

fn message_ref(what: &str, value: Option<&str>) -> Result<Option<MessageRef>, StoreError> {
    value.map(|v| parse(what, MessageRef::parse(v))).transpose()
}

impl InboundRow {
    /// The resource, `to` being the number of the sender that received it.
    pub(crate) fn into_view(self, to: PhoneNumber) -> Result<InboundView, StoreError> {
        let id = parse("inbound id", InboundId::parse(&self.id))?;
        let content = from_json::<InboundContentDto>("inbound content", &self.content)?.into();
        let body = InboundBody {
            from: parse("inbound from", Recipient::parse_stored(&self.from_number))?,
            from_user_id: self
                .from_user_id
                .as_deref()
                .map(|id| parse("inbound from_user_id", UserId::parse(id)))
                .transpose()?,
            to: to.clone(),
            message_type: self.message_type.clone(),
            content,
            media_id: self
                .media_id
                .as_deref()
                .map(|m| parse("media id", MediaId::parse(m)))
                .transpose()?,
            raw: self.raw,
            context_message_id: self.context_message_id,
            links: InboundLinks {
                context: message_ref("inbound context", self.context_ref.as_deref())?,
                reaction: message_ref("inbound reaction", self.reaction_ref.as_deref())?,
            },
            referral: self.referral,
            source_field: SourceField::parse(&self.source_field)
                .ok_or_else(|| crate::error::corrupt("inbound source_field", &self.source_field))?,
            echo: self.echo,
        };
        let mut object = inbound_object(&id.to_string(), &body, self.received_at);
        if let Some(name) = &self.from_name {
            object.insert("from_name".to_owned(), json!(name));
        }
        if let Some(read_at) = self.read_at {
            object.insert(
                "read_at".to_owned(),
                json!(read_at.to_rfc3339_opts(SecondsFormat::Millis, true)),
            );
        }
        Ok(InboundView {
            id,
            organization_id: parse("organization id", OrganizationId::parse(&self.organization_id))?,
            sender_id: parse("sender id", SenderId::parse(&self.sender_id))?,
            to,
            from: body.from,
            network_message_id: self.network_message_id,
            message_type: self.message_type,
            received_at: self.received_at,
            read_at: self.read_at,
            json: to_json("inbound resource", &Value::Object(object))?,
        })
    }
}
