//! The use cases: one struct per operation, holding the ports it needs, with one error enum each.

mod admin;
mod authenticate;
mod broadcasts;
mod callbacks;
mod contacts;
mod deliver_webhooks;
mod dispatch;
mod erase;
mod inbound;
mod media;
mod owner;
mod pricing;
mod queries;
mod recipients;
mod reseal;
mod schedule;
mod send;
mod senders;
mod shared;
mod template_review;
mod templates;
#[cfg(test)]
mod tests;
mod webhooks;

pub use admin::{Admin, AdminError, NewSender};
pub use authenticate::{Admission, AuthError, Authenticate, Authenticated, UNKNOWN_KEY_TTL_SECONDS};
pub use broadcasts::{
    BroadcastChangeError, BroadcastCommand, BroadcastCreated, BroadcastDraft, BroadcastDryRun,
    BroadcastError, BroadcastMessages, BroadcastPorts, BroadcastRecipient, Broadcasts, CANCEL_RESUME_AFTER,
    PaceReport, PaceSettings, RejectedRow,
};
pub use callbacks::{
    BacklogReport, CALLBACK_ATTEMPTS, CallbackReport, MAX_WARNED_FIELDS, ProcessCallbacks, Received,
    UnknownFieldWarnings,
};
pub use contacts::{ContactError, ContactPorts, ContactView, ContactWindow, Contacts};
pub use deliver_webhooks::{DeliverWebhooks, DeliveryClaim, DeliveryReport, DeliveryRound, DeliverySettings};
pub use dispatch::{
    DispatchMessages, DispatchOutcome, DispatchPorts, DispatchReport, DispatchRound, DispatchSettings,
    DispatchedJob,
};
pub use erase::{EraseError, ErasePerson, ErasePorts, Erased};
pub use inbound::{InboundMessages, InboundPage, MarkReadError};
pub use media::{
    Media, MediaBody, MediaContent, MediaContentError, MediaPorts, StorageFull, UploadMediaError,
};
pub use owner::{
    AccountOverview, LoginError, MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS, NewSession, OwnerAccess, OwnerError,
    OwnerScope, SessionError, SessionSettings,
};
pub use pricing::{
    CategoryUsage, DayUsage, RateCards, RateError, RateImportError, Usage, UsageReport, usage_days,
};
pub use queries::{
    GetMessage, ListMessages, MessageEvents, MessagePage, QueryError, WindowStatus, WindowView,
};
pub use recipients::{RecipientCheckError, RecipientChecks};
pub use reseal::{Reseal, ResealReport};
pub use schedule::{CancelError, CancelMessage};
pub use send::{
    DryRun, SendCommand, SendDraft, SendError, SendMessage, SendOutcome, SendPorts, SendSettings, WindowState,
};
pub use senders::{SenderView, Senders};
pub use template_review::{ManageTemplates, TemplateReviewError, TemplateReviewPorts};
pub use templates::{ListTemplates, SyncError, SyncReport, SyncTemplates};
pub use webhooks::{DESCRIPTION_MAX_CHARS, EndpointPatch, ManageWebhooks, WebhookError, check_description};
