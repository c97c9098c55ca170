//! A file in a send body: by the network's media id of a file stored in Herald, or by link.

use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::message::MessageError;
use herald_domain::ports::{NetworkError, NetworkMediaIds};
use serde_json::{Map, Value};

/// `{"id": …}` or `{"link": …}`, plus a document's `filename` (the name the recipient sees).
pub(crate) fn media_object(
    attachment: &MediaAttachment,
    media: &NetworkMediaIds,
) -> Result<Map<String, Value>, NetworkError> {
    let mut object = Map::new();
    match &attachment.source {
        MediaSource::Link(link) => {
            object.insert("link".into(), Value::from(link.as_str()));
        }
        MediaSource::Stored(id) => {
            let network_id = media.get(id).ok_or_else(|| {
                media_unavailable(format!(
                    "media {id} is stored in Herald but was not uploaded to the network for this sender"
                ))
            })?;
            object.insert("id".into(), Value::from(network_id.as_str()));
        }
        MediaSource::Upload => {
            return Err(media_unavailable(
                "the message refers to a file of its request that was never stored".to_owned(),
            ));
        }
    }
    if attachment.kind == MediaKind::Document
        && let Some(filename) = &attachment.filename
    {
        object.insert("filename".into(), Value::from(filename.as_str()));
    }
    Ok(object)
}

/// A file the send names that the network cannot be given: the message fails, it is never retried.
pub(crate) fn media_unavailable(detail: String) -> NetworkError {
    NetworkError::Permanent(MessageError {
        code: "media_unavailable".into(),
        title: "The media file is not available".into(),
        detail,
        network_code: None,
    })
}
