//! The evaluation the search calls: the handwritten one with its weights, or a learned pattern
//! net. Which one is chosen once per search, for the variant being played.

use std::sync::Arc;

use crate::core::position::Position;
use crate::core::variant::{Color, Variant};
use crate::engine::eval::{self, Weights};
use crate::engine::pattern::PatternEval;

/// Which evaluation an engine plays with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EvalKind {
    /// The learned pattern net (the built-in one or one loaded from a file), where there is a
    /// net for the variant; otherwise the handwritten evaluation.
    #[default]
    Learned,
    /// The handwritten evaluation (`eval=classic`), for comparison.
    Classic,
}

impl EvalKind {
    /// The name used by the Hub parameter and the command line.
    pub fn name(self) -> &'static str {
        match self {
            EvalKind::Learned => "learned",
            EvalKind::Classic => "classic",
        }
    }
}

impl std::str::FromStr for EvalKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "learned" | "pattern" | "net" => Ok(EvalKind::Learned),
            "classic" | "handwritten" => Ok(EvalKind::Classic),
            _ => Err(format!(
                "unknown evaluation {s:?}: expected learned or classic"
            )),
        }
    }
}

/// The evaluation of one search.
#[derive(Clone, Debug)]
pub enum Evaluator {
    /// The handwritten evaluation.
    Classic(Weights),
    /// A learned net, made for the variant searched, with the divisor of drawish endings; in
    /// positions with kings only, the handwritten evaluation.
    Pattern(Arc<PatternEval>, i32),
}

impl Evaluator {
    /// The evaluation for variant `V` of `kind`: `net` if it is given and made for `V`, else
    /// the built-in net for `V`, else the handwritten evaluation with `weights`.
    pub fn for_variant<V: Variant>(
        kind: EvalKind,
        net: Option<&Arc<PatternEval>>,
        weights: &Weights,
    ) -> Evaluator {
        if kind == EvalKind::Learned {
            let chosen = match net {
                Some(n) if n.fits::<V>() => Some(n.clone()),
                _ => crate::engine::pattern::default_net::<V>(),
            };
            if let Some(n) = chosen {
                return Evaluator::Pattern(n, weights.drawish_divisor);
            }
        }
        Evaluator::Classic(*weights)
    }

    /// The score of `pos` for the side to move, in hundredths of a man.
    #[inline(always)]
    pub fn evaluate<V: Variant>(&self, pos: &Position<V>) -> i32 {
        match self {
            Evaluator::Classic(w) => eval::evaluate_with(pos, w),
            // The windows see men only: with none left, the net knows nothing but the number
            // of kings, too little to tell a won king ending from a drawn one.
            Evaluator::Pattern(..)
                if pos.men(Color::White).is_empty() && pos.men(Color::Black).is_empty() =>
            {
                eval::evaluate_with(pos, &Weights::DEFAULT)
            }
            Evaluator::Pattern(net, divisor) => eval::scale_drawish(pos, net.raw(pos), *divisor),
        }
    }
}
