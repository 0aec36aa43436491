//! The address the service is reached at from outside (`--public-url`), for links in
//! documents that leave the site: a calendar event's URL must open from a calendar
//! application, where a path alone leads nowhere.

use std::fmt;

/// An absolute `http` or `https` base URL with no query or fragment, kept without its
/// trailing slash so that `join("/games/x")` gives one slash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("public URL {given:?}: {reason}")]
pub struct PublicUrlError {
    given: String,
    reason: &'static str,
}

impl TryFrom<&str> for PublicUrl {
    type Error = PublicUrlError;

    fn try_from(given: &str) -> Result<Self, Self::Error> {
        let refuse = |reason| PublicUrlError {
            given: given.to_owned(),
            reason,
        };
        let parsed = url::Url::parse(given).map_err(|_| refuse("not an absolute URL"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(refuse("the scheme must be http or https"));
        }
        if parsed.host().is_none() {
            return Err(refuse("it names no host"));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(refuse("a base URL has no query or fragment"));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(refuse("a base URL carries no user name or password"));
        }
        Ok(PublicUrl(parsed.as_str().trim_end_matches('/').to_owned()))
    }
}

impl PublicUrl {
    /// The absolute URL of a path on this site (`path` starts with `/`).
    pub fn join(&self, path: &str) -> String {
        format!("{}{path}", self.0)
    }
}

impl fmt::Display for PublicUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_url_joins_paths_with_one_slash_and_keeps_its_own_path() {
        let url = PublicUrl::try_from("https://league.example/warlog/").expect("valid");
        assert_eq!(
            url.join("/games/g1"),
            "https://league.example/warlog/games/g1"
        );
        let bare = PublicUrl::try_from("http://localhost:8080").expect("valid");
        assert_eq!(bare.join("/games/g1"), "http://localhost:8080/games/g1");
    }

    #[test]
    fn a_relative_address_another_scheme_or_a_query_is_refused_with_its_reason() {
        for (given, reason) in [
            ("/games", "not an absolute URL"),
            ("league.example", "not an absolute URL"),
            ("ftp://league.example", "http or https"),
            ("https://league.example/?a=1", "no query"),
            ("https://ann:secret@league.example", "no user name"),
        ] {
            let error = PublicUrl::try_from(given).expect_err(given);
            assert!(error.to_string().contains(reason), "{given}: {error}");
        }
    }
}
