//! A send's `marketing_route` and `message_activity_sharing` (docs/api.md §4.11): settled once the
//! template's category is known, shared by the real send and its dry run.

use super::{SendDraft, SendError};
use crate::contact::SendPurpose;
use crate::error::ValidationErrors;
use crate::marketing::{MarketingRoute, MarketingSend};

/// The marketing choices of a send whose purpose is `purpose`: a marketing template keeps them (the route
/// defaulting to `default`); any other message goes on the Cloud API, so asking for the Marketing Messages
/// API, or its activity sharing, is refused naming the field.
///
/// # Errors
/// [`SendError::Invalid`] naming `marketing_route` or `message_activity_sharing`.
pub(super) fn marketing_send(
    purpose: SendPurpose,
    draft: &SendDraft,
    default: MarketingRoute,
) -> Result<Option<MarketingSend>, SendError> {
    if purpose == SendPurpose::Marketing {
        return Ok(Some(MarketingSend {
            route: draft.marketing_route.unwrap_or(default),
            activity_sharing: draft.activity_sharing,
        }));
    }
    if draft.marketing_route == Some(MarketingRoute::MarketingMessages) {
        return Err(SendError::Invalid(ValidationErrors::single(
            "marketing_route",
            "marketing_messages takes marketing templates only; this message is not one",
        )));
    }
    if draft.activity_sharing.is_some() {
        return Err(SendError::Invalid(ValidationErrors::single(
            "message_activity_sharing",
            "applies to marketing templates only; this message is not one",
        )));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::MessageContent;
    use crate::values::{MessageText, PhoneNumber};

    fn draft(route: Option<MarketingRoute>, activity_sharing: Option<bool>) -> SendDraft {
        SendDraft {
            to: PhoneNumber::parse("+15551234567").unwrap().into(),
            from: None,
            content: MessageContent::Text {
                body: MessageText::parse("hi").unwrap(),
                preview_url: false,
            },
            reply_to: None,
            client_reference: None,
            send_at: None,
            marketing_route: route,
            activity_sharing,
        }
    }

    fn refused_field(result: Result<Option<MarketingSend>, SendError>) -> String {
        match result {
            Err(SendError::Invalid(errors)) => errors.errors().iter().map(|e| e.field.clone()).collect(),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn a_marketing_template_keeps_its_route_or_takes_the_default() {
        let asked = marketing_send(
            SendPurpose::Marketing,
            &draft(Some(MarketingRoute::CloudApi), Some(true)),
            MarketingRoute::Auto,
        )
        .unwrap();
        assert_eq!(
            asked,
            Some(MarketingSend {
                route: MarketingRoute::CloudApi,
                activity_sharing: Some(true),
            })
        );
        let defaulted = marketing_send(
            SendPurpose::Marketing,
            &draft(None, None),
            MarketingRoute::MarketingMessages,
        )
        .unwrap();
        assert_eq!(
            defaulted.map(|m| m.route),
            Some(MarketingRoute::MarketingMessages)
        );
    }

    #[test]
    fn any_other_message_goes_on_the_cloud_api_and_refuses_the_marketing_path() {
        for route in [None, Some(MarketingRoute::Auto), Some(MarketingRoute::CloudApi)] {
            assert_eq!(
                marketing_send(SendPurpose::Other, &draft(route, None), MarketingRoute::Auto).unwrap(),
                None
            );
        }
        let refused = marketing_send(
            SendPurpose::Other,
            &draft(Some(MarketingRoute::MarketingMessages), None),
            MarketingRoute::Auto,
        );
        assert_eq!(refused_field(refused), "marketing_route");
        let refused = marketing_send(
            SendPurpose::Other,
            &draft(None, Some(false)),
            MarketingRoute::Auto,
        );
        assert_eq!(refused_field(refused), "message_activity_sharing");
    }
}
