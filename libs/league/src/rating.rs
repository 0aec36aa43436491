//! The skill ladder: the Weng-Lin Bayesian rating, Plackett-Luce model (the model OpenSkill
//! implements; Weng & Lin 2011, Algorithm 4), for free-for-all games of one player a side.
//!
//! Each player is a Gaussian belief about their skill, `mu` ± `sigma`. A finished game's
//! places update every player at the table at once; ties share a rank, and the model then
//! treats the tied players symmetrically (each rank's terms are divided by how many share
//! it). The ladder sorts by the ordinal `mu - 3 sigma`: a skill the player very likely
//! exceeds, so one lucky game does not put a newcomer on top.

use serde::{Deserialize, Serialize};

/// One player's skill belief.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub mu: f64,
    pub sigma: f64,
}

impl Rating {
    /// The conservative estimate the ladder sorts by.
    pub fn ordinal(self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

/// The model's constants. [`SkillModel::default`] is OpenSkill's: mu 25, sigma 25/3,
/// beta 25/6, kappa 0.0001, and tau 25/300.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SkillModel {
    /// A newcomer's mean skill.
    pub mu: f64,
    /// A newcomer's uncertainty.
    pub sigma: f64,
    /// The performance noise of one game: how far a player's showing strays from their skill.
    pub beta: f64,
    /// The dynamics: added (in quadrature) to every sigma before a game, so ratings keep
    /// moving over a long career. 0 gives the pure model, as the reference tests use.
    pub tau: f64,
    /// The floor on the factor that shrinks sigma, so sigma never collapses to 0.
    pub kappa: f64,
}

impl Default for SkillModel {
    fn default() -> Self {
        SkillModel {
            mu: 25.0,
            sigma: 25.0 / 3.0,
            beta: 25.0 / 6.0,
            tau: 25.0 / 300.0,
            kappa: 0.0001,
        }
    }
}

impl SkillModel {
    /// The default model with another tau (0 switches the dynamics off).
    pub fn with_tau(tau: f64) -> Self {
        SkillModel {
            tau,
            ..SkillModel::default()
        }
    }

    /// A newcomer's rating.
    pub fn newcomer(&self) -> Rating {
        Rating {
            mu: self.mu,
            sigma: self.sigma,
        }
    }

    /// The ratings after one game. `ranks[i]` is player `i`'s place (1 is best; equal
    /// places are ties; gaps do not matter, only the order). A game of fewer than two
    /// players teaches nothing and changes nothing.
    ///
    /// # Panics
    /// If `ratings` and `ranks` differ in length: a caller's bug, not an input error.
    pub fn rate(&self, ratings: &[Rating], ranks: &[usize]) -> Vec<Rating> {
        assert_eq!(ratings.len(), ranks.len(), "one rank per rating");
        if ratings.len() < 2 {
            return ratings.to_vec();
        }
        let before: Vec<Rating> = ratings
            .iter()
            .map(|r| Rating {
                mu: r.mu,
                sigma: (r.sigma * r.sigma + self.tau * self.tau).sqrt(),
            })
            .collect();
        let beta_sq = self.beta * self.beta;
        let c = before
            .iter()
            .map(|r| r.sigma * r.sigma + beta_sq)
            .sum::<f64>()
            .sqrt();
        let strength: Vec<f64> = before.iter().map(|r| (r.mu / c).exp()).collect();
        // For each player q: the strengths of everyone placed no better than q (the field q
        // was "chosen" from), and how many share q's place.
        let field: Vec<f64> = ranks
            .iter()
            .map(|&rq| {
                ranks
                    .iter()
                    .zip(&strength)
                    .filter(|(&ri, _)| ri >= rq)
                    .map(|(_, s)| s)
                    .sum()
            })
            .collect();
        let sharing: Vec<f64> = ranks
            .iter()
            .map(|&rq| ranks.iter().filter(|&&ri| ri == rq).count() as f64)
            .collect();
        before
            .iter()
            .enumerate()
            .map(|(i, rating)| {
                let mut omega = 0.0;
                let mut delta = 0.0;
                for q in 0..before.len() {
                    if ranks[q] > ranks[i] {
                        continue;
                    }
                    let quotient = strength[i] / field[q];
                    omega += if q == i { 1.0 - quotient } else { -quotient } / sharing[q];
                    delta += quotient * (1.0 - quotient) / sharing[q];
                }
                let sigma_sq = rating.sigma * rating.sigma;
                let gamma = rating.sigma / c;
                let omega = omega * sigma_sq / c;
                let delta = delta * sigma_sq / (c * c) * gamma;
                Rating {
                    mu: rating.mu + omega,
                    sigma: rating.sigma * (1.0 - delta).max(self.kappa).sqrt(),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(got: &[Rating], want: &[(f64, f64)]) {
        assert_eq!(got.len(), want.len());
        for (g, (mu, sigma)) in got.iter().zip(want) {
            assert!(
                (g.mu - mu).abs() < 1e-9 && (g.sigma - sigma).abs() < 1e-9,
                "got {g:?}, want mu {mu} sigma {sigma}"
            );
        }
    }

    fn newcomers(n: usize) -> Vec<Rating> {
        vec![SkillModel::default().newcomer(); n]
    }

    // The reference values are those of openskill.js's Plackett-Luce tests
    // (src/models/__tests__/plackett-luce.test.ts, "5p FFA" and "3p FFA"), computed there
    // with its defaults and no tau; openskill.py's tests publish the same figures.
    #[test]
    fn five_newcomers_placed_one_to_five_get_the_openskill_reference_ratings() {
        let rated = SkillModel::with_tau(0.0).rate(&newcomers(5), &[1, 2, 3, 4, 5]);
        assert_close(
            &rated,
            &[
                (27.666666666666668, 8.290556877154474),
                (26.833333333333332, 8.240145629781066),
                (25.72222222222222, 8.179996679645559),
                (24.055555555555557, 8.111796013701358),
                (20.72222222222222, 8.111796013701358),
            ],
        );
    }

    #[test]
    fn three_and_two_newcomers_get_the_openskill_reference_ratings() {
        let model = SkillModel::with_tau(0.0);
        assert_close(
            &model.rate(&newcomers(3), &[1, 2, 3]),
            &[
                (27.868876552746237, 8.204837030780652),
                (25.717219138186557, 8.057829747583874),
                (21.413904309067206, 8.057829747583874),
            ],
        );
        assert_close(
            &model.rate(&newcomers(2), &[1, 2]),
            &[
                (27.63523138347365, 8.065506316323548),
                (22.36476861652635, 8.065506316323548),
            ],
        );
    }

    #[test]
    fn the_order_of_the_players_in_the_call_does_not_matter_only_their_places() {
        let model = SkillModel::with_tau(0.0);
        let rated = model.rate(&newcomers(5), &[3, 5, 1, 4, 2]);
        let sorted = model.rate(&newcomers(5), &[1, 2, 3, 4, 5]);
        for (i, place) in [3, 5, 1, 4, 2].into_iter().enumerate() {
            assert_eq!(rated[i], sorted[place - 1]);
        }
    }

    // Ties as the model defines them: the reference figures are openskill.py 6.2.0's
    // (`PlackettLuce(tau=0).rate(..., ranks=...)`, run once to write this test).
    #[test]
    fn tied_players_get_the_openskill_reference_ratings_for_ties() {
        let model = SkillModel::with_tau(0.0);
        assert_close(
            &model.rate(&newcomers(5), &[1, 2, 2, 4, 5]),
            &[
                (27.666666666666668, 8.290556877154474),
                (25.166666666666668, 8.240145629781066),
                (25.166666666666668, 8.240145629781066),
                (25.166666666666668, 8.172446933990388),
                (21.833333333333332, 8.172446933990388),
            ],
        );
        assert_close(
            &model.rate(&newcomers(5), &[1, 1, 3, 3, 5]),
            &[
                (26.0, 8.290556877154474),
                (26.0, 8.290556877154474),
                (24.88888888888889, 8.230776331084796),
                (24.88888888888889, 8.230776331084796),
                (23.22222222222222, 8.230776331084796),
            ],
        );
        assert_close(
            &model.rate(&newcomers(5), &[1, 1, 1, 1, 1]),
            &[(25.0, 8.290556877154474); 5],
        );
    }

    #[test]
    fn tau_widens_sigma_before_the_game_and_one_player_changes_nothing() {
        let with_tau = SkillModel::default().rate(&newcomers(5), &[1, 2, 3, 4, 5]);
        let without = SkillModel::with_tau(0.0).rate(&newcomers(5), &[1, 2, 3, 4, 5]);
        assert!(with_tau[0].sigma > without[0].sigma);
        let alone = SkillModel::default().rate(&newcomers(1), &[1]);
        assert_eq!(alone, newcomers(1));
    }
}
