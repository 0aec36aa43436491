//! The first gate of every request: a path or query value that decodes to a control
//! character (NUL above all, which PostgreSQL's text cannot hold) or to bytes that are not
//! UTF-8 is refused with a 400 naming where, before any handler, token lookup or SQL sees it.
//!
//! The bodies are checked once too, where they are read (`crate::body`): a NUL in a JSON
//! string or key (the escape `\u0000`), in a text body or in a form field is refused with
//! a 400 naming the field or the line, and so is a form field with any other control but a
//! tab or a line break. The same sentence ends a turn by mail that holds a NUL.

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
    pairs_problem(query, "query parameter", Utf8::Required)
}

/// What is wrong with a form's body (`application/x-www-form-urlencoded`), if anything,
/// naming the field: as a query string, a value may hold tabs and line breaks and no other
/// control, and every name and value is UTF-8.
pub fn form_problem(form: &str) -> Option<String> {
    pairs_problem(form, "form field", Utf8::Required)
}

/// As [`form_problem`], for a client whose forms have always been read leniently (TripleA's
/// dice clients): bytes that are not UTF-8 are read as U+FFFD, as before; controls are not.
pub fn lenient_form_problem(form: &[u8]) -> Option<String> {
    pairs_problem(&String::from_utf8_lossy(form), "form field", Utf8::Lenient)
}

/// Whether bytes that are not UTF-8 once percent-decoded are refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Utf8 {
    Required,
    Lenient,
}

/// What is wrong with `name=value&...` pairs, naming the pair as `what` (`query parameter`).
fn pairs_problem(encoded: &str, what: &str, utf8: Utf8) -> Option<String> {
    // The common case, nothing encoded and nothing unusual, is decided without decoding.
    let plain = |b: &u8| b.is_ascii() && !b.is_ascii_control() && *b != b'%';
    if encoded.bytes().all(|b| plain(&b)) {
        return None;
    }
    for pair in encoded.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = match decode_component(name, utf8) {
            Ok(name) => name,
            Err(()) => return Some(format!("a {what}'s name is not UTF-8")),
        };
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            return Some(format!(
                "a {what}'s name contains the control character {}",
                code_point(c)
            ));
        }
        let shown: String = name.chars().take(40).collect();
        let value = match decode_component(value, utf8) {
            Ok(value) => value,
            Err(()) => return Some(format!("{what} `{shown}` is not UTF-8")),
        };
        if let Some(c) = value
            .chars()
            .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        {
            return Some(format!(
                "{what} `{shown}` contains the control character {}",
                code_point(c)
            ));
        }
    }
    None
}

/// The words every refusal of a NUL ends with.
pub const NUL_REFUSED: &str = "contains a NUL character (U+0000), which no text here may hold";

/// What is wrong with a JSON body, if anything: a string or a key holding U+0000, named by
/// its path as a refusal of the body names a field (`orders[0].terms`). Raw JSON can hold
/// a NUL only as the escape `\u0000`, so a body without one is passed at the cost of a
/// scan; one with it (or with `\\u0000`, an escaped backslash and text) is read again to
/// find where. A body that is not JSON at all is left for its parser to refuse.
pub fn json_problem(bytes: &[u8]) -> Option<String> {
    if !bytes.windows(6).any(|w| w[0] == b'\\' && w == b"\\u0000") {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let mut path = String::new();
    let key = nul_in(&value, &mut path)?;
    let what = if key { "a key " } else { "" };
    Some(if path.is_empty() {
        format!("JSON body: {what}{NUL_REFUSED}")
    } else {
        format!("JSON body at `{path}`: {what}{NUL_REFUSED}")
    })
}

/// Where in `value` a string or a key holds U+0000: `path` is left naming it (a key by the
/// object it is in), and whether it is a key is returned.
fn nul_in(value: &serde_json::Value, path: &mut String) -> Option<bool> {
    match value {
        serde_json::Value::String(text) => text.contains('\0').then_some(false),
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let before = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(key) = nul_in(item, path) {
                    return Some(key);
                }
                path.truncate(before);
            }
            None
        }
        serde_json::Value::Object(fields) => {
            if fields.keys().any(|k| k.contains('\0')) {
                return Some(true);
            }
            for (name, field) in fields {
                let before = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(name);
                if let Some(key) = nul_in(field, path) {
                    return Some(key);
                }
                path.truncate(before);
            }
            None
        }
        _ => None,
    }
}

/// What is wrong with a text body (a turn as `text/plain`), if anything: a NUL, named by
/// its line (from 1). Tabs and line breaks, and every other character, are the text's.
pub fn text_problem(text: &str) -> Option<String> {
    nul_line(text).map(|line| format!("the text's line {line} {NUL_REFUSED}"))
}

/// The line (from 1) of a text's first NUL, if it holds one.
pub fn nul_line(text: &str) -> Option<usize> {
    let at = text.find('\0')?;
    Some(text[..at].matches('\n').count() + 1)
}

/// One `application/x-www-form-urlencoded` component: `+` is a space, then percent-decoded.
fn decode_component(component: &str, utf8: Utf8) -> Result<String, ()> {
    let spaced = component.replace('+', " ");
    let bytes: Vec<u8> = percent_decode(spaced.as_bytes()).collect();
    match utf8 {
        Utf8::Required => String::from_utf8(bytes).map_err(|_| ()),
        Utf8::Lenient => Ok(String::from_utf8_lossy(&bytes).into_owned()),
    }
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

    #[test]
    fn a_nul_in_a_form_field_is_named_and_form_line_breaks_pass() {
        assert_eq!(
            form_problem("name=ann&note=a%00b").as_deref(),
            Some("form field `note` contains the control character U+0000")
        );
        assert_eq!(
            form_problem("name=a%C2%85").as_deref(),
            Some("form field `name` contains the control character U+0085")
        );
        assert_eq!(form_problem("text=buy+3+INF%0D%0Aend+turn%09x"), None);
        assert!(form_problem("name=%FF").is_some());
        assert_eq!(lenient_form_problem(b"subject=%FF"), None);
        assert_eq!(
            lenient_form_problem(b"subject=%FF%00").as_deref(),
            Some("form field `subject` contains the control character U+0000")
        );
    }

    #[test]
    fn a_raw_c1_control_in_a_query_is_named() {
        assert_eq!(
            query_problem("q=a\u{85}").as_deref(),
            Some("query parameter `q` contains the control character U+0085")
        );
    }

    #[test]
    fn a_nul_in_a_json_string_or_key_is_named_by_its_path() {
        let problem = |body: &str| json_problem(body.as_bytes());
        assert_eq!(
            problem(r#"{"terms": "a\u0000b"}"#).as_deref(),
            Some(
                "JSON body at `terms`: contains a NUL character (U+0000), which no text here \
                 may hold"
            )
        );
        assert_eq!(
            problem(r#"{"orders": [{"type": "x"}, {"units": {"INF\u0000": 1}}]}"#).as_deref(),
            Some(
                "JSON body at `orders[1].units`: a key contains a NUL character (U+0000), \
                 which no text here may hold"
            )
        );
        assert_eq!(
            problem(r#""\u0000""#).as_deref(),
            Some("JSON body: contains a NUL character (U+0000), which no text here may hold")
        );
        // An escaped backslash before `u0000` is text, not a NUL.
        assert_eq!(problem(r#"{"terms": "a\\u0000b"}"#), None);
        assert_eq!(problem(r#"{"terms": "a\u0001b\n\t"}"#), None);
        // Not JSON: its parser refuses it.
        assert_eq!(problem(r#"{"terms": "a\u0000"#), None);
    }

    #[test]
    fn a_nul_in_a_text_is_named_by_its_line() {
        assert_eq!(
            text_problem("buy 3 INF\n\tend\0turn\n").as_deref(),
            Some(
                "the text's line 2 contains a NUL character (U+0000), which no text here may hold"
            )
        );
        assert_eq!(text_problem("buy 3 INF\r\n\tend turn\n"), None);
    }
}
