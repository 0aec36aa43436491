//! Security headers on every answer: no MIME sniffing anywhere; on pages, a Content
//! Security Policy that allows no script and nothing from another host, and no framing
//! (the embeddable leaderboard sets its own policy, which lets any site frame it, and the
//! API reference its own, which runs the Redoc script served from here).

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;

/// What a page may load: its own stylesheet and images, nothing else.
pub const PAGE_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; \
     form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The embeddable leaderboard's policy: the page's, framed by anyone.
pub const EMBED_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; \
     form-action 'self'; base-uri 'none'; frame-ancestors *";

/// Middleware: adds the headers a response does not set itself.
pub async fn headers(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    let mut response = next.call(req).await?;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let html = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if html {
        if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
            headers.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(PAGE_POLICY),
            );
            headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        }
        // A page that holds a secret in its address asks for less, and keeps it.
        if !headers.contains_key(header::REFERRER_POLICY) {
            headers.insert(
                header::REFERRER_POLICY,
                HeaderValue::from_static("same-origin"),
            );
        }
    }
    Ok(response)
}
