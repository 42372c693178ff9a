//! What a usage error adds to its message: the nearest valid word to a
//! misspelt one ([`nearest`], "did you mean"), the valid words in a list
//! ([`one_of`]), and the closing line every usage error ends with
//! ([`see_help`]).

/// The edit distance of `a` and `b` (insertions, deletions,
/// substitutions and swaps of two neighbours each count one), on
/// characters.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the optimal string alignment table.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d;
        }
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
    }
    last[b.len()]
}

/// The valid word nearest to `given`, when one is near enough to be a
/// slip of the fingers: at most a third of its length away (at least one
/// edit, at most three), or `given` is the start of it. The first of the
/// nearest in `valid`'s order wins, so the answer does not depend on
/// anything but the two lists.
pub fn nearest<'a>(given: &str, valid: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    nearest_all(given, valid).into_iter().next()
}

/// Every valid word as near to `given` as [`nearest`]'s, in `valid`'s
/// order: a slip that could be either of two options names both
/// (`--max-cpy`: `--max-cpu` or `--max-copy`).
pub fn nearest_all<'a>(given: &str, valid: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = (given.chars().count() / 3).clamp(1, 3);
    let mut best: Option<usize> = None;
    let mut words: Vec<&str> = Vec::new();
    for word in valid {
        let d = if word.starts_with(given) && !given.is_empty() {
            0
        } else {
            distance(given, word)
        };
        if d > limit || best.is_some_and(|b| d > b) {
            continue;
        }
        if best.is_some_and(|b| d < b) {
            words.clear();
        }
        best = Some(d);
        if !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

/// `words` as a list for a sentence: `a, b or c`.
pub fn one_of(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The line that ends every usage error of `program`.
pub fn see_help(program: &str) -> String {
    format!("see {program} --help\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("chek", "check"), 1);
        assert_eq!(distance("enbale", "enable"), 1);
        assert_eq!(distance("explian", "explain"), 1);
        assert_eq!(distance("drdb", "drbd"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn the_nearest_word_or_none() {
        let ops = ["check", "repair", "compress", "balance"];
        assert_eq!(nearest("chek", ops), Some("check"));
        assert_eq!(nearest("comp", ops), Some("compress"));
        assert_eq!(nearest("balanse", ops), Some("balance"));
        assert_eq!(nearest("xyzzy", ops), None);
        assert_eq!(nearest("", ops), None);
        // The first of two equally near words.
        assert_eq!(nearest("ab", ["ac", "ad"]), Some("ac"));
        // A slip that could be either of two names both.
        assert_eq!(
            nearest_all("max-cpy", ["max-cpu", "max-copy", "max-cpus"]),
            ["max-cpu", "max-copy"]
        );
        assert_eq!(nearest_all("explian", ["explain", "exec"]), ["explain"]);
        assert!(nearest_all("xyzzy", ["explain"]).is_empty());
    }

    #[test]
    fn lists() {
        assert_eq!(one_of(&[]), "");
        assert_eq!(one_of(&["a"]), "a");
        assert_eq!(one_of(&["a", "b", "c"]), "a, b or c");
    }
}
