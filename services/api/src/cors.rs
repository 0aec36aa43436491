//! Cross-origin reads: a page on the association's site (an origin configured with
//! `WARLOG_CORS_ORIGINS`, or `*`) may read every public resource (every `GET` and `HEAD`),
//! and its scripts may see the headers that page through and cache them (`ETag`, `Link`,
//! `Location`, `Consistency-Token`, `Retry-After`, `Feed-Caught-Up`). Preflight `OPTIONS` requests are
//! answered here for those reads.
//!
//! Writes are not opened to other origins: a token belongs in a tool or a server, not in
//! another site's page, and a browser that cannot preflight a write will not send it.

use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpResponse};

use crate::AppState;

/// The headers a cross-origin script may read.
pub const EXPOSED_HEADERS: &str =
    "ETag, Link, Location, Consistency-Token, Retry-After, Feed-Caught-Up";

/// The request headers a cross-origin read may carry.
pub const ALLOWED_HEADERS: &str = "Accept, If-None-Match, Consistency-Token";

/// How long a browser may keep a preflight's answer, in seconds.
const PREFLIGHT_MAX_AGE: &str = "600";

/// The value of `Access-Control-Allow-Origin` for `origin`, if it is allowed.
fn allowed_origin(origins: &[String], origin: &str) -> Option<HeaderValue> {
    let allowed = origins.iter().find(|o| o.as_str() == "*" || *o == origin)?;
    if allowed == "*" {
        Some(HeaderValue::from_static("*"))
    } else {
        HeaderValue::from_str(origin).ok()
    }
}

/// Middleware: answers preflights for public reads and marks cross-origin reads readable.
pub async fn cross_origin(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody + 'static, BoxBody>>, actix_web::Error> {
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .map(str::to_owned);
    let origins = req
        .app_data::<web::Data<AppState>>()
        .map(|state| state.cors_origins.clone())
        .unwrap_or_default();
    let allow = origin
        .as_deref()
        .and_then(|origin| allowed_origin(&origins, origin));
    if req.method() == Method::OPTIONS {
        let asked = req
            .headers()
            .get(header::ACCESS_CONTROL_REQUEST_METHOD)
            .and_then(|m| m.to_str().ok());
        if let Some(asked) = asked {
            let readable = crate::methods_at(req.path()).contains(&"GET");
            let mut answer = HttpResponse::NoContent();
            answer.insert_header((header::VARY, "Origin"));
            if let (Some(allow), true, true) = (allow, readable, matches!(asked, "GET" | "HEAD")) {
                answer
                    .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, allow))
                    .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, "GET, HEAD"))
                    .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, ALLOWED_HEADERS))
                    .insert_header((header::ACCESS_CONTROL_MAX_AGE, PREFLIGHT_MAX_AGE));
            }
            // A preflight the origin or method does not pass gets no Allow-Origin: the
            // browser then refuses the request itself.
            return Ok(req.into_response(answer.finish()).map_into_right_body());
        }
    }
    let read = matches!(*req.method(), Method::GET | Method::HEAD);
    let mut response = next.call(req).await?;
    let headers = response.headers_mut();
    if origin.is_some() || read {
        headers.insert(header::VARY, HeaderValue::from_static("Accept, Origin"));
    }
    if let (Some(allow), true) = (allow, read) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, allow);
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSED_HEADERS),
        );
    }
    Ok(response.map_into_left_body())
}

/// Middleware: `HEAD` is answered as `GET` is (RFC 9110, 9.3.2), so a monitor or a cache
/// can check a resource's status, ETag and size without fetching it. The routes answer
/// `GET`; the HTTP/1 codec, which saw the request's own method, sends the headers (with
/// the length `GET` would send) and leaves the body out.
pub async fn head_as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    if req.method() == Method::HEAD {
        req.head_mut().method = Method::GET;
    }
    next.call(req).await
}
