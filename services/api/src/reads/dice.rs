//! A dice table's read, the API's and the pages' alike: its epochs and latest rolls as
//! the table's view shows them, never its players' addresses.

use actix_web::HttpRequest;

use crate::dice_tables::{parse_table, read_table_between, DiceTableView, VIEW_EVENTS};
use crate::error::{ApiError, ErrorCode};
use crate::AppState;

/// The view of the table `raw` names.
pub(crate) async fn table_view(
    req: &HttpRequest,
    state: &AppState,
    raw: &str,
) -> Result<DiceTableView, ApiError> {
    let (table, stream) = parse_table(raw)?;
    let client = state.reader(req).await?;
    let Some(folded) = state.dice.folds.load(&client, &table).await? else {
        return Err(ApiError::new(
            ErrorCode::DiceTableNotFound,
            format!("no dice table {raw} (it has never rolled)"),
        ));
    };
    let from = folded.version.saturating_sub(VIEW_EVENTS - 1).max(1);
    let latest = read_table_between(&client, &stream, from, folded.version).await?;
    DiceTableView::of(
        &folded,
        &latest,
        from,
        state.dice.settings.idle_seconds,
        state.dice.idle_in_words(),
    )
}
