//! Prefixed, time-ordered identifiers (`msg_01JD…`).
//!
//! Each id is a ULID (48-bit millisecond time + 80 random bits, Crockford base32) behind a type prefix, so
//! ids sort by creation time as plain text on every store, and an id of one kind can never be passed
//! where another is expected. Ids are made by the [`crate::ports::IdGenerator`] port.

use crate::error::InvalidValue;
use std::fmt;
use std::str::FromStr;
use ulid::Ulid;

macro_rules! prefixed_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Ulid);

        impl $name {
            /// The type prefix, including the underscore.
            pub const PREFIX: &'static str = $prefix;

            pub fn from_ulid(ulid: Ulid) -> Self {
                Self(ulid)
            }

            pub fn ulid(&self) -> Ulid {
                self.0
            }

            /// Parses the text form (`prefix` + 26 Crockford base32 characters).
            ///
            /// # Errors
            /// [`InvalidValue`] when the prefix or the ULID part is wrong.
            pub fn parse(value: &str) -> Result<Self, InvalidValue> {
                let rest = value.strip_prefix($prefix).ok_or_else(|| {
                    InvalidValue::new(concat!("must be an id starting with `", $prefix, "`"))
                })?;
                if rest.len() != ulid::ULID_LEN {
                    return Err(InvalidValue::new(concat!("is not a valid `", $prefix, "` id")));
                }
                Ulid::from_string(rest)
                    .map(Self)
                    .map_err(|_| InvalidValue::new(concat!("is not a valid `", $prefix, "` id")))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                // One write of the whole id, so `to_string()` allocates once at its final size: written
                // as prefix then ULID it allocated twice, and a send formats a dozen ids.
                let mut text = [0u8; $prefix.len() + ulid::ULID_LEN];
                let (prefix, rest) = text.split_at_mut($prefix.len());
                prefix.copy_from_slice($prefix.as_bytes());
                let rest: &mut [u8; ulid::ULID_LEN] = rest.try_into().map_err(|_| fmt::Error)?;
                self.0.array_to_str(rest);
                f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
            }
        }

        impl FromStr for $name {
            type Err = InvalidValue;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s)
            }
        }
    };
}

prefixed_id!(
    /// An organization (tenant).
    OrganizationId, "org_"
);
prefixed_id!(
    /// An API key record (not the secret).
    ApiKeyId, "key_"
);
prefixed_id!(
    /// A message sent or received.
    MessageId, "msg_"
);
prefixed_id!(
    /// An event: a status report in a message's history, or a customer event.
    EventId, "evt_"
);
prefixed_id!(
    /// A sender number registered for an organization.
    SenderId, "snd_"
);
prefixed_id!(
    /// A dispatch job in the outbox.
    JobId, "job_"
);
prefixed_id!(
    /// A stored template copy.
    TemplateId, "tpl_"
);
prefixed_id!(
    /// A customer webhook endpoint.
    WebhookId, "whk_"
);
prefixed_id!(
    /// One delivery of one event to one endpoint.
    DeliveryId, "dlv_"
);
prefixed_id!(
    /// An uploaded or received media file.
    MediaId, "med_"
);
prefixed_id!(
    /// A dashboard owner account.
    OwnerId, "own_"
);
prefixed_id!(
    /// A message a customer sent in, as a resource of its own (`GET /api/v1/inbound/{id}`).
    InboundId, "inb_"
);
prefixed_id!(
    /// A broadcast: one template to many recipients (`POST /api/v1/broadcasts`).
    BroadcastId, "brd_"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_text() {
        let id = MessageId::from_ulid(Ulid::from_parts(1_700_000_000_000, 42));
        let text = id.to_string();
        assert!(text.starts_with("msg_"));
        assert_eq!(text.len(), 4 + 26);
        assert_eq!(MessageId::parse(&text).unwrap(), id);
    }

    #[test]
    fn the_text_is_the_prefix_and_the_ulid_whatever_the_type() {
        let ulid = Ulid::from_parts(1_700_000_000_000, 42);
        assert_eq!(MessageId::from_ulid(ulid).to_string(), format!("msg_{ulid}"));
        assert_eq!(OrganizationId::from_ulid(ulid).to_string(), format!("org_{ulid}"));
        assert_eq!(
            format!("<{}>", SenderId::from_ulid(ulid)),
            format!("<snd_{ulid}>")
        );
    }

    #[test]
    fn refuses_wrong_prefix_and_garbage() {
        let id = MessageId::from_ulid(Ulid::from_parts(1, 1)).to_string();
        assert!(OrganizationId::parse(&id).is_err());
        assert!(MessageId::parse("msg_").is_err());
        assert!(MessageId::parse("msg_not-a-ulid-not-a-ulid-xx").is_err());
        assert!(MessageId::parse(&format!("{id}0")).is_err());
    }

    #[test]
    fn text_order_is_time_order() {
        let early = MessageId::from_ulid(Ulid::from_parts(1_000, u128::MAX >> 48));
        let late = MessageId::from_ulid(Ulid::from_parts(1_001, 0));
        assert!(early.to_string() < late.to_string());
        assert!(early < late);
    }
}
