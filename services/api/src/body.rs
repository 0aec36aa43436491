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

/// Parses JSON, naming the path of what does not fit.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
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

impl<T: DeserializeOwned + 'static> FromRequest for JsonBody<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
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
            let mut body = Vec::new();
            while let Some(chunk) = payload.next().await {
                let chunk =
                    chunk.map_err(|e| ApiError::malformed(format!("reading the body: {e}")))?;
                if body.len() + chunk.len() > MAX_BODY_BYTES {
                    return Err(too_large());
                }
                body.extend_from_slice(&chunk);
            }
            let value = parse_json(&body)?;
            Ok(JsonBody {
                value,
                raw: Bytes::from(body),
            })
        })
    }
}
