//! A turn text against a game: read (`warlog_events::turn::plan_turn`), then written
//! through the one write path, or previewed (`GameLog::preview`) and shown in words.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use warlog_events::game::GameLog;
use warlog_events::orders::{Command, OrdersGiven};
use warlog_events::preview::{BattleOdds, Preview, PreviewStep};
use warlog_events::sender::Sender;
use warlog_rules::board::Power;
use warlog_rules::game::named::NamedOrder;
use warlog_rules::game::{words, GameState, Moment};
use warlog_rules::notation::{render_order, Planned};

use crate::error::ApiError;
use crate::games::{Commanded, Commanding};

/// A turn as JSON (or send the text itself as `text/plain`).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "buy 3 INF, 1 ARM\nmove 2 INF: Germany > East Europe\nend turn", "dry_run": true}))]
pub struct TurnRequest {
    /// The turn in the notation: one order per line (`docs/playing.md`).
    pub text: String,
    /// The power whose turn it is (default: the power to play).
    #[serde(default)]
    #[schema(value_type = Option<String>, example = "germany")]
    pub power: Option<Power>,
    /// The game version the turn was written for (or send `If-Match`).
    #[serde(default)]
    pub expected_version: Option<u64>,
    /// Preview: decide the turn without a die and append nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// The orders a turn text makes, and the power that gives them (by default, the power to
/// play).
fn planned(
    log: &GameLog,
    text: &str,
    power: Option<Power>,
) -> Result<(Power, Vec<Planned>), ApiError> {
    let planned = warlog_events::turn::plan_turn(log, text).map_err(ApiError::unreadable_turn)?;
    let power = power.unwrap_or_else(|| log.state.to_act(log.ruleset.rules()));
    Ok((power, planned))
}

/// A turn text to write, for a power (by default, the power to play).
#[derive(Debug)]
pub struct TurnText<'a> {
    pub text: &'a str,
    pub power: Option<Power>,
}

impl Commanding for TurnText<'_> {
    /// The orders the text makes, for the power that gives them, each with its line.
    fn command(&self, log: &GameLog) -> Result<Commanded, ApiError> {
        let (power, planned) = planned(log, self.text, self.power)?;
        let lines = planned.iter().map(|p| p.line).collect();
        let orders = planned.into_iter().map(|p| p.order).collect();
        Ok(Commanded {
            command: Command::Orders { power, orders },
            lines: Some(lines),
        })
    }
}

/// A turn's answer: what it did (written), or what it would do (`dry_run`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum TurnAnswer {
    Written(crate::games::WriteAccepted),
    Preview(TurnPreview),
}

/// What a turn would do, in words.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TurnPreview {
    pub game_id: String,
    /// The game's version now: the preview appended nothing.
    pub version: u64,
    /// Always true: nothing was appended and no die was rolled.
    pub dry_run: bool,
    #[schema(value_type = String, example = "germany")]
    pub power: Power,
    /// The turn in words, line by line.
    pub summary: Vec<String>,
    /// Each line that asks for something: the orders it makes and what they would do.
    pub lines: Vec<PreviewLine>,
    /// The line the rules would refuse, if one; nothing after it was decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<PreviewRefused>,
    /// Where the turn would leave the game.
    pub then: WouldStand,
}

/// One line of a previewed turn.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PreviewLine {
    /// Its number in the text, from 1.
    pub line: usize,
    /// The orders it makes, in the notation (phase ends it needed first included).
    pub orders: Vec<String>,
    /// What they would do, in words. A line that rolls says so, never how the dice fall.
    pub outcome: Vec<String>,
    /// Carrying it out rolls dice.
    pub rolls: bool,
    /// Checked on the board an earlier line's dice would shape (as if each battle went
    /// its even way): the real dice may decide otherwise.
    pub after_dice: bool,
    /// For a battle: its odds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub battle: Option<BattleOddsView>,
}

/// A battle's odds in a preview, each a probability from 0 to 1.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BattleOddsView {
    pub territory: String,
    /// The exact odds are known (false: too large to work out in a preview; `detail`
    /// says so and the probabilities are absent).
    pub exact: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attacker_wins: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defender_wins: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub both_destroyed: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attacker_withdraws: Option<f64>,
    /// The defender's standing orders for it are sealed: the odds follow the orders it gave
    /// in the open, else the defaults.
    pub defender_orders_sealed: bool,
    /// The odds in a sentence.
    pub detail: String,
}

/// The line a preview refuses.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PreviewRefused {
    pub line: usize,
    /// The order refused, in the notation.
    pub order: String,
    /// The refusal's stable code, as in a `rule-violation` problem.
    pub code: String,
    pub rule: String,
    pub detail: String,
    /// Refused on the board an earlier line's dice would shape (as even dice left it):
    /// the real dice may allow it.
    pub after_dice: bool,
}

/// Where a previewed turn would leave the game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WouldStand {
    pub round: u32,
    /// The phase, in words.
    pub phase: String,
    #[schema(value_type = String, example = "germany")]
    pub to_play: Power,
    /// In a sentence.
    pub detail: String,
}

/// Previews a turn text on `log` for `sender`, its battles' odds within one budget (stopped
/// when `cancelled` is set). Call it through [`preview_for`], which bounds it per client.
pub fn preview(
    log: &GameLog,
    sender: Sender,
    at: Moment,
    text: &str,
    power: Option<Power>,
    cancelled: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
) -> Result<TurnPreview, ApiError> {
    let (power, planned) = planned(log, text, power)?;
    let orders: Vec<NamedOrder> = planned.iter().map(|p| p.order.clone()).collect();
    let given = OrdersGiven::new(
        sender,
        log.version,
        at,
        Command::Orders {
            power,
            orders: orders.clone(),
        },
    );
    let previewed = log.preview(&given, cancelled).map_err(|refusal| {
        let line = refusal
            .order_index()
            .and_then(|i| planned.get(i))
            .map(|p| p.line);
        let error = ApiError::from(refusal);
        match line {
            Some(line) => error.on_line(line),
            None => error,
        }
    })?;
    Ok(render(log, &planned, previewed))
}

/// [`preview`] for a client: within its rate limit and the cap on computations at once, off
/// the request threads, stopped if the request goes away (like the odds).
pub async fn preview_for(
    req: &actix_web::HttpRequest,
    state: &crate::AppState,
    log: GameLog,
    sender: Sender,
    at: Moment,
    text: String,
    power: Option<Power>,
) -> Result<TurnPreview, ApiError> {
    crate::rate_limit::computation(req, state, move |cancelled| {
        preview(&log, sender, at, &text, power, Some(cancelled))
    })
    .await?
}

fn render(log: &GameLog, planned: &[Planned], preview: Preview) -> TurnPreview {
    let rules = log.ruleset.rules();
    let mut lines: Vec<PreviewLine> = Vec::new();
    // The board before each step, for its words (a battle names its losses).
    let mut board = log.state.clone();
    for step in &preview.steps {
        let Some(order) = planned.get(step.index) else {
            continue;
        };
        let outcome = outcome_of(log, &board, step);
        for event in &step.events {
            warlog_rules::game::apply(rules, &mut board, event);
        }
        let battle = step.odds.as_ref().map(|odds| odds_view(log, step, odds));
        let outcome = match &battle {
            Some(battle) => vec![battle.detail.clone()],
            None => outcome,
        };
        match lines.last_mut() {
            Some(line) if line.line == order.line => {
                line.orders.push(render_order(&order.order));
                line.outcome.extend(outcome);
                line.rolls |= step.rolls;
                line.after_dice |= step.after_dice;
                line.battle = line.battle.take().or(battle);
            }
            _ => lines.push(PreviewLine {
                line: order.line,
                orders: vec![render_order(&order.order)],
                outcome,
                rolls: step.rolls,
                after_dice: step.after_dice,
                battle,
            }),
        }
    }
    let refused = preview.refused.as_ref().and_then(|r| {
        let order = planned.get(r.index)?;
        Some(PreviewRefused {
            line: order.line,
            order: render_order(&order.order),
            code: r.violation.code.as_str().to_owned(),
            rule: r.violation.rule.to_owned(),
            detail: if r.after_dice {
                format!(
                    "line {} would be refused if the battles before it went their even way: {} \
                     ({}); the dice may decide otherwise",
                    order.line, r.violation.message, r.violation.rule
                )
            } else {
                format!(
                    "line {} is refused: {} ({})",
                    order.line, r.violation.message, r.violation.rule
                )
            },
            after_dice: r.after_dice,
        })
    });
    let mut summary: Vec<String> = lines
        .iter()
        .flat_map(|l| {
            l.outcome
                .iter()
                .map(move |o| format!("Line {}: {o}", l.line))
        })
        .collect();
    if let Some(refused) = &refused {
        summary.push(format!("{}.", capitalised(&refused.detail)));
    }
    let to_play = preview.after.to_act(rules);
    let phase = preview.after.phase.name().to_owned();
    TurnPreview {
        game_id: log.created.game_id.clone(),
        version: log.version,
        dry_run: true,
        power: preview.power,
        summary,
        lines,
        refused,
        then: WouldStand {
            round: preview.after.round,
            detail: format!(
                "Then round {}, {} to play, in the {phase} phase.",
                preview.after.round,
                to_play.name()
            ),
            phase,
            to_play,
        },
    }
}

/// `text` with its first letter a capital (a refusal's words begin a sentence).
pub(crate) fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// What one step would do, in words: its events, unless it rolls (then only that it
/// does: the events of even dice are not the game's).
fn outcome_of(log: &GameLog, before: &GameState, step: &PreviewStep) -> Vec<String> {
    if step.rolls {
        if let Some(BattleOdds::Exact(_) | BattleOdds::TooLarge(_)) = &step.odds {
            return Vec::new();
        }
        return vec!["This rolls dice when the turn is submitted.".to_owned()];
    }
    words::summary(log.ruleset.rules(), Some(before), &step.events)
}

fn percent(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

fn odds_view(log: &GameLog, step: &PreviewStep, odds: &BattleOdds) -> BattleOddsView {
    let territory = step
        .battle_at
        .map(|t| log.ruleset.board.get(t).name.clone())
        .unwrap_or_default();
    let sealed = if step.defender_orders_sealed {
        " The defender's standing orders here are sealed: these odds follow the orders it has \
         given in the open, else the defaults."
    } else {
        ""
    };
    match odds {
        BattleOdds::Exact(o) => BattleOddsView {
            detail: format!(
                "Battle in {territory}: the attacker wins {}, the defender holds {}, both are \
                 destroyed {}{}{}.{sealed}",
                percent(o.attacker_win + o.walked_in),
                percent(o.defender_win + o.disengaged),
                percent(o.mutual_destruction),
                if o.attacker_retreated > 0.0 {
                    format!(", the attacker withdraws {}", percent(o.attacker_retreated))
                } else {
                    String::new()
                },
                if o.blended_in > 0.0 {
                    format!(", the guerrillas blend in {}", percent(o.blended_in))
                } else {
                    String::new()
                }
            ),
            territory,
            exact: true,
            attacker_wins: Some(o.attacker_win + o.walked_in),
            defender_wins: Some(o.defender_win + o.disengaged),
            both_destroyed: Some(o.mutual_destruction),
            attacker_withdraws: Some(o.attacker_retreated),
            defender_orders_sealed: step.defender_orders_sealed,
        },
        BattleOdds::TooLarge(why) => BattleOddsView {
            detail: format!("Battle in {territory}: {why}.{sealed}"),
            territory,
            exact: false,
            attacker_wins: None,
            defender_wins: None,
            both_destroyed: None,
            attacker_withdraws: None,
            defender_orders_sealed: step.defender_orders_sealed,
        },
    }
}
