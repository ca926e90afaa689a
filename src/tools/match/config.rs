//! The match's command line: engine specifications (`name=A cmd="PATH hub" dir=DIR
//! option.NAME=VALUE ...`), adjudication and SPRT settings (`KEY=VALUE` lists), and the checks
//! that turn them into a [`MatchConfig`]. Every mistake is a [`ConfigError`] that says what to fix.

use std::path::PathBuf;

use crate::core::game::MoveLimit;
use crate::core::{Variant, VariantKind};

use super::adjudication::{DrawRule, ResignRule};
use super::game_runner::GameSettings;
use super::openings::{self, Opening, OpeningError};
use super::stats::{EloModel, Sprt};
use super::time_control::{SearchLimits, TimeControl, TimeControlError};

/// A mistake in the match's command line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// Fewer than two engines.
    #[error(
        "a match needs at least two engines: give --engine name=A cmd=\"PATH hub\" at least twice"
    )]
    TooFewEngines,
    /// An engine specification lacks a required key.
    #[error("engine {index}: missing {key}= (an engine is given as name=NAME cmd=\"PATH hub\" [dir=DIR] [option.NAME=VALUE ...])")]
    MissingKey {
        /// 1-based position of the `--engine` on the command line.
        index: usize,
        /// The missing key.
        key: &'static str,
    },
    /// A token of a `KEY=VALUE` list has no `=` or an empty key.
    #[error("{context}: '{token}' is not KEY=VALUE")]
    NotKeyValue {
        /// Which option the token belongs to.
        context: String,
        /// The token.
        token: String,
    },
    /// A key that the option does not know.
    #[error("{context}: unknown key '{key}' (known: {known})")]
    UnknownKey {
        /// Which option the key belongs to.
        context: String,
        /// The key.
        key: String,
        /// The keys that are known.
        known: &'static str,
    },
    /// A value that cannot be used.
    #[error("{context}: bad value '{value}' for {key}: {expected}")]
    BadValue {
        /// Which option the value belongs to.
        context: String,
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What is expected instead.
        expected: &'static str,
    },
    /// A key that a list needs and does not have.
    #[error("{context}: missing {key}=")]
    Missing {
        /// Which option lacks it.
        context: String,
        /// The key.
        key: &'static str,
    },
    /// The engine command line has an unterminated quote or is empty.
    #[error("engine '{name}': bad cmd '{cmd}': {problem}")]
    BadCommand {
        /// The engine's name.
        name: String,
        /// The command text.
        cmd: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// Two engines with the same name.
    #[error("two engines are called '{0}': give each engine its own name=")]
    DuplicateName(String),
    /// A time control that cannot be read.
    #[error(transparent)]
    TimeControl(#[from] TimeControlError),
    /// No time control, time per move, depth or nodes for some engine.
    #[error("no search limit for engine '{0}': give --tc, --movetime, --depth or --nodes (or tc=, movetime=, depth=, nodes= in its --engine)")]
    NoLimit(String),
    /// A number option out of its range.
    #[error("{option}: {problem}")]
    Range {
        /// The option.
        option: &'static str,
        /// What is wrong.
        problem: &'static str,
    },
    /// The SPRT needs exactly two engines.
    #[error(
        "--sprt needs exactly two engines (a round robin has no single Elo difference to test)"
    )]
    SprtNeedsTwo,
}

/// One engine of the match as given on the command line.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    /// The name used in results and PDN.
    pub name: String,
    /// Program and arguments (the `cmd=` text split like a shell does, quotes and all).
    pub cmd: Vec<String>,
    /// Working directory of the engine.
    pub dir: Option<PathBuf>,
    /// Parameters sent with `set-param` before `init`, in the order given.
    pub options: Vec<(String, String)>,
    /// Limits for this engine alone (`tc=`, `movetime=`, `depth=`, `nodes=`).
    pub limits: SearchLimits,
}

const ENGINE_KEYS: &str = "name, cmd, dir, option.NAME, tc, movetime, depth, nodes";

fn bad(context: &str, key: &str, value: &str, expected: &'static str) -> ConfigError {
    ConfigError::BadValue {
        context: context.to_string(),
        key: key.to_string(),
        value: value.chars().take(60).collect(),
        expected,
    }
}

fn positive_real(context: &str, key: &str, value: &str) -> Result<f64, ConfigError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| bad(context, key, value, "a positive number"))
}

fn nonnegative_real(context: &str, key: &str, value: &str) -> Result<f64, ConfigError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .ok_or_else(|| bad(context, key, value, "a number from 0"))
}

fn positive_int<T: std::str::FromStr + PartialOrd + Default>(
    context: &str,
    key: &str,
    value: &str,
) -> Result<T, ConfigError> {
    value
        .parse::<T>()
        .ok()
        .filter(|n| *n > T::default())
        .ok_or_else(|| bad(context, key, value, "a whole number from 1"))
}

/// Splits `KEY=VALUE` tokens at their first `=`.
fn key_values<'a>(
    context: &str,
    tokens: &'a [String],
) -> Result<Vec<(&'a str, &'a str)>, ConfigError> {
    tokens
        .iter()
        .map(|t| match t.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim(), v)),
            _ => Err(ConfigError::NotKeyValue {
                context: context.to_string(),
                token: t.chars().take(60).collect(),
            }),
        })
        .collect()
}

/// Splits a command line into words as a POSIX shell does for plain words, single quotes,
/// double quotes and backslashes (no variables, globs or other expansions).
pub fn split_command(text: &str) -> Result<Vec<String>, &'static str> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err("unterminated single quote"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => return Err("unterminated double quote"),
                        },
                        Some(x) => cur.push(x),
                        None => return Err("unterminated double quote"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(x) => cur.push(x),
                    None => return Err("backslash at the end"),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err("no program given");
    }
    Ok(words)
}

impl EngineSpec {
    /// Reads the tokens of one `--engine` (`index` is its 1-based position, for messages).
    pub fn parse(index: usize, tokens: &[String]) -> Result<EngineSpec, ConfigError> {
        let context = format!("engine {index}");
        let mut name = None;
        let mut cmd = None;
        let mut dir = None;
        let mut options = Vec::new();
        let mut limits = SearchLimits::default();
        for (key, value) in key_values(&context, tokens)? {
            match key {
                "name" => {
                    if value.trim().is_empty() {
                        return Err(bad(&context, key, value, "a non-empty name"));
                    }
                    name = Some(value.trim().to_string());
                }
                "cmd" => cmd = Some(value.to_string()),
                "dir" => dir = Some(PathBuf::from(value)),
                "tc" => limits.tc = Some(value.parse()?),
                "movetime" => limits.movetime = Some(positive_real(&context, key, value)?),
                "depth" => limits.depth = Some(positive_int(&context, key, value)?),
                "nodes" => limits.nodes = Some(positive_int(&context, key, value)?),
                k => match k.strip_prefix("option.") {
                    Some(p) if !p.is_empty() && !p.contains(char::is_whitespace) => {
                        options.push((p.to_string(), value.to_string()))
                    }
                    _ => {
                        return Err(ConfigError::UnknownKey {
                            context,
                            key: k.chars().take(60).collect(),
                            known: ENGINE_KEYS,
                        })
                    }
                },
            }
        }
        let name = name.ok_or(ConfigError::MissingKey { index, key: "name" })?;
        let cmd_text = cmd.ok_or(ConfigError::MissingKey { index, key: "cmd" })?;
        let cmd = split_command(&cmd_text).map_err(|problem| ConfigError::BadCommand {
            name: name.clone(),
            cmd: cmd_text.chars().take(80).collect(),
            problem,
        })?;
        Ok(EngineSpec {
            name,
            cmd,
            dir,
            options,
            limits,
        })
    }
}

/// Reads `--draw movenumber=N movecount=N score=S`.
pub fn parse_draw(tokens: &[String]) -> Result<DrawRule, ConfigError> {
    let context = "--draw";
    let mut rule = DrawRule {
        move_number: 0,
        move_count: 0,
        score: -1.0,
    };
    for (k, v) in key_values(context, tokens)? {
        match k {
            "movenumber" => {
                rule.move_number = v
                    .parse()
                    .map_err(|_| bad(context, k, v, "a whole number from 0"))?
            }
            "movecount" => rule.move_count = positive_int(context, k, v)?,
            "score" => rule.score = nonnegative_real(context, k, v)?,
            _ => {
                return Err(ConfigError::UnknownKey {
                    context: context.into(),
                    key: k.to_string(),
                    known: "movenumber, movecount, score",
                })
            }
        }
    }
    if rule.move_count == 0 {
        return Err(ConfigError::Missing {
            context: context.into(),
            key: "movecount",
        });
    }
    if rule.score < 0.0 {
        return Err(ConfigError::Missing {
            context: context.into(),
            key: "score",
        });
    }
    Ok(rule)
}

/// Reads `--resign movecount=N score=S`.
pub fn parse_resign(tokens: &[String]) -> Result<ResignRule, ConfigError> {
    let context = "--resign";
    let mut rule = ResignRule {
        move_count: 0,
        score: 0.0,
    };
    for (k, v) in key_values(context, tokens)? {
        match k {
            "movecount" => rule.move_count = positive_int(context, k, v)?,
            "score" => rule.score = positive_real(context, k, v)?,
            _ => {
                return Err(ConfigError::UnknownKey {
                    context: context.into(),
                    key: k.to_string(),
                    known: "movecount, score",
                })
            }
        }
    }
    if rule.move_count == 0 {
        return Err(ConfigError::Missing {
            context: context.into(),
            key: "movecount",
        });
    }
    if rule.score == 0.0 {
        return Err(ConfigError::Missing {
            context: context.into(),
            key: "score",
        });
    }
    Ok(rule)
}

/// Reads `--sprt elo0=E0 elo1=E1 [alpha=A] [beta=B] [model=logistic|normalized]` (alpha and
/// beta default to 0.05).
pub fn parse_sprt(tokens: &[String]) -> Result<Sprt, ConfigError> {
    let context = "--sprt";
    let mut elo0 = None;
    let mut elo1 = None;
    let mut sprt = Sprt {
        elo0: 0.0,
        elo1: 0.0,
        alpha: 0.05,
        beta: 0.05,
        model: EloModel::Logistic,
    };
    let elo = |k: &str, v: &str| {
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| bad(context, k, v, "a number of Elo"))
    };
    let rate = |k: &str, v: &str| {
        v.parse::<f64>()
            .ok()
            .filter(|x| *x > 0.0 && *x < 0.5)
            .ok_or_else(|| bad(context, k, v, "a probability between 0 and 0.5"))
    };
    for (k, v) in key_values(context, tokens)? {
        match k {
            "elo0" => elo0 = Some(elo(k, v)?),
            "elo1" => elo1 = Some(elo(k, v)?),
            "alpha" => sprt.alpha = rate(k, v)?,
            "beta" => sprt.beta = rate(k, v)?,
            "model" => {
                sprt.model = match v.to_ascii_lowercase().as_str() {
                    "logistic" => EloModel::Logistic,
                    "normalized" | "normalised" => EloModel::Normalized,
                    _ => return Err(bad(context, k, v, "logistic or normalized")),
                }
            }
            _ => {
                return Err(ConfigError::UnknownKey {
                    context: context.into(),
                    key: k.to_string(),
                    known: "elo0, elo1, alpha, beta, model",
                })
            }
        }
    }
    sprt.elo0 = elo0.ok_or(ConfigError::Missing {
        context: context.into(),
        key: "elo0",
    })?;
    sprt.elo1 = elo1.ok_or(ConfigError::Missing {
        context: context.into(),
        key: "elo1",
    })?;
    if sprt.elo1 <= sprt.elo0 {
        return Err(ConfigError::Range {
            option: "--sprt",
            problem: "elo1 must be greater than elo0",
        });
    }
    Ok(sprt)
}

/// Where the opening positions come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningSource {
    /// The suite shipped in `book/openings/` for the variant.
    Default,
    /// A file of FEN lines or PDN games.
    File(PathBuf),
}

impl OpeningSource {
    /// The openings, in the order of the suite or file.
    pub fn load<V: Variant>(&self) -> Result<Vec<Opening<V>>, OpeningError> {
        match self {
            OpeningSource::Default => Ok(openings::default_suite()),
            OpeningSource::File(path) => openings::load(path),
        }
    }
}

/// Seconds an engine may take to start, unless `--start-timeout` says otherwise.
pub const DEFAULT_START_TIMEOUT: f64 = 30.0;
/// Seconds a move may take when no clock bounds it, unless `--move-timeout` says otherwise.
pub const DEFAULT_MOVE_TIMEOUT: f64 = 60.0;

/// Everything a match needs, checked.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The engines, at least two.
    pub engines: Vec<EngineSpec>,
    /// Limits that apply to every engine unless its own spec overrides them.
    pub limits: SearchLimits,
    /// Seconds a move may exceed its time before it loses on time.
    pub time_margin: f64,
    /// The openings.
    pub openings: OpeningSource,
    /// Games per pair of engines (default: every opening once with each colour).
    pub games: Option<usize>,
    /// Shuffle the openings with this seed.
    pub shuffle: Option<u64>,
    /// The variant played.
    pub variant: VariantKind,
    /// Draw adjudication.
    pub draw: Option<DrawRule>,
    /// Resign adjudication.
    pub resign: Option<ResignRule>,
    /// Platform dama's move limit, other than the default 25 moves (also sent to the engines).
    pub move_limit: Option<MoveLimit>,
    /// Games played at once.
    pub concurrency: usize,
    /// Stop when this test decides (two engines only).
    pub sprt: Option<Sprt>,
    /// Append every game to this PDN file.
    pub pdn: Option<PathBuf>,
    /// The PDN Event tag.
    pub event: String,
    /// Seconds an engine may take to start (`hub` to `wait`, `init` to `ready`).
    pub start_timeout: f64,
    /// Seconds a move may take when no clock or time per move bounds it.
    pub move_timeout: f64,
}

impl MatchConfig {
    /// The limits that apply to engine `i`.
    pub fn limits_of(&self, i: usize) -> SearchLimits {
        self.limits.overridden_by(&self.engines[i].limits)
    }

    /// The settings of a game that engine `white` plays against engine `black`.
    pub fn game_settings(&self, white: usize, black: usize) -> GameSettings {
        GameSettings {
            limits: [self.limits_of(white), self.limits_of(black)],
            time_margin: self.time_margin,
            move_timeout: self.move_timeout,
            draw: self.draw,
            resign: self.resign,
            move_limit: self.move_limit,
            ponder: [self.ponders(white), self.ponders(black)],
        }
    }

    /// Whether engine `i` ponders: it was given `option.ponder=true` (also `1`, `on`, `yes`).
    pub fn ponders(&self, i: usize) -> bool {
        self.engines[i].options.iter().any(|(name, value)| {
            name == "ponder"
                && ["true", "1", "on", "yes"].contains(&value.to_ascii_lowercase().as_str())
        })
    }
}

/// The `damast match` command line: the `--engine` groups and the other options.
#[derive(Debug, Clone)]
pub struct MatchArgs {
    /// The tokens of every `--engine`, one list per engine.
    pub engine: Vec<Vec<String>>,
    /// Everything else.
    pub options: MatchOptions,
}

const ENGINE_HELP: &str =
    "An engine: name=NAME cmd=\"PATH ARGS\" [dir=DIR] [option.PARAM=VALUE ...] \
[tc=..] [movetime=..] [depth=..] [nodes=..]. Give it once per engine: two engines play a match, \
more a round robin";

fn engine_arg() -> clap::Arg {
    clap::Arg::new("engine")
        .long("engine")
        .num_args(1..)
        .action(clap::ArgAction::Append)
        .value_name("KEY=VALUE")
        .required(true)
        .help(ENGINE_HELP)
}

// clap's derive cannot keep the values of each `--engine` apart, so this part is written out.
impl clap::FromArgMatches for MatchArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let engine = m
            .get_occurrences::<String>("engine")
            .map(|groups| groups.map(|g| g.cloned().collect()).collect())
            .unwrap_or_default();
        Ok(MatchArgs {
            engine,
            options: MatchOptions::from_arg_matches(m)?,
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for MatchArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        MatchOptions::augment_args(cmd.arg(engine_arg()))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        MatchOptions::augment_args_for_update(cmd.arg(engine_arg()))
    }
}

/// The options of `damast match` other than `--engine`.
#[derive(clap::Args, Debug, Clone)]
pub struct MatchOptions {
    /// Time control: SECONDS[+INC] (60+0.5) or MOVES/SECONDS[+INC] (40/120).
    #[arg(long)]
    pub tc: Option<String>,
    /// Fixed seconds per move.
    #[arg(long)]
    pub movetime: Option<f64>,
    /// Fixed search depth.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Fixed nodes per move.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Seconds a move may exceed its time before it loses on time.
    #[arg(long, default_value_t = 0.1)]
    pub timemargin: f64,
    /// Openings: a file of FEN lines or PDN games, each played once with each colour (default:
    /// the suite in book/openings/).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Games per pair of engines (default: every opening once with each colour).
    #[arg(long)]
    pub games: Option<usize>,
    /// Shuffle the openings, with an optional seed (default 1).
    #[arg(long, num_args = 0..=1, default_missing_value = "1", value_name = "SEED")]
    pub shuffle: Option<u64>,
    /// The variant played (every name is accepted; see the README's table).
    #[arg(long, default_value = "international",
          help = format!("Variant: {}", VariantKind::names_text()))]
    pub variant: VariantKind,
    /// Draw when both engines' scores stay within SCORE men for COUNT moves each, from move
    /// NUMBER on: movenumber=N movecount=N score=S.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub draw: Option<Vec<String>>,
    /// Resign when one engine's score stays at -SCORE or below and the other's at +SCORE or
    /// above for COUNT moves each: movecount=N score=S.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub resign: Option<Vec<String>>,
    /// Platform dama: the draw after this many moves each of kings only, without capture or
    /// man move (default 25); the engines are sent it as the Hub parameter `move-limit`.
    #[arg(long, value_name = "MOVES")]
    pub move_limit: Option<u32>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Stop when an SPRT decides: elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=logistic].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub sprt: Option<Vec<String>>,
    /// Append every game to this PDN file.
    #[arg(long)]
    pub pdn: Option<PathBuf>,
    /// The PDN Event tag.
    #[arg(long, default_value = "damast match")]
    pub event: String,
    /// Seconds an engine may take to start up.
    #[arg(long, default_value_t = DEFAULT_START_TIMEOUT)]
    pub start_timeout: f64,
    /// Seconds a move may take when neither a clock nor --movetime bounds it (depth or nodes).
    #[arg(long, default_value_t = DEFAULT_MOVE_TIMEOUT)]
    pub move_timeout: f64,
}

impl MatchArgs {
    /// Checks the command line and builds the match's configuration.
    pub fn into_config(self) -> Result<MatchConfig, ConfigError> {
        let MatchArgs { engine, options } = self;
        options.into_config(&engine)
    }
}

impl MatchOptions {
    /// Checks these options with the tokens of every `--engine` and builds the configuration.
    pub fn into_config(self, engine: &[Vec<String>]) -> Result<MatchConfig, ConfigError> {
        let engines = engine
            .iter()
            .enumerate()
            .map(|(i, tokens)| EngineSpec::parse(i + 1, tokens))
            .collect::<Result<Vec<_>, _>>()?;
        if engines.len() < 2 {
            return Err(ConfigError::TooFewEngines);
        }
        for (i, e) in engines.iter().enumerate() {
            if engines[..i].iter().any(|o| o.name == e.name) {
                return Err(ConfigError::DuplicateName(e.name.clone()));
            }
        }
        let limits = SearchLimits {
            tc: self
                .tc
                .as_deref()
                .map(str::parse::<TimeControl>)
                .transpose()?,
            movetime: self
                .movetime
                .map(|t| positive_real("--movetime", "seconds", &t.to_string()))
                .transpose()?,
            depth: self.depth,
            nodes: self.nodes,
        };
        if self.depth == Some(0) || self.nodes == Some(0) {
            return Err(ConfigError::Range {
                option: "--depth/--nodes",
                problem: "must be at least 1",
            });
        }
        for e in &engines {
            if limits.overridden_by(&e.limits).is_empty() {
                return Err(ConfigError::NoLimit(e.name.clone()));
            }
        }
        let check = |x: f64, option: &'static str, min: f64| {
            if x.is_finite() && x >= min {
                Ok(x)
            } else {
                Err(ConfigError::Range {
                    option,
                    problem: "must be a finite number of seconds, not negative (timeouts: above 0)",
                })
            }
        };
        let time_margin = check(self.timemargin, "--timemargin", 0.0)?;
        let start_timeout = check(self.start_timeout, "--start-timeout", 0.001)?;
        let move_timeout = check(self.move_timeout, "--move-timeout", 0.001)?;
        if self.concurrency == 0 || self.concurrency > 256 {
            return Err(ConfigError::Range {
                option: "--concurrency",
                problem: "must be from 1 to 256",
            });
        }
        if self.games == Some(0) {
            return Err(ConfigError::Range {
                option: "--games",
                problem: "must be at least 1",
            });
        }
        let sprt = self.sprt.as_deref().map(parse_sprt).transpose()?;
        if sprt.is_some() && engines.len() != 2 {
            return Err(ConfigError::SprtNeedsTwo);
        }
        let mut engines = engines;
        let move_limit = match self.move_limit {
            None => None,
            Some(_) if self.variant != VariantKind::Platform => {
                return Err(ConfigError::Range {
                    option: "--move-limit",
                    problem: "applies to platform dama only (the other variants' rules are fixed)",
                })
            }
            Some(n) => {
                let limit = MoveLimit::new(n).ok_or(ConfigError::Range {
                    option: "--move-limit",
                    problem: "must be from 1 to 1000 moves",
                })?;
                for e in &mut engines {
                    if !e.options.iter().any(|(k, _)| k == "move-limit") {
                        e.options.push(("move-limit".into(), n.to_string()));
                    }
                }
                Some(limit).filter(|l| !l.is_default())
            }
        };
        Ok(MatchConfig {
            engines,
            limits,
            time_margin,
            openings: self
                .openings
                .map_or(OpeningSource::Default, OpeningSource::File),
            games: self.games,
            shuffle: self.shuffle,
            variant: self.variant,
            draw: self.draw.as_deref().map(parse_draw).transpose()?,
            resign: self.resign.as_deref().map(parse_resign).transpose()?,
            move_limit,
            concurrency: self.concurrency,
            sprt,
            pdn: self.pdn,
            event: self.event,
            start_timeout,
            move_timeout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &[&str]) -> Vec<String> {
        s.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn splits_commands_like_a_shell() {
        assert_eq!(
            split_command("/usr/bin/damast hub").unwrap(),
            ["/usr/bin/damast", "hub"]
        );
        assert_eq!(
            split_command(r#"  "my engine/scan" 'a b'  c\ d "x\"y" '' "#).unwrap(),
            ["my engine/scan", "a b", "c d", "x\"y", ""]
        );
        assert!(split_command("a 'b").is_err());
        assert!(split_command("a \"b").is_err());
        assert!(split_command("   ").is_err());
    }

    #[test]
    fn reads_engine_specs() {
        let e = EngineSpec::parse(
            1,
            &toks(&[
                "name=A",
                "cmd=./damast hub",
                "dir=/tmp",
                "option.level=normal",
                "option.tt-size=16",
                "depth=4",
            ]),
        )
        .unwrap();
        assert_eq!(e.name, "A");
        assert_eq!(e.cmd, ["./damast", "hub"]);
        assert_eq!(e.dir, Some(PathBuf::from("/tmp")));
        assert_eq!(
            e.options,
            [
                ("level".to_string(), "normal".to_string()),
                ("tt-size".to_string(), "16".to_string())
            ]
        );
        assert_eq!(e.limits.depth, Some(4));
        let err = |t: &[&str]| EngineSpec::parse(2, &toks(t)).unwrap_err();
        assert_eq!(
            err(&["cmd=x"]),
            ConfigError::MissingKey {
                index: 2,
                key: "name"
            }
        );
        assert!(matches!(
            err(&["name=A"]),
            ConfigError::MissingKey { key: "cmd", .. }
        ));
        assert!(matches!(
            err(&["name=A", "cmd=x", "colour=red"]),
            ConfigError::UnknownKey { .. }
        ));
        assert!(matches!(
            err(&["name=A", "cmd=x", "nonsense"]),
            ConfigError::NotKeyValue { .. }
        ));
        assert!(matches!(
            err(&["name=A", "cmd='x"]),
            ConfigError::BadCommand { .. }
        ));
        assert!(matches!(
            err(&["name=A", "cmd=x", "depth=0"]),
            ConfigError::BadValue { .. }
        ));
        assert!(matches!(
            err(&["name=A", "cmd=x", "tc=fast"]),
            ConfigError::TimeControl(_)
        ));
        assert!(err(&["name=A", "cmd=x", "option.=1"])
            .to_string()
            .contains("unknown key"));
    }

    #[test]
    fn reads_adjudication_and_sprt() {
        let d = parse_draw(&toks(&["movenumber=40", "movecount=10", "score=0.1"])).unwrap();
        assert_eq!((d.move_number, d.move_count, d.score), (40, 10, 0.1));
        assert!(parse_draw(&toks(&["movenumber=40", "score=0.1"])).is_err());
        assert!(parse_draw(&toks(&["movecount=4", "score=-1"])).is_err());
        let r = parse_resign(&toks(&["movecount=4", "score=5"])).unwrap();
        assert_eq!((r.move_count, r.score), (4, 5.0));
        assert!(parse_resign(&toks(&["movecount=4"])).is_err());
        assert!(parse_resign(&toks(&["movecount=4", "score=5", "twosided=1"])).is_err());
        let s = parse_sprt(&toks(&["elo0=0", "elo1=5", "alpha=0.05", "beta=0.1"])).unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (0.0, 5.0, 0.05, 0.1));
        assert_eq!(s.model, EloModel::Logistic);
        assert!(parse_sprt(&toks(&["elo0=5", "elo1=0"])).is_err());
        assert!(parse_sprt(&toks(&["elo1=5"])).is_err());
        assert!(parse_sprt(&toks(&["elo0=0", "elo1=5", "alpha=2"])).is_err());
        let n = parse_sprt(&toks(&["elo0=0", "elo1=5", "model=normalized"])).unwrap();
        assert_eq!(n.model, EloModel::Normalized);
    }

    fn args(engines: &[&[&str]]) -> MatchArgs {
        MatchArgs {
            engine: engines.iter().map(|e| toks(e)).collect(),
            options: options(),
        }
    }

    fn options() -> MatchOptions {
        MatchOptions {
            tc: None,
            movetime: None,
            depth: Some(2),
            nodes: None,
            timemargin: 0.1,
            openings: None,
            games: None,
            shuffle: None,
            variant: VariantKind::International,
            draw: None,
            resign: None,
            move_limit: None,
            concurrency: 1,
            sprt: None,
            pdn: None,
            event: "t".into(),
            start_timeout: 5.0,
            move_timeout: 5.0,
        }
    }

    #[test]
    fn checks_the_whole_command_line() {
        let a = ["name=A", "cmd=a"];
        let b = ["name=B", "cmd=b"];
        assert!(args(&[&a, &b]).into_config().is_ok());
        assert_eq!(
            args(&[&a]).into_config().unwrap_err(),
            ConfigError::TooFewEngines
        );
        assert_eq!(
            args(&[&a, &a]).into_config().unwrap_err(),
            ConfigError::DuplicateName("A".into())
        );
        let mut no_limit = args(&[&a, &b]);
        no_limit.options.depth = None;
        assert!(matches!(
            no_limit.into_config(),
            Err(ConfigError::NoLimit(_))
        ));
        let mut own_limits = args(&[
            &["name=A", "cmd=a", "depth=3"],
            &["name=B", "cmd=b", "tc=10+0.1"],
        ]);
        own_limits.options.depth = None;
        let c = own_limits.into_config().unwrap();
        assert_eq!(c.limits_of(0).depth, Some(3));
        assert!(c.limits_of(1).tc.is_some());
        let mut sprt3 = args(&[&a, &b, &["name=C", "cmd=c"]]);
        sprt3.options.sprt = Some(toks(&["elo0=0", "elo1=5"]));
        assert_eq!(sprt3.into_config().unwrap_err(), ConfigError::SprtNeedsTwo);
        let mut c0 = args(&[&a, &b]);
        c0.options.concurrency = 0;
        assert!(c0.into_config().is_err());
        let mut m = args(&[&a, &b]);
        m.options.timemargin = -1.0;
        assert!(m.into_config().is_err());
        let mut g = args(&[&a, &b]);
        g.options.movetime = Some(0.0);
        assert!(g.into_config().is_err());
    }

    #[test]
    fn move_limit_is_for_platform_dama_and_reaches_the_engines() {
        let a = ["name=A", "cmd=a"];
        let b = ["name=B", "cmd=b", "option.move-limit=40"];
        let mut intl = args(&[&a, &b]);
        intl.options.move_limit = Some(30);
        assert!(matches!(
            intl.into_config(),
            Err(ConfigError::Range {
                option: "--move-limit",
                ..
            })
        ));
        let mut zero = args(&[&a, &b]);
        zero.options.variant = VariantKind::Platform;
        zero.options.move_limit = Some(0);
        assert!(zero.into_config().is_err());
        let mut p = args(&[&a, &b]);
        p.options.variant = VariantKind::Platform;
        p.options.move_limit = Some(30);
        let c = p.into_config().unwrap();
        assert_eq!(c.move_limit, MoveLimit::new(30));
        let sent = |i: usize| -> Vec<(String, String)> {
            c.engines[i]
                .options
                .iter()
                .filter(|(k, _)| k == "move-limit")
                .cloned()
                .collect()
        };
        // sent to the engine without its own, and an engine's own option is left alone
        assert_eq!(sent(0), vec![("move-limit".to_string(), "30".to_string())]);
        assert_eq!(sent(1), vec![("move-limit".to_string(), "40".to_string())]);
    }
}
