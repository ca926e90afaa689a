//! The record of one DXP game: players, moves, result, why it ended and the time each side
//! used, written as PDN.

use crate::core::game::{Game, GameResult};
use crate::core::pdn;
use crate::core::{Color, International};

use super::message::EndReason;

/// The result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// This colour won.
    Win(Color),
    /// A draw.
    Draw,
    /// Not decided (broken off).
    Unfinished,
}

impl Verdict {
    /// The verdict the rules give, if the game is over.
    pub fn by_rules(r: GameResult) -> Option<Verdict> {
        match r {
            GameResult::Ongoing => None,
            GameResult::Win(c) => Some(Verdict::Win(c)),
            GameResult::Draw(_) => Some(Verdict::Draw),
        }
    }

    /// The verdict a GAMEEND reason of the side playing `sender` claims.
    pub fn claimed(reason: EndReason, sender: Color) -> Verdict {
        match reason {
            EndReason::IWin => Verdict::Win(sender),
            EndReason::ILose => Verdict::Win(sender.opponent()),
            EndReason::Draw => Verdict::Draw,
            EndReason::Unknown => Verdict::Unfinished,
        }
    }

    /// The GAMEEND reason that the side playing `us` gives for this verdict.
    pub fn reason_for(self, us: Color) -> EndReason {
        match self {
            Verdict::Win(c) if c == us => EndReason::IWin,
            Verdict::Win(_) => EndReason::ILose,
            Verdict::Draw => EndReason::Draw,
            Verdict::Unfinished => EndReason::Unknown,
        }
    }

    /// The PDN result token (`2-0`, `1-1`, `0-2`, `*`).
    pub fn token(self) -> &'static str {
        match self {
            Verdict::Win(c) => pdn::result_token(GameResult::Win(c)),
            Verdict::Draw => "1-1",
            Verdict::Unfinished => "*",
        }
    }
}

/// Why the rules ended a game, in words.
pub fn rules_ending(game: &Game<International>) -> Option<String> {
    let pos = game.position();
    match game.result() {
        GameResult::Ongoing => None,
        GameResult::Draw(r) => Some(format!("draw by the {}", r.describe())),
        GameResult::Win(w) => {
            let loser = w.opponent();
            let name = loser.name();
            Some(if pos.pieces(loser).is_empty() {
                format!("{name} has no pieces left")
            } else {
                format!("{name} cannot move")
            })
        }
    }
}

/// One finished (or broken-off) game.
#[derive(Clone, Debug)]
pub struct Record {
    /// Game number in the match or on the connection, from 1.
    pub round: usize,
    /// The game: start position and moves.
    pub game: Game<International>,
    /// The colour we played.
    pub us: Color,
    /// Our name.
    pub our_name: String,
    /// The peer's name.
    pub peer_name: String,
    /// The result.
    pub verdict: Verdict,
    /// Why the game ended.
    pub ending: String,
    /// Seconds used by white and by black (the peer's time as seen from here, transit included).
    pub seconds: [f64; 2],
}

impl Record {
    /// The name of the player of `c`.
    pub fn name(&self, c: Color) -> &str {
        if c == self.us {
            &self.our_name
        } else {
            &self.peer_name
        }
    }

    /// The game as PDN: the seven tags, the start position when set up, the moves, the result,
    /// with why it ended and the time used in extra tags.
    pub fn pdn(&self, event: &str, site: &str) -> String {
        let tags: Vec<(String, String)> = vec![
            ("Event".into(), event.into()),
            ("Site".into(), site.into()),
            ("Date".into(), "????.??.??".into()),
            ("Round".into(), self.round.to_string()),
            ("White".into(), self.name(Color::White).into()),
            ("Black".into(), self.name(Color::Black).into()),
            ("Result".into(), self.verdict.token().into()),
            ("GameType".into(), "20".into()),
            ("Termination".into(), self.ending.replace('"', "'")),
            (
                "TimeUsed".into(),
                format!("{:.1} {:.1}", self.seconds[0], self.seconds[1]),
            ),
        ];
        pdn::write(&self.game, &tags, &[], self.verdict.token())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_and_claims_agree_between_the_sides() {
        for v in [
            Verdict::Win(Color::White),
            Verdict::Win(Color::Black),
            Verdict::Draw,
            Verdict::Unfinished,
        ] {
            for us in [Color::White, Color::Black] {
                let said = v.reason_for(us);
                assert_eq!(Verdict::claimed(said, us), v);
                assert_eq!(
                    Verdict::claimed(said.mirrored(), us.opponent()),
                    v,
                    "the other side's answer"
                );
            }
        }
    }

    #[test]
    fn pdn_round_trips() {
        let mut game: Game<International> = Game::from_fen("B:W40,K46:B19,23").unwrap();
        game.play_text("23-29").unwrap();
        let r = Record {
            round: 3,
            game,
            us: Color::White,
            our_name: "Damast".into(),
            peer_name: "Peer".into(),
            verdict: Verdict::Unfinished,
            ending: "broken off".into(),
            seconds: [1.0, 2.0],
        };
        let text = r.pdn("match", "here");
        let games = pdn::parse(&text).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].tag("Round"), Some("3"));
        assert_eq!(games[0].tag("Black"), Some("Peer"));
        assert_eq!(games[0].result.as_deref(), Some("*"));
        let g: Game<International> = games[0].to_game().unwrap();
        assert_eq!(g.position(), r.game.position());
    }
}
