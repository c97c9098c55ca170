//! The page frame and small rendering helpers shared by every page.

use crate::session::{CSRF_FIELD, Owner};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use herald_domain::Timestamp;
use maud::{DOCTYPE, Markup, html};

/// Which section of the navigation is current.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Keys,
    Messages,
    Broadcasts,
    Webhooks,
    Templates,
    Account,
    /// Erasing a person.
    Privacy,
}

const SECTIONS: [(Section, &str, &str); 7] = [
    (Section::Keys, "/dashboard/keys", "API keys"),
    (Section::Messages, "/dashboard/messages", "Messages"),
    (Section::Broadcasts, "/dashboard/broadcasts", "Broadcasts"),
    (Section::Webhooks, "/dashboard/webhooks", "Webhooks"),
    (Section::Templates, "/dashboard/templates", "Templates"),
    (Section::Account, "/dashboard/account", "Account"),
    (Section::Privacy, "/dashboard/erase", "Privacy"),
];

/// A whole HTML page. With `nav` (the owner and the current section) it carries the navigation and the
/// logout button.
pub fn page(status: StatusCode, nav: Option<(&Owner, Section)>, title: &str, body: Markup) -> HttpResponse {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · Herald" }
                link rel="stylesheet" href="/dashboard/assets/app.css";
                script src="/dashboard/assets/app.js" defer {}
            }
            body {
                header.top {
                    a.brand href="/dashboard" { "Herald" }
                    @if let Some((owner, current)) = nav {
                        nav {
                            @for (section, href, label) in SECTIONS {
                                @if section == current {
                                    a.current href=(href) aria-current="page" { (label) }
                                } @else {
                                    a href=(href) { (label) }
                                }
                            }
                        }
                        div.who {
                            span.org { (owner.0.organization.name.as_str()) }
                            form method="post" action="/dashboard/logout" {
                                (csrf_field(owner))
                                button.link type="submit" id="logout" { "Log out" }
                            }
                        }
                    }
                }
                main { (body) }
            }
        }
    };
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(markup.into_string())
}

/// A page of the logged-in owner, 200.
pub fn owner_page(owner: &Owner, section: Section, title: &str, body: Markup) -> HttpResponse {
    page(StatusCode::OK, Some((owner, section)), title, body)
}

/// The hidden CSRF field of the owner's session.
pub fn csrf_field(owner: &Owner) -> Markup {
    html! { input type="hidden" name=(CSRF_FIELD) value=(owner.csrf()); }
}

pub fn notice_page(title: &str, text: &str) -> Markup {
    html! {
        section.card {
            h1 { (title) }
            p { (text) }
            p { a href="/dashboard" { "Back to the dashboard" } }
        }
    }
}

/// A secret shown this once, with a copy button and the warning that it will not be shown again.
pub fn secret_once(label: &str, id: &str, secret: &str, advice: &str) -> Markup {
    html! {
        section.card.secret role="status" {
            h2 { (label) }
            p.warning { "Copy it now: this is the only time it is shown. Herald cannot show it again. " (advice) }
            div.secret-row {
                code id=(id) { (secret) }
                button type="button" data-copy=(id) { "Copy" }
            }
        }
    }
}

/// A time in UTC, machine-readable too.
pub fn time(at: Timestamp) -> Markup {
    html! { time datetime=(at.to_rfc3339()) { (at.format("%Y-%m-%d %H:%M:%S UTC")) } }
}

pub fn optional_time(at: Option<Timestamp>) -> Markup {
    match at {
        Some(at) => time(at),
        None => html! { span.muted { "never" } },
    }
}

/// A coloured label (`ok`, `warn`, `bad`, `neutral`).
pub fn badge(text: &str, tone: &str) -> Markup {
    html! { span class={ "badge " (tone) } { (text) } }
}

pub fn flash(text: Option<&str>) -> Markup {
    html! {
        @if let Some(text) = text {
            p.flash role="status" { (text) }
        }
    }
}

/// A count with thousands separators (`5,000,000`).
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(super::count(0), "0");
        assert_eq!(super::count(999), "999");
        assert_eq!(super::count(1_000), "1,000");
        assert_eq!(super::count(5_000_000), "5,000,000");
    }
}
