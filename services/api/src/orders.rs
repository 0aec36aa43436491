//! Orders as clients write them, with the board's names and the units' codes. The form and
//! its resolution live in the rules engine ([`warlog_rules::game::named`]), because the log
//! records orders in this form and the auditor resolves them with the same code; a name the
//! ruleset does not know is a refusal, answered as every refusal is (`error::refused`).

pub use warlog_rules::game::named::{NamedOrder as OrderInput, NamedRetreat as RetreatInput};

use serde::Deserialize;
use utoipa::ToSchema;
use warlog_events::game::GameLog;
use warlog_events::orders::Command;
use warlog_rules::board::Power;

use crate::error::ApiError;
use crate::games::{Commanded, Commanding};

/// Orders for one power: one order or a whole phase, decided in turn. They are all or
/// nothing until an order rolls dice; a die once rolled counts, so an order refused after
/// that is cut off (with the orders after it) and the orders before it stand.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "power": "russia", "expected_version": 1,
    "orders": [{"type": "end_phase"}, {"type": "end_phase"}, {"type": "purchase", "units": {"INF": 3}}]
}))]
pub struct OrdersRequest {
    /// The power giving the orders (default: the power whose turn it is).
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub power: Option<Power>,
    pub orders: Vec<OrderInput>,
    /// The game version the orders were written for (or send `If-Match`).
    #[serde(default)]
    pub expected_version: Option<u64>,
}

impl Commanding for &OrdersRequest {
    /// Recorded as the server understood them: the board's names, the units' codes; the
    /// power defaults to the one whose turn it is.
    fn command(&self, log: &GameLog) -> Result<Commanded, ApiError> {
        let power = self
            .power
            .unwrap_or_else(|| log.state.to_act(log.ruleset.rules()));
        let orders = self
            .orders
            .iter()
            .enumerate()
            .map(|(i, order)| order.normalised(log.ruleset, &format!("orders[{i}]")))
            .collect::<Result<_, _>>()?;
        Ok(Commanded {
            command: Command::Orders { power, orders },
            lines: None,
        })
    }
}
