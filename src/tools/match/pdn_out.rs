//! Games of a match as PDN: the seven standard tags with the international result form, the
//! opening position when it is not the start, the reason the game ended, and every engine move
//! commented with its score, depth and time.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::core::{fen, pdn, Position, Variant};

use super::game_runner::GameRecord;

/// The names and numbers that tag a game.
#[derive(Clone, Debug)]
pub struct GameTags<'a> {
    /// The Event tag.
    pub event: &'a str,
    /// The Date tag (`YYYY.MM.DD`).
    pub date: &'a str,
    /// The Round tag: the game's number in the match.
    pub round: usize,
    /// The white engine's name.
    pub white: &'a str,
    /// The black engine's name.
    pub black: &'a str,
}

/// A tag value with the characters that would end it replaced.
fn clean(value: &str) -> String {
    value
        .chars()
        .map(|c| match c {
            '"' => '\'',
            ']' => ')',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// One game as PDN text, ending with a blank line.
pub fn game_text<V: Variant>(record: &GameRecord<V>, tags: &GameTags<'_>) -> String {
    let result = record.result_token();
    let mut list: Vec<(String, String)> = vec![
        ("Event".into(), clean(tags.event)),
        ("Site".into(), "?".into()),
        ("Date".into(), tags.date.into()),
        ("Round".into(), tags.round.to_string()),
        ("White".into(), clean(tags.white)),
        ("Black".into(), clean(tags.black)),
        ("Result".into(), result.into()),
    ];
    let start = record.game.start();
    if *start != Position::start() {
        list.push(("SetUp".into(), "1".into()));
        list.push(("FEN".into(), fen::write(start)));
    }
    list.push(("Termination".into(), clean(&record.reason())));
    let mut text = pdn::write(&record.game, &list, &record.comments, result);
    text.push('\n');
    text
}

/// Today's date (UTC) as `YYYY.MM.DD`.
pub fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    date_of_day((secs / 86_400) as i64)
}

/// The civil date of a day counted from 1970-01-01, as `YYYY.MM.DD`.
fn date_of_day(days: i64) -> String {
    // Howard Hinnant's days-to-civil algorithm
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Color, Game, GameResult, International};
    use crate::tools::r#match::game_runner::{Ending, Fault};

    #[test]
    fn dates() {
        assert_eq!(date_of_day(0), "1970.01.01");
        assert_eq!(date_of_day(19_782), "2024.02.29");
        assert_eq!(date_of_day(20_000), "2024.10.04");
        assert_eq!(today().len(), 10);
    }

    #[test]
    fn games_read_back_with_their_tags() {
        let mut game = Game::<International>::from_fen("B:W28,31-50:B1-20").unwrap();
        game.play_text("19-23").unwrap();
        game.play_text("28x19").unwrap();
        let record = GameRecord {
            game,
            comments: vec![Some("end of opening".into()), Some("0.12/5 0.010s".into())],
            ending: Ending::Forfeit(
                Color::Black,
                Fault::Illegal {
                    text: "14-19".into(),
                    why: "illegal \"move\"".into(),
                },
            ),
            time: Default::default(),
        };
        let tags = GameTags {
            event: "test \"match\"",
            date: "2025.01.02",
            round: 3,
            white: "A",
            black: "B",
        };
        let text = game_text(&record, &tags);
        let games = pdn::parse(&text).unwrap();
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(g.tag("Result"), Some("2-0"));
        assert_eq!(g.result.as_deref(), Some("2-0"));
        assert_eq!(g.tag("Round"), Some("3"));
        assert_eq!(g.tag("Event"), Some("test 'match'"));
        assert_eq!(g.tag("FEN"), Some("B:W28,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"));
        assert!(g
            .tag("Termination")
            .unwrap()
            .contains("illegal move '14-19'"));
        let back: Game<International> = g.to_game().unwrap();
        assert_eq!(back.position(), record.game.position());
        let start = GameRecord {
            game: Game::<International>::default(),
            comments: Vec::new(),
            ending: Ending::Rules(GameResult::Ongoing),
            time: Default::default(),
        };
        assert!(!game_text(&start, &tags).contains("FEN"));
    }
}
