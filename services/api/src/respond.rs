//! Representations: content negotiation (JSON or NDJSON), strong ETags from the body, and
//! `304 Not Modified` for a matching `If-None-Match`.

use actix_web::http::header::{self, Accept, Header};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ErrorCode};

pub const NDJSON: &str = "application/x-ndjson";
pub const JSON: &str = "application/json";
pub const CSV: &str = "text/csv";

/// A representation, as `?format=` names it (a link cannot set `Accept`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Ndjson,
    Csv,
}

/// The representation asked for: `?format=` when given (it must be one offered), else the
/// one the client prefers among those offered (`Accept` ranked by quality; no header means
/// JSON).
pub fn negotiate_or(
    req: &HttpRequest,
    asked: Option<Format>,
    offered: &[Format],
) -> Result<Format, ApiError> {
    match asked {
        Some(format) if offered.contains(&format) => Ok(format),
        Some(_) => Err(not_acceptable(offered)),
        None => negotiate(req, offered),
    }
}

/// The representation the client prefers among those offered (`Accept` ranked by quality;
/// no header means JSON).
pub fn negotiate(req: &HttpRequest, offered: &[Format]) -> Result<Format, ApiError> {
    let Ok(accept) = Accept::parse(req) else {
        return Ok(Format::Json);
    };
    if accept.is_empty() {
        return Ok(Format::Json);
    }
    for mime in accept.ranked() {
        let essence = mime.essence_str();
        let wanted = match essence {
            NDJSON => Some(Format::Ndjson),
            CSV => Some(Format::Csv),
            JSON | "application/*" | "*/*" | "application/problem+json" => Some(Format::Json),
            _ => None,
        };
        if let Some(format) = wanted.filter(|f| offered.contains(f)) {
            return Ok(format);
        }
    }
    Err(not_acceptable(offered))
}

fn not_acceptable(offered: &[Format]) -> ApiError {
    let names: Vec<&str> = offered
        .iter()
        .map(|f| match f {
            Format::Json => JSON,
            Format::Ndjson => NDJSON,
            Format::Csv => CSV,
        })
        .collect();
    ApiError::new(
        ErrorCode::NotAcceptable,
        format!("this resource is available as {}", names.join(" or ")),
    )
}

/// 200 with `body` as JSON and an ETag, or 304 when the client has it already.
pub fn json<T: Serialize>(req: &HttpRequest, body: &T) -> Result<HttpResponse, ApiError> {
    let bytes = serde_json::to_vec(body)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("encoding JSON: {e}")))?;
    Ok(conditional(req, JSON, bytes, None))
}

/// 200 with one JSON document per line, an ETag, and a `Link` to the next page if any.
pub fn ndjson<T: Serialize>(
    req: &HttpRequest,
    items: &[T],
    next: Option<&str>,
) -> Result<HttpResponse, ApiError> {
    let mut bytes = Vec::with_capacity(items.len() * 256);
    for item in items {
        serde_json::to_writer(&mut bytes, item)
            .map_err(|e| ApiError::new(ErrorCode::Internal, format!("encoding NDJSON: {e}")))?;
        bytes.push(b'\n');
    }
    Ok(conditional(req, NDJSON, bytes, next))
}

/// 200 with `bytes` of `content_type` and an ETag from them, or 304.
pub fn conditional(
    req: &HttpRequest,
    content_type: &str,
    bytes: Vec<u8>,
    next: Option<&str>,
) -> HttpResponse {
    let etag = etag_of(&bytes);
    conditional_with(req, content_type, bytes.into(), next, etag)
}

/// A strong ETag from a body's content.
pub fn etag_of(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    format!("\"{}\"", hex::encode(&digest[..16]))
}

/// 200 with a body rendered before (its ETag with it), or 304.
pub fn conditional_with(
    req: &HttpRequest,
    content_type: &str,
    bytes: Bytes,
    next: Option<&str>,
    etag: String,
) -> HttpResponse {
    let matches = if_none_match(req.headers(), &etag);
    let mut builder = if matches {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    builder.insert_header((header::ETAG, etag.clone()));
    builder.insert_header((header::CACHE_CONTROL, "no-cache"));
    builder.insert_header((header::VARY, "Accept"));
    if let Some(next) = next {
        builder.insert_header((header::LINK, format!("<{next}>; rel=\"next\"")));
    }
    if matches {
        builder.finish()
    } else {
        builder.content_type(content_type).body(bytes)
    }
}

/// Whether `If-None-Match` names `etag` (or `*`): the weak comparison RFC 9110 §13.1.2
/// asks for, so a tag a compressed answer carried (`W/"…"`) matches too.
/// 200 with a `body` streamed as it is made, of `content_type`, under `etag` (known before
/// the body: a whole export's, from the head it ends at), or 304: an answer too large to
/// hold in memory at once.
pub fn streamed<S>(req: &HttpRequest, content_type: &str, etag: String, body: S) -> HttpResponse
where
    S: futures_util::Stream<Item = Result<Bytes, ApiError>> + 'static,
{
    let matches = if_none_match(req.headers(), &etag);
    let mut builder = if matches {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    builder.insert_header((header::ETAG, etag));
    builder.insert_header((header::CACHE_CONTROL, "no-cache"));
    builder.insert_header((header::VARY, "Accept"));
    if matches {
        return builder.finish();
    }
    builder.content_type(content_type).streaming(body)
}

pub fn if_none_match(headers: &header::HeaderMap, etag: &str) -> bool {
    let etag = etag.trim_start_matches("W/");
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == etag || t == "*")
        })
}

/// 200 with `body` as JSON and the given ETag (e.g. a version), or 304.
pub fn json_tagged<T: Serialize>(
    req: &HttpRequest,
    body: &T,
    etag: &str,
) -> Result<HttpResponse, ApiError> {
    let bytes = serde_json::to_vec(body)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("encoding JSON: {e}")))?;
    Ok(conditional_with(
        req,
        JSON,
        bytes.into(),
        None,
        etag.to_owned(),
    ))
}

/// The content type of the CSV answers.
pub const CSV_UTF8: &str = "text/csv; charset=utf-8";

/// 200 with a CSV document (RFC 4180), an ETag and the file name to save it under, or 304.
pub fn csv(req: &HttpRequest, bytes: Vec<u8>, filename: &str) -> HttpResponse {
    let mut response = conditional(req, CSV_UTF8, bytes, None);
    name_the_file(&mut response, filename);
    response
}

/// `Content-Disposition: attachment` with `filename` (letters, digits, `-`, `_` and `.`
/// kept; anything else becomes `-`).
pub fn name_the_file(response: &mut HttpResponse, filename: &str) {
    let safe: String = filename
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if let Ok(value) = header::HeaderValue::from_str(&format!("attachment; filename=\"{safe}\"")) {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, value);
    }
}

/// A page of a list: it names the page after it (its `next`), which its answer's `Link`
/// repeats.
pub trait Page {
    fn next(&self) -> Option<&str>;
}

/// 200 with `page` as JSON, an ETag, and a `Link` to the next page if any; or 304.
pub fn json_page<T: Serialize + Page>(
    req: &HttpRequest,
    page: &T,
) -> Result<HttpResponse, ApiError> {
    let bytes = serde_json::to_vec(page)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("encoding JSON: {e}")))?;
    Ok(conditional(req, JSON, bytes, page.next()))
}

/// Implements [`Page`] for lists whose `next` field is the link.
macro_rules! pages {
    ($($list:ty),* $(,)?) => {
        $(impl crate::respond::Page for $list {
            fn next(&self) -> Option<&str> {
                self.next.as_deref()
            }
        })*
    };
}
pub(crate) use pages;

/// One CSV field, quoted when it must be. A text a spreadsheet would run as a formula
/// (starting with `=`, `+`, `-`, `@`, a tab or a carriage return, and not a number) is
/// led by an apostrophe, which spreadsheets show as text (OWASP's CSV injection advice).
pub fn csv_field(text: &str) -> std::borrow::Cow<'_, str> {
    let formula =
        text.starts_with(['=', '+', '-', '@', '\t', '\r']) && text.parse::<f64>().is_err();
    let text: std::borrow::Cow<'_, str> = if formula {
        format!("'{text}").into()
    } else {
        text.into()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\"")).into()
    } else {
        text
    }
}

/// A number as people read it: at most two decimals, no trailing zeros (`7.73`, `1.5`,
/// `2`); the exact value goes in a field of its own.
pub fn decimal(value: f64) -> String {
    let text = format!("{value:.2}");
    let trimmed = text.trim_end_matches('0').trim_end_matches('.');
    if trimmed == "-0" {
        "0".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// A recorded time as people read it: `2026-11-25 14:03 UTC`.
pub(crate) fn when(rfc3339: &str) -> String {
    match (rfc3339.get(..10), rfc3339.get(11..16)) {
        (Some(date), Some(time)) => format!("{date} {time} UTC"),
        _ => rfc3339.to_owned(),
    }
}

/// A moment as RFC 3339 (`2026-11-25T12:00:00Z`); empty if it cannot be shown.
pub(crate) fn rfc3339(at: warlog_rules::game::Moment) -> String {
    use time::format_description::well_known::Rfc3339;
    i64::try_from(at.unix_seconds())
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_cell_a_spreadsheet_would_run_is_led_by_an_apostrophe() {
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_field("+44 20"), "'+44 20");
        assert_eq!(csv_field("-2+3"), "'-2+3");
        // Numbers, negative ones too, stay numbers.
        assert_eq!(csv_field("-1.5"), "-1.5");
        assert_eq!(csv_field("+3"), "+3");
        assert_eq!(csv_field("Anna, the Bold"), "\"Anna, the Bold\"");
    }
}
