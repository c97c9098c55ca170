//! The business account, senders and templates the simulator knows from its first start (docs/api.md §13).

use serde_json::{Value, json};

mod examples;

/// The seeded WhatsApp Business Account id.
pub const SIMULATOR_WABA_ID: &str = "2000000001";

/// A business phone number the simulator serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeededSender {
    /// E.164 display number, e.g. `+15550001111`.
    pub display_phone_number: &'static str,
    /// The Graph phone number id used in request paths.
    pub phone_number_id: &'static str,
    /// The business account that owns it.
    pub waba_id: &'static str,
}

impl SeededSender {
    /// The display number's digits, as webhook `metadata.display_phone_number` carries them.
    pub fn digits(&self) -> &'static str {
        self.display_phone_number.trim_start_matches('+')
    }
}

const SENDERS: [SeededSender; 2] = [
    SeededSender {
        display_phone_number: "+15550001111",
        phone_number_id: "1000000001",
        waba_id: SIMULATOR_WABA_ID,
    },
    SeededSender {
        display_phone_number: "+15550002222",
        phone_number_id: "1000000002",
        waba_id: SIMULATOR_WABA_ID,
    },
];

/// The senders of docs/api.md §13.
pub fn seeded_senders() -> &'static [SeededSender] {
    &SENDERS
}

/// Most senders [`crate::simulator::SimulatorConfig::extra_senders`] may add: their numbers run from `+15550003001` up,
/// and stay clear of the seeded ones and of each other below this count.
pub const MAX_EXTRA_SENDERS: u32 = 1_000;

/// A business number added beside the seeded ones with [`crate::simulator::SimulatorConfig::extra_senders`] (for
/// benchmarks that need more senders): on the seeded business account, with its templates, and limited to
/// the same throughput as the seeded senders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraSender {
    /// E.164 display number: `+15550003001` for the first, `+15550003002` for the second, and so on.
    pub display_phone_number: String,
    /// The Graph phone number id: `1000000003` for the first, `1000000004` for the second, and so on.
    pub phone_number_id: String,
    /// The business account that owns it, [`SIMULATOR_WABA_ID`].
    pub waba_id: &'static str,
}

/// The first `count` extra senders (at most [`MAX_EXTRA_SENDERS`]), always the same numbers and ids, so a
/// benchmark can register them in Herald before or after the simulator starts.
pub fn extra_senders(count: u32) -> Vec<ExtraSender> {
    (1..=count.min(MAX_EXTRA_SENDERS))
        .map(|n| ExtraSender {
            display_phone_number: format!("+1555000{:04}", 3_000 + n),
            phone_number_id: (1_000_000_002_u64 + u64::from(n)).to_string(),
            waba_id: SIMULATOR_WABA_ID,
        })
        .collect()
}

/// A business number the simulator serves, seeded or extra, as the routes look it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sender<'a> {
    pub(crate) display_phone_number: &'a str,
    pub(crate) phone_number_id: &'a str,
    pub(crate) waba_id: &'a str,
}

impl<'a> Sender<'a> {
    /// The display number's digits, as webhook `metadata.display_phone_number` carries them.
    pub(crate) fn digits(&self) -> &'a str {
        self.display_phone_number.trim_start_matches('+')
    }
}

impl From<&'static SeededSender> for Sender<'static> {
    fn from(seeded: &'static SeededSender) -> Self {
        Self {
            display_phone_number: seeded.display_phone_number,
            phone_number_id: seeded.phone_number_id,
            waba_id: seeded.waba_id,
        }
    }
}

impl<'a> From<&'a ExtraSender> for Sender<'a> {
    fn from(extra: &'a ExtraSender) -> Self {
        Self {
            display_phone_number: &extra.display_phone_number,
            phone_number_id: &extra.phone_number_id,
            waba_id: extra.waba_id,
        }
    }
}

/// Every sender one simulator serves: the seeded ones, then its extra ones.
pub(crate) fn all_senders<'a>(extra: &'a [ExtraSender]) -> impl Iterator<Item = Sender<'a>> {
    let seeded = SENDERS.iter().map(|s| -> Sender<'a> { Sender::from(s) });
    seeded.chain(extra.iter().map(Sender::from))
}

pub(crate) fn sender_by_id<'a>(extra: &'a [ExtraSender], phone_number_id: &str) -> Option<Sender<'a>> {
    all_senders(extra).find(|s| s.phone_number_id == phone_number_id)
}

pub(crate) fn sender_by_number<'a>(extra: &'a [ExtraSender], digits: &str) -> Option<Sender<'a>> {
    all_senders(extra).find(|s| s.digits() == digits)
}

/// What a template's header expects at send time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Header {
    None,
    /// A TEXT header with one `{{1}}`.
    Text,
    /// A media header; the value is the lowercase send-time parameter type.
    Media(&'static str),
}

/// What a template's body expects at send time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Body {
    Positional(usize),
    Named(&'static [&'static str]),
}

/// A seeded template definition.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Template {
    pub(crate) id: &'static str,
    pub(crate) name: &'static str,
    pub(crate) language: &'static str,
    pub(crate) status: &'static str,
    pub(crate) category: &'static str,
    pub(crate) header: Header,
    pub(crate) header_text: &'static str,
    pub(crate) body: Body,
    pub(crate) body_text: &'static str,
    /// Whether button 0 is a URL button with one dynamic suffix.
    pub(crate) url_button: bool,
}

const TEMPLATES: [Template; 7] = [
    Template {
        id: "3000000001",
        name: "hello_world",
        language: "en_US",
        status: "APPROVED",
        category: "UTILITY",
        header: Header::None,
        header_text: "",
        body: Body::Positional(0),
        body_text: "Welcome and congratulations!! This message demonstrates your ability to send a \
                    WhatsApp message notification from the Cloud API. Thank you for taking the time to \
                    test with us.",
        url_button: false,
    },
    Template {
        id: "3000000002",
        name: "order_shipped",
        language: "en_US",
        status: "APPROVED",
        category: "UTILITY",
        header: Header::Text,
        header_text: "Order {{1}} is on its way",
        body: Body::Positional(3),
        body_text: "Hi {{1}}, your order {{2}} has shipped and should arrive by {{3}}.",
        url_button: true,
    },
    Template {
        id: "3000000003",
        name: "invoice_ready",
        language: "en_US",
        status: "APPROVED",
        category: "UTILITY",
        header: Header::Media("document"),
        header_text: "",
        body: Body::Positional(1),
        body_text: "Your invoice {{1}} is ready. The PDF is attached.",
        url_button: false,
    },
    Template {
        id: "3000000004",
        name: "promo_image",
        language: "en_US",
        status: "APPROVED",
        category: "MARKETING",
        header: Header::Media("image"),
        header_text: "",
        body: Body::Positional(1),
        body_text: "Don't miss it: {{1}}",
        url_button: false,
    },
    Template {
        id: "3000000005",
        name: "welcome_video",
        language: "pt_BR",
        status: "APPROVED",
        category: "MARKETING",
        header: Header::Media("video"),
        header_text: "",
        body: Body::Positional(0),
        body_text: "Bem-vindo! Assista ao vídeo para começar.",
        url_button: false,
    },
    Template {
        id: "3000000006",
        name: "appointment_named",
        language: "en_US",
        status: "APPROVED",
        category: "UTILITY",
        header: Header::None,
        header_text: "",
        body: Body::Named(&["customer", "date"]),
        body_text: "Hello {{customer}}, your appointment is confirmed for {{date}}.",
        url_button: false,
    },
    Template {
        id: "3000000007",
        name: "spring_sale",
        language: "en_US",
        status: "PAUSED",
        category: "MARKETING",
        header: Header::None,
        header_text: "",
        body: Body::Positional(1),
        body_text: "Spring sale! {{1}} off everything this week.",
        url_button: false,
    },
];

/// The templates of a business account, in listing order: the first seeded ones, then one example of each
/// richer type ([`examples::examples`]), each as the listing shows it.
pub(crate) fn definitions(waba_id: &str) -> Vec<Value> {
    if waba_id != SIMULATOR_WABA_ID {
        return Vec::new();
    }
    SEEDED.clone()
}

/// The seeded definitions, built once: every template send looks its template up here.
static SEEDED: std::sync::LazyLock<Vec<Value>> = std::sync::LazyLock::new(|| {
    let mut all: Vec<Value> = TEMPLATES.iter().map(Template::definition).collect();
    all.extend(examples::examples());
    all
});

/// A seeded template's definition by name and language.
pub(crate) fn definition(waba_id: &str, name: &str, language: &str) -> Option<&'static Value> {
    if waba_id != SIMULATOR_WABA_ID {
        return None;
    }
    SEEDED.iter().find(|t| {
        t.get("name").and_then(Value::as_str) == Some(name)
            && t.get("language").and_then(Value::as_str) == Some(language)
    })
}

impl Template {
    /// The definition in the uppercase Graph format of docs/cloud-api.md §3.
    pub(crate) fn definition(&self) -> Value {
        let mut components = Vec::new();
        match self.header {
            Header::None => {}
            Header::Text => components.push(json!({
                "type": "HEADER",
                "format": "TEXT",
                "text": self.header_text,
                "example": { "header_text": ["ORD-9271"] },
            })),
            Header::Media(kind) => components.push(json!({
                "type": "HEADER",
                "format": kind.to_ascii_uppercase(),
                "example": { "header_handle": ["4::aW1hZ2UvanBlZw==:ARZsimulatorexamplehandle"] },
            })),
        }
        let body_example = match self.body {
            Body::Positional(0) => None,
            Body::Positional(n) => {
                let values: Vec<String> = (1..=n).map(|i| format!("example-{i}")).collect();
                Some(json!({ "body_text": [values] }))
            }
            Body::Named(names) => {
                let params: Vec<Value> = names
                    .iter()
                    .map(|name| json!({ "param_name": name, "example": format!("example-{name}") }))
                    .collect();
                Some(json!({ "body_text_named_params": params }))
            }
        };
        let mut body = json!({ "type": "BODY", "text": self.body_text });
        if let (Some(example), Some(map)) = (body_example, body.as_object_mut()) {
            map.insert("example".to_owned(), example);
        }
        components.push(body);
        if self.url_button {
            components.push(json!({
                "type": "BUTTONS",
                "buttons": [{
                    "type": "URL",
                    "text": "Track order",
                    "url": "https://example.com/t/{{1}}",
                    "example": ["https://example.com/t/ORD-9271"],
                }],
            }));
        }
        let parameter_format = match self.body {
            Body::Named(_) => "NAMED",
            Body::Positional(_) => "POSITIONAL",
        };
        json!({
            "id": self.id,
            "name": self.name,
            "language": self.language,
            "status": self.status,
            "category": self.category,
            "parameter_format": parameter_format,
            "components": components,
        })
    }
}
