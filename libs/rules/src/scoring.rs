//! Scoring (docs/design.md, "Scoring"; seed cutthroat-rules-2000.txt, "Victory" and "Ranking
//! system"): IPC counts, percent gain, places with ties, ranking points and titles.
//!
//! Everything is exact. A percent gain is the fraction (final - initial) / initial, compared
//! by cross-multiplication, so two powers tie only when their gains are truly equal. Points
//! are fractions too, because tied powers split the points of the places they span.

use std::cmp::Ordering;
use std::fmt;

/// An exact fraction with a positive denominator, kept in lowest terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fraction {
    numerator: i64,
    denominator: i64,
}

impl Fraction {
    pub fn new(numerator: i64, denominator: i64) -> Option<Self> {
        if denominator == 0 {
            return None;
        }
        let sign = denominator.signum();
        let divisor = gcd(numerator.unsigned_abs(), denominator.unsigned_abs()).max(1) as i64;
        Some(Fraction {
            numerator: sign * numerator / divisor,
            denominator: denominator.abs() / divisor,
        })
    }

    pub fn whole(value: i64) -> Self {
        Fraction {
            numerator: value,
            denominator: 1,
        }
    }

    pub fn numerator(self) -> i64 {
        self.numerator
    }

    pub fn denominator(self) -> i64 {
        self.denominator
    }

    pub fn to_f64(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }
}

impl std::str::FromStr for Fraction {
    type Err = String;

    /// Reads what `Display` writes: `7`, `-5/24`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || format!("{text:?} is not a fraction like 3 or -5/24");
        let (numerator, denominator) = match text.split_once('/') {
            Some((n, d)) => (n, d),
            None => (text, "1"),
        };
        let numerator: i64 = numerator.trim().parse().map_err(|_| bad())?;
        let denominator: i64 = denominator.trim().parse().map_err(|_| bad())?;
        Fraction::new(numerator, denominator).ok_or_else(bad)
    }
}

impl std::ops::Add for Fraction {
    type Output = Fraction;
    fn add(self, other: Fraction) -> Fraction {
        // Both denominators are positive, so the product is never zero.
        Fraction::new(
            self.numerator * other.denominator + other.numerator * self.denominator,
            self.denominator * other.denominator,
        )
        .unwrap_or(self)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Ord for Fraction {
    fn cmp(&self, other: &Self) -> Ordering {
        // Denominators are positive, so cross-multiplying keeps the order.
        (i128::from(self.numerator) * i128::from(other.denominator))
            .cmp(&(i128::from(other.numerator) * i128::from(self.denominator)))
    }
}

impl PartialOrd for Fraction {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Fraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.denominator == 1 {
            write!(f, "{}", self.numerator)
        } else {
            write!(f, "{}/{}", self.numerator, self.denominator)
        }
    }
}

/// The IPC count of a power: the printed values of the territories it controls.
pub fn ipc_count<P: PartialEq>(
    power: &P,
    territories: impl IntoIterator<Item = (u32, Option<P>)>,
) -> u32 {
    territories
        .into_iter()
        .filter(|(_, controller)| controller.as_ref() == Some(power))
        .map(|(value, _)| value)
        .sum()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ScoringError {
    #[error("a power's initial IPC count must be positive to measure a gain from it")]
    NoInitialIpc,
    #[error("the ruleset awards points for {places} places, but {powers} powers were scored")]
    PlaceCount { places: usize, powers: usize },
}

/// (final - initial) / initial, exactly.
pub fn percent_gain(initial: u32, final_count: u32) -> Result<Fraction, ScoringError> {
    if initial == 0 {
        return Err(ScoringError::NoInitialIpc);
    }
    Fraction::new(
        i64::from(final_count) - i64::from(initial),
        i64::from(initial),
    )
    .ok_or(ScoringError::NoInitialIpc)
}

/// Ranking points by place, first place first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointsTable(Vec<i64>);

impl PointsTable {
    /// Cut-Throat: 1st +5, 2nd +3, 3rd +2, 4th -1, 5th -2.
    pub fn cut_throat() -> Self {
        PointsTable(vec![5, 3, 2, -1, -2])
    }

    pub fn new(points: Vec<i64>) -> Self {
        PointsTable(points)
    }

    pub fn places(&self) -> usize {
        self.0.len()
    }

    /// The points of `tied_with` powers sharing the places from `place` on: the average
    /// of those places' points ([`TIE_POLICY`]).
    pub fn shared(&self, place: usize, tied_with: usize) -> Fraction {
        let span = tied_with.max(1);
        let total: i64 = (place..place + span).map(|p| self.for_place(p)).sum();
        Fraction::new(total, span as i64).unwrap_or(Fraction::whole(0))
    }

    /// The points of a place (1 for first); 0 beyond the table.
    pub fn for_place(&self, place: usize) -> i64 {
        place
            .checked_sub(1)
            .and_then(|i| self.0.get(i))
            .copied()
            .unwrap_or(0)
    }
}

/// How tied powers are placed; stated in every result so that no reader has to guess.
pub const TIE_POLICY: &str =
    "Tied powers share the places they span and each gets the average of those places' points";

/// One power's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement<P> {
    pub power: P,
    pub initial_ipc: u32,
    pub final_ipc: u32,
    pub percent_gain: Fraction,
    /// The best place of the span it shares (1 for first).
    pub place: usize,
    /// The places it shares with powers of equal gain (1 when not tied).
    pub tied_with: usize,
    pub points: Fraction,
}

/// Places powers by percent gain, highest first; tied powers share the places they span
/// and split those places' points evenly ([`TIE_POLICY`]).
pub fn placements<P: Clone>(
    results: &[(P, u32, u32)],
    points: &PointsTable,
) -> Result<Vec<Placement<P>>, ScoringError> {
    ranked(results, points, |_, gain| gain, percent_gain)
}

/// Places powers by the zone points (printed values) they hold at the end, highest first
/// (the "War" rules: the last takes the "Dan Quayle reward"). Gains are reported but do
/// not order.
pub fn placements_by_zone_points<P: Clone>(
    results: &[(P, u32, u32)],
    points: &PointsTable,
) -> Result<Vec<Placement<P>>, ScoringError> {
    // A War player may start with bases worth nothing: no gain to report, and none needed.
    let reported = |initial, final_count| {
        percent_gain(initial, final_count).or(Fraction::new(0, 1).ok_or(ScoringError::NoInitialIpc))
    };
    ranked(results, points, |i, _| results[i].2, reported)
}

/// Places a side's powers by the game's outcome: the winners (`won`) share the first
/// places, the others the rest (AAP Historical's survival victory). Gains are reported
/// but do not order.
pub fn placements_by_side<P: Clone>(
    results: &[(P, u32, u32)],
    won: &[bool],
    points: &PointsTable,
) -> Result<Vec<Placement<P>>, ScoringError> {
    ranked(
        results,
        points,
        |i, _| won.get(i).copied().unwrap_or(false),
        percent_gain,
    )
}

/// Places powers by `key` (of each one's index and percent gain), highest first; equal
/// keys share the places they span and split their points.
fn ranked<P: Clone, K: Ord + Copy>(
    results: &[(P, u32, u32)],
    points: &PointsTable,
    key: impl Fn(usize, Fraction) -> K,
    gain_of: impl Fn(u32, u32) -> Result<Fraction, ScoringError>,
) -> Result<Vec<Placement<P>>, ScoringError> {
    if results.len() != points.places() {
        return Err(ScoringError::PlaceCount {
            places: points.places(),
            powers: results.len(),
        });
    }
    let mut scored = results
        .iter()
        .enumerate()
        .map(|(i, (power, initial, final_count))| {
            let gain = gain_of(*initial, *final_count)?;
            Ok((power.clone(), *initial, *final_count, gain, key(i, gain)))
        })
        .collect::<Result<Vec<_>, ScoringError>>()?;
    // A stable sort keeps the input order among equals, so output order is deterministic.
    scored.sort_by_key(|s| std::cmp::Reverse(s.4));
    let mut placed = Vec::with_capacity(scored.len());
    let mut start = 0;
    while start < scored.len() {
        let rank = scored[start].4;
        let end = scored[start..]
            .iter()
            .position(|s| s.4 != rank)
            .map_or(scored.len(), |offset| start + offset);
        let span = end - start;
        let each = points.shared(start + 1, span);
        for (power, initial, final_count, gain, _) in scored[start..end].iter().cloned() {
            placed.push(Placement {
                power,
                initial_ipc: initial,
                final_ipc: final_count,
                percent_gain: gain,
                place: start + 1,
                tied_with: span,
                points: each,
            });
        }
        start = end;
    }
    Ok(placed)
}

/// The Cut-Throat rank titles, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Title {
    Enlisted,
    SergeantOfRebelForces,
    CommanderOfMinorSkirmishes,
    LeaderOfDomesticPrinciple,
    BrigadierOfForeignWars,
    GeneralOfGlobalDomination,
    CommanderOfCutThroat,
}

impl Title {
    pub fn name(self) -> &'static str {
        match self {
            Title::Enlisted => "Enlisted",
            Title::SergeantOfRebelForces => "Sergeant of Rebel Forces",
            Title::CommanderOfMinorSkirmishes => "Commander of Minor Skirmishes",
            Title::LeaderOfDomesticPrinciple => "Leader of Domestic Principle",
            Title::BrigadierOfForeignWars => "Brigadier of Foreign Wars",
            Title::GeneralOfGlobalDomination => "General of Global Domination",
            Title::CommanderOfCutThroat => "Commander of CT",
        }
    }

    /// The title a total earns on its own. The seed's bands are whole numbers (0-2, 3-5,
    /// ...); a fractional total from a shared place counts by the band it has reached, so
    /// 2 1/2 is still Enlisted. 23 and more is General here: only [`assign_titles`] can make
    /// someone Commander of CT, there being only one.
    pub fn for_total(total: Fraction) -> Title {
        let at_least = |n: i64| total >= Fraction::whole(n);
        if at_least(18) {
            Title::GeneralOfGlobalDomination
        } else if at_least(13) {
            Title::BrigadierOfForeignWars
        } else if at_least(9) {
            Title::LeaderOfDomesticPrinciple
        } else if at_least(6) {
            Title::CommanderOfMinorSkirmishes
        } else if at_least(3) {
            Title::SergeantOfRebelForces
        } else {
            Title::Enlisted
        }
    }
}

/// A player's standing for titles: total points, and the position in the event log at which
/// the player reached that total (for breaking a tie at the top).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing<P> {
    pub player: P,
    pub total: Fraction,
    pub reached_at: u64,
}

impl Title {
    /// The points the one Commander of CT needs at least.
    pub const COMMANDER_AT: i64 = 23;

    /// The title of a player with `total` in a ladder (a scope: a ruleset, lifetime or a
    /// season) whose leader is `leads`: its highest total, a tie going to whoever reached
    /// that total first. The leader is the one Commander of CT if at 23 or more; everyone
    /// else has the title of their band.
    pub fn in_ladder(total: Fraction, leads: bool) -> Title {
        if leads && total >= Fraction::whole(Title::COMMANDER_AT) {
            Title::CommanderOfCutThroat
        } else {
            Title::for_total(total)
        }
    }
}

/// Titles for all players: each by its band, and one Commander of CT, the highest total of
/// at least 23, a tie going to whoever reached that total first.
pub fn assign_titles<P: Clone>(standings: &[Standing<P>]) -> Vec<(P, Title)> {
    let leader = standings
        .iter()
        .enumerate()
        .max_by(|(_, a), (_, b)| {
            a.total
                .cmp(&b.total)
                .then_with(|| b.reached_at.cmp(&a.reached_at))
        })
        .map(|(index, _)| index);
    standings
        .iter()
        .enumerate()
        .map(|(index, s)| {
            (
                s.player.clone(),
                Title::in_ladder(s.total, Some(index) == leader),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frac(n: i64, d: i64) -> Fraction {
        Fraction::new(n, d).expect("non-zero denominator")
    }

    #[test]
    fn a_power_counts_only_the_territories_it_controls() {
        let board = [
            (8, Some("Russia")),
            (3, Some("Russia")),
            (10, Some("Germany")),
            (0, None),
        ];
        assert_eq!(ipc_count(&"Russia", board), 11);
        assert_eq!(ipc_count(&"Japan", board), 0);
    }

    #[test]
    fn zone_points_place_by_what_is_held_at_the_end_and_ties_share() {
        // ann grew the most but holds the least: zone points ignore the gain.
        let results = [
            ("ann", 2, 8),
            ("bob", 30, 31),
            ("cy", 20, 31),
            ("di", 10, 12),
            ("ed", 40, 9),
        ];
        let placed =
            placements_by_zone_points(&results, &PointsTable::cut_throat()).expect("placed");
        let order: Vec<(&str, usize)> = placed.iter().map(|p| (p.power, p.place)).collect();
        assert_eq!(
            order,
            [("bob", 1), ("cy", 1), ("di", 3), ("ed", 4), ("ann", 5)]
        );
        assert_eq!(placed[0].points, frac(4, 1), "(5 + 3) / 2");
        assert_eq!(placed[4].points, frac(-2, 1), "the Dan Quayle reward");
    }

    #[test]
    fn percent_gain_is_exact() {
        assert_eq!(percent_gain(24, 30), Ok(frac(1, 4)));
        assert_eq!(percent_gain(30, 15), Ok(frac(-1, 2)));
        assert_eq!(percent_gain(0, 5), Err(ScoringError::NoInitialIpc));
        // 32 -> 40 and 36 -> 45 are both +25%: a true tie, whatever floats would say.
        assert_eq!(percent_gain(32, 40), percent_gain(36, 45));
    }

    #[test]
    fn given_five_powers_with_two_tied_for_second_when_placed_then_they_share_places_two_and_three()
    {
        // Russia 24 -> 30 (+25%), Germany 32 -> 40 (+25%), UK 30 -> 27 (-10%),
        // Japan 25 -> 35 (+40%), USA 36 -> 18 (-50%).
        let results = [
            ("Russia", 24, 30),
            ("Germany", 32, 40),
            ("United Kingdom", 30, 27),
            ("Japan", 25, 35),
            ("United States", 36, 18),
        ];
        let placed = placements(&results, &PointsTable::cut_throat()).expect("placed");
        let summary: Vec<(&str, usize, usize, Fraction)> = placed
            .iter()
            .map(|p| (p.power, p.place, p.tied_with, p.points))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("Japan", 1, 1, Fraction::whole(5)),
                ("Russia", 2, 2, frac(5, 2)),
                ("Germany", 2, 2, frac(5, 2)),
                ("United Kingdom", 4, 1, Fraction::whole(-1)),
                ("United States", 5, 1, Fraction::whole(-2)),
            ]
        );
        let total = placed
            .iter()
            .fold(Fraction::whole(0), |acc, p| acc + p.points);
        assert_eq!(
            total,
            Fraction::whole(7),
            "ties never create or destroy points"
        );
    }

    #[test]
    fn three_powers_tied_for_third_split_two_minus_one_minus_two() {
        let results = [
            ("A", 10, 20),
            ("B", 10, 15),
            ("C", 10, 10),
            ("D", 20, 20),
            ("E", 5, 5),
        ];
        let placed = placements(&results, &PointsTable::cut_throat()).expect("placed");
        let third: Vec<_> = placed.iter().filter(|p| p.place == 3).collect();
        assert_eq!(third.len(), 3);
        assert!(third
            .iter()
            .all(|p| p.points == frac(-1, 3) && p.tied_with == 3));
    }

    #[test]
    fn a_result_with_the_wrong_number_of_powers_is_refused() {
        let err = placements(&[("A", 10, 12)], &PointsTable::cut_throat()).expect_err("one power");
        assert_eq!(
            err,
            ScoringError::PlaceCount {
                places: 5,
                powers: 1
            }
        );
    }

    #[test]
    fn titles_change_at_every_threshold() {
        let cases = [
            (-7, Title::Enlisted),
            (0, Title::Enlisted),
            (2, Title::Enlisted),
            (3, Title::SergeantOfRebelForces),
            (5, Title::SergeantOfRebelForces),
            (6, Title::CommanderOfMinorSkirmishes),
            (8, Title::CommanderOfMinorSkirmishes),
            (9, Title::LeaderOfDomesticPrinciple),
            (12, Title::LeaderOfDomesticPrinciple),
            (13, Title::BrigadierOfForeignWars),
            (17, Title::BrigadierOfForeignWars),
            (18, Title::GeneralOfGlobalDomination),
            (22, Title::GeneralOfGlobalDomination),
            (40, Title::GeneralOfGlobalDomination),
        ];
        for (total, title) in cases {
            assert_eq!(Title::for_total(Fraction::whole(total)), title, "{total}");
        }
        assert_eq!(Title::for_total(frac(5, 2)), Title::Enlisted);
        assert_eq!(Title::for_total(frac(17, 3)), Title::SergeantOfRebelForces);
    }

    #[test]
    fn of_two_players_above_23_only_the_higher_is_commander_of_ct() {
        let standings = [
            Standing {
                player: "ann",
                total: Fraction::whole(25),
                reached_at: 90,
            },
            Standing {
                player: "bob",
                total: Fraction::whole(31),
                reached_at: 120,
            },
            Standing {
                player: "cy",
                total: Fraction::whole(4),
                reached_at: 10,
            },
        ];
        assert_eq!(
            assign_titles(&standings),
            vec![
                ("ann", Title::GeneralOfGlobalDomination),
                ("bob", Title::CommanderOfCutThroat),
                ("cy", Title::SergeantOfRebelForces),
            ]
        );
    }

    #[test]
    fn a_tie_at_the_top_goes_to_whoever_reached_the_total_first() {
        let standings = [
            Standing {
                player: "late",
                total: Fraction::whole(24),
                reached_at: 500,
            },
            Standing {
                player: "early",
                total: Fraction::whole(24),
                reached_at: 300,
            },
        ];
        let titles = assign_titles(&standings);
        assert_eq!(titles[0], ("late", Title::GeneralOfGlobalDomination));
        assert_eq!(titles[1], ("early", Title::CommanderOfCutThroat));
    }

    #[test]
    fn the_ladders_leader_is_commander_of_ct_from_23_and_others_go_by_their_band() {
        // Given totals around the Commander's 23
        for (total, leads, title) in [
            (23, true, Title::CommanderOfCutThroat),
            (40, true, Title::CommanderOfCutThroat),
            (22, true, Title::GeneralOfGlobalDomination),
            (30, false, Title::GeneralOfGlobalDomination),
            (2, true, Title::Enlisted),
        ] {
            // When the title is given in a ladder, the player leading it or not,
            // Then only a leader at 23 or more commands
            assert_eq!(
                Title::in_ladder(Fraction::whole(total), leads),
                title,
                "{total} leading: {leads}"
            );
        }
    }

    #[test]
    fn nobody_is_commander_of_ct_below_23() {
        let standings = [Standing {
            player: "ann",
            total: Fraction::whole(22),
            reached_at: 1,
        }];
        assert_eq!(
            assign_titles(&standings),
            vec![("ann", Title::GeneralOfGlobalDomination)]
        );
    }
}
