//! The balance suite's own tests: the shelltest format, its regular
//! expressions, data-file editing, the option sets.

use super::clusters::{self, Cluster};
use super::datafile::{self, DataFile};
use super::posix::Pattern as Regex;
use super::shelltest::{parse, ExitExpect, Expect, ShellTest};
use super::side::short_diff;
use super::testsuite::{expand_vars, hbal_tests, lacking_feature};
use super::*;

fn re(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("/{p}/: {e}"))
}

#[test]
fn regex_basics() {
    assert!(re("gnt-instance (failover|migrate|replace-disks)")
        .is_match("x\n  gnt-instance migrate -f inst1\n"));
    assert!(!re("gnt-instance (failover|migrate)").is_match("gnt-instance replace-disks"));
    assert!(re("Solution length=[1-9]").is_match("Solution length=3\n"));
    assert!(!re("Solution length=[1-9]").is_match("Solution length=0\n"));
    assert!(re("inst[12] node-slow:node-fast => node-fast:node-slow")
        .is_match("    1. inst2 node-slow:node-fast => node-fast:node-slow 1.0"));
    assert!(re("Cluster is not N\\+1 happy").is_match("Cluster is not N+1 happy, continuing"));
    assert!(!re("N\\+1").is_match("NN1"));
    assert!(re("Stripping common suffix of '\\.example\\.com'")
        .is_match("Note: Stripping common suffix of '.example.com' from names"));
    assert!(!re("a\\.b").is_match("axb"));
    assert!(
        re("cannot parse string '(cpu|mem|dsk|net)'").is_match("inst: cannot parse string 'mem'")
    );
    assert!(re("node node2 is missing .* ram and .* disk")
        .is_match("  - node node2 is missing 9 MB ram and 2 GB disk\n"));
    // `.` stops at a newline; `(.|\n)*` crosses lines.
    assert!(!re("a.*b").is_match("a\nb"));
    assert!(re("a(.|\n)*b").is_match("a\nxx\nb"));
    assert!(re("^b$").is_match("a\nb\nc"));
    assert!(!re("^b").is_match("ab"));
    assert!(re("x{2,3}").is_match("axxb"));
    assert!(!re("ax{2,3}b").is_match("axb"));
    assert!(re("a{2}").is_match("aa"));
    assert!(re("[^a]").is_match("ab"));
    assert!(!re("[^a]").is_match("a\n"));
    assert!(re("[[:digit:]]+ bad").is_match("4 bad nodes"));
    assert!(re("(|x)y").is_match("y"));
    assert!(re("[]x]").is_match("]"));
    assert!(
        re("a{").is_match("a{"),
        "a brace that starts no bound is literal"
    );
    for bad in ["(a", "a)", "*a", "[a", "a\\"] {
        assert!(Regex::new(bad).is_err(), "{bad}");
    }
}

#[test]
fn regex_is_linear_on_long_outputs() {
    let long = "line of output\n".repeat(20_000) + "Solution length=4\n";
    assert!(
        re("a=f r:node-1 f\n(.|\n)*Solution length=4").is_match(&format!("a=f r:node-1 f\n{long}"))
    );
    assert!(!re("(.|\n)*Solution length=5").is_match(&long));
}

const FILE: &str = "\
### comment

# a test with a regex
./test/hs/hbal -t$TESTDATA_DIR/a.data
>>>/Solution length=[1-9]/
>>>=0

./test/hs/hbal $BACKEND_BAL_STD -G group-01 -X
>>>2
Error: hbal: Execution of commands possible only on LUXI
>>>= !0

./test/hs/hbal -v -v -v -p $BACKEND_BAL_STD
>>> !/(Nothing to do, exiting|No solution found)/
>>>2 !/(Nothing to do|No solution)/
>>>= 0
# state saved before rebalancing should be identical
diff -u $T/simu-rebal-merged.standard $T/simu-rebal.standard.original
>>>
>>>= 0

./test/hs/hbal --print-nodes=name,pcnt -t $TESTDATA_DIR/hbal-migration-1.data
>>>2/Final cluster status:
 Name    pcnt
 node-01    3/
>>>= 0

./test/hs/hbal -t $TESTDATA_DIR/hbal-evac.data
>>>/inst-32. node-3:node-2 => node-2:node-1.*
(.|
)*Solution length=4/
>>>= 0
echo a > $T/dynu; ./test/hs/hbal -U $T/dynu $BACKEND_DYNU
>>>2 /Cannot parse line/
>>>= !0
";

#[test]
fn shelltest_format() {
    let tests = parse(FILE).expect("parses");
    assert_eq!(tests.len(), 7);
    assert_eq!(
        tests[0],
        ShellTest {
            line: 4,
            command: "./test/hs/hbal -t$TESTDATA_DIR/a.data".to_owned(),
            stdin: None,
            stdout: Some(Expect::Regex {
                pattern: "Solution length=[1-9]".to_owned(),
                negated: false
            }),
            stderr: None,
            exit: ExitExpect::Is(0),
        }
    );
    assert_eq!(
        tests[1].stderr,
        Some(Expect::Literal(
            "Error: hbal: Execution of commands possible only on LUXI\n".to_owned()
        ))
    );
    assert_eq!(tests[1].exit, ExitExpect::Not(0));
    assert_eq!(
        tests[2].stdout,
        Some(Expect::Regex {
            pattern: "(Nothing to do, exiting|No solution found)".to_owned(),
            negated: true
        })
    );
    assert!(matches!(
        &tests[2].stderr,
        Some(Expect::Regex { negated: true, .. })
    ));
    assert_eq!(tests[3].line, 18);
    assert_eq!(tests[3].stdout, Some(Expect::Literal(String::new())));
    assert_eq!(
        tests[4].stderr,
        Some(Expect::Regex {
            pattern: "Final cluster status:\n Name    pcnt\n node-01    3".to_owned(),
            negated: false
        })
    );
    assert_eq!(
        tests[5].stdout,
        Some(Expect::Regex {
            pattern: "inst-32. node-3:node-2 => node-2:node-1.*\n(.|\n)*Solution length=4"
                .to_owned(),
            negated: false
        })
    );
    assert_eq!(tests[6].exit, ExitExpect::Not(0));
    assert!(tests[6].command.starts_with("echo a > $T/dynu; "));
}

#[test]
fn shelltest_checks() {
    let tests = parse(FILE).unwrap();
    assert!(tests[0].check("Solution length=2\n", "", 0).is_empty());
    assert_eq!(tests[0].check("Solution length=0\n", "", 1).len(), 2);
    let luxi = "Error: hbal: Execution of commands possible only on LUXI\n";
    assert!(tests[1].check("", luxi, 1).is_empty());
    assert_eq!(tests[1].check("", luxi, 0).len(), 1);
    assert_eq!(tests[1].check("", &format!("{luxi}\n"), 1).len(), 1);
    assert!(tests[2].check("Trying\n", "", 0).is_empty());
    assert_eq!(tests[2].check("No solution found\n", "", 0).len(), 1);
    assert!(tests[3].check("", "anything", 0).is_empty());
    assert_eq!(tests[3].check("x\n", "", 0).len(), 1);
    let table = "\nFinal cluster status:\n Name    pcnt\n node-01    3\n node-02    0\n";
    assert!(tests[4].check("", table, 0).is_empty());
    assert_eq!(tests[4].check("", &table.replace('3', "2"), 0).len(), 1);
}

#[test]
fn shelltest_format_errors() {
    assert!(parse(">>>= 0\n").is_err());
    assert!(parse("cmd\n>>> /never closed\nmore\n").is_err());
    assert!(parse("cmd\n>>>= x\n").is_err());
    assert!(parse("cmd\n>>> !literal\n").is_err());
    // A test without an exit status ends at the next command.
    let t = parse("cmd1\n>>> /a/\ncmd2\n>>>= 1\n").unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].exit, ExitExpect::Is(0));
    assert_eq!(t[1].exit, ExitExpect::Is(1));
    // Standard input.
    let t = parse("cat\n<<<\nhello\n>>>\nhello\n>>>= 0\n").unwrap();
    assert_eq!(t[0].stdin.as_deref(), Some("hello\n"));
    assert_eq!(t[0].stdout, Some(Expect::Literal("hello\n".to_owned())));
}

#[test]
fn suite_membership_and_variables() {
    let fixtures = vec!["simu-rebal-merged.standard".to_owned()];
    let kept: Vec<String> = hbal_tests(parse(FILE).unwrap(), &fixtures)
        .into_iter()
        .map(|t| t.command)
        .collect();
    // The diff of the .original is kept only after the -S that writes it.
    assert!(!kept.iter().any(|c| c.starts_with("diff")));
    let with_save = format!(
        "./test/hs/hbal $BACKEND_BAL_STD -S $T/simu-rebal.standard\n>>>= 0\n{FILE}\n\
         ./test/hs/hinfo -t $T/simu-rebal.standard.original\n>>>= 0\n\
         diff -u $T/hscan/a $T/hscan/b\n>>>= 0\n"
    );
    let kept: Vec<String> = hbal_tests(parse(&with_save).unwrap(), &fixtures)
        .into_iter()
        .map(|t| t.command)
        .collect();
    assert_eq!(kept.len(), 8);
    assert!(kept
        .iter()
        .any(|c| c.starts_with("diff -u $T/simu-rebal-merged")));
    assert!(!kept
        .iter()
        .any(|c| c.contains("hinfo") || c.contains("hscan")));

    let vars = vec![
        ("T", "/tmp/t".to_owned()),
        ("TESTDATA_DIR", "/d".to_owned()),
    ];
    assert_eq!(
        expand_vars("x -t$TESTDATA_DIR/a ${T}/b $T/c $TX $HOME", &vars),
        "x -t/d/a /tmp/t/b /tmp/t/c $TX $HOME"
    );
    assert_eq!(expand_vars("cost $5 ${T", &vars), "cost $5 ${T");
    assert_eq!(
        lacking_feature("./test/hs/hbal -t /dev/null -m localhost"),
        None
    );
    assert_eq!(lacking_feature("./test/hs/hbal -Lsocket"), None);
    assert_eq!(lacking_feature("./test/hs/hbal --mond=yes"), None);
    assert_eq!(
        lacking_feature("./test/hs/hbal -I x"),
        Some("the iallocator backend (-I)")
    );
    assert_eq!(lacking_feature("./test/hs/hbal $B -G group-01 -X"), None);
    assert_eq!(
        lacking_feature("./test/hs/hbal -t x --min-gain 1 -l 3"),
        None
    );
}

const DATA: &str = "\
group-01|uuid-1|preferred||
group-02|uuid-2|preferred||

node1.example.com|16384|1024|13312|102400|92160|4|N|uuid-1|1||N|0|1|1.0
node2.example.com|16384|1024|15360|102400|102400|4|N|uuid-1|1||N|0|1|1.0
node3.example.com|16384|1024|15360|102400|102400|4|N|uuid-2|1||N|0|1|1.0

web.example.com|2048|10240|2|running|Y|node1.example.com||plain||1|-|N
db.example.com|1024|10240|2|running|Y|node1.example.com|node2.example.com|drbd||1|-|N


|128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|plain,drbd|4.0|32.0
";

#[test]
fn data_files_round_trip_and_edit() {
    let mut d = DataFile::parse(DATA);
    assert_eq!(d.text(), DATA);
    assert_eq!(d.sections.len(), 5);
    assert_eq!(d.group_names(), vec!["group-01", "group-02"]);
    assert_eq!(d.groups_with_nodes(), vec!["group-01", "group-02"]);
    assert_eq!(
        d.nodes_of_group("group-01"),
        vec!["node1.example.com", "node2.example.com"]
    );
    assert_eq!(
        d.instances_on(&["node1.example.com".to_owned()]),
        vec!["web.example.com", "db.example.com"]
    );
    assert!(d.cluster_tags().is_empty());
    d.add_cluster_tag("htools:iextags:svc");
    d.add_cluster_tag("htools:iextags:svc");
    assert_eq!(d.cluster_tags(), vec!["htools:iextags:svc"]);
    datafile::set(&mut d.instances_mut()[0], datafile::inst::AUTO_BALANCE, "N");
    let text = d.text();
    assert!(text.contains("|running|N|node1.example.com||plain|"));
    assert!(text.contains("\n\nhtools:iextags:svc\n\n|128,"));
    assert_eq!(DataFile::parse(&text).text(), text);
    // Short lines are padded when a later field is set.
    let mut line = vec!["a".to_owned()];
    datafile::set(&mut line, 3, "x");
    assert_eq!(line, vec!["a", "", "", "x"]);
    assert_eq!(datafile::int(&line, 3), 0);
}

#[test]
fn generated_clusters_are_deterministic_and_varied() {
    let a = clusters::generate_cluster(4, 77, 5..=12).expect("generates");
    let b = clusters::generate_cluster(4, 77, 5..=12).expect("generates");
    assert_eq!(a.data.text(), b.data.text());
    assert_eq!(a.id, b.id);
    let mut shapes = std::collections::BTreeSet::new();
    let mut several_groups = false;
    for k in 0..12 {
        let c: Cluster = clusters::generate_cluster(k, 100 + k as u64, 5..=12).expect("generates");
        shapes.insert(c.id.split('/').nth(1).unwrap_or("").to_owned());
        several_groups |= c.data.groups_with_nodes().len() > 1;
        // Every line of the data file is still in the full-width form.
        assert!(c.data.nodes().iter().all(|n| n.len() == 15), "{}", c.id);
        assert!(c.data.instances().iter().all(|i| i.len() == 13), "{}", c.id);
        // hailstone's reader accepts the edited file.
        hailstone::shell::datafile::normalize(&c.id, c.data.text().as_bytes())
            .unwrap_or_else(|e| panic!("{}: {e}", c.id));
    }
    assert_eq!(shapes.len(), clusters::Shape::ALL.len());
    assert!(several_groups);
}

#[test]
fn option_sets_cover_every_family() {
    let c = clusters::generate_cluster(0, 5, 6..=10).expect("generates");
    let group = c.data.groups_with_nodes()[0].clone();
    let mut seen = std::collections::BTreeSet::new();
    for n in 0..clusters::ALGORITHM_FAMILIES.len() * clusters::OUTPUT_FAMILIES.len() {
        let s = clusters::run_spec(n, &c, &group, false);
        assert!(s
            .args
            .windows(2)
            .any(|w| w[0] == "-t" && w[1] == "{IN}/cluster.data"));
        assert_eq!(s.dynu.is_some(), s.families[0] == "-U", "{:?}", s);
        seen.insert((s.families[0].clone(), s.families[1].clone()));
        assert_eq!(s.args, clusters::run_spec(n, &c, &group, false).args);
    }
    // Every pair of a balancing and an output family comes up.
    assert_eq!(
        seen.len(),
        clusters::ALGORITHM_FAMILIES.len() * clusters::OUTPUT_FAMILIES.len()
    );
    let several = clusters::run_spec(0, &c, &group, true);
    assert!(several.args.iter().any(|a| a == "-G"));
    let cli = clusters::cli_cases(&c);
    assert!(cli.iter().any(|s| s.id == "cli/unknown option"));
    assert!(cli.iter().all(|s| s.id.starts_with("cli/")));
}

#[test]
fn short_diffs() {
    let d = short_diff("a\nb\nc\nd\n", "a\nb\nX\nd\n", 8);
    assert_eq!(d, "    @@ line 3 @@\n     a\n     b\n    -c\n    +X");
    let d = short_diff("a\n", "a\nb", 8);
    assert_eq!(
        d,
        "    @@ line 2 @@\n     a\n    +b\\ (no newline at the end)"
    );
    let many: String = (0..20).map(|i| format!("{i}\n")).collect();
    let d = short_diff(&many, "", 3);
    assert!(d.contains("-... (17 more lines)"));
}

#[test]
fn parts_parse() {
    assert_eq!(
        Part::parse_list("shelltests,generated,shelltests").unwrap(),
        vec![Part::Generated, Part::Shelltests]
    );
    assert!(Part::parse_list("x").is_err());
    assert!(Part::parse_list("").is_err());
}

#[test]
fn shelltests_run_in_order_with_their_variables_and_input() {
    use super::testsuite::{run_file, TestFile};
    let dir = crate::process::temp_dir("hailstone-devtools-test").expect("temp dir");
    let (t, scratch) = (dir.join("T"), dir.join("scratch"));
    std::fs::create_dir_all(&t).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    let text = "\
./test/hs/hbal
<<<
hello
>>>
hello
>>>= 0
echo x > $T/f; ./test/hs/hbal $T/f
>>> /^x$/
>>>= 0
cat $T/f
>>>
x
>>>= 0
./test/hs/hbal $T/missing
>>>2 /No such file/
>>>= !0
";
    let file = TestFile {
        name: "x.test".to_owned(),
        tests: parse(text).unwrap(),
    };
    // `cat` stands in for hbal.
    let runs = run_file(
        &file,
        Path::new("/bin/cat"),
        &t,
        &dir,
        &scratch,
        Duration::from_secs(20),
    );
    assert_eq!(runs.len(), 4);
    for (k, r) in runs.iter().enumerate() {
        assert!(r.misses.is_empty(), "test {k}: {:?}", r.misses);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
