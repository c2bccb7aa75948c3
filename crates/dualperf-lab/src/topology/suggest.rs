//! "Did you mean …?" for misspelt names, by edit distance.

/// The candidate closest to `word`, if it is close enough to be a likely typo
/// (edit distance at most a third of the word, and at least 1 allowed).
pub(super) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// ` (did you mean "x"?)` or the empty string.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates)
        .map(|c| format!(" (did you mean \"{c}\"?)"))
        .unwrap_or_default()
}

/// Levenshtein distance between two strings, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != *cb);
            current.push(substitute.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_letter_suggests_the_intended_name() {
        assert_eq!(
            closest("sever", ["client", "router", "server"]),
            Some("server")
        );
    }

    #[test]
    fn an_unrelated_word_suggests_nothing() {
        assert_eq!(closest("banana", ["client", "router", "server"]), None);
        assert_eq!(did_you_mean("banana", ["client"]), "");
    }
}
