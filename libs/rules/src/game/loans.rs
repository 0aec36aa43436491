//! Cut-Throat's war loans from the Swiss Bank: applying once, repaying at will, and the
//! instalment each turn.

use super::*;

/// A war loan from the Swiss Bank (Cut-Throat, "War Loans").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarLoan {
    pub owed: u32,
    /// Repayment starts in the round after this one.
    pub granted_in_round: u32,
}

/// A war loan's size by the die rolled for it: 1-2 refused, then 15, 20, 25, 30 IPC.
pub fn war_loan_amount(die: Die) -> u32 {
    match die.value() {
        3 => 15,
        4 => 20,
        5 => 25,
        6 => 30,
        _ => 0,
    }
}

/// What a war loan costs a turn: 3 IPC of principal (less if less is owed) and 1 interest.
pub(crate) const LOAN_INSTALMENT: u32 = 3;
pub(crate) const LOAN_INTEREST: u32 = 1;

pub(crate) const WAR_LOANS: &str = "Cut-Throat, War Loans";

pub(crate) fn apply_for_war_loan(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if !matches!(state.phase, Phase::Repairs | Phase::WeaponsDevelopment) {
        return Err(violation(
            ViolationCode::WarLoanTiming,
            WAR_LOANS,
            "a war loan is applied for at the start of a turn, before purchasing",
        ));
    }
    if state.loan_applied.contains(&power) {
        return Err(violation(
            ViolationCode::WarLoanUsed,
            WAR_LOANS,
            format!("{power} has already applied for its one war loan"),
        ));
    }
    let now = state.ipc_count(rules.board, power);
    let start = state.starting_ipc.get(&power).copied().unwrap_or(0);
    if now * 2 > start {
        return Err(violation(
            ViolationCode::WarLoanNotNeeded,
            WAR_LOANS,
            format!("{power} holds {now} IPC of its starting {start}; a loan needs 50% or less"),
        ));
    }
    let die = dice.roll();
    Ok(vec![GameEvent::WarLoanApplied {
        power,
        die,
        granted: war_loan_amount(die),
    }])
}

pub(crate) fn repay_war_loan(
    state: &GameState,
    power: Power,
    amount: u32,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let owed = state.loans.get(&power).map_or(0, |l| l.owed);
    if owed == 0 {
        return Err(violation(
            ViolationCode::NoWarLoan,
            WAR_LOANS,
            format!("{power} owes nothing"),
        ));
    }
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    if amount == 0 || amount > owed || amount > treasury {
        return Err(violation(
            ViolationCode::BadRepayment,
            WAR_LOANS,
            format!("a repayment is between 1 and what is owed ({owed}) and held ({treasury}), not {amount}"),
        ));
    }
    Ok(vec![GameEvent::WarLoanRepaid {
        power,
        principal: amount,
        interest: 0,
    }])
}

/// The turn's instalment of a war loan granted in an earlier round: interest first, then
/// principal, as far as the treasury goes.
pub(crate) fn loan_instalment(state: &GameState, power: Power) -> Option<GameEvent> {
    let loan = state.loans.get(&power)?;
    if loan.owed == 0 || loan.granted_in_round >= state.round {
        return None;
    }
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    let interest = LOAN_INTEREST.min(treasury);
    let principal = LOAN_INSTALMENT.min(loan.owed).min(treasury - interest);
    Some(GameEvent::WarLoanRepaid {
        power,
        principal,
        interest,
    })
}
