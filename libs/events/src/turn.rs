//! A turn text against a game: the orders it makes for the power to play, as the server
//! records them and the auditor reads them (the record holds the orders, each `end phase`
//! the text needed included; the text itself is how the player wrote them).

use warlog_rules::notation::{self, NotationError, Planned};

use crate::game::GameLog;
use crate::orders::MAX_ORDERS;

/// The orders `text` makes on this game as it stands: every name resolved, and an
/// `end phase` wherever a line belongs to a later phase of the turn than the one before
/// it (only the text's own in rulesets whose turn is not the standard cycle).
pub fn plan_turn(log: &GameLog, text: &str) -> Result<Vec<Planned>, NotationError> {
    let lines = notation::parse(text, log.ruleset)?;
    if lines.is_empty() {
        return Err(NotationError {
            line: 1,
            column: 1,
            message: "the turn holds no order: only blank lines and comments".to_owned(),
            suggestions: Vec::new(),
        });
    }
    let standard_turn = log.ruleset.rules().special.war.is_none();
    let planned = notation::plan(&lines, log.state.phase, standard_turn)?;
    // Named here, on its line, rather than by the command's count of orders.
    if let Some(over) = planned.get(MAX_ORDERS) {
        return Err(NotationError {
            line: over.line,
            column: 1,
            message: format!(
                "a turn makes at most {MAX_ORDERS} orders, the phase ends it needs included; \
                 this line makes the {}th: send the lines from here as another turn",
                MAX_ORDERS + 1
            ),
            suggestions: Vec::new(),
        });
    }
    Ok(planned)
}

/// Whether every order a text makes may be given outside its power's own turn: diplomacy,
/// going passive, lending and recalling, and standing orders ("These orders end no phase:
/// write them anywhere in your text, or send them on their own"). A mail holding only such
/// orders is taken from a reply address of any turn of the power (issue 51).
pub fn only_any_time_orders(planned: &[Planned]) -> bool {
    use warlog_rules::game::named::NamedOrder as O;
    !planned.is_empty()
        && planned.iter().all(|p| {
            matches!(
                p.order,
                O::OfferAgreement { .. }
                    | O::AcceptAgreement { .. }
                    | O::GrantPermission { .. }
                    | O::RevokePermission { .. }
                    | O::BreakAgreement { .. }
                    | O::GoPassive
                    | O::Lend { .. }
                    | O::Recall { .. }
                    | O::SetOrderOfLoss { .. }
                    | O::SetBreakOff { .. }
                    | O::SetStandingOrders { .. }
                    | O::SealedStandingOrders { .. }
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::SampleGame;
    use warlog_rules::dice::GameSeed;
    use warlog_rules::game::named::NamedOrder;
    use warlog_rules::ruleset::Ruleset;

    fn game() -> SampleGame {
        SampleGame::new(
            Ruleset::builtin("cutthroat").expect("cutthroat"),
            "turn-test",
            GameSeed::from_bytes([4; 32]),
            1,
        )
    }

    #[test]
    fn a_turn_of_one_purchase_ends_the_phases_before_it() {
        let planned = plan_turn(&game().log, "buy 2 INF\n").expect("plans");
        let orders: Vec<&NamedOrder> = planned.iter().map(|p| &p.order).collect();
        assert_eq!(
            orders.len(),
            3,
            "repairs and weapons end, then the purchase"
        );
        assert!(planned.iter().all(|p| p.line == 1));
    }

    #[test]
    fn a_turn_of_more_orders_than_a_command_takes_is_refused_at_the_line_that_passes_the_limit() {
        let text = "end phase\n".repeat(MAX_ORDERS + 5);
        let error = plan_turn(&game().log, &text).expect_err("too many");
        assert_eq!(error.line, MAX_ORDERS + 1);
    }

    #[test]
    fn standing_orders_alone_may_be_given_out_of_turn_and_a_purchase_may_not() {
        let log = &game().log;
        let standing = plan_turn(log, "standing orders; loss INF, ARM\n").expect("plans");
        assert!(only_any_time_orders(&standing));
        let purchase = plan_turn(log, "standing orders; loss INF\nbuy 2 INF\n").expect("plans");
        assert!(!only_any_time_orders(&purchase));
    }

    #[test]
    fn a_text_of_comments_alone_is_refused() {
        let error = plan_turn(&game().log, "# nothing yet\n\n").expect_err("no order");
        assert!(error.message.contains("no order"), "{error}");
    }
}
