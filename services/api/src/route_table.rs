//! The table of every route the service answers and the methods it answers there, from
//! the OpenAPI document and the pages: a request at a known path with another method is
//! told which it may use (405 with `Allow`), and one that needs a token is authenticated
//! before its body is read. Every request asks it, so its templates are matched segment
//! by segment, without a regular expression.

use utoipa::OpenApi;

/// A route template (`/v1/games/{id}/orders`) as its segments: each a literal, or a
/// parameter standing for any one non-empty segment (as actix-web's `{id}` does).
#[derive(Debug)]
struct Template(Vec<Option<String>>);

impl Template {
    fn new(template: &str) -> Template {
        Template(
            segments(template)
                .map(|s| (!(s.starts_with('{') && s.ends_with('}'))).then(|| s.to_owned()))
                .collect(),
        )
    }

    fn matches(&self, path: &str) -> bool {
        let mut parts = segments(path);
        self.0.iter().all(|segment| match (segment, parts.next()) {
            (Some(literal), Some(part)) => literal == part,
            (None, Some(part)) => !part.is_empty(),
            (_, None) => false,
        }) && parts.next().is_none()
    }
}

/// A path's segments: `/` is one empty segment, as the root template is.
fn segments(path: &str) -> std::str::Split<'_, char> {
    path.strip_prefix('/').unwrap_or(path).split('/')
}

/// Pages served besides the API (the OpenAPI document lists the API's own routes).
const PAGE_ROUTES: [&str; 16] = [
    "/",
    "/odds",
    "/games",
    "/tournaments",
    "/players",
    "/assets/redoc.standalone.js",
    "/embed/leaderboard",
    "/players/{handle}",
    "/tournaments/{id}",
    "/tournaments/{id}/director",
    "/games/{id}",
    "/assets/warlog.css",
    "/favicon.ico",
    "/docs",
    "/dice/{table}",
    "/dice/register/tables",
];

/// Pages whose form posts back to them: they answer GET and POST.
const PAGE_FORMS: [&str; 5] = [
    "/games/{id}/turn",
    "/dice/{table}/reveal",
    // `/dice/{table}` matches it too, and answers GET alone: a table's id is never `register`.
    "/dice/register",
    "/dice/register/confirm",
    "/dice/register/stop",
];

/// One method at one route, and whether the OpenAPI document says it needs a token.
#[derive(Debug, Clone, Copy)]
struct Answered {
    method: &'static str,
    needs_token: bool,
}

/// Every route and the methods it answers, from the OpenAPI document and the pages: a
/// request at a known path with another method (TRACE, say) is told which it may use, and
/// one that needs a token is authenticated before its body is read.
fn known_routes() -> &'static [(Template, Vec<Answered>)] {
    type Routes = Vec<(Template, Vec<Answered>)>;
    static ROUTES: std::sync::OnceLock<Routes> = std::sync::OnceLock::new();
    ROUTES.get_or_init(|| {
        let document = crate::ApiDoc::openapi();
        let mut routes: Routes = document
            .paths
            .paths
            .iter()
            .map(|(path, item)| {
                let methods = [
                    ("GET", &item.get),
                    ("POST", &item.post),
                    ("PUT", &item.put),
                    ("DELETE", &item.delete),
                    ("PATCH", &item.patch),
                ]
                .into_iter()
                .filter_map(|(method, operation)| {
                    operation.as_ref().map(|operation| Answered {
                        method,
                        needs_token: operation.security.as_ref().is_some_and(|s| !s.is_empty()),
                    })
                })
                .collect();
                (Template::new(path), methods)
            })
            .collect();
        routes.extend(PAGE_ROUTES.iter().map(|path| {
            let get = Answered {
                method: "GET",
                needs_token: false,
            };
            (Template::new(path), vec![get])
        }));
        routes.extend(PAGE_FORMS.iter().map(|path| {
            let methods = ["GET", "POST"]
                .into_iter()
                .map(|method| Answered {
                    method,
                    needs_token: false,
                })
                .collect();
            (Template::new(path), methods)
        }));
        routes
    })
}

/// Whether `method` at `path` needs a token, as the OpenAPI document says.
pub fn needs_token(method: &actix_web::http::Method, path: &str) -> bool {
    known_routes()
        .iter()
        .filter(|(route, _)| route.matches(path))
        .flat_map(|(_, methods)| methods)
        .any(|answered| answered.needs_token && answered.method == method.as_str())
}

/// The methods answered at `path` (`HEAD` wherever `GET` is), sorted; none: no route.
pub fn methods_at(path: &str) -> Vec<&'static str> {
    let mut allowed: Vec<&str> = known_routes()
        .iter()
        .filter(|(route, _)| route.matches(path))
        .flat_map(|(_, methods)| methods.iter().map(|answered| answered.method))
        .collect();
    if allowed.contains(&"GET") {
        allowed.push("HEAD");
    }
    allowed.sort_unstable();
    allowed.dedup();
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_matches_its_literal_segments_and_one_non_empty_segment_per_parameter() {
        let orders = Template::new("/v1/games/{id}/orders");
        assert!(orders.matches("/v1/games/abc/orders"));
        for other in [
            "/v1/games//orders",
            "/v1/games/abc/orders/",
            "/v1/games/abc",
            "/v1/games/a/b/orders",
            "/v1/games/abc/order",
        ] {
            assert!(!orders.matches(other), "{other}");
        }
        let root = Template::new("/");
        assert!(root.matches("/"));
        assert!(!root.matches("/v1"));
        assert!(Template::new("/v1/games/{id}/board.svg").matches("/v1/games/x/board.svg"));
    }

    #[test]
    fn orders_need_a_token_and_reads_do_not() {
        let post = actix_web::http::Method::POST;
        let get = actix_web::http::Method::GET;
        assert!(needs_token(&post, "/v1/games/abc/orders"));
        assert!(!needs_token(&get, "/v1/games/abc"));
        assert_eq!(methods_at("/v1/games/abc/orders"), ["POST"]);
        assert_eq!(methods_at("/v1/games"), ["GET", "HEAD", "POST"]);
        assert!(methods_at("/v1/nothing").is_empty());
    }

    #[test]
    fn a_page_with_a_form_answers_get_and_post_without_a_token() {
        let post = actix_web::http::Method::POST;
        assert_eq!(methods_at("/dice/abc/reveal"), ["GET", "HEAD", "POST"]);
        assert!(!needs_token(&post, "/dice/abc/reveal"));
        assert_eq!(methods_at("/dice/abc"), ["GET", "HEAD"]);
    }

    #[test]
    fn the_dice_registration_pages_are_not_taken_for_a_table() {
        let post = actix_web::http::Method::POST;
        assert_eq!(methods_at("/dice/register"), ["GET", "HEAD", "POST"]);
        assert_eq!(
            methods_at("/dice/register/confirm"),
            ["GET", "HEAD", "POST"]
        );
        assert_eq!(methods_at("/dice/register/tables"), ["GET", "HEAD"]);
        assert_eq!(methods_at("/dice/register/stop"), ["GET", "HEAD", "POST"]);
        assert!(!needs_token(&post, "/dice/register"));
        assert!(!needs_token(&post, "/dice/register/confirm"));
    }
}
