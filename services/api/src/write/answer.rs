//! A write's answer, first given or replayed, as an HTTP response.

use actix_web::http::{header, StatusCode};
use actix_web::HttpResponse;

use crate::auth::TokenChecked;

/// The answer to a write, and whether it is the first answer replayed.
#[derive(Debug, Clone)]
pub struct WriteAnswer {
    pub status: StatusCode,
    pub body: serde_json::Value,
    pub replayed: bool,
    /// With a standby for reads: the primary's WAL position after the write committed.
    pub consistency: Option<String>,
    /// Whether the write checked the caller's token (a remembered caller's).
    pub token_checked: bool,
}

impl WriteAnswer {
    /// The first answer to a write (or to one that had nothing to append).
    pub(crate) fn first(status: StatusCode, body: serde_json::Value) -> WriteAnswer {
        WriteAnswer {
            status,
            body,
            replayed: false,
            consistency: None,
            token_checked: false,
        }
    }

    /// The answer recorded under an idempotency key, given again.
    pub(crate) fn replayed(status: u16, body: serde_json::Value) -> WriteAnswer {
        WriteAnswer {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
            replayed: true,
            ..WriteAnswer::first(StatusCode::OK, body)
        }
    }

    /// The HTTP response: the body, `ETag` when it names a version, `Location` when given,
    /// `Idempotent-Replayed` on a replay, and the consistency token.
    pub fn respond(self, location: Option<String>) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        if self.token_checked {
            response.extensions_mut().insert(TokenChecked);
        }
        if self.replayed {
            response.insert_header(("Idempotent-Replayed", "true"));
        }
        if let Some(version) = self.body.get("version").and_then(|v| v.as_u64()) {
            response.insert_header((header::ETAG, format!("\"{version}\"")));
        }
        if let Some(location) = location {
            response.insert_header((header::LOCATION, location));
        }
        if let Some(token) = self.consistency {
            response.insert_header((crate::CONSISTENCY_TOKEN, token));
        }
        response.json(self.body)
    }
}
