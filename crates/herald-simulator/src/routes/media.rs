//! Media upload, retrieval, download and deletion (docs/cloud-api.md §2).

use actix_web::http::header::CONTENT_TYPE;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;
use sha2::{Digest as _, Sha256};

use super::graph::GraphPath;
use crate::error::GraphError;
use crate::simulator::Simulator;
use crate::state::Media;

/// Accepted MIME types and their size caps (docs/cloud-api.md §2.3).
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
    path: GraphPath,
    body: web::Bytes,
) -> Result<HttpResponse, GraphError> {
    let GraphPath {
        version,
        id: phone_number_id,
    } = path;
    super::graph::guard(&req, &simulator, &version)?;
    if simulator.sender_by_id(&phone_number_id).is_none() {
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
    let text = |name: &str| {
        field(name)
            .and_then(|p| body.get(p.data.clone()))
            .and_then(|data| std::str::from_utf8(data).ok())
    };
    // Graph takes a POST's parameters from the query string too; one Node.js client sends
    // `?messaging_product=whatsapp` and a form with the file alone.
    let from_query = |name: &str| super::graph::query_param(&req, name);
    let messaging_product = text("messaging_product")
        .map(str::to_owned)
        .or_else(|| from_query("messaging_product"));
    if messaging_product.as_deref().map(str::trim) != Some("whatsapp") {
        return Err(GraphError::invalid_parameter(
            "The parameter messaging_product is required and must be \"whatsapp\"",
        ));
    }
    let file = field("file")
        .filter(|p| p.filename.is_some())
        .ok_or_else(|| GraphError::invalid_parameter("The parameter file is required"))?;
    let mime_type = text("type")
        .map(str::to_owned)
        .or_else(|| from_query("type"))
        .or_else(|| file.content_type.clone())
        .map(|m| {
            m.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
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
    // A view into the request body: a 100 MB upload is not copied again.
    let bytes = body.slice(file.data.clone());
    let sha256 = hex::encode(Sha256::digest(&bytes));
    let id = simulator.state().store_media(Media {
        phone_number_id,
        mime_type,
        sha256,
        bytes,
    });
    Ok(super::graph::ok_json(&json!({ "id": id })))
}

/// `GET /{v}/{media_id}`: the media object; `owner` (the `phone_number_id` parameter) limits it to the
/// phone number that uploaded it.
pub(crate) fn retrieve(
    req: &HttpRequest,
    simulator: &Simulator,
    media_id: &str,
    owner: Option<&str>,
) -> Result<HttpResponse, GraphError> {
    let media = simulator
        .state()
        .media(media_id)
        .cloned()
        .filter(|m| owner.is_none_or(|owner| owner == m.phone_number_id))
        .ok_or_else(|| GraphError::unknown_object(media_id, "get"))?;
    Ok(super::graph::ok_json(&json!({
        "messaging_product": "whatsapp",
        "url": format!("{}/simulator/media-download/{media_id}", super::graph::own_base(req)),
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
    super::graph::authorize(&req, &simulator)?;
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
    path: GraphPath,
) -> Result<HttpResponse, GraphError> {
    let GraphPath {
        version,
        id: media_id,
    } = path;
    super::graph::guard(&req, &simulator, &version)?;
    if simulator.state().delete_media(&media_id) {
        Ok(super::graph::ok_json(&json!({ "success": true })))
    } else {
        Err(GraphError::unknown_object(&media_id, "delete"))
    }
}

/// A minimal `multipart/form-data` reader (RFC 7578): the simulator keeps uploads in memory anyway, and
/// this spares the workspace a multipart dependency. Parts are ranges of the body, so nothing is copied.
pub(crate) mod multipart {
    use memchr::memmem;
    use std::ops::Range;

    /// One form field; `data` is its range in the body.
    #[derive(Debug)]
    pub(crate) struct Part {
        pub(crate) name: String,
        pub(crate) filename: Option<String>,
        pub(crate) content_type: Option<String>,
        pub(crate) data: Range<usize>,
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
        let dash_boundary = format!("--{boundary}").into_bytes();
        let delimiter = format!("\r\n--{boundary}").into_bytes();
        let finder = memmem::Finder::new(&delimiter);
        // The first boundary may open the body or follow a preamble.
        let mut at = if body.starts_with(&dash_boundary) {
            dash_boundary.len()
        } else {
            finder.find(body)? + delimiter.len()
        };
        let mut parts = Vec::new();
        loop {
            let rest = body.get(at..)?;
            if rest.starts_with(b"--") {
                return Some(parts);
            }
            // Skip transport padding up to the end of the boundary line.
            at += memmem::find(rest, b"\r\n")? + 2;
            let end = at + finder.find(body.get(at..)?)?;
            parts.push(part(body, at..end)?);
            at = end + delimiter.len();
        }
    }

    fn part(body: &[u8], range: Range<usize>) -> Option<Part> {
        let raw = body.get(range.clone())?;
        let split = memmem::find(raw, b"\r\n\r\n")?;
        let head = std::str::from_utf8(raw.get(..split)?).ok()?;
        let data = range.start + split + 4..range.end;
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

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn parses_fields_and_a_binary_file() {
            let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"messaging_product\"\r\n\r\nwhatsapp\r\n\
--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n--Xy\x00\xff\r\n\
--XyZ--\r\n";
            let parts = parse("multipart/form-data; boundary=\"XyZ\"", body).unwrap();
            assert_eq!(parts.len(), 2);
            assert_eq!(parts[0].name, "messaging_product");
            assert_eq!(&body[parts[0].data.clone()], b"whatsapp");
            assert_eq!(parts[1].filename.as_deref(), Some("a.png"));
            assert_eq!(parts[1].content_type.as_deref(), Some("image/png"));
            assert_eq!(&body[parts[1].data.clone()], b"\x89PNG\r\n--Xy\x00\xff");
        }

        #[test]
        fn a_preamble_before_the_first_boundary_is_skipped() {
            let body = b"ignored\r\n--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n--b--";
            let parts = parse("multipart/form-data; boundary=b", body).unwrap();
            assert_eq!(parts.len(), 1);
            assert_eq!(&body[parts[0].data.clone()], b"1");
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
