//! One approved example of each richer template type (docs/api.md §13), as the listing shows them: the
//! seeded business account offers them so that sends of every type can be tried and tested for real.

use serde_json::{Value, json};

const IMAGE_HANDLE: &str = "4::aW1hZ2UvanBlZw==:ARZsimulatorexamplehandle";

fn template(id: &str, name: &str, category: &str, named: bool, components: Value) -> Value {
    json!({
        "id": id,
        "name": name,
        "language": "en_US",
        "status": "APPROVED",
        "category": category,
        "parameter_format": if named { "NAMED" } else { "POSITIONAL" },
        "components": components,
    })
}

fn card(name: &str) -> Value {
    json!({
        "components": [
            { "type": "HEADER", "format": "IMAGE", "example": { "header_handle": [IMAGE_HANDLE] } },
            {
                "type": "BODY",
                "text": format!("{name}: {{{{1}}}}, now {{{{2}}}}."),
                "example": { "body_text": [["Aloe", "$12"]] },
            },
            {
                "type": "BUTTONS",
                "buttons": [
                    { "type": "QUICK_REPLY", "text": "Tell me more" },
                    {
                        "type": "URL",
                        "text": "Shop",
                        "url": "https://example.com/shop/{{1}}",
                        "example": ["https://example.com/shop/aloe"],
                    },
                ],
            },
        ],
    })
}

/// The examples, in listing order after the first seeded templates.
pub(crate) fn examples() -> Vec<Value> {
    vec![
        template(
            "3000000008",
            "verify_code",
            "AUTHENTICATION",
            false,
            json!([
                {
                    "type": "BODY",
                    "text": "*{{1}}* is your verification code. For your security, do not share this code.",
                    "add_security_recommendation": true,
                },
                { "type": "FOOTER", "text": "This code expires in 10 minutes.", "code_expiration_minutes": 10 },
                { "type": "BUTTONS", "buttons": [{ "type": "OTP", "otp_type": "COPY_CODE", "text": "Copy code" }] },
            ]),
        ),
        template(
            "3000000009",
            "spring_carousel",
            "MARKETING",
            false,
            json!([
                {
                    "type": "BODY",
                    "text": "Hi {{1}}, our spring picks are here.",
                    "example": { "body_text": [["Ana"]] },
                },
                { "type": "CAROUSEL", "cards": [card("Plant"), card("Pot")] },
            ]),
        ),
        template(
            "3000000010",
            "flash_sale_offer",
            "MARKETING",
            false,
            json!([
                {
                    "type": "BODY",
                    "text": "Hi {{1}}! Use code {{2}} for 25% off.",
                    "example": { "body_text": [["Ana", "SPRING25"]] },
                },
                { "type": "LIMITED_TIME_OFFER", "limited_time_offer": { "text": "Flash sale!", "has_expiration": true } },
                {
                    "type": "BUTTONS",
                    "buttons": [
                        { "type": "COPY_CODE", "example": "SPRING25" },
                        {
                            "type": "URL",
                            "text": "Book now",
                            "url": "https://example.com/offer/{{1}}",
                            "example": ["https://example.com/offer/spring"],
                        },
                    ],
                },
            ]),
        ),
        template(
            "3000000011",
            "coupon_code",
            "MARKETING",
            false,
            json!([
                {
                    "type": "BODY",
                    "text": "Your coupon for {{1}} is ready.",
                    "example": { "body_text": [["the spring sale"]] },
                },
                {
                    "type": "BUTTONS",
                    "buttons": [
                        { "type": "QUICK_REPLY", "text": "Unsubscribe" },
                        { "type": "COPY_CODE", "example": "SAVE20" },
                    ],
                },
            ]),
        ),
        template(
            "3000000012",
            "survey_flow",
            "MARKETING",
            false,
            json!([
                { "type": "BODY", "text": "We would love your feedback on your last visit." },
                {
                    "type": "BUTTONS",
                    "buttons": [{
                        "type": "FLOW",
                        "text": "Start survey",
                        "flow_id": "1000000000000001",
                        "flow_action": "navigate",
                        "navigate_screen": "WELCOME",
                    }],
                },
            ]),
        ),
        template(
            "3000000013",
            "store_location",
            "UTILITY",
            false,
            json!([
                { "type": "HEADER", "format": "LOCATION" },
                {
                    "type": "BODY",
                    "text": "Your order {{1}} is ready for pickup at this store.",
                    "example": { "body_text": [["ORD-9271"]] },
                },
            ]),
        ),
        template(
            "3000000014",
            "order_named",
            "UTILITY",
            true,
            json!([
                {
                    "type": "HEADER",
                    "format": "TEXT",
                    "text": "Order {{order_id}}",
                    "example": { "header_text_named_params": [{ "param_name": "order_id", "example": "ORD-9271" }] },
                },
                {
                    "type": "BODY",
                    "text": "Hi {{customer}}, your order ships on {{date}}.",
                    "example": { "body_text_named_params": [
                        { "param_name": "customer", "example": "Ana" },
                        { "param_name": "date", "example": "Friday" },
                    ] },
                },
            ]),
        ),
        template(
            "3000000015",
            "booking_links",
            "UTILITY",
            false,
            json!([
                {
                    "type": "BODY",
                    "text": "Hi {{1}}, manage your booking online or call us.",
                    "example": { "body_text": [["Ana"]] },
                },
                {
                    "type": "BUTTONS",
                    "buttons": [
                        {
                            "type": "URL",
                            "text": "Manage booking",
                            "url": "https://example.com/b/{{1}}",
                            "example": ["https://example.com/b/BK-1"],
                        },
                        { "type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550100000" },
                    ],
                },
            ]),
        ),
    ]
}
