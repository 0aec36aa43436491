//! The first gate of every request: a path or query value that decodes to a control
//! character (NUL above all, which PostgreSQL's text cannot hold) or to bytes that are not
//! UTF-8 is refused with a 400 naming where, before any handler, token lookup or SQL sees it.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use percent_encoding::percent_decode;

use crate::error::ApiError;

/// Middleware: refuses paths and query strings with control characters or bytes that are
/// not UTF-8.
pub async fn refuse_unreadable_input(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody + 'static>>, actix_web::Error> {
    if let Some(problem) = path_problem(req.path()).or_else(|| query_problem(req.query_string())) {
        let response = actix_web::ResponseError::error_response(&ApiError::malformed(problem));
        return Ok(req.into_response(response).map_into_right_body());
    }
    Ok(next.call(req).await?.map_into_left_body())
}

/// What is wrong with a request path, if anything: no control character at all.
pub fn path_problem(path: &str) -> Option<String> {
    let decoded = percent_decode(path.as_bytes()).collect::<Vec<u8>>();
    let Ok(text) = std::str::from_utf8(&decoded) else {
        return Some("the path is not UTF-8 once percent-decoded".to_owned());
    };
    text.chars()
        .find(|c| c.is_control())
        .map(|c| format!("the path contains the control character {}", code_point(c)))
}

/// What is wrong with a query string, if anything, naming the parameter. Tabs and line
/// breaks may stand in a value (a form's text area sends them); no other control may.
pub fn query_problem(query: &str) -> Option<String> {
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = match decode_component(name) {
            Ok(name) => name,
            Err(()) => return Some("a query parameter's name is not UTF-8".to_owned()),
        };
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            return Some(format!(
                "a query parameter's name contains the control character {}",
                code_point(c)
            ));
        }
        let shown: String = name.chars().take(40).collect();
        let value = match decode_component(value) {
            Ok(value) => value,
            Err(()) => return Some(format!("query parameter `{shown}` is not UTF-8")),
        };
        if let Some(c) = value
            .chars()
            .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        {
            return Some(format!(
                "query parameter `{shown}` contains the control character {}",
                code_point(c)
            ));
        }
    }
    None
}

/// One `application/x-www-form-urlencoded` component: `+` is a space, then percent-decoded.
fn decode_component(component: &str) -> Result<String, ()> {
    let spaced = component.replace('+', " ");
    let bytes: Vec<u8> = percent_decode(spaced.as_bytes()).collect();
    String::from_utf8(bytes).map_err(|_| ())
}

fn code_point(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_in_a_path_segment_is_named() {
        assert_eq!(
            path_problem("/v1/players/a%00").as_deref(),
            Some("the path contains the control character U+0000")
        );
        assert_eq!(path_problem("/v1/players/a%C3%A9"), None);
        assert!(path_problem("/v1/players/%FF").is_some());
    }

    #[test]
    fn a_nul_in_a_query_value_is_named_with_its_parameter() {
        assert_eq!(
            query_problem("limit=5&player=%00").as_deref(),
            Some("query parameter `player` contains the control character U+0000")
        );
        assert_eq!(
            query_problem("after=x%1Fy").as_deref(),
            Some("query parameter `after` contains the control character U+001F")
        );
        assert!(query_problem("a%00=1").is_some());
        assert!(query_problem("q=%FE").is_some());
    }

    #[test]
    fn ordinary_queries_and_form_line_breaks_pass() {
        assert_eq!(query_problem(""), None);
        assert_eq!(query_problem("ruleset=cut-throat&limit=20"), None);
        assert_eq!(query_problem("units=2+INF%0D%0A1+ART&flag"), None);
        assert_eq!(query_problem("name=K%C3%B6nig%09x"), None);
    }
}
