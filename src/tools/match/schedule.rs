//! The order of the games: every pair of engines plays each opening once with each colour, the
//! pairs taking turns, so that a match stopped early has played every pair about equally.

/// One game to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// The game's number in the match, from 1 (the PDN Round).
    pub number: usize,
    /// Index of the white engine.
    pub white: usize,
    /// Index of the black engine.
    pub black: usize,
    /// Index of the opening.
    pub opening: usize,
}

/// The games of a round robin of `engines` engines, `games_per_pair` games per pair, over
/// `openings` openings (used in order, each for two games with the colours swapped, and again
/// from the first when there are more games than openings).
pub fn schedule(engines: usize, openings: usize, games_per_pair: usize) -> Vec<Job> {
    let pairs: Vec<(usize, usize)> = (0..engines)
        .flat_map(|a| (a + 1..engines).map(move |b| (a, b)))
        .collect();
    let mut jobs = Vec::with_capacity(pairs.len() * games_per_pair);
    if openings == 0 {
        return jobs;
    }
    for k in 0..games_per_pair {
        for &(a, b) in &pairs {
            let (white, black) = if k % 2 == 0 { (a, b) } else { (b, a) };
            jobs.push(Job {
                number: jobs.len() + 1,
                white,
                black,
                opening: (k / 2) % openings,
            });
        }
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_engines_play_each_opening_with_both_colours() {
        let jobs = schedule(2, 3, 6);
        let got: Vec<(usize, usize, usize)> =
            jobs.iter().map(|j| (j.white, j.black, j.opening)).collect();
        assert_eq!(
            got,
            [
                (0, 1, 0),
                (1, 0, 0),
                (0, 1, 1),
                (1, 0, 1),
                (0, 1, 2),
                (1, 0, 2)
            ]
        );
        assert_eq!(
            jobs.iter().map(|j| j.number).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5, 6]
        );
        // more games than openings: the openings come round again; an odd count is allowed
        let jobs = schedule(2, 1, 3);
        assert_eq!(
            jobs.iter().map(|j| j.opening).collect::<Vec<_>>(),
            [0, 0, 0]
        );
        assert_eq!(jobs[2].white, 0);
    }

    #[test]
    fn round_robin_gives_every_pair_its_games() {
        let jobs = schedule(3, 5, 4);
        assert_eq!(jobs.len(), 12);
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            let as_white = jobs.iter().filter(|j| (j.white, j.black) == (a, b)).count();
            let as_black = jobs.iter().filter(|j| (j.white, j.black) == (b, a)).count();
            assert_eq!((as_white, as_black), (2, 2));
        }
        assert!(schedule(2, 0, 4).is_empty());
    }
}
