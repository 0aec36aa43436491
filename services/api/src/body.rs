//! A JSON body extractor with a size limit (413 beyond it) whose errors name the field that
//! is wrong (`orders[0].units.INF: ...`). It keeps the raw bytes for idempotency
//! fingerprints.

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ErrorCode};
use crate::input_guard;

/// A body must say it is JSON (`application/json`, or a `+json` type): a page on another
/// site can send `text/plain` without asking the browser's permission, and such bodies
/// are refused with 415 rather than read.
pub fn require_json(req: &HttpRequest) -> Result<(), ApiError> {
    let declared = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    match declared.as_deref() {
        Some("application/json") => Ok(()),
        Some(other) if other.starts_with("application/") && other.ends_with("+json") => Ok(()),
        Some(other) => Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!("the body is declared {other:?}; send it as application/json"),
        )),
        None => Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "the body has no Content-Type; send it as application/json",
        )),
    }
}

/// How long a body may take to arrive once its headers have.
pub const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The largest body a write accepts: a whole phase of orders fits many times over.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

#[derive(Debug, Clone)]
pub struct JsonBody<T> {
    pub value: T,
    pub raw: Bytes,
}

fn too_large() -> ApiError {
    ApiError::new(
        ErrorCode::PayloadTooLarge,
        format!("a request body may have at most {MAX_BODY_BYTES} bytes"),
    )
}

/// Parses JSON, naming the path of what does not fit. A string or key holding a NUL,
/// which no text the service keeps may hold, is refused first, by its path: every JSON
/// body is read here, so this is the one place it is checked.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if let Some(problem) = input_guard::json_problem(bytes) {
        return Err(ApiError::malformed(problem));
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            ApiError::malformed(format!("JSON body: {}", e.inner()))
        } else {
            ApiError::malformed(format!("JSON body at `{path}`: {}", e.inner()))
        }
    })
}

/// The body's bytes: at most [`MAX_BODY_BYTES`], within [`BODY_READ_TIMEOUT`].
fn read_limited(
    req: &HttpRequest,
    payload: &mut Payload,
) -> LocalBoxFuture<'static, Result<Bytes, ApiError>> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    let mut payload = payload.take();
    Box::pin(async move {
        if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
            return Err(too_large());
        }
        let read = async {
            let mut body = Vec::new();
            while let Some(chunk) = payload.next().await {
                let chunk =
                    chunk.map_err(|e| ApiError::malformed(format!("reading the body: {e}")))?;
                if body.len() + chunk.len() > MAX_BODY_BYTES {
                    return Err(too_large());
                }
                body.extend_from_slice(&chunk);
            }
            Ok(body)
        };
        // A body that never arrives must not hold its connection (and a worker's
        // attention) for ever.
        let body = actix_web::rt::time::timeout(BODY_READ_TIMEOUT, read)
            .await
            .map_err(|_| {
                ApiError::new(
                    ErrorCode::RequestTimeout,
                    format!(
                        "the body did not arrive within {} seconds",
                        BODY_READ_TIMEOUT.as_secs()
                    ),
                )
            })??;
        Ok(Bytes::from(body))
    })
}

impl<T: DeserializeOwned + 'static> FromRequest for JsonBody<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let json = require_json(req);
        let read = read_limited(req, payload);
        Box::pin(async move {
            json?;
            let raw = read.await?;
            let value = parse_json(&raw)?;
            Ok(JsonBody { value, raw })
        })
    }
}

/// A body sent as plain text (`text/plain`, UTF-8, no NUL: the line holding one is named)
/// or as JSON: what a person writes, or a tool. Plain text is safe to take only where a
/// bearer token is required: a page on another site cannot send the `Authorization` header
/// without the browser asking.
#[derive(Debug, Clone)]
pub enum TextOrJson<T> {
    Text(String),
    Json(T),
}

/// A [`TextOrJson`] body and its raw bytes.
#[derive(Debug, Clone)]
pub struct TextOrJsonBody<T> {
    pub value: TextOrJson<T>,
    pub raw: Bytes,
}

impl<T: DeserializeOwned + 'static> FromRequest for TextOrJsonBody<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let declared = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.to_ascii_lowercase());
        let text = declared.as_deref().is_some_and(|v| {
            v.split(';').next().unwrap_or("").trim() == "text/plain"
                && v.split(';')
                    .skip(1)
                    .all(|p| !p.trim().starts_with("charset=") || p.trim() == "charset=utf-8")
        });
        let json = if text { Ok(()) } else { require_json(req) };
        let read = read_limited(req, payload);
        Box::pin(async move {
            json.map_err(|_| {
                ApiError::new(
                    ErrorCode::UnsupportedMediaType,
                    "send the body as text/plain (UTF-8) or as application/json",
                )
            })?;
            let raw = read.await?;
            let value = if text {
                let text = String::from_utf8(raw.to_vec())
                    .map_err(|_| ApiError::malformed("the text is not valid UTF-8"))?;
                if let Some(problem) = input_guard::text_problem(&text) {
                    return Err(ApiError::malformed(problem));
                }
                TextOrJson::Text(text)
            } else {
                TextOrJson::Json(parse_json(&raw)?)
            };
            Ok(TextOrJsonBody { value, raw })
        })
    }
}

/// A form a page posts (`application/x-www-form-urlencoded`), within the same limits as
/// any body; a field that does not fit, or that holds a control other than a tab or a line
/// break, is named.
#[derive(Debug, Clone)]
pub struct FormBody<T> {
    pub value: T,
}

impl<T: DeserializeOwned + 'static> FromRequest for FormBody<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let form = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .eq_ignore_ascii_case("application/x-www-form-urlencoded")
            });
        let read = read_limited(req, payload);
        Box::pin(async move {
            if !form {
                return Err(ApiError::new(
                    ErrorCode::UnsupportedMediaType,
                    "send the form as application/x-www-form-urlencoded",
                ));
            }
            let raw = read.await?;
            let form = std::str::from_utf8(&raw)
                .map_err(|_| ApiError::malformed("the form is not valid UTF-8"))?;
            if let Some(problem) = input_guard::form_problem(form) {
                return Err(ApiError::malformed(problem));
            }
            let value = crate::query::parse_query(form)?;
            Ok(FormBody { value })
        })
    }
}

/// A body of any type, as bytes, read within the same limits of size and time: for a
/// protocol that answers its own refusals (TripleA's dice server).
#[derive(Debug)]
pub struct RawBody(pub Bytes);

impl FromRequest for RawBody {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let read = read_limited(req, payload);
        Box::pin(async move { read.await.map(RawBody) })
    }
}
