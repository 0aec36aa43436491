//! The whole application: the middleware, in the order a request meets them, the API's
//! routes, the pages, and the answer for a path nothing serves.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpRequest, HttpResponse};

use crate::error::{ApiError, ErrorCode};
use crate::route_table::methods_at;
use crate::{
    assets, auth, conditional, cors, input_guard, metrics, pages, routes, security, AppState,
    Telemetry,
};

/// The whole application, ready for `HttpServer::new` or `actix_web::test::init_service`.
pub fn app(
    state: AppState,
    telemetry: &Telemetry,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(web::Data::new(state))
        .app_data(web::Data::new(telemetry.http.clone()))
        .app_data(
            web::QueryConfig::default()
                .error_handler(|err, _| ApiError::malformed(format!("query string: {err}")).into()),
        )
        .app_data(
            web::PathConfig::default()
                .error_handler(|err, _| ApiError::malformed(format!("path: {err}")).into()),
        )
        .app_data(
            web::JsonConfig::default()
                .limit(256 * 1024)
                .error_handler(|err, _| ApiError::malformed(format!("JSON body: {err}")).into()),
        )
        .wrap(from_fn(auth::authenticate))
        .wrap(from_fn(input_guard::refuse_unreadable_input))
        .wrap(from_fn(cors::head_as_get))
        .wrap(from_fn(cors::cross_origin))
        .wrap(from_fn(conditional::tag_every_answer))
        .wrap(from_fn(security::headers))
        // gzip when the client asks (`Accept-Encoding`), for every body worth it; the
        // cost is measured in docs/benchmarks.md.
        .wrap(actix_web::middleware::Compress::default())
        .wrap(from_fn(conditional::weaken_compressed_tags))
        .wrap(from_fn(metrics::track))
        .configure(routes::configure)
        .service(pages::docs)
        .service(assets::redoc_script)
        .service(assets::stylesheet)
        .service(assets::icon)
        .service(pages::leaderboard)
        .service(pages::games)
        .service(pages::tournaments)
        .service(pages::players)
        .service(pages::odds_page)
        .service(pages::embedded_leaderboard)
        .service(pages::player)
        .service(pages::director_desk)
        .service(pages::tournament)
        .service(pages::turn_page)
        .service(pages::turn_form)
        .service(pages::game)
        // Before the table's page: `/dice/register` is no table.
        .service(pages::dice_register_page)
        .service(pages::dice_register_form)
        .service(pages::dice_confirm_page)
        .service(pages::dice_confirm_form)
        .service(pages::dice_register_tables)
        .service(pages::dice_stop_page)
        .service(pages::dice_stop_form)
        .service(pages::dice_table_page)
        .service(pages::dice_reveal_page)
        .service(pages::dice_reveal_form)
        .default_service(web::to(route_not_found))
}

async fn route_not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let allowed = methods_at(req.path());
    if !allowed.is_empty() {
        return Err(ApiError::method_not_allowed(
            format!(
                "{} is not answered at {}; {} is",
                req.method(),
                req.path(),
                allowed.join(", ")
            ),
            allowed.join(", "),
        ));
    }
    Err(ApiError::new(
        ErrorCode::RouteNotFound,
        format!("no resource at {} {}", req.method(), req.path()),
    ))
}
