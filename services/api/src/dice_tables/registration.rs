//! Registering an address with the dice server (issue 52): its owner asks, a link is
//! mailed to it, and opening the link confirms it; from then on rolls may name it. The same
//! request from an address already confirmed mails a link that lists every table naming
//! it, or an address that looks like it. The answer to the request is the same either way,
//! so it tells a stranger nothing about an address.

use actix_web::HttpRequest;
use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::dice_table::{canonical_address, date_of, AddressLink, LinkedAddress};
use warlog_rules::game::Moment;
use warlog_store::dice_addresses::{self, confirm, confirmed, forget, TableNaming};
use warlog_store::mail::{enqueue_direct_mail, DirectMail, Recipient};
use warlog_store::StoreError;

use super::{DiceClient, DiceTables};
use crate::error::{ApiError, ErrorCode};
use crate::public_url::PublicUrl;
use crate::AppState;

/// Where a mailed link is opened.
pub const CONFIRM_PAGE: &str = "/dice/register/confirm";
pub const TABLES_PAGE: &str = "/dice/register/tables";
pub const STOP_PAGE: &str = "/dice/register/stop";

/// The tables naming a registered address, or one that looks like it.
#[derive(Debug, Serialize, ToSchema)]
pub struct NamingView {
    /// Whether the address is confirmed (it may be named in rolls, and is mailed them).
    pub confirmed: bool,
    /// Most recently named first; at most 500.
    pub tables: Vec<TableNamingView>,
    /// Tables naming an address that looks like this one and that its owner confirmed
    /// (this owner under a `+tag`, or someone else): listed at that address's own link,
    /// only counted here.
    pub confirmed_lookalike_tables: i64,
}

/// A table naming the address, or an address that looks like it.
#[derive(Debug, Serialize, ToSchema)]
pub struct TableNamingView {
    /// The table's id.
    pub table: String,
    /// The table's page.
    pub page: String,
    /// `true`: the table names this very address; `false`: an address that looks like it
    /// (`bob+x@`, `b.ob@`, letters of another script), which is another mailbox, so the
    /// table's rolls were not mailed here.
    pub exactly: bool,
    /// When the table first named it (RFC 3339).
    pub named_at: String,
}

impl DiceTables {
    /// Refused unless this service can mail a link: addresses are registered by mail.
    fn registers(&self) -> Result<(), ApiError> {
        if self.settings.mail {
            Ok(())
        } else {
            Err(ApiError::new(
                ErrorCode::DiceRegistrationUnavailable,
                "this dice server sends no mail, so it registers no address: any address may \
                 be named in a roll here",
            ))
        }
    }
}

/// Mails `raw`'s owner a link: to confirm it, or, confirmed already, to list the tables
/// naming it. Limited per address and per client.
pub async fn mail_address_link(
    req: &HttpRequest,
    state: &AppState,
    raw: &str,
) -> Result<(), ApiError> {
    let dice = &state.dice;
    dice.registers()?;
    let address = canonical_address(raw, "address").map_err(ApiError::malformed)?;
    if !dice.settings.mail_domains.allows(&address) {
        return Err(ApiError::new(
            ErrorCode::DiceAddressNotMailed,
            format!(
                "this dice server mails no address at {}",
                domain_of(&address)
            ),
        ));
    }
    let keys = dice.keys(state.store.pool()).await?;
    let linked = keys.linked_address(&address);
    let address_key = linked.address_key.clone();
    let client = DiceClient::of(req, state);
    dice.link_mails_per_client
        .admit_from(client.clone(), "from one client")?;
    dice.link_mails_per_address
        .admit_from(address_key.clone(), "to one address")
        .map_err(|_| {
            ApiError::new(
                ErrorCode::TooManyRequests,
                format!(
                    "this address has been mailed {} links this hour, the most it may be: \
                     the links mailed already still work; ask again in an hour",
                    dice.link_mails_per_address.limit()
                ),
            )
        })?;
    let db = state.store.pool().get().await.map_err(StoreError::from)?;
    let is_confirmed = confirmed(&db, &[&address_key])
        .await?
        .first()
        .copied()
        .unwrap_or(false);
    let now = state.clock.moment();
    let link = if is_confirmed {
        AddressLink::ListTables
    } else {
        AddressLink::Confirm
    };
    let expires = now.plus_seconds(link.lifetime_seconds());
    let token = keys.address_link_token(link, &linked, expires);
    let (subject, body) = link_mail(&state.public_url, link, &token, expires);
    let mail = DirectMail::notice(
        format!("dice-address-{}", uuid::Uuid::new_v4()),
        Recipient::Address(address),
        subject,
        body,
    );
    // A mail about no event: filed under an id of its own.
    enqueue_direct_mail(&db, &mail, &uuid::Uuid::new_v4(), 0).await?;
    Ok(())
}

/// Where a link with `token` opens `page`: absolute with the service's public address.
fn link_url(public_url: &Option<PublicUrl>, page: &str, token: &str) -> String {
    let path = format!("{page}?token={token}");
    match public_url {
        Some(base) => base.join(&path),
        None => path,
    }
}

/// The link in a roll's mail to `address` (canonical) that stops the dice mail to it.
pub fn stop_link(
    public_url: &Option<PublicUrl>,
    keys: &warlog_events::dice_table::DiceKeys,
    address: &str,
    now: Moment,
) -> String {
    let expires = now.plus_seconds(AddressLink::Stop.lifetime_seconds());
    let token = keys.address_link_token(AddressLink::Stop, &keys.linked_address(address), expires);
    link_url(public_url, STOP_PAGE, &token)
}

/// Ends the registration of the address a stop link's `token` is for: no more dice mail
/// to it, and no roll may name it until it is confirmed again. Whether it was registered.
pub async fn stop_address(state: &AppState, token: &str) -> Result<bool, ApiError> {
    state.dice.registers()?;
    let keys = state.dice.keys(state.store.pool()).await?;
    let linked = keys
        .read_address_link(AddressLink::Stop, token, state.clock.moment())
        .map_err(refused_link)?;
    let db = state.store.pool().get().await.map_err(StoreError::from)?;
    Ok(forget(&db, &linked.address_key).await?)
}

/// Confirms the address a confirmation link's `token` is for; its tables.
pub async fn confirm_address(state: &AppState, token: &str) -> Result<NamingView, ApiError> {
    state.dice.registers()?;
    let keys = state.dice.keys(state.store.pool()).await?;
    let linked = keys
        .read_address_link(AddressLink::Confirm, token, state.clock.moment())
        .map_err(refused_link)?;
    let db = state.store.pool().get().await.map_err(StoreError::from)?;
    confirm(&db, &linked.address_key).await?;
    naming_view(&db, &linked, true).await
}

/// The tables naming the address a link's `token` is for: a tables link, or a
/// confirmation link once confirmed (before, it lists nothing and says so).
pub async fn tables_naming(state: &AppState, token: &str) -> Result<NamingView, ApiError> {
    state.dice.registers()?;
    let keys = state.dice.keys(state.store.pool()).await?;
    let now = state.clock.moment();
    let linked = keys
        .read_address_link(AddressLink::ListTables, token, now)
        .or_else(|_| keys.read_address_link(AddressLink::Confirm, token, now))
        .map_err(refused_link)?;
    let db = state.store.pool().get().await.map_err(StoreError::from)?;
    let is_confirmed = confirmed(&db, &[&linked.address_key])
        .await?
        .first()
        .copied()
        .unwrap_or(false);
    if !is_confirmed {
        return Ok(NamingView {
            confirmed: false,
            tables: Vec::new(),
            confirmed_lookalike_tables: 0,
        });
    }
    naming_view(&db, &linked, true).await
}

async fn naming_view(
    db: &impl warlog_store::GenericClient,
    linked: &LinkedAddress,
    is_confirmed: bool,
) -> Result<NamingView, ApiError> {
    let tables =
        dice_addresses::tables_naming(db, &linked.address_key, &linked.lookalike_key).await?;
    let others = dice_addresses::tables_naming_confirmed_lookalikes(
        db,
        &linked.address_key,
        &linked.lookalike_key,
    )
    .await?;
    Ok(NamingView {
        confirmed: is_confirmed,
        tables: tables.into_iter().map(naming).collect(),
        confirmed_lookalike_tables: others,
    })
}

fn naming(found: TableNaming) -> TableNamingView {
    TableNamingView {
        page: format!("/dice/{}", found.table),
        table: found.table,
        exactly: found.exactly,
        named_at: date_of(Moment::from_unix_seconds(
            u64::try_from(found.named_at).unwrap_or(0),
        )),
    }
}

fn refused_link(why: String) -> ApiError {
    ApiError::new(ErrorCode::AddressLinkRefused, why)
}

fn domain_of(address: &str) -> &str {
    address.rsplit_once('@').map_or(address, |(_, d)| d)
}

/// The mail carrying a `link`, for `address`.
fn link_mail(
    public_url: &Option<PublicUrl>,
    link: AddressLink,
    token: &str,
    expires: Moment,
) -> (String, String) {
    let url = |page: &str| link_url(public_url, page, token);
    let until = date_of(expires);
    match link {
        AddressLink::Confirm => (
            "Dice: confirm your address".to_owned(),
            format!(
                "Someone asked this dice server to register this address, so that TripleA \
                 players may name it\r\n\
                 in their rolls and have the dice mailed here. To confirm, open this link \
                 before {until}:\r\n\
                 \r\n\
                 {link}\r\n\
                 \r\n\
                 If you did not ask, do nothing: the address stays unregistered, and no roll \
                 may name it.\r\n",
                link = url(CONFIRM_PAGE),
            ),
        ),
        // A stop link is put in the roll mails, never mailed alone.
        AddressLink::ListTables | AddressLink::Stop => (
            "Dice: the tables naming your address".to_owned(),
            format!(
                "Every dice table that names this address, or an address that looks like \
                 it (a +tag, dots,\r\n\
                 letters of another script), is listed at this link until {until}:\r\n\
                 \r\n\
                 {link}\r\n\
                 \r\n\
                 A table naming a look-alike is another mailbox: its rolls were not mailed \
                 to you.\r\n",
                link = url(TABLES_PAGE),
            ),
        ),
    }
}
