//! Match statistics: score, Elo difference with a 95% interval, likelihood of superiority, and
//! the sequential probability ratio test (GSPRT) that stops a match once it has decided.
//!
//! Pure functions over win/draw/loss counts. The interval and the log-likelihood ratio use the
//! normal approximation of the trinomial (win/draw/loss) score distribution; Elo is the logistic
//! Elo of the mean score.

use std::fmt;

/// The two-sided 95% quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wins, draws and losses of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Wdl {
    /// Counts from wins, draws and losses.
    pub const fn new(wins: u32, draws: u32, losses: u32) -> Wdl {
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The same games seen from the other side.
    pub fn flipped(&self) -> Wdl {
        Wdl::new(self.losses, self.draws, self.wins)
    }

    /// Points with a win counted 1 and a draw 1/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Mean score per game in 0..=1 (`None` before the first game).
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    /// Variance of the score of one game around the mean score (`None` before the first game).
    pub fn variance(&self) -> Option<f64> {
        let s = self.score()?;
        let n = self.games() as f64;
        Some(
            (self.wins as f64 * (1.0 - s).powi(2)
                + self.draws as f64 * (0.5 - s).powi(2)
                + self.losses as f64 * s.powi(2))
                / n,
        )
    }
}

/// Mean score of one game and its variance, from (possibly fractional) counts of wins, draws and
/// losses.
fn score_and_variance(w: f64, d: f64, l: f64) -> (f64, f64) {
    let n = w + d + l;
    let s = (w + 0.5 * d) / n;
    let var = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n;
    (s, var)
}

/// The logistic Elo difference that gives an expected score `s` (±infinity at 1 and 0).
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        // adding 0 turns the -0 of an even score into 0
        -400.0 * (1.0 / s - 1.0).log10() + 0.0
    }
}

/// The expected score of a side that is `elo` logistic Elo stronger.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An Elo difference with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The Elo difference of the mean score.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl EloEstimate {
    /// Half the width of the interval, as the `+/-` figure usually printed.
    pub fn margin(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

impl fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let num = |x: f64| {
            if x.is_finite() {
                format!("{:+.1}", x + 0.0)
            } else if x > 0.0 {
                "+inf".to_string()
            } else {
                "-inf".to_string()
            }
        };
        let m = self.margin();
        let margin = if m.is_finite() {
            format!("{m:.1}")
        } else {
            "inf".to_string()
        };
        write!(
            f,
            "{} +/- {} (95% interval {} to {})",
            num(self.elo),
            margin,
            num(self.low),
            num(self.high)
        )
    }
}

/// The Elo difference of the results and its 95% interval (`None` before the first game).
pub fn elo(wdl: &Wdl) -> Option<EloEstimate> {
    let s = wdl.score()?;
    let se = (wdl.variance()? / wdl.games() as f64).sqrt();
    Some(EloEstimate {
        elo: elo_from_score(s),
        low: elo_from_score(s - Z95 * se),
        high: elo_from_score(s + Z95 * se),
    })
}

/// Likelihood of superiority: the probability that the side is the stronger one, from wins and
/// losses (draws say nothing about it). 0.5 when no game was decisive.
pub fn los(wdl: &Wdl) -> f64 {
    let decisive = (wdl.wins + wdl.losses) as f64;
    if decisive == 0.0 {
        return 0.5;
    }
    let x = (wdl.wins as f64 - wdl.losses as f64) / (2.0 * decisive).sqrt();
    0.5 * (1.0 + erf(x))
}

/// The error function (Abramowitz and Stegun 7.1.26 is too coarse for LOS near 1, so this uses
/// the series for small arguments and the continued fraction for large ones).
fn erf(x: f64) -> f64 {
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 2.5 {
        // Taylor series: erf x = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let mut sum = 0.0f64;
        let mut term = x;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs().max(1e-300) || n < 3.0 {
            sum += term / (2.0 * n + 1.0);
            n += 1.0;
            term *= -x * x / n;
            if n > 200.0 {
                break;
            }
        }
        (2.0 / std::f64::consts::PI.sqrt() * sum).clamp(-1.0, 1.0)
    } else {
        // erfc x = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + 2/(x + ...)))))
        let mut f = x;
        for k in (1..60).rev() {
            f = x + (k as f64 / 2.0) / f;
        }
        1.0 - (-x * x).exp() / std::f64::consts::PI.sqrt() / f
    }
}

/// How the SPRT's Elo hypotheses are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EloModel {
    /// Logistic Elo: a difference `e` means an expected score of `1 / (1 + 10^(-e/400))`.
    #[default]
    Logistic,
    /// Normalized Elo: `(score - 1/2) / sigma * 800 / ln 10`, with sigma the per-game standard
    /// deviation of the score (independent of the draw rate).
    Normalized,
}

/// An SPRT of H0: Elo = `elo0` against H1: Elo = `elo1`, with error rates `alpha` and `beta`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative hypothesis.
    pub elo1: f64,
    /// The probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The probability of accepting H0 when H1 holds.
    pub beta: f64,
    /// How the two Elo values are read.
    pub model: EloModel,
}

/// What an SPRT says after some games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// The log-likelihood ratio fell to the lower bound: H0 (`elo0`) is accepted.
    H0,
    /// The log-likelihood ratio reached the upper bound: H1 (`elo1`) is accepted.
    H1,
    /// Neither bound reached yet.
    Continue,
}

impl Sprt {
    /// Lower and upper bounds of the log-likelihood ratio: `ln(beta/(1-alpha))` and
    /// `ln((1-beta)/alpha)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The generalized log-likelihood ratio of the results, by the normal approximation:
    /// `N (s1 - s0) (2s - s0 - s1) / (2 var)`, with `s` the mean score, `var` the per-game
    /// variance and `s0`, `s1` the scores the two hypotheses expect. 0 while the variance is 0.
    pub fn llr(&self, wdl: &Wdl) -> f64 {
        if wdl.games() == 0 {
            return 0.0;
        }
        // While a result has not occurred yet (say, all wins so far) the sample variance is
        // zero or too small to trust; counting half a game of each result as a prior keeps the
        // ratio finite and lets a one-sided run decide.
        let (s, var) = if wdl.wins == 0 || wdl.draws == 0 || wdl.losses == 0 {
            score_and_variance(
                wdl.wins as f64 + 0.5,
                wdl.draws as f64 + 0.5,
                wdl.losses as f64 + 0.5,
            )
        } else {
            score_and_variance(wdl.wins as f64, wdl.draws as f64, wdl.losses as f64)
        };
        let n = wdl.games() as f64;
        let (s0, s1) = match self.model {
            EloModel::Logistic => (score_from_elo(self.elo0), score_from_elo(self.elo1)),
            EloModel::Normalized => {
                let k = var.sqrt() * std::f64::consts::LN_10 / 800.0;
                (0.5 + self.elo0 * k, 0.5 + self.elo1 * k)
            }
        };
        n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }

    /// The decision for a log-likelihood ratio.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        let (low, high) = self.bounds();
        if llr >= high {
            SprtDecision::H1
        } else if llr <= low {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() <= eps
    }

    #[test]
    fn elo_of_known_scores() {
        assert!(close(elo_from_score(0.6), 70.4365, 1e-3));
        assert!(close(elo_from_score(0.75), 190.8485, 1e-3));
        assert!(close(elo_from_score(0.25), -190.8485, 1e-3));
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!(elo_from_score(0.5).is_sign_positive(), "no -0 in reports");
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        for e in [-300.0, -5.0, 0.0, 35.0, 400.0] {
            assert!(close(elo_from_score(score_from_elo(e)), e, 1e-9));
        }
        // 400 Elo is odds of 10 to 1
        assert!(close(score_from_elo(400.0), 10.0 / 11.0, 1e-12));
    }

    #[test]
    fn interval_by_the_trinomial_normal_approximation() {
        // 60 wins, 20 draws, 20 losses: score 0.7, per-game variance 0.16
        let w = Wdl::new(60, 20, 20);
        assert!(close(w.score().unwrap(), 0.7, 1e-12));
        assert!(close(w.variance().unwrap(), 0.16, 1e-12));
        let e = elo(&w).unwrap();
        assert!(close(e.elo, 147.1907, 1e-3), "{e:?}");
        assert!(close(e.low, 86.2250, 1e-3), "{e:?}");
        assert!(close(e.high, 218.2518, 1e-3), "{e:?}");
        // an even match: symmetric interval round 0
        let e = elo(&Wdl::new(30, 40, 30)).unwrap();
        assert!(
            close(e.elo, 0.0, 1e-9) && close(e.high, 53.1580, 1e-3) && close(e.low, -e.high, 1e-9)
        );
        assert!(elo(&Wdl::default()).is_none());
        // all wins: the estimate is infinite and says so
        let e = elo(&Wdl::new(5, 0, 0)).unwrap();
        assert!(e.elo.is_infinite());
        assert!(e.to_string().starts_with("+inf"), "{e}");
    }

    #[test]
    fn likelihood_of_superiority() {
        assert!(close(los(&Wdl::new(1000, 50, 900)), 0.989109, 1e-5));
        assert!(close(los(&Wdl::new(60, 20, 20)), 0.9999961, 1e-6));
        assert_eq!(los(&Wdl::new(0, 7, 0)), 0.5);
        assert!(close(los(&Wdl::new(900, 0, 1000)), 1.0 - 0.989109, 1e-5));
        for x in [0.1, 0.7, 1.9, 2.6, 4.0] {
            // erf(x) + erf(-x) = 0 and erf is increasing towards 1
            assert!(close(erf(x), -erf(-x), 1e-15));
            assert!(erf(x) < 1.0 && erf(x) > erf(x - 0.05));
        }
        assert!(close(erf(0.5), 0.520_499_877_813_046_5, 1e-13));
        assert!(close(erf(3.0), 0.999_977_909_503_001_4, 1e-13));
    }

    #[test]
    fn sprt_bounds_and_llr() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        };
        let (low, high) = sprt.bounds();
        assert!(close(low, -2.944439, 1e-6) && close(high, 2.944439, 1e-6));
        assert!(close(sprt.llr(&Wdl::new(60, 20, 20)), 0.883207, 1e-5));
        let up = Wdl::new(1000, 1500, 900);
        assert!(close(sprt.llr(&up), 1.948148, 1e-5));
        assert_eq!(sprt.decide(sprt.llr(&up)), SprtDecision::Continue);
        let down = Wdl::new(900, 1500, 1000);
        assert!(close(sprt.llr(&down), -3.210000, 1e-5));
        assert_eq!(sprt.decide(sprt.llr(&down)), SprtDecision::H0);
        assert_eq!(sprt.decide(3.0), SprtDecision::H1);
        // no information yet
        assert_eq!(sprt.llr(&Wdl::default()), 0.0);
        // only draws: evidence (weak) against a gain, never a division by zero
        let draws = sprt.llr(&Wdl::new(0, 12, 0));
        assert!(draws.is_finite() && draws < 0.0 && draws > -1.0, "{draws}");
        // a run of wins only: the half-game prior keeps the variance positive, so it decides
        assert_eq!(
            sprt.decide(sprt.llr(&Wdl::new(1, 0, 0))),
            SprtDecision::Continue
        );
        assert_eq!(sprt.decide(sprt.llr(&Wdl::new(60, 0, 0))), SprtDecision::H1);
        assert_eq!(sprt.decide(sprt.llr(&Wdl::new(0, 0, 60))), SprtDecision::H0);
        let normalized = Sprt {
            model: EloModel::Normalized,
            ..sprt
        };
        assert!(close(normalized.llr(&up), 1.574535, 1e-5));
    }
}
