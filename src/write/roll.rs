//! hroller's texts (`Program/Hroller.hs`): the heading, each reboot
//! group (its nodes on one line, or one per line for `--one-step-only`)
//! and with `--print-moves` the moves it needs.

use crate::search::roll::Move;

/// The heading (`'Node Reboot Groups'`, or `'First Reboot Group'` for
/// `--one-step-only`).
pub fn heading(one_step: bool) -> &'static str {
    if one_step {
        "'First Reboot Group'\n"
    } else {
        "'Node Reboot Groups'\n"
    }
}

/// One reboot group: its node names, then its moves when asked for.
pub fn group(names: &[&str], moves: &[Move], one_step: bool, print_moves: bool) -> String {
    let mut s = if one_step {
        names.iter().map(|n| format!("{n}\n")).collect()
    } else {
        format!("{}\n", names.join(","))
    };
    if print_moves {
        for m in moves {
            match &m.secondary {
                Some(sec) => s.push_str(&format!("  {} {} {sec}\n", m.instance, m.primary)),
                None => s.push_str(&format!("  {} {}\n", m.instance, m.primary)),
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_moves() {
        let moves = vec![
            Move {
                instance: "i1".to_owned(),
                primary: "n3".to_owned(),
                secondary: None,
            },
            Move {
                instance: "i2".to_owned(),
                primary: "n4".to_owned(),
                secondary: Some("n5".to_owned()),
            },
        ];
        assert_eq!(
            group(&["n1", "n2"], &moves, false, true),
            "n1,n2\n  i1 n3\n  i2 n4 n5\n"
        );
        assert_eq!(group(&["n1", "n2"], &moves, true, false), "n1\nn2\n");
        assert_eq!(group(&[], &moves, false, false), "\n");
    }
}
