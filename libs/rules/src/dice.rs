//! Dice a game master nobody has to trust (docs/design.md, "The dice").
//!
//! A game's 256-bit seed stays secret until the game ends; its commitment
//! `SHA-256(seed)` is published when the game is created. Each batch of rolls comes from a
//! PCG generator (`rand_pcg::Pcg64`) seeded with
//!
//! ```text
//! SHA-256( seed (32 bytes) || game id (UTF-8) || stream version (u64, big-endian) )
//! ```
//!
//! where the stream version is that of the event recording the rolls. A die is drawn from
//! the generator's `next_u32` by rejection: values of 4 294 967 292 and above are discarded,
//! and the die is `value % 6 + 1` (a die of other sides, as a dice table rolls, rejects the top
//! `2^32 mod sides` values and is `value % sides + 1`). Once the seed is revealed, anyone can
//! recompute every die;
//! `docs/audit/dice_reference.py` does it with nothing but Python's standard library.

use std::collections::VecDeque;
use std::fmt;

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64;
use sha2::{Digest, Sha256};

/// One die: 1 to 6.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "u8", into = "u8")]
pub struct Die(u8);

impl From<Die> for u8 {
    fn from(die: Die) -> u8 {
        die.0
    }
}

impl Die {
    pub fn value(self) -> u8 {
        self.0
    }
}

impl TryFrom<u8> for Die {
    type Error = String;
    fn try_from(value: u8) -> Result<Self, Self::Error> {
        if (1..=6).contains(&value) {
            Ok(Die(value))
        } else {
            Err(format!("a die shows 1 to 6, not {value}"))
        }
    }
}

impl fmt::Display for Die {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where dice come from. The engine only ever asks for the next die.
pub trait DiceSource {
    fn roll(&mut self) -> Die;
}

/// A game's secret seed.
#[derive(Clone, PartialEq, Eq)]
pub struct GameSeed([u8; 32]);

impl fmt::Debug for GameSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print a seed by accident: it must stay secret until revealed.
        f.write_str("GameSeed(..)")
    }
}

impl GameSeed {
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        GameSeed(bytes)
    }

    /// The bytes, for storing in the secrets table and for the reveal.
    pub fn expose(&self) -> &[u8; 32] {
        &self.0
    }

    /// `SHA-256(seed)`, published in `GameCreated`.
    pub fn commitment(&self) -> [u8; 32] {
        Sha256::digest(self.0).into()
    }

    /// Whether a revealed seed is the one committed to.
    pub fn matches(&self, commitment: &[u8; 32]) -> bool {
        &self.commitment() == commitment
    }

    /// The dice of the roll batch recorded at `stream_version` of game `game_id`.
    pub fn dice_for(&self, game_id: &str, stream_version: u64) -> SeededDice {
        let mut digest = Sha256::new();
        digest.update(self.0);
        digest.update(game_id.as_bytes());
        digest.update(stream_version.to_be_bytes());
        SeededDice {
            rng: Pcg64::from_seed(digest.finalize().into()),
        }
    }
}

/// The production dice: reproducible from the seed, the game id and the stream version.
#[derive(Debug, Clone)]
pub struct SeededDice {
    rng: Pcg64,
}

/// `u32` values from here on are rejected, so that `value % 6` is uniform: 2^32 mod 6 = 4.
const REJECT_FROM: u32 = u32::MAX - 3;

impl DiceSource for SeededDice {
    fn roll(&mut self) -> Die {
        loop {
            let value = self.rng.next_u32();
            if value < REJECT_FROM {
                return Die((value % 6) as u8 + 1);
            }
        }
    }
}

impl SeededDice {
    /// A die of `sides` faces (at least 1), 1 to `sides`, drawn as a six-sided one is: by
    /// rejecting the top values of `next_u32` that would make `value % sides` uneven. A die
    /// of six sides is the die [`DiceSource::roll`] draws.
    pub fn roll_sides(&mut self, sides: u32) -> u32 {
        let sides = sides.max(1);
        let uneven = ((u64::from(u32::MAX) + 1) % u64::from(sides)) as u32;
        loop {
            let value = self.rng.next_u32();
            if uneven == 0 || value < u32::MAX - uneven + 1 {
                return value % sides + 1;
            }
        }
    }
}

/// Dice that fall evenly, 1 to 6 in turn: for a preview, which shows what orders would do
/// without drawing on any game's seed (so it tells nothing of the dice to come).
#[derive(Debug, Clone, Default)]
pub struct EvenDice {
    next: u8,
}

impl DiceSource for EvenDice {
    fn roll(&mut self) -> Die {
        self.next = self.next % 6 + 1;
        Die(self.next)
    }
}

/// Dice given in advance, for tests and for replaying a published battle listing.
#[derive(Debug, Clone, Default)]
pub struct ScriptedDice {
    rolls: VecDeque<Die>,
    used: usize,
}

impl ScriptedDice {
    /// Panics on a value outside 1..=6: scripts are written by hand.
    pub fn new(values: &[u8]) -> Self {
        ScriptedDice {
            rolls: values
                .iter()
                .map(|&v| Die::try_from(v).unwrap_or_else(|e| panic!("scripted dice: {e}")))
                .collect(),
            used: 0,
        }
    }

    /// Dice not used yet.
    pub fn remaining(&self) -> usize {
        self.rolls.len()
    }
}

impl DiceSource for ScriptedDice {
    /// Panics when the script runs out: the test asked for more dice than it scripted.
    fn roll(&mut self) -> Die {
        self.used += 1;
        self.rolls
            .pop_front()
            .unwrap_or_else(|| panic!("scripted dice ran out at roll {}", self.used))
    }
}

/// Dice read back from a record, for auditors. Unlike [`ScriptedDice`] it never panics:
/// a tampered record may ask for more dice than it holds, and then this rolls 1s and says
/// so, and the replay is simply found not to match.
#[derive(Debug, Clone, Default)]
pub struct RecordedDice {
    rolls: VecDeque<Die>,
    overrun: bool,
}

impl RecordedDice {
    pub fn new(rolls: &[Die]) -> Self {
        RecordedDice {
            rolls: rolls.iter().copied().collect(),
            overrun: false,
        }
    }

    /// Whether every die was used and no more were asked for.
    pub fn used_exactly(&self) -> bool {
        self.rolls.is_empty() && !self.overrun
    }
}

impl DiceSource for RecordedDice {
    fn roll(&mut self) -> Die {
        self.rolls.pop_front().unwrap_or_else(|| {
            self.overrun = true;
            Die(1)
        })
    }
}

/// Passes dice through from another source and keeps every one, for the event that
/// records them.
#[derive(Debug)]
pub struct RecordingDice<'a, D: DiceSource + ?Sized> {
    inner: &'a mut D,
    rolled: Vec<Die>,
}

impl<'a, D: DiceSource + ?Sized> RecordingDice<'a, D> {
    pub fn new(inner: &'a mut D) -> Self {
        RecordingDice {
            inner,
            rolled: Vec::new(),
        }
    }

    /// Every die rolled, in order.
    pub fn into_rolled(self) -> Vec<Die> {
        self.rolled
    }
}

impl<D: DiceSource + ?Sized> DiceSource for RecordingDice<'_, D> {
    fn roll(&mut self) -> Die {
        let die = self.inner.roll();
        self.rolled.push(die);
        die
    }
}

/// Passes dice through from another source and counts them: a refused order must have drawn
/// none (a refusal that came after the dice would tell a player how they fell, for free).
#[derive(Debug)]
pub struct CountingDice<'a, D: DiceSource + ?Sized> {
    inner: &'a mut D,
    drawn: usize,
}

impl<'a, D: DiceSource + ?Sized> CountingDice<'a, D> {
    pub fn new(inner: &'a mut D) -> Self {
        CountingDice { inner, drawn: 0 }
    }

    /// How many dice were rolled through this source.
    pub fn drawn(&self) -> usize {
        self.drawn
    }
}

impl<D: DiceSource + ?Sized> DiceSource for CountingDice<'_, D> {
    fn roll(&mut self) -> Die {
        self.drawn += 1;
        self.inner.roll()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> GameSeed {
        GameSeed::from_bytes(*b"0123456789abcdef0123456789abcdef")
    }

    fn roll_n(source: &mut impl DiceSource, n: usize) -> Vec<u8> {
        (0..n).map(|_| source.roll().value()).collect()
    }

    #[test]
    fn a_six_sided_die_of_any_sides_is_the_games_die() {
        let mut any = seed().dice_for("42", 7);
        let any: Vec<u8> = (0..200).map(|_| any.roll_sides(6) as u8).collect();
        assert_eq!(any, roll_n(&mut seed().dice_for("42", 7), 200));
    }

    #[test]
    fn a_die_of_any_sides_falls_from_one_to_its_sides_and_reaches_them_all() {
        for sides in [1, 2, 3, 7, 12, 20, 100, 1000] {
            let mut dice = seed().dice_for("table", u64::from(sides));
            let rolls: Vec<u32> = (0..(sides * 40)).map(|_| dice.roll_sides(sides)).collect();
            assert!(
                rolls.iter().all(|r| (1..=sides).contains(r)),
                "{sides} sides"
            );
            let seen: std::collections::BTreeSet<u32> = rolls.into_iter().collect();
            assert_eq!(
                seen.len(),
                sides as usize,
                "every face of a {sides}-sided die"
            );
        }
    }

    #[test]
    fn the_same_seed_game_and_version_give_the_same_dice() {
        let a = roll_n(&mut seed().dice_for("42", 7), 50);
        let b = roll_n(&mut seed().dice_for("42", 7), 50);
        assert_eq!(a, b);
    }

    #[test]
    fn another_version_or_game_gives_other_dice() {
        let base = roll_n(&mut seed().dice_for("42", 7), 30);
        assert_ne!(base, roll_n(&mut seed().dice_for("42", 8), 30));
        assert_ne!(base, roll_n(&mut seed().dice_for("43", 7), 30));
    }

    #[test]
    fn the_derivation_is_pinned_so_published_games_stay_verifiable() {
        // If this changes, every published game's dice change with it: do not update it
        // without a new, versioned derivation.
        let dice = roll_n(&mut seed().dice_for("42", 7), 12);
        assert_eq!(dice, PINNED_DICE.to_vec());
    }

    /// Also what the independent, standard-library-only reimplementation
    /// `docs/audit/dice_reference.py` prints for this seed, game and version.
    const PINNED_DICE: [u8; 12] = [2, 3, 1, 5, 2, 6, 6, 2, 4, 3, 3, 6];

    #[test]
    fn a_twenty_sided_die_is_what_the_python_reference_prints() {
        // `python3 docs/audit/dice_reference.py <seed hex> table 20 10 20`
        let mut dice = seed().dice_for("table", 20);
        let rolled: Vec<u32> = (0..10).map(|_| dice.roll_sides(20)).collect();
        assert_eq!(rolled, [20, 2, 10, 20, 3, 7, 17, 5, 10, 7]);
    }

    #[test]
    fn every_face_comes_up_about_a_sixth_of_the_time() {
        let mut dice = seed().dice_for("uniformity", 1);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[usize::from(dice.roll().value() - 1)] += 1;
        }
        // Expected 10 000 each, standard deviation about 91: 5 deviations either way.
        for (face, count) in counts.iter().enumerate() {
            assert!(
                (9_544..=10_456).contains(count),
                "face {}: {count}",
                face + 1
            );
        }
    }

    #[test]
    fn a_revealed_seed_matches_its_commitment_and_no_other() {
        let commitment = seed().commitment();
        assert!(seed().matches(&commitment));
        let other = GameSeed::from_bytes([7; 32]);
        assert!(!other.matches(&commitment));
    }

    #[test]
    fn a_seed_is_never_printed() {
        assert_eq!(format!("{:?}", seed()), "GameSeed(..)");
    }

    #[test]
    fn scripted_dice_come_in_order_and_a_bad_face_is_refused() {
        let mut dice = ScriptedDice::new(&[1, 6, 3]);
        assert_eq!(roll_n(&mut dice, 3), vec![1, 6, 3]);
        assert_eq!(dice.remaining(), 0);
        assert!(Die::try_from(0).is_err());
        assert!(Die::try_from(7).is_err());
    }

    #[test]
    fn a_stored_die_reads_back_and_a_face_that_no_die_has_is_refused() {
        let die: Die = serde_json::from_str("4").expect("a die");
        assert_eq!(die.value(), 4);
        assert_eq!(serde_json::to_string(&die).expect("encodes"), "4");
        for bad in ["0", "7"] {
            let err = serde_json::from_str::<Die>(bad).expect_err("no such face");
            assert!(err.to_string().contains("1 to 6"), "{err}");
        }
    }
}

#[cfg(test)]
mod recorded_dice_tests {
    use super::*;

    #[test]
    fn counting_dice_pass_every_die_through_and_count_them() {
        let mut scripted = ScriptedDice::new(&[3, 5]);
        let mut counting = CountingDice::new(&mut scripted);
        assert_eq!(counting.drawn(), 0);
        assert_eq!((counting.roll(), counting.roll()), (Die(3), Die(5)));
        assert_eq!(counting.drawn(), 2);
    }

    #[test]
    fn recorded_dice_that_run_out_roll_ones_and_say_so_instead_of_panicking() {
        let dice = [Die(4), Die(2)];
        let mut recorded = RecordedDice::new(&dice);
        assert_eq!((recorded.roll(), recorded.roll()), (Die(4), Die(2)));
        assert!(recorded.used_exactly());
        assert_eq!(recorded.roll(), Die(1));
        assert!(!recorded.used_exactly());
        let mut unused = RecordedDice::new(&dice);
        unused.roll();
        assert!(!unused.used_exactly());
    }
}
