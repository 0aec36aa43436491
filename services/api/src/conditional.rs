//! Conditional GETs for every answer, not only those the API's handlers tag: a `200` to a
//! GET or HEAD that carries no `ETag` (a page, the calendar, `/openapi.json`, a board's
//! SVG) is given one from its body, and a matching `If-None-Match` turns it into a `304`.
//! And since compression is applied after, an answer sent compressed carries its tag as a
//! weak one (RFC 9110 §8.8.1: a strong tag names one exact byte sequence).

use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{header, Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::HttpResponse;

use crate::respond::{etag_of, if_none_match};

/// Middleware: tags untagged `200`s to GET and HEAD from their bodies, and answers `304`
/// when the client holds that body already.
pub async fn tag_every_answer(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<BoxBody>>, actix_web::Error> {
    let conditional = matches!(*req.method(), Method::GET | Method::HEAD);
    let response = next.call(req).await?;
    if !conditional
        || response.status() != StatusCode::OK
        || response.headers().contains_key(header::ETAG)
    {
        return Ok(response.map_into_boxed_body().map_into_left_body());
    }
    let (request, response) = response.into_parts();
    let (head, body) = response.into_parts();
    let bytes = actix_web::body::to_bytes(body)
        .await
        .map_err(|e| actix_web::error::ErrorInternalServerError(e.into().to_string()))?;
    let etag = etag_of(&bytes);
    let mut answer = if if_none_match(request.headers(), &etag) {
        let mut not_modified = HttpResponse::NotModified();
        for (name, value) in head.headers() {
            // What a cache needs to update its copy (RFC 9110 §15.4.5); not the body's.
            if name != header::CONTENT_LENGTH && name != header::CONTENT_TYPE {
                not_modified.append_header((name.clone(), value.clone()));
            }
        }
        not_modified.finish()
    } else {
        head.set_body(bytes).map_into_boxed_body()
    };
    answer
        .headers_mut()
        .insert(header::ETAG, header::HeaderValue::from_str(&etag)?);
    if !answer.headers().contains_key(header::CACHE_CONTROL) {
        // Kept, but asked about again each time: the tag makes that cheap.
        answer.headers_mut().insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static("no-cache"),
        );
    }
    Ok(ServiceResponse::new(request, answer).map_into_right_body())
}

/// Middleware (outside compression): a compressed answer's tag is weak.
pub async fn weaken_compressed_tags(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    let mut response = next.call(req).await?;
    let headers = response.headers_mut();
    let compressed = headers
        .get(header::CONTENT_ENCODING)
        .is_some_and(|coding| coding.as_bytes() != b"identity");
    let strong = headers
        .get(header::ETAG)
        .and_then(|tag| tag.to_str().ok())
        .filter(|tag| tag.starts_with('"'))
        .map(str::to_owned);
    if let (true, Some(tag)) = (compressed, strong) {
        if let Ok(weak) = header::HeaderValue::from_str(&format!("W/{tag}")) {
            headers.insert(header::ETAG, weak);
        }
    }
    Ok(response)
}
