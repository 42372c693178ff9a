//! Haskell list algorithms whose exact behaviour is observable in hail's
//! answers: GHC's `Data.List.sortBy` (a stable merge sort over natural
//! runs). With a consistent comparison any stable sort gives the same
//! order, but hail compares floating-point scores that may be NaN, and then
//! only GHC's exact sequence of comparisons gives hail's order.

use std::cmp::Ordering;

/// GHC's `sortBy cmp` on `items`, returning the sorted items.
pub fn sort_by<T>(items: Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) -> Vec<T> {
    let n = items.len();
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    let order = {
        let get = |i: usize| -> &T {
            match &slots[i] {
                Some(t) => t,
                None => unreachable_slot(),
            }
        };
        sort_indices(n, |a, b| cmp(get(a), get(b)))
    };
    order
        .into_iter()
        .map(|i| match slots[i].take() {
            Some(t) => t,
            None => unreachable_slot(),
        })
        .collect()
}

#[cold]
fn unreachable_slot() -> ! {
    panic!("internal error: sort index used twice")
}

/// GHC's `sortBy` over the indices `0..n`, comparing through `cmp`.
pub fn sort_indices(n: usize, cmp: impl Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let runs = sequences(n, &cmp);
    merge_all(runs, &cmp)
}

/// Splits `0..n` into GHC's runs: strictly descending runs (reversed) and
/// non-descending runs.
fn sequences(n: usize, cmp: &impl Fn(usize, usize) -> Ordering) -> Vec<Vec<usize>> {
    let mut runs = Vec::new();
    let mut i = 0;
    loop {
        if n - i < 2 {
            // `sequences xs = [xs]` for fewer than two elements (also when
            // nothing is left, giving a final empty run).
            runs.push((i..n).collect());
            return runs;
        }
        let (a, b) = (i, i + 1);
        if cmp(a, b) == Ordering::Greater {
            // descending b [a] xs
            let mut run = vec![a];
            let mut cur = b;
            let mut j = i + 2;
            while j < n && cmp(cur, j) == Ordering::Greater {
                run.push(cur);
                cur = j;
                j += 1;
            }
            run.push(cur);
            run.reverse();
            runs.push(run);
            i = j;
        } else {
            // ascending b (a:) xs
            let mut run = vec![a];
            let mut cur = b;
            let mut j = i + 2;
            while j < n && cmp(cur, j) != Ordering::Greater {
                run.push(cur);
                cur = j;
                j += 1;
            }
            run.push(cur);
            runs.push(run);
            i = j;
        }
    }
}

fn merge_all(mut runs: Vec<Vec<usize>>, cmp: &impl Fn(usize, usize) -> Ordering) -> Vec<usize> {
    while runs.len() > 1 {
        let mut next = Vec::with_capacity(runs.len() / 2 + 1);
        let mut it = runs.into_iter();
        loop {
            match (it.next(), it.next()) {
                (Some(a), Some(b)) => next.push(merge(a, b, cmp)),
                (Some(a), None) => {
                    next.push(a);
                    break;
                }
                _ => break,
            }
        }
        runs = next;
    }
    runs.pop().unwrap_or_default()
}

fn merge(a: Vec<usize>, b: Vec<usize>, cmp: &impl Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if cmp(a[i], b[j]) == Ordering::Greater {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably() {
        let v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (1, 'e')];
        let s = sort_by(v, |x, y| x.0.cmp(&y.0));
        assert_eq!(s, vec![(1, 'b'), (1, 'e'), (2, 'd'), (3, 'a'), (3, 'c')]);
    }

    #[test]
    fn handles_short_inputs() {
        assert_eq!(
            sort_by(Vec::<i32>::new(), |a, b| a.cmp(b)),
            Vec::<i32>::new()
        );
        assert_eq!(sort_by(vec![7], |a, b| a.cmp(b)), vec![7]);
        assert_eq!(sort_by(vec![2, 1], |a, b| a.cmp(b)), vec![1, 2]);
    }

    #[test]
    fn descending_runs_are_reversed_whole() {
        let v: Vec<i32> = (0..50).rev().collect();
        let s = sort_by(v, |a, b| a.cmp(b));
        assert_eq!(s, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn always_greater_comparator_matches_ghc() {
        // With a comparator that always says GT (hail comparing NaN scores),
        // GHC builds one descending run and reverses it.
        let s = sort_by(vec![1, 2, 3, 4], |_, _| Ordering::Greater);
        assert_eq!(s, vec![4, 3, 2, 1]);
    }
}
