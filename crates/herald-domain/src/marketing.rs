//! Which of the network's two send paths a marketing template takes (docs/api.md §4.11,
//! docs/cloud-api.md §1.6): the Cloud API's `/messages`, or the Marketing Messages API's
//! `/marketing_messages`, which takes marketing templates of a business that accepted its terms.

/// The path a send asks for. Only marketing templates have a choice; every other message goes on the
/// Cloud API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MarketingRoute {
    /// The Marketing Messages API when the business has accepted its terms, the Cloud API otherwise.
    #[default]
    Auto,
    /// Always the Cloud API's `/messages`.
    CloudApi,
    /// Only the Marketing Messages API: a business that has not accepted its terms fails the message.
    MarketingMessages,
}

impl MarketingRoute {
    /// Every route, in the order the API documents them.
    pub const ALL: [MarketingRoute; 3] = [Self::Auto, Self::CloudApi, Self::MarketingMessages];

    /// The API's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::CloudApi => "cloud_api",
            Self::MarketingMessages => "marketing_messages",
        }
    }

    /// The route named `word`, exactly as [`MarketingRoute::as_str`] spells it.
    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|route| route.as_str() == word)
    }
}

/// What a marketing template's send carries for the Marketing Messages API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MarketingSend {
    pub route: MarketingRoute,
    /// Meta's `message_activity_sharing`: share the message's activity with Meta to optimise delivery.
    /// `None` leaves it to the business account's setting; only sent on the Marketing Messages API.
    pub activity_sharing: Option<bool>,
}

/// The path a message actually went out on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkRoute {
    /// `POST /{phone-number-id}/messages`.
    CloudApi,
    /// `POST /{phone-number-id}/marketing_messages`.
    MarketingMessages,
}

impl NetworkRoute {
    /// The API's word for it (the same as the matching [`MarketingRoute`]'s).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CloudApi => "cloud_api",
            Self::MarketingMessages => "marketing_messages",
        }
    }

    /// The route named `word`.
    pub fn parse(word: &str) -> Option<Self> {
        [Self::CloudApi, Self::MarketingMessages]
            .into_iter()
            .find(|route| route.as_str() == word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_read_back_their_words_and_nothing_else() {
        for route in MarketingRoute::ALL {
            assert_eq!(MarketingRoute::parse(route.as_str()), Some(route));
        }
        assert_eq!(MarketingRoute::parse("Auto"), None);
        assert_eq!(MarketingRoute::parse("marketing"), None);
        for route in [NetworkRoute::CloudApi, NetworkRoute::MarketingMessages] {
            assert_eq!(NetworkRoute::parse(route.as_str()), Some(route));
        }
        assert_eq!(NetworkRoute::parse("auto"), None);
    }
}
