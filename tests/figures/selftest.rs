//! The readers and comparisons of this test fail on a wrong figure: each
//! is given a small made-up cluster's right figures, then one changed
//! number, and must find exactly what changed.

use std::collections::BTreeMap;

use crate::support::figures::{self, NodeFigures};
use crate::support::plan;

use super::explain::scan;
use super::{report, table, Findings};

/// Two nodes, a drbd instance each way, node `a` reporting 100 MiB more in
/// use than its records explain.
const CLUSTER: &str = "\
g|uuid-g|preferred||

a|4000|100|1900|6000|4000|8|M|uuid-g|4||N|0|1|1.0
b|4000|100|2800|6000|4000|8|N|uuid-g|4||N|0|1|1.0

i1|1000|1000|2|running|Y|a|b|drbd||1|-|N
i2|1100|1000|2|running|Y|b|a|drbd||1|-|N


g|128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|drbd,plain|4.0|32.0
";

fn node_a() -> NodeFigures {
    figures::initial(&plan::parse(CLUSTER))["a"].clone()
}

#[test]
fn the_arithmetic_is_ganetis() {
    let a = node_a();
    // x = 4000 - 100 - 1000 - 1900; free = 4000 - 100 - 1000 - 1000.
    assert_eq!(
        (a.mem_unaccounted, a.mem_free, a.mem_reserved),
        (1000, 1900, 1100)
    );
    assert!(!a.n1_fail && !a.n1_fail_loaded);
    assert_eq!((a.vcpus_used, a.vcpu_limit, a.dsk_instances), (3, 32, 2000));
    // After i2 fails over to a: a's free memory less 1100, the
    // unaccounted memory unchanged, the reservation now b's i1... gone.
    let mut after = plan::parse(CLUSTER);
    let _ = plan::replay(&mut after, "gnt-instance migrate -f i2");
    let a2 = figures::figures(&after, &plan::parse(CLUSTER))["a"].clone();
    assert_eq!(
        (a2.mem_unaccounted, a2.mem_free, a2.mem_reserved),
        (1000, 800, 0)
    );
}

#[test]
fn a_changed_table_cell_is_found() {
    let a = node_a();
    let stderr = "Initial cluster status:\n F Name t_mem n_mem i_mem x_mem f_mem u_mem r_mem t_dsk f_dsk pcpu vcpu pcnt scnt p_fmem p_fdsk r_cpu\n   a     4000   100  1000  1000  1900  1900  1100     6     3    8    3    1    1 0.4750 0.6667  0.38\n";
    let rows = table::read(stderr, "Initial cluster status:", 0).expect("a table");
    let nodes: BTreeMap<String, (&NodeFigures, bool)> = [("a".to_owned(), (&a, false))].into();
    let mut f = Findings::default();
    table::compare(&mut f, "right", &rows, &nodes);
    assert!(f.wrong.is_empty(), "{:?}", f.wrong);
    let rows = table::read(
        &stderr.replace("  1900  1100", "  1901  1100"),
        "Initial cluster status:",
        0,
    )
    .expect("a table");
    table::compare(&mut f, "wrong", &rows, &nodes);
    assert_eq!(f.wrong.len(), 1, "u_mem: {:?}", f.wrong);
}

#[test]
fn a_changed_report_figure_is_found() {
    let a = node_a();
    let figs: BTreeMap<String, NodeFigures> = [("a".to_owned(), a)].into();
    let names = BTreeMap::new();
    let nodes = vec!["a".to_owned()];
    let title = "a: Memory (MiB) of 4000 MiB\nnode 100 MiB\nunaccounted 1000 MiB\nprimaries 1000 MiB\nkept for N+1 1100 MiB\nfree 800 MiB\nmaster";
    let page = |t: &str| {
        format!("<svg aria-label=\"Memory (MiB) before\"><g data-node=\"a\"><title>{t}</title></g></svg>")
    };
    // The page has the memory chart only: the other three are missing
    // from both pages alike.
    let wrong = |t: &str| {
        let mut f = Findings::default();
        report::compare(
            &mut f,
            "page",
            &report::read(&page(t)),
            "before",
            &figs,
            &names,
            &nodes,
        );
        f.wrong
    };
    let right = wrong(title);
    assert!(
        right
            .iter()
            .all(|w| !w.contains("Memory (MiB) before: node")),
        "{right:?}"
    );
    let changed = wrong(&title.replace("of 4000", "of 5000"));
    assert_eq!(changed.len(), right.len() + 1, "{changed:?}");
    // A figures table row.
    let row = "<table class=\"figures\" data-when=\"after the plan\"><tr data-node=\"a\" data-offline=\"no\" data-mem-free=\"1900\" data-mem-total=\"4000\"></tr></table>";
    let rows = report::read_tables(row);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].values["mem-free"], 1900.0);
    let mut g = Findings::default();
    report::compare_rows(&mut g, "row", &rows, "after the plan", &figs, &nodes);
    // 17 keys absent, none wrong of the two given.
    assert_eq!(
        g.wrong.iter().filter(|w| w.contains("printed")).count(),
        0,
        "{:?}",
        g.wrong
    );
    let rows = report::read_tables(&row.replace("\"1900\"", "\"2900\""));
    let mut g = Findings::default();
    report::compare_rows(&mut g, "row", &rows, "after the plan", &figs, &nodes);
    assert_eq!(
        g.wrong.iter().filter(|w| w.contains("printed")).count(),
        1,
        "{:?}",
        g.wrong
    );
}

#[test]
fn explain_lines_are_read_whole() {
    let t = "  node {} fails N+1: {} MiB free for instances, {} MiB needed to take over its largest peer's instances";
    let line = "  node a fails N+1: 1 MiB free for instances, 1024 MiB needed to take over its largest peer's instances";
    assert_eq!(scan(t, line), Some(vec!["a", "1", "1024"]));
    // Another shape is not read as this one.
    assert_eq!(scan(t, &line.replace("needed", "wanted")), None);
    assert_eq!(scan(t, &format!("{line} (and more)")), None);
}

#[test]
fn a_saved_state_that_resizes_a_node_is_found() {
    let input = plan::parse(CLUSTER);
    assert!(figures::saved_state_faults(&input, &input, true).is_empty());
    let grown = plan::parse(&CLUSTER.replace("a|4000|100|1900", "a|5000|100|1900"));
    let faults = figures::saved_state_faults(&grown, &input, true);
    assert_eq!(faults.len(), 1, "{faults:?}");
}
