//! The man pages' HOW IT DECIDES sections ([`Block`]s of
//! `write::manual`), in an operator's words, built from the constants the
//! searches and the option defaults use: the score's weights from
//! [`crate::score::metric::COMPONENTS`], the move kinds' texts and
//! commands from `write::balance::move_commands`, every default from
//! [`Options::default`] (or the constant the search keeps), so that a
//! number on a page is the one the code applies. The algorithm is Ganeti
//! 3.0.2's (`Cluster.hs`, `GlobalN1.hs`, `Hsqueeze.hs`, `Hspace.hs`,
//! `Hroller.hs`, `Hcheck.hs`, `Harep.hs`) as the searches reproduce it.
//!
//! One function per program ([`hail`], [`balance`], [`squeeze`],
//! [`info`], [`space`], [`roll`], [`groups`], [`check`], [`repair`]); the parts
//! several pages share ([`score`], [`moves`], [`n_plus_one`], [`stopping`])
//! are built once.

use crate::model::node::STANDBY_PREFIX;
use crate::model::types::IMove;
use crate::program::cli::Options;
use crate::score::metric::{Aggregation, COMPONENTS};
use crate::write::balance::move_commands;
use crate::write::manual::Block;
use crate::write::squeeze::STANDBY_TAG;

fn text(s: impl Into<String>) -> Block {
    Block::Text(s.into())
}

fn heading(s: &str) -> Block {
    Block::Heading(s.to_owned())
}

fn item(term: impl Into<String>, s: impl Into<String>) -> Block {
    Block::Item(term.into(), s.into())
}

/// A number as the pages print it: Rust's shortest form (`0.5`, `16`,
/// `0.01`), in exponent form below a thousandth (`1e-9`).
pub fn number(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-3 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// What a score component measures, by its name in
/// [`COMPONENTS`]; `None` for a name this page does not know (a test
/// keeps the two lists the same).
fn measures(name: &str) -> Option<&'static str> {
    Some(match name {
        "free_mem_cv" => "the free memory, as a fraction of the node's memory",
        "free_disk_cv" => "the free disk, as a fraction of the node's disk (spindles with exclusive storage)",
        "n1_cnt" => "the instances (primary and secondary) of each node that fails N+1",
        "reserved_mem_cv" => "the memory kept free for failovers (N+1), as a fraction of the node's memory",
        "offline_all_cnt" => "the instances, primary or secondary, on offline and drained nodes",
        "offline_pri_cnt" => "the primary instances on offline and drained nodes (it helps failovers in two-node groups)",
        "vcpu_ratio_cv" => "the virtual CPUs of the primary instances per physical CPU",
        "cpu_load_cv" => "the dynamic CPU load (-U, --mond; 0 without them)",
        "mem_load_cv" => "the dynamic memory load (-U)",
        "disk_load_cv" => "the dynamic disk load (-U; secondaries count too)",
        "net_load_cv" => "the dynamic network load (-U)",
        "pri_tags_score" => "the primary instances sharing an exclusion tag with another primary of their node (--exclusion-tags, htools:iextags:)",
        "spindles_cv" => "the spindles in use, as a fraction of the node's spindles (times the policy's oversubscription ratio unless storage is exclusive)",
        "free_mem_cv_forth" => "the free memory, forthcoming instances counted",
        "free_disk_cv_forth" => "the free disk, forthcoming instances counted",
        "vcpu_ratio_cv_forth" => "the virtual CPUs per physical CPU, forthcoming instances counted",
        "spindles_cv_forth" => "the spindles in use, forthcoming instances counted",
        "location_score" => "the instances whose primary and secondary share a location tag, a common cause of failure (htools:nlocation:)",
        "location_exclusion_score" => "the instances sharing an exclusion tag whose primaries share a location tag",
        "reserved_mem_rtotal" => "the memory kept free for failovers, as a fraction of the node's memory",
        _ => return None,
    })
}

/// The cluster score: what it adds up, each component with its weight
/// (the code's table, in its order).
pub fn score() -> Vec<Block> {
    let mut out = vec![
        heading("The cluster score"),
        text("Every choice is scored by one number, the cluster score of the node group: the lower the better, near 0 for a group whose nodes are all equally full, with no instance on an offline node and every node N+1 redundant. It is a weighted sum of the components below; each line gives the component's name (as -v -v -v and --explain print it), its weight and what it adds: a spread is the standard deviation over the group's online nodes, a sum counts over the nodes named. Counts carry large weights because they stand for hard problems (instances on offline nodes, N+1 failures), spreads small ones because they only even the load out."),
    ];
    for c in COMPONENTS {
        let what = measures(c.name).unwrap_or("");
        let over = match (c.aggregation, c.online) {
            (Aggregation::StdDev, _) => format!("spread of {what}"),
            (Aggregation::Sum, true) => format!("sum over the online nodes of {what}"),
            (Aggregation::Sum, false) => format!("sum over the offline nodes of {what}"),
            (Aggregation::Map, _) => {
                format!("count of {what}, beyond the first instance of each such pair of tags")
            }
        };
        out.push(item(
            format!("{} (weight {})", c.name, number(c.weight)),
            over,
        ));
    }
    out
}

/// The move kinds of a balancing step, with their texts in the plan and
/// their commands (those of `write::balance`, for an instance INST and a
/// node NODE).
pub fn moves() -> Vec<Block> {
    let kinds: [(IMove<&str>, &str); 6] = [
        (IMove::Failover, "failover or migration: the secondary becomes the primary (drbd)"),
        (IMove::ReplaceSecondary("NODE"), "replace the secondary: NODE becomes the new secondary, the primary stays (drbd)"),
        (IMove::ReplaceAndFailover("NODE"), "replace the secondary, then fail over: NODE becomes the primary, the old primary the secondary (drbd)"),
        (IMove::FailoverAndReplace("NODE"), "fail over, then replace the secondary: the old secondary becomes the primary, NODE the secondary (drbd)"),
        (IMove::ReplacePrimary("NODE"), "replace the primary, a failover, a replacement and a failover: NODE becomes the primary, the secondary stays (drbd)"),
        (IMove::FailoverToAny("NODE"), "migrate or fail over to NODE (shared storage and the like: ext, rbd, sharedfile, gluster, blockdev, diskless)"),
    ];
    let mut out = vec![
        heading("Moves"),
        text("A move changes one of an instance's nodes; the other stays, possibly in the other role. Each kind is printed as in the plan's a= column, then what it does and the commands -C prints for it (migrate when the instance runs, failover when it is down):"),
    ];
    for (mv, what) in kinds {
        let (tag, commands) = move_commands(mv, "INST", true);
        out.push(item(
            tag,
            format!(
                "{what}. Commands: gnt-instance {}",
                commands.join("; gnt-instance ")
            ),
        ));
    }
    out.push(text("Replacing both nodes at once is never tried (it would search every pair of nodes, for no better scores and more disk copies). Plain and file instances never move. --no-disk-moves keeps only the failovers and migrations; --no-instance-moves only the secondary replacements; --restricted-migration drops the replacement of the primary and, unless the primary is offline, everything but the secondary replacement."));
    out
}

/// What a node's and a group's N+1 redundancy mean.
pub fn n_plus_one() -> Vec<Block> {
    vec![
        heading("N+1 redundancy"),
        text("A node is N+1 redundant when it keeps enough memory free to take over, should any one other node fail, the drbd instances whose primary is on that node and whose secondary is here: the largest such sum is the node's reserved memory. A move or placement that would push a node into N+1 failure is refused (unless the node failed already)."),
        text("The global N+1 check (the capacity checks) asks more: could every node of the group still be evacuated? The allocator puts each placement to it (off with --no-capacity-checks), hailstone-space its counts, hailstone-check reports the nodes that fail it; a balancing move is not put to it. Its drbd primaries are failed over to their secondaries, its primaries on shared storage migrated to the best other node of its group, and its other primaries (plain, file, blockdev) recreated on another node of its group, largest memory first, with the soft checks ignored. --ganeti-version=3.1 takes each node's initial N+1 state from its unallocated memory, as Ganeti 3.1.0 does."),
    ]
}

/// The balancing's stopping rules, with the defaults of `-e`, `-g`,
/// `--min-gain-limit` and `-l`.
pub fn stopping() -> Vec<Block> {
    let d = Options::default();
    let limit = if d.max_length < 0 {
        "no limit".to_owned()
    } else {
        d.max_length.to_string()
    };
    vec![
        heading("When it stops"),
        text("Balancing goes step by step. Each step tries, for every instance that may move (in instance order) and every online node of the group (in node order), each move the instance allows, refusing those that break a check; the best move is the one with the lowest score (on a tie, the first found), and it is taken only when it lowers the score. The next step starts from the cluster it left. Balancing stops at the first of:"),
        item("-l N, --max-length=N", format!("N moves were made (default: {limit})")),
        item("-e EPSILON, --min-score=EPSILON", format!("the score is within EPSILON of the best score N+1 allows (default {}): the score a perfectly even group would still have for the memory its nodes must keep free for failovers, once its largest node is gone", number(d.min_score))),
        item("no improving move", "no move is allowed, or the best one does not lower the score"),
        item("-g DELTA, --min-gain=DELTA", format!("once the score is at most --min-gain-limit (default {}), the best move lowers it by less than DELTA (default {}); above that limit any gain is taken", number(d.min_gain_limit), number(d.min_gain))),
        text("A move is refused when it would put an instance on an offline or drained node, break the instance policy (its disk templates always; the other limits, the soft checks, unless --ignore-soft-errors), leave a node without the memory or disk the instance needs, push a node into N+1 failure, exceed --max-cpu's virtual-to-physical CPU ratio or go below --min-disk's free disk, put two primaries sharing an exclusion tag on one node, or migrate to a node missing one of the source's migration tags (htools:migration:)."),
    ]
}

/// hailstone's (hail's) choice of nodes for each request type.
pub fn hail() -> Vec<Block> {
    let mut out = vec![
        heading("Allocation"),
        text("For a new instance (allocate, and each instance of multi-allocate in turn), every node group the instance may use is searched on its own: its online nodes (only those of --restrict-allocation-to when given), singly for a template on one node, in pairs of primary and secondary for drbd. A candidate is refused when it breaks a check: the instance policy (--ignore-soft-errors keeps only the disk templates), free memory, free disk, spindles, the virtual-to-physical CPU ratio, an exclusion tag already on the node, a node pushed into N+1 failure. Every other candidate is scored: the score of the group with the instance placed. The lowest score wins, a tie going to the later candidate in node order, provided the group passes the global N+1 check with it (unless --no-capacity-checks); otherwise the next best is checked."),
        text("The groups that found a node are then ranked by allocation policy (preferred, then last_resort; unallocable groups and groups without the instance's networks are never used) and, within a policy, by their best score: the first one wins. On a cluster where every node has exclusive storage, the score is replaced by the lost allocations (Ganeti's dedicated allocation): how many instances of the policy's smallest sizes the nodes could no longer take, then the disk left on them; the lowest wins, without the global N+1 check, so that large free slots are kept and nodes are filled best-fit."),
        heading("Existing instances"),
        text("relocate, node-evacuate and change-group move existing instances one after another, each on the cluster the previous ones left; an instance that fits nowhere is reported and changes nothing. For each, the target nodes are tried in node order and the one leaving the lowest score in the target group wins (a tie going to the later node): a new secondary (replace-disks), a new primary for shared storage (migrate or failover), or for node-evacuate's all mode and change-group a new primary and secondary pair. change-group takes the group a new allocation of the instance would choose among those allowed; --inter-group-evacuation lets node-evacuate do the same for an instance that fits nowhere in its own group. The answer lists the jobs Ganeti runs."),
    ];
    out.extend(n_plus_one());
    out.extend(score());
    out.extend(plan_cost("--explain says what the jobs of a relocate, node-evacuate or change-group answer cost, each instance's and in all"));
    out.push(text("Ganeti submits an evacuation's jobs together, so they are one job set: the estimate is the longest job, the shortest the evacuation can take (jobs on one node share its network and may wait for its locks). A relocate answer is one new secondary (its disks resynced) for drbd, one migration for shared storage. The allocator decides nothing by cost: the answer is hail's."));
    out
}

/// hailstone-balance's (hbal's) balancing.
pub fn balance() -> Vec<Block> {
    let mut out = vec![text("hailstone-balance balances one node group (-G, or the only one): it moves instances one at a time, always taking the move that lowers the cluster score most, until no move helps enough. With --evac-mode only the instances with a node that is offline or drained move, and they move off it: instances on offline nodes weigh heavily in the score, and no move may put an instance on such a node.")];
    out.extend(stopping());
    out.extend(moves());
    out.extend(score());
    out.extend(n_plus_one());
    out.extend(cost());
    out
}

/// What a plan costs (`model::cost`): `carried` says where the cost is
/// printed.
pub fn plan_cost(carried: &str) -> Vec<Block> {
    use crate::model::cost::{DEFAULT_MIGRATION_BANDWIDTH, DEFAULT_RESYNC_RATE};
    vec![
        heading("What a plan costs"),
        text("The score does not see what a move costs to carry out. A disk replacement (replace-disks -n, a new DRBD secondary) resyncs every disk of the instance over the network; a live migration (migrate) copies the instance's memory; the failover of a stopped instance, or of one whose primary is offline, copies nothing. A move that gives a drbd instance a new primary by a replacement copies its disks too; a failover or a migration copies no disk."),
        text(format!("{carried}: the disk data copied, the memory migrated, the counts of migrations, failovers and disk replacements, the job sets, and an estimated time. A job (one move) takes its disk data at --resync-rate plus its memory at --migration-bandwidth; the jobs of a job set run side by side and the sets one after another, as -X runs them, so the plan takes the sum over its sets of the longest job. The defaults are Ganeti's own: the DRBD resync-rate disk parameter, 61440 KiB/s ({DEFAULT_RESYNC_RATE} MiB/s), and KVM's migration_bandwidth, {DEFAULT_MIGRATION_BANDWIDTH} MiB/s. The estimate leaves out lock waits, DRBD's dynamic resync controller and the pages a running instance dirties while it migrates.")),
    ]
}

/// What a plan costs, and its knee (`model::cost`).
fn cost() -> Vec<Block> {
    let mut out = plan_cost("--print-cost adds the plan's cost to the text (--json, --explain and --report always carry it)");
    out.extend(vec![
        heading("Within a data budget"),
        text("--max-copy=SIZE plans the balancing so that its disk replacements copy at most SIZE in all (--max-copy=0: only migrations and failovers, like --no-disk-moves). Every step is still a move hbal could make, with every check of balancing (memory and N+1 on the secondary, disk, policies, exclusion tags, no offline or drained target) and hbal's stopping rules (-l, -e, -g with --min-gain-limit); only the choice differs, and a move whose data would pass the budget is never taken. Two plans are made: by gain per byte, each step taking among the moves that fit the budget left and lower the score a move that copies no disk (the one with the largest gain), or else the one with the largest score gain per MiB it copies; and hbal's own moves while their data fits (hbal's plan cut at the budget), then moves by gain per byte in what is left. The plan with the lower final score is printed (on a tie the one that copies less), so it never ends above hbal's plan cut at the same budget. The steps, commands (-C) and jobs (-X) are printed and carried out as hbal's."),
        text("The knee: every first k moves of the plan reach a part y of the plan's score improvement for a part x of its disk data. The knee is the k with the largest y - x (the point farthest above the straight line from the start to the end of the plan; the earliest on a tie), when that is above 0; before it the moves gain more per byte than the plan's average, after it less. The report charts the score against the data and marks it, and --explain and --print-cost say it in one line, e.g. 95% of the improvement for 30% of the data: -l 7 (-l k stops the same plan after k moves)."),
    ]);
    out
}

/// hailstone-squeeze's (hsqueeze's) choice of nodes to power off or on.
pub fn squeeze() -> Vec<Block> {
    let d = Options::default();
    let mut out = vec![
        text(format!("hailstone-squeeze measures the room left with a reserve instance: FACTOR times the cluster policy's standard instance (its memory, CPUs and spindles, rounded down; no disk), placed as a new primary with every check strict. --minimal-resources gives the factor of the check that powers nodes on (default {}), --target-resources the factor of the check that powers them off (default {}).", number(d.minimal_resources), number(d.target_resources))),
        heading("Powering on"),
        text(format!("When some node cannot take the minimal reserve instance now, it powers on standby nodes: the offline nodes with a tag starting with {STANDBY_PREFIX}, in node order, as few as suffice: the first N of them (none first, then one, two, ...) such that, after balancing the whole cluster, every node could take the minimal reserve instance. When none suffices, all of them. The plan powers them on (gnt-node power on), then balances.")),
        heading("Powering off"),
        text(format!("Otherwise it looks for nodes to power off: online nodes, not the master, holding no secondary and no plain or drbd primary, tried from the one with the fewest primaries (among equal counts, the last in node order first). Each is added to the chosen ones when, with all the chosen nodes offline and the cluster balanced, every instance's primary is online and every node could still take the target reserve instance; otherwise it stays on. The plan migrates the instances away, tags the nodes {STANDBY_TAG} (so that a later run may power them on again) and powers them off. Nothing is chosen: nothing to do.")),
        text("Each trial balances all groups together, as one table: every move kind, no minimum gain, no limit of moves, until no move lowers the score. The score is that of balancing (hailstone-balance(1) explains it)."),
    ];
    out.extend(score());
    out.extend(plan_cost("--print-cost adds the cost of the plan's moves to the text, after the nodes (--json, --explain and --report always carry it); the power and tag commands copy nothing and are left out"));
    out.push(text("The plan has no knee: it is carried out whole to empty (or fill) the nodes, and hsqueeze has no -l to stop it early."));
    out
}

/// hailstone-info's (hinfo's) score.
pub fn info() -> Vec<Block> {
    let mut out = vec![text("hailstone-info decides nothing: it reports. The score it prints for each group and for the cluster, with its components at -v -v -v, is the one the planners and the allocator minimise:")];
    out.extend(score());
    out
}

/// hailstone-space's (hspace's) counts.
pub fn space() -> Vec<Block> {
    use crate::search::space::{UNIT_CPU, UNIT_DSK, UNIT_MEM, UNIT_SPINDLE};
    let (mem, dsk, cpu, sp) = (UNIT_MEM, UNIT_DSK, UNIT_CPU, UNIT_SPINDLE);
    vec![
        text("hailstone-space fills a copy of the cluster with new instances of one size until one more fits nowhere, and counts them; each count starts again from the cluster as read. The instance has the disk template of --disk-template (default: the first the policy allows), one disk, and the spindles of --spindle-use (default: the policy's standard instance's)."),
        item("tiered count", format!("starts from --tiered-alloc's size, or the policy's largest instance. When one more instance fits nowhere, the instance shrinks by the resource that refused most nodes (memory by {mem} MiB, disk by {dsk} MiB, CPUs by {cpu}, spindles by {sp}) and the count goes on, as long as the smaller instance places more; otherwise by the first resource, most refusals first, whose shrinking alone lets one fit. It stops when no shrinking helps. It prints how many of each size fit.")),
        item("standard count", "places instances of --standard-alloc's size, or the policy's standard instance, until one more fits nowhere."),
        heading("Where an instance goes"),
        text("By default the counts are hspace's: each instance goes where the allocator would put it among all the cluster's nodes (or pairs) at once, scored on the whole cluster (hailstone(1) explains the score and the checks), without the global N+1 check for drbd instances. To go fast, many instances are placed without the check and kept only when the cluster passes it afterwards, else ten at a time, then one by one with it. When an online node fails N+1 already, nothing is counted, unless --accept-existing-errors (count on, adding no new failure) or --independent-groups (leave out the groups that fail, count in the others)."),
        text("With --allocator-model each instance is placed as hailstone (the allocator) answers one allocate request for it: the best group first (by allocation policy, then score), the global N+1 check for every disk template, and on a cluster of exclusive storage the lost-allocations ranking. The count is then the number of such requests Ganeti would accept one after another: what the cluster will really take, usually fewer than hspace's count."),
        text("Both print what the instances use and what is left, and why the last instance fit nowhere: the checks that refused it, most frequent first."),
    ]
}

/// hailstone-roll's (hroller's) reboot groups.
pub fn roll() -> Vec<Block> {
    let mut out = vec![
        text("hailstone-roll puts the nodes to reboot (online, of -G's group, with one of --node-tags' tags, without a non-redundant instance with --skip-non-redundant) in a graph: two nodes are joined when they must not be down together, because they hold the primary and the secondary of one drbd instance, or (unless --offline-maintenance) the primaries of two instances sharing a secondary node. It colours the graph three ways (largest degree first, Dsatur, Dcolor) and keeps the colouring with the fewest colours, the first on a tie: each colour is a set of nodes no two of which are joined."),
        text("Each set is then split so that its nodes' non-redundant instances (no secondary; shared storage counts as redundant with --shared-storage-movable) can move to other online nodes of their group: the nodes are taken in order, each joining the first group when its instances can move away together with those of the nodes already in it; the nodes left over form the next group the same way, and so on. --ignore-non-redundant skips this split. With --full-evacuation each group's drbd primaries are migrated to their secondaries and the groups split again so that their secondaries can be replaced."),
        text("The groups are printed largest first (the order of the colouring among equals), the groups holding the master node after the others and the master last within its group; --one-step-only prints only the first. With -X they are rebooted in that order, one group at a time."),
    ];
    out.extend(plan_cost("--print-cost adds the cost of the jobs -X would submit to the text, and --json gives each group's and the total"));
    out.push(text("A group's evacuation jobs are one job set, its return jobs another, the groups one after another; gnt-instance move (plain and file instances) copies the disks too. The resync after a reboot (the blocks written while a secondary was down) is not counted: no input says how much. The reboots themselves, and the wait for the nodes, are not in the time. There is no knee: every group is needed."));
    out
}

/// hailstone-groups' verdicts and plans.
pub fn groups() -> Vec<Block> {
    let mut out = vec![
        item("healthy", "no problem below."),
        item("weakly unhealthy", "an online node fails N+1 (its free memory below the memory it must keep for failovers), or an instance whose primary node is in the group has its secondary in another group (a split instance)."),
        item("unhealthy", "an offline node of the group still hosts instances."),
        text("repair takes each group that is not healthy, in group order, and moves its problem instances one by one (those on its offline nodes, then its split instances, then the secondaries and then the primaries of its nodes failing N+1) into a healthy group sharing their storage pool, until the group is healthy. Each moves as gnt-instance change-group would move it: to the group a new allocation of the instance would choose (hailstone(1) explains the choice), with a new primary and secondary there. A group's repair is kept only when it leaves the group healthy; plain and file instances cannot move between groups."),
        text("compress tries, for each group, to move all its instances into the other groups of its storage pool, each as repair moves one, and reports which groups could be emptied and how much each frees; --evacuate plans the emptying of the one freeing the most."),
        text("balance scores every group and balances the worst one that can improve (or -G's) as hailstone-balance(1) does, with its stopping rules and defaults."),
    ];
    out.extend(plan_cost("repair, compress --evacuate and balance carry their plan's cost in --json, --explain and --report, and --print-cost adds it to the text"));
    out.push(text("A drbd instance moving between groups (change-group) gets a new secondary in the target group (replace-disks -n), a migration (or, off an offline primary, a failover with --ignore-consistency) onto it, and a second replacement: it copies the instance's disks twice and its memory once. These plans have no knee: a repair or an evacuation is needed whole, and balance has no -l."));
    out
}

/// hailstone-check's (hcheck's) verdict.
pub fn check() -> Vec<Block> {
    vec![
        text("For each node group, and then for the whole cluster, hailstone-check counts: the online nodes failing N+1, the nodes with primaries sharing an exclusion tag, the instances whose primary node is offline, the offline nodes (hcheck's count of instances with an offline secondary; --true-counts counts those instances), and, with the capacity checks on, the nodes the global N+1 check could not evacuate (hailstone(1) explains it)."),
        item("Cluster needs rebalancing", "some count is above zero. It then balances each group as hailstone-balance(1) would with the same options (its score, stopping rules and defaults) and prints the counts again after that simulated balancing (not with --no-simulation); the final verdict (NEED_REBALANCE) repeats the first, as hcheck does, or with --true-counts is judged on the final counts."),
        item("No need to rebalance cluster, no problems found", "every count is zero."),
    ]
}

/// hailstone-repair's (harep's) repairs.
pub fn repair() -> Vec<Block> {
    vec![
        text("Each instance's repairs are allowed by tags: ganeti:watcher:autorepair:TYPE on the instance, else on its primary node's group, else on the cluster (the narrowest scope wins), TYPE being the most intrusive repair allowed, in the order fix-storage, migrate, failover, reinstall; ganeti:watcher:autorepair:suspend[:TIME] suspends them (until TIME, seconds since the epoch)."),
        text("Its pending and result tags (ganeti:watcher:autorepair:pending:... and ...:result:...) give its state: healthy, needing repair, a repair pending (its jobs still running: when they ended, it becomes a result: success, failure, or enoperm when the policy forbade it), or failed (a failed repair stops further ones until its tag is removed)."),
        text("What is broken, and the repair: a drbd instance with both nodes offline, or a plain instance with its node offline, gets its disks recreated and its OS reinstalled (reinstall); a drbd instance with its primary offline a failover (failover); with its secondary offline a new secondary (fix-storage). The new nodes are chosen by the cluster's default iallocator. A repair more intrusive than the policy allows is recorded as enoperm and not run; other disk templates are not repaired."),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(blocks: &[Block]) -> String {
        blocks
            .iter()
            .map(|b| match b {
                Block::Heading(t) | Block::Text(t) => t.clone(),
                Block::Item(a, b) => format!("{a}: {b}"),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every component of the code's table is described, with its own
    /// weight, in the table's order.
    #[test]
    fn score_lists_every_component_with_its_weight() {
        let blocks = score();
        let items: Vec<(&str, &str)> = blocks
            .iter()
            .filter_map(|b| match b {
                Block::Item(a, b) => Some((a.as_str(), b.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(items.len(), COMPONENTS.len());
        for (c, (term, what)) in COMPONENTS.iter().zip(items) {
            assert!(measures(c.name).is_some(), "{} is not described", c.name);
            assert_eq!(term, format!("{} (weight {})", c.name, number(c.weight)));
            assert!(what.len() > 20, "{term}: {what}");
        }
    }

    #[test]
    fn numbers_read_as_written() {
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(16.0), "16");
        assert_eq!(number(0.01), "0.01");
        assert_eq!(number(1e-9), "1e-9");
        assert_eq!(number(0.25), "0.25");
        for x in [0.5, 16.0, 0.01, 1e-9, 0.25, 2.0] {
            assert_eq!(number(x).parse::<f64>().unwrap(), x);
        }
    }

    /// The move kinds name hbal's texts and commands.
    #[test]
    fn moves_name_the_plan_texts() {
        let t = all(&moves());
        for tag in [
            "f:",
            "r:NODE:",
            "r:NODE f:",
            "f r:NODE:",
            "f r:NODE f:",
            "fa:NODE:",
        ] {
            assert!(t.contains(&format!("\n{tag} ")), "{tag}: {t}");
        }
        assert!(t.contains("gnt-instance migrate -f INST; gnt-instance replace-disks -n NODE INST; gnt-instance migrate -f INST"), "{t}");
    }

    /// Each program's section is there and says something.
    #[test]
    fn every_section_has_text() {
        for (name, f) in [
            ("hail", hail as fn() -> Vec<Block>),
            ("balance", balance),
            ("squeeze", squeeze),
            ("space", space),
            ("info", info),
            ("roll", roll),
            ("groups", groups),
            ("check", check),
            ("repair", repair),
        ] {
            let t = all(&f());
            assert!(t.len() > 400, "{name}: {t}");
        }
    }

    /// The HOW IT DECIDES section of `program`'s man page, as roff.
    fn rendered(program: &str) -> String {
        let names: Vec<&str> = crate::program::PROGRAMS.iter().map(|p| p.name).collect();
        let p = crate::program::PROGRAMS
            .iter()
            .find(|p| p.name == program)
            .unwrap();
        let page = p.man_page(&names);
        let start = page
            .find(".SH HOW IT DECIDES\n")
            .unwrap_or_else(|| panic!("{program}: no HOW IT DECIDES"));
        let end = page[start..].find(".SH OPTIONS\n").unwrap() + start;
        page[start..end].replace("\\-", "-")
    }

    /// The number that follows each `lead` in `text` (its word, less a
    /// closing `)`, `,` or `;`).
    fn after(text: &str, lead: &str) -> Vec<f64> {
        text.match_indices(lead)
            .map(|(i, _)| {
                let rest = &text[i + lead.len()..];
                let end = rest.find([')', ',', ';', ' ', '\n']).unwrap();
                rest[..end]
                    .parse::<f64>()
                    .unwrap_or_else(|e| panic!("{lead}{rest}: {e}"))
            })
            .collect()
    }

    /// The weights the rendered pages print are the code's, in its order,
    /// on every page with the score.
    #[test]
    fn rendered_weights_are_the_tables() {
        let weights: Vec<f64> = COMPONENTS.iter().map(|c| c.weight).collect();
        for program in [
            "hailstone",
            "hailstone-balance",
            "hailstone-squeeze",
            "hailstone-info",
        ] {
            assert_eq!(after(&rendered(program), "(weight "), weights, "{program}");
        }
    }

    /// The defaults the rendered pages name are those the options take.
    #[test]
    fn rendered_defaults_are_the_options() {
        let d = Options::default();
        let balance = rendered("hailstone-balance");
        // -e's, then --min-gain-limit's and -g's, in the text's order.
        assert_eq!(
            after(&balance, "(default "),
            vec![d.min_score, d.min_gain_limit, d.min_gain]
        );
        assert_eq!(d.max_length, -1);
        assert!(balance.contains("N moves were made (default: no limit)"));
        let squeeze = rendered("hailstone-squeeze");
        assert_eq!(
            after(&squeeze, "(default "),
            vec![d.minimal_resources, d.target_resources]
        );
        assert!(squeeze.contains(STANDBY_PREFIX) && squeeze.contains(STANDBY_TAG));
        let space = rendered("hailstone-space");
        use crate::search::space::{UNIT_CPU, UNIT_DSK, UNIT_MEM, UNIT_SPINDLE};
        assert_eq!(
            after(&space, "memory by ")
                .into_iter()
                .chain(after(&space, "disk by "))
                .chain(after(&space, "CPUs by "))
                .chain(after(&space, "spindles by "))
                .collect::<Vec<_>>(),
            [UNIT_MEM, UNIT_DSK, UNIT_CPU, UNIT_SPINDLE].map(|u| u as f64)
        );
    }

    /// The pages the section is written for have it; the others do not.
    #[test]
    fn sections_where_programs_decide() {
        for p in crate::program::PROGRAMS {
            let has = !(p.manual.decides)().is_empty();
            let expected = !matches!(
                p.name,
                "hailstone-scan" | "hailstone-htools" | "hailstone-shadow"
            );
            assert_eq!(has, expected, "{}", p.name);
        }
    }
}
