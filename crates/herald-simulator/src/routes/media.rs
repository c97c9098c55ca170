//! Media upload, retrieval, download and deletion (cloud-api.md §2).

use actix_web::http::header::CONTENT_TYPE;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest as _, Sha256};

use crate::error::GraphError;
use crate::state::Media;
use crate::{Simulator, seed};

/// Accepted MIME types and their size caps (cloud-api.md §2.3).
const KINDS: [(&str, usize); 17] = [
    ("audio/aac", 16 << 20),
    ("audio/amr", 16 << 20),
    ("audio/mpeg", 16 << 20),
    ("audio/mp4", 16 << 20),
    ("audio/ogg", 16 << 20),
    ("text/plain", 100 << 20),
    ("application/pdf", 100 << 20),
    ("application/msword", 100 << 20),
    (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        100 << 20,
    ),
    ("application/vnd.ms-excel", 100 << 20),
    (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        100 << 20,
    ),
    ("application/vnd.ms-powerpoint", 100 << 20),
    (
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        100 << 20,
    ),
    ("image/jpeg", 5 << 20),
    ("image/png", 5 << 20),
    ("video/mp4", 16 << 20),
    ("video/3gpp", 16 << 20),
];
const STICKER: (&str, usize) = ("image/webp", 500 << 10);

pub(crate) async fn upload(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: web::Path<(String, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, GraphError> {
    let (version, phone_number_id) = path.into_inner();
    super::guard(&req, &simulator, &version)?;
    if seed::sender_by_id(&phone_number_id).is_none() {
        return Err(GraphError::unknown_object(&phone_number_id, "post"));
    }
    let content_type = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let parts = multipart::parse(content_type, &body)
        .ok_or_else(|| GraphError::invalid_parameter("The request must be multipart/form-data"))?;
    let field = |name: &str| parts.iter().find(|p| p.name == name);
    let text = |name: &str| field(name).and_then(|p| std::str::from_utf8(&p.data).ok());
    if text("messaging_product").map(str::trim) != Some("whatsapp") {
        return Err(GraphError::invalid_parameter(
            "The parameter messaging_product is required and must be \"whatsapp\"",
        ));
    }
    let file = field("file")
        .filter(|p| p.filename.is_some())
        .ok_or_else(|| GraphError::invalid_parameter("The parameter file is required"))?;
    let mime_type = text("type")
        .map(str::trim)
        .or(file.content_type.as_deref())
        .map(|m| m.split(';').next().unwrap_or(m).trim().to_ascii_lowercase())
        .ok_or_else(|| GraphError::invalid_parameter("The parameter type is required"))?;
    let cap = KINDS
        .iter()
        .chain(std::iter::once(&STICKER))
        .find(|(m, _)| *m == mime_type)
        .map(|(_, cap)| *cap)
        .ok_or_else(|| {
            GraphError::invalid_parameter(format!(
                "Param file must be a file of a supported type, not {mime_type}"
            ))
        })?;
    if file.data.is_empty() || file.data.len() > cap {
        return Err(GraphError::invalid_parameter(format!(
            "Param file must be between 1 and {cap} bytes for {mime_type}"
        )));
    }
    let sha256 = hex::encode(Sha256::digest(&file.data));
    let id = simulator.state().store_media(Media {
        phone_number_id,
        mime_type,
        sha256,
        bytes: web::Bytes::copy_from_slice(&file.data),
    });
    Ok(super::ok_json(&json!({ "id": id })))
}

#[derive(Debug, Deserialize)]
pub(crate) struct Ownership {
    phone_number_id: Option<String>,
}

pub(crate) async fn retrieve(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: web::Path<(String, String)>,
    query: web::Query<Ownership>,
) -> Result<HttpResponse, GraphError> {
    let (version, media_id) = path.into_inner();
    super::guard(&req, &simulator, &version)?;
    let media = simulator
        .state()
        .media(&media_id)
        .cloned()
        .filter(|m| {
            query
                .phone_number_id
                .as_ref()
                .is_none_or(|owner| *owner == m.phone_number_id)
        })
        .ok_or_else(|| GraphError::unknown_object(&media_id, "get"))?;
    Ok(super::ok_json(&json!({
        "messaging_product": "whatsapp",
        "url": format!("{}/simulator/media-download/{media_id}", super::own_base(&req)),
        "mime_type": media.mime_type,
        "sha256": media.sha256,
        "file_size": media.bytes.len(),
        "id": media_id,
    })))
}

pub(crate) async fn download(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: web::Path<String>,
) -> Result<HttpResponse, GraphError> {
    super::authorize(&req, &simulator)?;
    let media_id = path.into_inner();
    let media = simulator
        .state()
        .media(&media_id)
        .cloned()
        .ok_or_else(|| GraphError::unknown_object(&media_id, "get"))?;
    Ok(HttpResponse::Ok().content_type(media.mime_type).body(media.bytes))
}

pub(crate) async fn delete(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, GraphError> {
    let (version, media_id) = path.into_inner();
    super::guard(&req, &simulator, &version)?;
    if simulator.state().delete_media(&media_id) {
        Ok(super::ok_json(&json!({ "success": true })))
    } else {
        Err(GraphError::unknown_object(&media_id, "delete"))
    }
}

/// A minimal `multipart/form-data` reader (RFC 7578): uploads are small and buffered anyway, and
/// this spares the workspace a multipart dependency.
pub(crate) mod multipart {
    /// One form field.
    #[derive(Debug)]
    pub(crate) struct Part {
        pub(crate) name: String,
        pub(crate) filename: Option<String>,
        pub(crate) content_type: Option<String>,
        pub(crate) data: Vec<u8>,
    }

    /// Splits `body` into parts, or `None` if it is not well-formed multipart of that content type.
    pub(crate) fn parse(content_type: &str, body: &[u8]) -> Option<Vec<Part>> {
        let mut params = content_type.split(';');
        if !params.next()?.trim().eq_ignore_ascii_case("multipart/form-data") {
            return None;
        }
        let boundary = params.find_map(|p| {
            let (key, value) = p.split_once('=')?;
            key.trim()
                .eq_ignore_ascii_case("boundary")
                .then(|| value.trim().trim_matches('"').to_owned())
        })?;
        let delimiter = format!("\r\n--{boundary}").into_bytes();
        // Prefixing CRLF lets the first boundary match the same delimiter as the others.
        let mut rest: Vec<u8> = b"\r\n".to_vec();
        rest.extend_from_slice(body);
        let mut rest = rest.as_slice();
        let start = find(rest, &delimiter)?;
        rest = rest.get(start + delimiter.len()..)?;
        let mut parts = Vec::new();
        loop {
            if rest.starts_with(b"--") {
                return Some(parts);
            }
            let line_end = find(rest, b"\r\n")?;
            rest = rest.get(line_end + 2..)?;
            let end = find(rest, &delimiter)?;
            parts.push(part(rest.get(..end)?)?);
            rest = rest.get(end + delimiter.len()..)?;
        }
    }

    fn part(raw: &[u8]) -> Option<Part> {
        let split = find(raw, b"\r\n\r\n")?;
        let head = std::str::from_utf8(raw.get(..split)?).ok()?;
        let data = raw.get(split + 4..)?.to_vec();
        let (mut name, mut filename, mut content_type) = (None, None, None);
        for line in head.split("\r\n") {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            if key.trim().eq_ignore_ascii_case("content-type") {
                content_type = Some(value.trim().to_owned());
            } else if key.trim().eq_ignore_ascii_case("content-disposition") {
                for param in value.split(';').skip(1) {
                    if let Some((k, v)) = param.split_once('=') {
                        let v = v.trim().trim_matches('"').to_owned();
                        match k.trim() {
                            "name" => name = Some(v),
                            "filename" => filename = Some(v),
                            _ => {}
                        }
                    }
                }
            }
        }
        Some(Part {
            name: name?,
            filename,
            content_type,
            data,
        })
    }

    fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
        haystack.windows(needle.len()).position(|w| w == needle)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn parses_fields_and_a_binary_file() {
            let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"messaging_product\"\r\n\r\nwhatsapp\r\n\
--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x00\xff\r\n\
--XyZ--\r\n";
            let parts = parse("multipart/form-data; boundary=\"XyZ\"", body).unwrap();
            assert_eq!(parts.len(), 2);
            assert_eq!(parts[0].name, "messaging_product");
            assert_eq!(parts[0].data, b"whatsapp");
            assert_eq!(parts[1].filename.as_deref(), Some("a.png"));
            assert_eq!(parts[1].content_type.as_deref(), Some("image/png"));
            assert_eq!(parts[1].data, b"\x89PNG\r\n\x00\xff");
        }

        #[test]
        fn rejects_other_content_types_and_truncated_bodies() {
            assert!(parse("application/json", b"{}").is_none());
            assert!(
                parse(
                    "multipart/form-data; boundary=b",
                    b"--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nno end"
                )
                .is_none()
            );
        }
    }
}
