//! `damast train`: fits a pattern net ([`PatternEval`]) to self-play games.
//!
//! Every quiet, searched position of the games is a sample: its features (the window
//! configurations and piece counts seen from the side to move, see
//! [`crate::engine::pattern`]), the search score and the game's result. The net's evaluation `e`
//! is mapped to an expected result by the logistic `σ(e / K)`, where the scale `K` is fitted
//! first so that `σ(score / K)` predicts the results best. The target blends the result and the
//! search score, `λ·result + (1 − λ)·σ(score / K)`, and the loss is the mean squared error.
//! Mini-batch gradient descent with Adam (updating only the weights a batch touches), on all
//! cores; one game in `valid_every` is held out to measure the loss on games not trained on.
//! Everything is deterministic for a seed.

use rayon::prelude::*;

use crate::core::variant::Variant;
use crate::engine::pattern::{self, PatternEval, EXTRAS, MAX_WINDOWS, STATES};
use crate::engine::rng::Rng;
use crate::engine::search::MATE_BOUND;
use crate::tools::gamefile::{self, GameFileError};
use crate::tools::tune::is_quiet;

/// Training settings.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Passes over the training samples.
    pub epochs: usize,
    /// Samples per mini-batch.
    pub batch: usize,
    /// Adam's step size, in hundredths of a man.
    pub lr: f32,
    /// The step size at the end: when set, the step size falls geometrically, batch by batch,
    /// from `lr` to this, and a last pass at this step size follows in which the global terms
    /// are rounded and held (see [`passes`](Self::passes)); when not, the step size is `lr` for
    /// two thirds of the epochs and `0.3·lr` after.
    pub lr_final: Option<f32>,
    /// Share of the game result in the target (the rest is the search score).
    pub lambda: f32,
    /// One game in this many is held out for validation.
    pub valid_every: usize,
    /// Seed of the shuffles.
    pub seed: u64,
    /// A window configuration seen fewer times than this in the training set keeps weight 0
    /// (too rare to learn from; it would only fit noise).
    pub min_count: u32,
}

impl TrainConfig {
    /// Passes over the data in all: the epochs, and with a final step size one more in which
    /// the global terms are rounded and held while the tables settle.
    pub fn passes(&self) -> usize {
        self.epochs + self.lr_final.is_some() as usize
    }
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 16,
            batch: 16384,
            lr: 3.0,
            lr_final: None,
            lambda: 0.1,
            valid_every: 16,
            seed: 1,
            min_count: 0,
        }
    }
}

/// Training samples, column by column.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    /// Windows per sample.
    pub windows: usize,
    /// Window configurations, `windows` per sample.
    pub index: Vec<u16>,
    /// Our men, their men, our kings, their kings.
    pub counts: Vec<[u8; 4]>,
    /// Middle-game share, 0 to 256.
    pub phase: Vec<u16>,
    /// Search score for the side to move.
    pub score: Vec<i16>,
    /// Result for the side to move: 0, 0.5 or 1.
    pub result: Vec<f32>,
}

impl Dataset {
    /// An empty set for variant `V`.
    pub fn new<V: Variant>() -> Dataset {
        Dataset {
            windows: pattern::windows::<V>(),
            ..Dataset::default()
        }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.score.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.score.is_empty()
    }

    /// Adds a sample.
    pub fn push(&mut self, f: &pattern::Features, score: i16, result: f32) {
        self.index.extend_from_slice(&f.index[..self.windows]);
        self.counts.push(f.counts);
        self.phase.push(f.phase);
        self.score.push(score);
        self.result.push(result);
    }
}

/// Reads the quiet, searched positions of game files into a training and a validation set
/// (every `valid_every`-th game of each file).
pub fn load<V: Variant>(
    files: &[(String, Vec<u8>)],
    valid_every: usize,
) -> Result<(Dataset, Dataset), String> {
    let mut train = Dataset::new::<V>();
    let mut valid = Dataset::new::<V>();
    for (name, bytes) in files {
        let (_, games) = gamefile::games::<V>(bytes).map_err(|e| format!("{name}: {e}"))?;
        for (i, g) in games.enumerate() {
            let g = match g {
                Ok(g) => g,
                // a record cut by an interrupted run ends the file
                Err(GameFileError::Game { reason, .. }) if reason.contains("cut short") => break,
                Err(e) => return Err(format!("{name}: {e}")),
            };
            let set = if valid_every > 0 && i % valid_every == 0 {
                &mut valid
            } else {
                &mut train
            };
            g.for_each_position(|pos, score, result| {
                if let Some(s) = score {
                    if (s as i32).abs() < MATE_BOUND && is_quiet(pos) {
                        set.push(&pattern::features(pos), s, result);
                    }
                }
            });
        }
    }
    Ok((train, valid))
}

#[inline(always)]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The logistic scale `K` (hundredths of a man) for which `σ(score / K)` best predicts the
/// results (least squares, golden-section search over 20 to 2000).
pub fn fit_scale(data: &Dataset) -> f32 {
    let loss = |k: f32| -> f64 {
        data.score
            .par_iter()
            .zip(&data.result)
            .map(|(&s, &r)| {
                let d = sigmoid(s as f32 / k) - r;
                (d * d) as f64
            })
            .sum::<f64>()
    };
    let (mut a, mut b) = (20f32, 2000f32);
    let g = 0.618_034f32;
    for _ in 0..60 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if loss(c) < loss(d) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// The weights being trained, as floats: the tables, then the global terms, each a
/// (middle game, endgame) pair.
struct Params {
    windows: usize,
    w: Vec<f32>,
}

impl Params {
    fn new(windows: usize) -> Params {
        let mut w = vec![0.0; 2 * (windows * STATES + EXTRAS)];
        let base = 2 * windows * STATES;
        // start from material: a man 100, a king 300
        for (term, value) in [(1, 100.0), (2, -100.0), (3, 300.0), (4, -300.0)] {
            w[base + 2 * term] = value;
            w[base + 2 * term + 1] = value;
        }
        Params { windows, w }
    }

    /// The evaluation of sample `i` of `data`.
    #[inline(always)]
    fn eval(&self, data: &Dataset, i: usize) -> f32 {
        let (mg, eg) = self.sums(data, i);
        let p = data.phase[i] as f32 / 256.0;
        mg * p + eg * (1.0 - p)
    }

    #[inline(always)]
    fn sums(&self, data: &Dataset, i: usize) -> (f32, f32) {
        let n = self.windows;
        let base = 2 * n * STATES;
        let (mut mg, mut eg) = (self.w[base], self.w[base + 1]);
        for (t, &c) in data.counts[i].iter().enumerate() {
            mg += self.w[base + 2 * (t + 1)] * c as f32;
            eg += self.w[base + 2 * (t + 1) + 1] * c as f32;
        }
        for (k, &idx) in data.index[i * n..(i + 1) * n].iter().enumerate() {
            let j = 2 * (k * STATES + idx as usize);
            mg += self.w[j];
            eg += self.w[j + 1];
        }
        (mg, eg)
    }

    /// The net with these weights, rounded.
    fn to_net<V: Variant>(&self, scale: f32) -> PatternEval {
        let q = |x: f32| x.round().clamp(i16::MIN as f32 + 1.0, i16::MAX as f32) as i16;
        let n = self.windows * STATES;
        let mut net = PatternEval::zero::<V>();
        for (k, t) in net.tables.iter_mut().enumerate() {
            *t = [q(self.w[2 * k]), q(self.w[2 * k + 1])];
        }
        for (e, x) in net.extras.iter_mut().enumerate() {
            *x = [q(self.w[2 * (n + e)]), q(self.w[2 * (n + e) + 1])];
        }
        net.scale = scale;
        net
    }
}

/// The step size for batch `batch` (from 0) of `batches` in epoch `epoch` (from 1).
fn step_size(cfg: &TrainConfig, epoch: usize, batch: usize, batches: usize) -> f32 {
    match cfg.lr_final {
        Some(end) => {
            let total = (cfg.epochs * batches).max(2) - 1;
            let done = (epoch - 1) * batches + batch;
            let t = (done as f32 / total as f32).min(1.0);
            cfg.lr * (end.max(1e-6) / cfg.lr).powf(t)
        }
        // the step size falls over the last third of the epochs
        None if epoch * 3 > cfg.epochs * 2 => cfg.lr * 0.3,
        None => cfg.lr,
    }
}

/// The training target of sample `i`.
#[inline(always)]
fn target(data: &Dataset, i: usize, k: f32, lambda: f32) -> f32 {
    lambda * data.result[i] + (1.0 - lambda) * sigmoid(data.score[i] as f32 / k)
}

/// Mean squared error of `params` on `data`.
fn loss(params: &Params, data: &Dataset, k: f32, lambda: f32) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let sum: f64 = (0..data.len())
        .into_par_iter()
        .map(|i| {
            let d = sigmoid(params.eval(data, i) / k) - target(data, i, k, lambda);
            (d * d) as f64
        })
        .sum();
    sum / data.len() as f64
}

/// The loss after each epoch.
#[derive(Clone, Copy, Debug)]
pub struct EpochReport {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Loss on the training set.
    pub train: f64,
    /// Loss on the validation set.
    pub valid: f64,
}

/// Trains a net for variant `V` on `train`; reports the loss after each epoch to `on_epoch` and
/// each batch's progress (batches done, batches per epoch) to `on_batch`. Returns the net
/// and the logistic scale used.
pub fn train<V: Variant>(
    cfg: &TrainConfig,
    train: &Dataset,
    valid: &Dataset,
    on_batch: &mut dyn FnMut(usize, usize),
    on_epoch: &mut dyn FnMut(EpochReport),
) -> PatternEval {
    assert_eq!(train.windows, pattern::windows::<V>());
    assert!(train.windows <= MAX_WINDOWS);
    let k = fit_scale(train);
    let mut params = Params::new(train.windows);
    let n_params = params.w.len();
    let (mut m, mut v) = (vec![0f32; n_params], vec![0f32; n_params]);
    let mut grad = vec![0f32; n_params];
    let mut touched: Vec<u32> = Vec::new();
    let mut seen = vec![false; n_params];
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut rng = Rng::new(cfg.seed);
    let batch = cfg.batch.max(1);
    let batches = train.len().div_ceil(batch);
    let mut step = 0i32;
    let n = train.windows;
    let base = 2 * n * STATES;
    // configurations too rare to learn: their weights stay 0
    let mut count = vec![0u32; n * STATES];
    for row in train.index.chunks(n) {
        for (w, &idx) in row.iter().enumerate() {
            count[w * STATES + idx as usize] += 1;
        }
    }
    let frozen: Vec<bool> = count.iter().map(|&c| c < cfg.min_count).collect();
    // With a falling step size the weights settle finely, and rounding the global terms (each
    // multiplied by a piece count) to whole hundredths would undo part of that: they are
    // rounded and held, and one more epoch at the final step size lets the tables make up.
    for epoch in 1..=cfg.passes() {
        let settling = epoch > cfg.epochs;
        if settling {
            for x in &mut params.w[base..] {
                *x = x.round();
            }
        }
        // Fisher-Yates with the engine's generator
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for (bi, chunk) in order.chunks(batch).enumerate() {
            let lr = step_size(cfg, epoch, bi, batches);
            // d loss / d evaluation for every sample, in parallel
            let de: Vec<f32> = chunk
                .par_iter()
                .map(|&i| {
                    let i = i as usize;
                    let s = sigmoid(params.eval(train, i) / k);
                    let t = target(train, i, k, cfg.lambda);
                    2.0 * (s - t) * s * (1.0 - s) / k
                })
                .collect();
            let scale = 1.0 / chunk.len() as f32;
            let mut add = |j: usize, g: f32| {
                if !seen[j] {
                    seen[j] = true;
                    touched.push(j as u32);
                }
                grad[j] += g;
            };
            for (&i, &d) in chunk.iter().zip(&de) {
                let i = i as usize;
                let p = train.phase[i] as f32 / 256.0;
                let (gm, ge) = (d * p * scale, d * (1.0 - p) * scale);
                if !settling {
                    add(base, gm);
                    add(base + 1, ge);
                    for (t, &c) in train.counts[i].iter().enumerate() {
                        if c != 0 {
                            add(base + 2 * (t + 1), gm * c as f32);
                            add(base + 2 * (t + 1) + 1, ge * c as f32);
                        }
                    }
                }
                for (w, &idx) in train.index[i * n..(i + 1) * n].iter().enumerate() {
                    let c = w * STATES + idx as usize;
                    if !frozen[c] {
                        add(2 * c, gm);
                        add(2 * c + 1, ge);
                    }
                }
            }
            step += 1;
            let c1 = 1.0 - b1.powi(step);
            let c2 = 1.0 - b2.powi(step);
            for &j in &touched {
                let j = j as usize;
                let g = grad[j];
                m[j] = b1 * m[j] + (1.0 - b1) * g;
                v[j] = b2 * v[j] + (1.0 - b2) * g * g;
                params.w[j] -= lr * (m[j] / c1) / ((v[j] / c2).sqrt() + eps);
                grad[j] = 0.0;
                seen[j] = false;
            }
            touched.clear();
            on_batch(bi + 1, batches);
        }
        on_epoch(EpochReport {
            epoch,
            train: loss(&params, train, k, cfg.lambda),
            valid: loss(&params, valid, k, cfg.lambda),
        });
    }
    params.to_net::<V>(k)
}

/// The loss of a finished net on `data` (with the scale it was trained with), to compare it with
/// the float weights it came from.
pub fn net_loss<V: Variant>(net: &PatternEval, data: &Dataset, lambda: f32) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let n = data.windows;
    let k = net.scale;
    let sum: f64 = (0..data.len())
        .into_par_iter()
        .map(|i| {
            let mut f = pattern::Features {
                index: [0; MAX_WINDOWS],
                counts: data.counts[i],
                phase: data.phase[i],
            };
            f.index[..n].copy_from_slice(&data.index[i * n..(i + 1) * n]);
            let e = net.score::<V>(&f) as f32;
            let d = sigmoid(e / k) - target(data, i, k, lambda);
            (d * d) as f64
        })
        .sum();
    sum / data.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::movegen;
    use crate::core::position::Position;
    use crate::core::variant::Russian;

    /// Positions reached by random play, with kings.
    fn positions(n: usize, seed: u64) -> Vec<Position<Russian>> {
        let mut rng = Rng::new(seed);
        let mut out = Vec::new();
        while out.len() < n {
            let mut pos = Position::<Russian>::start();
            for _ in 0..rng.below(60) {
                let list = movegen::legal_moves(&pos);
                if list.is_empty() {
                    break;
                }
                pos = pos.make(&list[rng.below(list.len())]);
            }
            out.push(pos);
        }
        out
    }

    /// A known net: random table weights in ±40 and material.
    fn known_net() -> PatternEval {
        let mut rng = Rng::new(5);
        let mut net = PatternEval::zero::<Russian>();
        for t in net.tables.iter_mut() {
            *t = [rng.below(81) as i16 - 40, rng.below(81) as i16 - 40];
        }
        net.extras = [[10, 0], [90, 110], [-90, -110], [250, 320], [-250, -320]];
        net
    }

    #[test]
    fn the_step_size_falls_from_the_first_to_the_last() {
        let mut cfg = TrainConfig {
            epochs: 4,
            lr: 2.0,
            ..TrainConfig::default()
        };
        // without a final step size: 2.0 for the first two thirds, then 0.6
        assert_eq!(step_size(&cfg, 1, 0, 10), 2.0);
        assert_eq!(step_size(&cfg, 2, 9, 10), 2.0);
        assert!((step_size(&cfg, 3, 0, 10) - 0.6).abs() < 1e-6);
        cfg.lr_final = Some(0.02);
        let all: Vec<f32> = (1..=4)
            .flat_map(|e| (0..10).map(move |b| (e, b)))
            .map(|(e, b)| step_size(&cfg, e, b, 10))
            .collect();
        assert!((all[0] - 2.0).abs() < 1e-6);
        assert!((all[39] - 0.02).abs() < 1e-6, "{}", all[39]);
        assert!(all.windows(2).all(|w| w[1] < w[0]));
        // halfway, the geometric mean
        assert!((step_size(&cfg, 3, 0, 10) / 0.2 - 1.0).abs() < 0.1);
    }

    /// Samples whose search score is the known net's evaluation and whose result is drawn from
    /// it, so that the target is learnable exactly; and the first 1000 of them as a validation
    /// set.
    fn known_data(k: f32) -> (Dataset, Dataset) {
        let truth = known_net();
        let mut rng = Rng::new(9);
        let mut data = Dataset::new::<Russian>();
        for pos in positions(6000, 1) {
            let e = truth.raw(&pos);
            let p = sigmoid(e as f32 / k);
            let r = if (rng.below(1000) as f32) < p * 1000.0 {
                1.0
            } else {
                0.0
            };
            data.push(&pattern::features(&pos), e as i16, r);
        }
        let valid_data = Dataset {
            windows: data.windows,
            index: data.index[..1000 * data.windows].to_vec(),
            counts: data.counts[..1000].to_vec(),
            phase: data.phase[..1000].to_vec(),
            score: data.score[..1000].to_vec(),
            result: data.result[..1000].to_vec(),
        };
        (data, valid_data)
    }

    /// The loss of the starting weights on `data`, the epoch reports and the net of training
    /// on it with `cfg`.
    fn train_from_zero(
        cfg: &TrainConfig,
        data: &Dataset,
        valid: &Dataset,
    ) -> (f64, Vec<EpochReport>, PatternEval) {
        let start = loss(
            &Params::new(data.windows),
            data,
            fit_scale(data),
            cfg.lambda,
        );
        let mut reports = Vec::new();
        let net = train::<Russian>(cfg, data, valid, &mut |_, _| {}, &mut |r| reports.push(r));
        (start, reports, net)
    }

    #[test]
    fn a_falling_step_size_settles_and_rounds_well() {
        let (data, valid_data) = known_data(150.0);
        let cfg = TrainConfig {
            epochs: 20,
            batch: 256,
            lr: 4.0,
            lr_final: Some(0.1),
            lambda: 0.0,
            ..TrainConfig::default()
        };
        let (start, reports, net) = train_from_zero(&cfg, &data, &valid_data);
        // the epochs and the settling pass
        assert_eq!(reports.len(), 21);
        let last = reports.last().unwrap();
        assert!(last.train < start / 4.0, "{} vs {start}", last.train);
        // the rounded net loses almost nothing to its float weights
        let nl = net_loss::<Russian>(&net, &data, 0.0);
        assert!(
            (nl - last.train).abs() < 0.05 * last.train + 1e-5,
            "{nl} vs {}",
            last.train
        );
    }

    #[test]
    fn training_recovers_a_known_evaluation() {
        let k = 150.0f32;
        let (data, valid_data) = known_data(k);
        let cfg = TrainConfig {
            epochs: 30,
            batch: 256,
            lr: 2.0,
            lambda: 0.0,
            ..TrainConfig::default()
        };
        let (start, reports, net) = train_from_zero(&cfg, &data, &valid_data);
        let last = reports.last().unwrap();
        assert_eq!(reports.len(), 30);
        assert!(
            last.train < start / 4.0,
            "loss {} did not fall well below the start {start}",
            last.train
        );
        assert!(reports[0].train > last.train);
        // the rounded net is as good as its float weights
        let nl = net_loss::<Russian>(&net, &data, 0.0);
        assert!(
            (nl - last.train).abs() < 0.2 * last.train + 1e-5,
            "{nl} vs {}",
            last.train
        );
        // the scale fitted to scores drawn as σ(score / 150) is near 150
        assert!((net.scale - k).abs() < 40.0, "scale {}", net.scale);
        // and training is deterministic
        let again = train::<Russian>(&cfg, &data, &valid_data, &mut |_, _| {}, &mut |_| {});
        assert_eq!(net, again);
    }
}
