//! Webhook subscriptions for administrators and directors: register a URL for kinds of
//! event, list one's subscriptions with their delivery counts, read a subscription's
//! deliveries and failures, resume it after a pause, and delete it. Subscriptions are the service's configuration,
//! like tokens, not part of the league's record: they are rows, not events.

use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use warlog_store::webhooks::{
    create_subscription, delete_subscription, find_subscription, list_deliveries,
    list_subscriptions, resume_subscription, Delivery, NotRegistered, Subscription, KINDS,
};
use warlog_store::StoreError;

use warlog_league::subscribers::{may_subscribe, owner_seen, sees};

use crate::auth::{Caller, Identity};
use crate::body::JsonBody;
use crate::error::{ApiError, ErrorCode};
use crate::webhooks::{Refusal, WebhookPolicy};
use crate::AppState;

resource! {
    create_webhook: [Forbidden, WebhookLimit, WebhookAddressNotAllowed],
    webhook_list: [Forbidden],
    webhook_deliveries: [Forbidden, WebhookNotFound, InvalidCursor],
    resume_webhook: [Forbidden, WebhookNotFound],
    delete_webhook: [Forbidden, WebhookNotFound],
}

/// A new subscription.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "url": "https://club.example/hooks/warlog",
    "kinds": ["game.ended", "round.seated"],
    "secret": "a long random string only you and warlog know"
}))]
pub struct CreateWebhook {
    /// Where deliveries are posted: an absolute `http` or `https` URL without credentials,
    /// whose host resolves to public addresses only (loopback, private, link-local,
    /// unique-local and other internal addresses are refused, in every spelling, unless the
    /// operator allow-listed them).
    pub url: String,
    /// `game.ended`, `game.voided`, `round.seated`, `tournament.finished`, `ladder.changed`,
    /// `turn.started` (a power's turn began: the power, its player, the round and the turn
    /// page).
    pub kinds: Vec<String>,
    /// The HMAC-SHA256 key of the `Webhook-Signature` header: 16 to 200 characters.
    pub secret: String,
}

/// A subscription (its secret is never shown again).
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookView {
    pub subscription_id: String,
    /// Where deliveries go (credentials, which rows from before they were refused may
    /// carry, are not shown).
    pub url: String,
    pub kinds: Vec<String>,
    pub owner: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Deliveries the receiver accepted.
    pub delivered: i64,
    /// Deliveries still to be accepted (including failing ones).
    pub pending: i64,
    /// Deliveries whose last attempt failed; each is tried again after a growing wait.
    pub failing: i64,
    /// Deliveries given up on: too old, or tried too often.
    pub dead: i64,
    /// Attempts that failed since the last accepted one.
    pub consecutive_failures: i32,
    /// Whether sending is paused (after too many failures in a row): `POST` to `resume`
    /// sends again.
    pub paused: bool,
    #[schema(format = DateTime)]
    pub paused_at: Option<String>,
    /// This subscription's deliveries.
    pub deliveries: String,
    /// Where its owner resumes it after a pause.
    pub resume: String,
}

impl From<Subscription> for WebhookView {
    fn from(s: Subscription) -> Self {
        WebhookView {
            deliveries: format!("/v1/webhooks/{}/deliveries", s.subscription_id),
            resume: format!("/v1/webhooks/{}/resume", s.subscription_id),
            subscription_id: s.subscription_id,
            url: without_credentials(&s.url),
            kinds: s.kinds,
            owner: s.owner,
            created_at: s.created_at,
            delivered: s.delivered,
            pending: s.pending,
            failing: s.failing,
            dead: s.dead,
            consecutive_failures: s.consecutive_failures,
            paused: s.paused_at.is_some(),
            paused_at: s.paused_at,
        }
    }
}

/// `url` without its user and password.
fn without_credentials(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.into()
        }
        // Every stored URL parsed when it was registered.
        Err(_) => String::new(),
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookList {
    pub subscriptions: Vec<WebhookView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryList {
    pub subscription_id: String,
    /// Newest first.
    pub deliveries: Vec<Delivery>,
    /// The next page (older deliveries); absent on the last.
    pub next: Option<String>,
}

crate::respond::pages!(DeliveryList);

/// Which page of a subscription's deliveries.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeliveryListQuery {
    /// The last delivery id of the previous page.
    pub after: Option<String>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<crate::query::PageLimit>,
}

/// Checks a new subscription whole, naming the first thing wrong; the URL as it will be
/// stored (as a browser reads it: `http://0x7f.1/` is `http://127.0.0.1/`).
fn checked(body: &CreateWebhook) -> Result<url::Url, ApiError> {
    if body.url.len() > 2000 {
        return Err(ApiError::malformed("url: at most 2000 characters"));
    }
    let url = url::Url::parse(&body.url)
        .map_err(|e| ApiError::malformed(format!("url: not an absolute URL ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(ApiError::malformed("url: an http or https URL with a host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ApiError::malformed(
            "url: a webhook URL may not carry credentials (a user name or password before \
             the host): deliveries are authenticated by their signature, and URLs are shown \
             in listings",
        ));
    }
    if body.kinds.is_empty() {
        return Err(ApiError::malformed(format!(
            "kinds: at least one of {}",
            KINDS.join(", ")
        )));
    }
    if let Some(unknown) = body.kinds.iter().find(|k| !KINDS.contains(&k.as_str())) {
        return Err(ApiError::malformed(format!(
            "kinds: {unknown:?} is not one of {}",
            KINDS.join(", ")
        )));
    }
    let length = body.secret.chars().count();
    if !(16..=200).contains(&length) || body.secret.chars().any(char::is_control) {
        return Err(ApiError::malformed(
            "secret: 16 to 200 printable characters",
        ));
    }
    Ok(url)
}

/// Resolves the URL's host as the sender will, and refuses it if any address it reaches is
/// one deliveries may not go to.
async fn reachable(policy: &WebhookPolicy, url: &url::Url) -> Result<(), ApiError> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    match policy.guard.resolve(host, port).await {
        Ok(_) => Ok(()),
        Err(Refusal::NotResolved) => Err(ApiError::malformed(format!(
            "url: the host {host} does not resolve"
        ))),
        Err(Refusal::NotAHost) => Err(ApiError::malformed(format!(
            "url: {host} is not a host name or an address"
        ))),
        Err(refusal) => Err(ApiError::new(
            ErrorCode::WebhookAddressNotAllowed,
            format!("url: {host} is refused: {refusal}"),
        )),
    }
}

/// Registers a subscription (admin or director).
///
/// Events of the kinds named are posted to `url`, signed with the secret
/// (`Webhook-Signature`, HMAC-SHA256), and retried until the receiver accepts them. The
/// secret is never shown again.
///
/// A URL with credentials, or whose host does not resolve, is malformed (400); one that
/// reaches a loopback, private, link-local or other internal address is refused (422).
#[utoipa::path(post, path = "/v1/webhooks", tag = "webhooks",
    request_body = CreateWebhook,
    responses(
        (status = 201, description = "The subscription; deliveries start with the next event of its kinds", body = WebhookView,
            headers(("Location" = String, description = "The subscription: `/v1/webhooks/{id}`"))),
    ),
    security(("bearer" = [])))]
#[post("/v1/webhooks")]
pub async fn create_webhook(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    body: JsonBody<CreateWebhook>,
) -> Result<HttpResponse, ApiError> {
    let caller = caller.verified(&req).await?;
    may_subscribe(&caller.sender(), "registering a webhook")?;
    let url = checked(&body.value)?;
    reachable(&state.webhooks, &url).await?;
    let mut kinds = body.value.kinds.clone();
    kinds.sort();
    kinds.dedup();
    let id = uuid::Uuid::now_v7().simple().to_string();
    let sealed = state.webhooks.keys.seal(&id, &body.value.secret);
    let mut client = state.store.pool().get().await.map_err(StoreError::from)?;
    let cap = state.webhooks.max_per_owner;
    create_subscription(
        &mut client,
        &id,
        url.as_str(),
        &kinds,
        &sealed,
        &caller.name,
        cap,
    )
    .await?
    .map_err(|NotRegistered::Cap(cap)| {
        ApiError::new(
            ErrorCode::WebhookLimit,
            format!("{} has {cap} webhook subscriptions, as many as this service allows: delete one first", caller.name),
        )
    })?;
    let created = find_subscription(&client, &id)
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::Internal, "the subscription was not kept"))?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/webhooks/{id}")))
        .json(WebhookView::from(created)))
}

/// The caller's subscriptions (an admin sees everyone's).
///
/// Each with its URL, kinds and owner, and how many of its deliveries were accepted,
/// are pending and are failing; never its secret.
#[utoipa::path(get, path = "/v1/webhooks", tag = "webhooks",
    responses(
        (status = 200, description = "Subscriptions with their delivery counts", body = WebhookList),
    ),
    security(("bearer" = [])))]
#[get("/v1/webhooks")]
pub async fn webhook_list(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let caller = caller.verified(&req).await?;
    let reader = caller.sender();
    may_subscribe(&reader, "reading webhooks")?;
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let subscriptions = list_subscriptions(&client, owner_seen(&reader)).await?;
    Ok(HttpResponse::Ok().json(WebhookList {
        subscriptions: subscriptions.into_iter().map(WebhookView::from).collect(),
    }))
}

/// The subscription `id` if the caller may see it, and the connection it was read on.
async fn owned(
    state: &AppState,
    req: &HttpRequest,
    caller: &Caller,
    id: &str,
) -> Result<(warlog_store::PooledClient, Subscription), ApiError> {
    let caller: &Identity = caller.verified(req).await?;
    let reader = caller.sender();
    may_subscribe(&reader, "reading webhooks")?;
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let subscription = find_subscription(&client, id)
        .await?
        .filter(|s| sees(&reader, &s.owner))
        .ok_or_else(|| ApiError::new(ErrorCode::WebhookNotFound, format!("no webhook {id:?}")))?;
    Ok((client, subscription))
}

/// A subscription's deliveries: what was sent, what failed and when it is tried again.
///
/// Newest first, a page at a time (`next`, and `Link`), of a subscription the caller owns
/// (an admin: any).
///
/// An `after` that is no delivery of this subscription is refused (400).
#[utoipa::path(get, path = "/v1/webhooks/{id}/deliveries", tag = "webhooks",
    params(("id" = String, Path, description = "The subscription"), DeliveryListQuery),
    responses(
        (status = 200, description = "A page of deliveries, newest first", body = DeliveryList),
    ),
    security(("bearer" = [])))]
#[get("/v1/webhooks/{id}/deliveries")]
pub async fn webhook_deliveries(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
    query: crate::query::ValidQuery<DeliveryListQuery>,
) -> Result<HttpResponse, ApiError> {
    let (client, subscription) = owned(&state, &req, &caller, &id).await?;
    let limit = query.limit.unwrap_or(crate::query::PageLimit::DEFAULT);
    let deliveries = list_deliveries(
        &client,
        &subscription.subscription_id,
        query.after.as_deref(),
        limit.get(),
    )
    .await?
    .ok_or_else(|| {
        ApiError::new(
            ErrorCode::InvalidCursor,
            "after: no delivery of this subscription has that id",
        )
    })?;
    let next = crate::reads::indexes::next_page(
        &format!("/v1/webhooks/{}/deliveries", subscription.subscription_id),
        &[],
        deliveries.last().map(|d| d.delivery_id.as_str()),
        deliveries.len(),
        limit,
    );
    crate::respond::json_page(
        &req,
        &DeliveryList {
            subscription_id: subscription.subscription_id,
            deliveries,
            next,
        },
    )
}

/// Resumes a subscription paused after consecutive failures.
///
/// Its failure count starts again and the deliveries that waited are due at once (those
/// given up on, dead-lettered after their last attempt or their maximum age, stay so).
/// Only its owner, or an admin; another's subscription is not found (404).
#[utoipa::path(post, path = "/v1/webhooks/{id}/resume", tag = "webhooks",
    params(("id" = String, Path, description = "The subscription")),
    responses(
        (status = 200, description = "The subscription, sending again", body = WebhookView),
    ),
    security(("bearer" = [])))]
#[post("/v1/webhooks/{id}/resume")]
pub async fn resume_webhook(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (mut client, subscription) = owned(&state, &req, &caller, &id).await?;
    resume_subscription(&mut client, &subscription.subscription_id).await?;
    let resumed = find_subscription(&client, &subscription.subscription_id)
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::WebhookNotFound, format!("no webhook {id:?}")))?;
    Ok(HttpResponse::Ok().json(WebhookView::from(resumed)))
}

/// Deletes a subscription: nothing more is sent for it, and its undelivered deliveries are
/// removed (those delivered stay as history).
///
/// Only its owner, or an admin; another's subscription is not found (404), so its
/// existence is not given away.
#[utoipa::path(delete, path = "/v1/webhooks/{id}", tag = "webhooks",
    params(("id" = String, Path, description = "The subscription")),
    responses(
        (status = 204, description = "Deleted"),
    ),
    security(("bearer" = [])))]
#[delete("/v1/webhooks/{id}")]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (mut client, subscription) = owned(&state, &req, &caller, &id).await?;
    delete_subscription(&mut client, &subscription.subscription_id).await?;
    Ok(HttpResponse::NoContent().finish())
}
