//! The planners on a live cluster: `-L` (Luxi, against a replay server on
//! a unix socket) and `-m` (RAPI: `file://` directories and a local HTTP
//! server through `curl`), checked against what Ganeti 3.0.2's `hscan`,
//! `hbal` and `hsqueeze` did on the same replies (the files in
//! `tests/live/`; `tests/live/README.md` says how each was made).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::thread::JoinHandle;

use crate::run::scratch;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/live")
        .join(name)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs planner `bin` with `args` (and `path` as PATH when given).
fn planner(bin: &str, args: &[&str], path: Option<&Path>) -> Output {
    let mut cmd = Command::new(bin);
    cmd.args(args).env("LC_ALL", "C.UTF-8");
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    let out = cmd.output().expect("the planner runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "panic: {stderr}");
    assert!(!stderr.contains("panicked at"), "panic: {stderr}");
    out
}

const BALANCE: &str = env!("CARGO_BIN_EXE_hailstone-balance");
const SQUEEZE: &str = env!("CARGO_BIN_EXE_hailstone-squeeze");
const GROUPS: &str = env!("CARGO_BIN_EXE_hailstone-groups");
const SCAN: &str = env!("CARGO_BIN_EXE_hailstone-scan");
const CHECK: &str = env!("CARGO_BIN_EXE_hailstone-check");
const INFO: &str = env!("CARGO_BIN_EXE_hailstone-info");

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts a refused input: exit 1, nothing on stdout, `want` in stderr.
fn assert_refused(out: &Output, want: &str) {
    assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
    assert!(out.stdout.is_empty(), "stdout: {}", stdout(out));
    assert!(stderr(out).contains(want), "{}", stderr(out));
}

/// A Luxi server on `dir/luxi.sock` answering one connection's requests
/// with `replies` (0x03-terminated messages, in order); returns the
/// requests it received.
fn luxi_server(dir: &Path, replies: Vec<u8>) -> (String, JoinHandle<Vec<u8>>) {
    let path = dir.join("luxi.sock");
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).expect("bind");
    let handle = std::thread::spawn(move || {
        let Ok((mut s, _)) = listener.accept() else {
            return Vec::new();
        };
        let mut got = Vec::new();
        let mut messages = replies.split(|&b| b == 3).filter(|m| !m.is_empty());
        let mut buf = [0u8; 65536];
        loop {
            let n = match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let before = got.iter().filter(|&&b| b == 3).count();
            got.extend_from_slice(&buf[..n]);
            let after = got.iter().filter(|&&b| b == 3).count();
            for _ in before..after {
                match messages.next() {
                    Some(m) => {
                        let _ = s.write_all(m);
                        let _ = s.write_all(&[3]);
                    }
                    None => return got,
                }
            }
        }
        got
    });
    (path.to_string_lossy().into_owned(), handle)
}

/// Runs `bin` with `-L` on a server replaying `replies`; also returns the
/// requests.
fn with_luxi(bin: &str, dir: &Path, replies: Vec<u8>, args: &[&str]) -> (Output, Vec<u8>) {
    let (sock, server) = luxi_server(dir, replies);
    let l = format!("-L{sock}");
    let mut all = vec![l.as_str()];
    all.extend_from_slice(args);
    let out = planner(bin, &all, None);
    (out, server.join().expect("server"))
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).expect("fixture")
}

/// hbal's four requests, byte for byte, and the cluster hscan wrote from
/// the lab's replies.
#[test]
fn luxi_sends_hbals_queries_and_reads_what_hscan_writes() {
    let dir = scratch("live-luxi-lab");
    let save = dir.join("lab").to_string_lossy().into_owned();
    let (out, requests) = with_luxi(BALANCE, &dir, fixture_bytes("lab.luxi"), &["-S", &save]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(requests, fixture_bytes("requests.luxi"));
    assert_eq!(
        read(&dir.join("lab.original")),
        read(&fixture("lab.luxi.data"))
    );
    // hbal's warnings on the same replies.
    assert!(stderr(&out).starts_with(
        "Warning: cluster has inconsistent data:\n  \
         - node node3.example.com is missing 678 MB ram and 180 GB disk\n  \
         - node node2.example.com is missing 664 MB ram and 180 GB disk\n  \
         - node node1.example.com is missing 664 MB ram and 181 GB disk\n\n"
    ));
}

/// Two groups, drained, offline and non-vm-capable nodes, drbd
/// instances, tags, unavailable fields, KVM: hscan's cluster (no static
/// node memory), hbal's cluster (4096 MiB on KVM) and hbal's plan.
#[test]
fn luxi_varied_cluster_is_hscans_and_the_plan_hbals() {
    let dir = scratch("live-luxi-varied");
    let save = dir.join("k0").to_string_lossy().into_owned();
    let args = ["-G", "default", "--static-kvm-node-memory=0", "-S", &save];
    let (out, _) = with_luxi(BALANCE, &dir, fixture_bytes("varied.luxi"), &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        read(&dir.join("k0.original")),
        read(&fixture("varied.luxi.data"))
    );
    let save = dir.join("plan").to_string_lossy().into_owned();
    let args = ["-G", "default", "-C", "-S", &save];
    let (out, _) = with_luxi(BALANCE, &dir, fixture_bytes("varied.luxi"), &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), read(&fixture("varied.luxi.hbal")));
    assert_eq!(
        read(&dir.join("plan.original")),
        read(&fixture("varied.luxi.hbal.original"))
    );
}

#[test]
fn squeeze_and_groups_read_luxi_too() {
    let dir = scratch("live-luxi-squeeze");
    let (out, _) = with_luxi(SQUEEZE, &dir, fixture_bytes("varied.luxi"), &["-C"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), read(&fixture("varied.luxi.hsqueeze")));
    let save = dir.join("g").to_string_lossy().into_owned();
    let args = ["check", "--static-kvm-node-memory=0", "-S", &save];
    let (out, _) = with_luxi(GROUPS, &dir, fixture_bytes("varied.luxi"), &args);
    assert_eq!(
        out.status.code(),
        Some(check_status(&out)),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        read(&dir.join("g.original")),
        read(&fixture("varied.luxi.data"))
    );
}

#[test]
fn rapi_directories_read_what_hscan_writes() {
    let dir = scratch("live-rapi-file");
    for (name, data, extra) in [
        ("lab.rapi", "lab.rapi.data", None),
        (
            "varied.rapi",
            "varied.rapi.data",
            Some("--static-kvm-node-memory=0"),
        ),
    ] {
        let m = format!("file://{}", fixture(name).display());
        let save = dir.join(name).to_string_lossy().into_owned();
        let mut args = vec!["-m", &m, "-G", "default", "-S", &save];
        args.extend(extra);
        let out = planner(BALANCE, &args, None);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert_eq!(
            read(&dir.join(format!("{name}.original"))),
            read(&fixture(data)),
            "{name}"
        );
    }
    let m = format!("file://{}", fixture("varied.rapi").display());
    let out = planner(BALANCE, &["-m", &m, "-G", "default", "-C"], None);
    assert_eq!(stdout(&out), read(&fixture("varied.rapi.hbal")));
    let save = dir.join("g").to_string_lossy().into_owned();
    let out = planner(GROUPS, &["check", "-m", &m, "-S", &save], None);
    assert_eq!(
        out.status.code(),
        Some(check_status(&out)),
        "{}",
        stderr(&out)
    );
}

/// `hailstone-groups check`'s exit status for its report: 1 when a group
/// is not healthy.
fn check_status(out: &std::process::Output) -> i32 {
    let report = stdout(out);
    assert!(report.contains("healthy"), "{report}");
    // Exit status 3 (findings) for an unhealthy group.
    if report.contains("unhealthy") {
        3
    } else {
        0
    }
}

/// hailstone-scan writes the files hscan wrote, from Luxi (`LOCAL.data`)
/// and from RAPI directories given as arguments (one file each, named
/// after the address), and prints hscan's summary and node table.
#[test]
fn scan_writes_what_hscan_wrote() {
    let dir = scratch("live-scan");
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let d = out_dir.to_string_lossy().into_owned();
    let (out, _) = with_luxi(SCAN, &dir, fixture_bytes("varied.luxi"), &["-d", &d, "-p"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), read(&fixture("varied.luxi.hscan")));
    assert_eq!(
        read(&out_dir.join("LOCAL.data")),
        read(&fixture("varied.luxi.data"))
    );
    let lab = format!("file://{}", fixture("lab.rapi").display());
    let varied = format!("file://{}", fixture("varied.rapi").display());
    let out = planner(SCAN, &["-d", &d, "--no-headers", &lab, &varied], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "{}", stdout(&out));
    assert!(lines[0].starts_with(&format!("{lab}   ")), "{}", lines[0]);
    for (address, data) in [(&lab, "lab.rapi.data"), (&varied, "varied.rapi.data")] {
        let file = out_dir.join(format!("{}.data", address.replace('/', "_")));
        assert_eq!(read(&file), read(&fixture(data)), "{address}");
    }
    // A cluster that cannot be read is reported on stdout; the others are
    // still scanned; exit status 2.
    let missing = format!("file://{}", dir.join("nowhere").display());
    let out = planner(SCAN, &["-d", &d, &missing, &lab], None);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "\nError for {missing}: failed to load data. Details:\n"
        )),
        "{text}"
    );
    assert!(text.contains(&format!("{lab} ")), "{text}");
    // As hscan: a Luxi socket that cannot be reached stops the run after
    // the heading (exit status 1, the error on stderr); a reply that
    // cannot be read is one cluster not read (exit status 2).
    let sock = dir.join("no-such-socket").to_string_lossy().into_owned();
    let out = planner(SCAN, &["-d", &d, &format!("-L{sock}")], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "Name  Nodes  Inst BNode BInst  t_mem  f_mem t_disk f_disk      Score\n"
    );
    assert!(
        stderr(&out).starts_with(&format!(
            "hailstone-scan: cannot connect to the Luxi socket {sock}: "
        )),
        "{}",
        stderr(&out)
    );
    let (out, _) = with_luxi(SCAN, &dir, fixture_bytes("field-error.luxi"), &["-d", &d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout(&out).contains("\nError for LOCAL: failed to load data. Details:\n"),
        "{}",
        stdout(&out)
    );
}

/// hailstone-check and hailstone-info read a live cluster as the planners
/// do: the same output as on the data file hscan wrote from the same
/// replies (the lab is not KVM, so no static node memory applies).
#[test]
fn check_and_info_read_live_clusters() {
    let data = fixture("lab.rapi.data").to_string_lossy().into_owned();
    let m = format!("file://{}", fixture("lab.rapi").display());
    for (bin, args) in [
        (CHECK, vec!["--machine-readable"]),
        (INFO, vec!["-v", "-v"]),
    ] {
        let mut live = vec!["-m", m.as_str()];
        live.extend(&args);
        let mut file = vec!["-t", data.as_str()];
        file.extend(&args);
        let (a, b) = (planner(bin, &live, None), planner(bin, &file, None));
        assert_eq!(a.status.code(), b.status.code(), "{bin}");
        assert!(!a.stdout.is_empty(), "{bin}");
        assert_eq!(stdout(&a), stdout(&b), "{bin}");
    }
}

/// The errors hbal reports for a field and a name, named by query,
/// object and field.
#[test]
fn bad_luxi_replies_are_refused_with_where() {
    let dir = scratch("live-luxi-bad");
    let (out, _) = with_luxi(BALANCE, &dir, fixture_bytes("field-error.luxi"), &[]);
    assert_refused(
        &out,
        "Error: failed to load data, aborting: Luxi query \"node\": node 'node3.example.com', \
         field mtotal: Ganeti reports unavailable data (status 3)",
    );
    let (out, _) = with_luxi(BALANCE, &dir, fixture_bytes("unknown-node.luxi"), &[]);
    assert_refused(
        &out,
        "Luxi query \"instance\": instance 'plain2.example.com', field pnode: Unknown node \
         'node9.example.com' for instance plain2.example.com",
    );
    let lab = String::from_utf8(fixture_bytes("lab.luxi")).expect("UTF-8");
    let messages: Vec<&str> = lab.split('\u{3}').filter(|m| !m.is_empty()).collect();
    let replace = |i: usize, text: &str| {
        let mut m = messages.clone();
        m[i] = text;
        m.iter()
            .map(|x| format!("{x}\u{3}"))
            .collect::<String>()
            .into_bytes()
    };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (replace(0, "{\"success\":tru"), "Luxi call Query: malformed reply"),
        (
            replace(
                1,
                "{\"success\":false,\"result\":[\"OpPrereqError\",[\"no quorum\",\"wrong_state\"]]}",
            ),
            "Luxi call Query failed: OpPrereqError: no quorum, wrong_state",
        ),
        (replace(2, "[1,2]"), "Luxi call QueryClusterInfo: malformed reply"),
        (
            replace(3, "{\"success\":true,\"result\":{\"fields\":[]}}"),
            "Luxi query \"group\": the result has no \"data\" member",
        ),
        (
            replace(
                0,
                &messages[0].replacen("[0,\"node1.example.com\"],", "", 1),
            ),
            "Luxi query \"node\": data[0]: expected 18 fields",
        ),
        (
            replace(
                0,
                &messages[0].replacen("[0,24105]", "[0,\"lots\"]", 1),
            ),
            "node 'node1.example.com', field mtotal: expected a number, found \"lots\"",
        ),
        (
            replace(
                2,
                &messages[2].replacen("\"master\":\"node1", "\"master\":\"nodeX", 1),
            ),
            "Luxi query \"cluster info\": field master: Master node nodeX.example.com unknown",
        ),
        (
            replace(3, &messages[3].replacen("[0,\"preferred\"]", "[7,null]", 1)),
            "node group 'default', field alloc_policy: unknown status 7",
        ),
        (
            messages[..2]
                .iter()
                .map(|x| format!("{x}\u{3}"))
                .collect::<String>()
                .into_bytes(),
            "the connection was closed before the reply ended",
        ),
    ];
    for (replies, want) in cases {
        let (out, _) = with_luxi(BALANCE, &dir, replies, &[]);
        assert_refused(&out, want);
    }
    let out = planner(BALANCE, &["-L/nonexistent/hailstone.sock"], None);
    assert_refused(
        &out,
        "cannot connect to the Luxi socket /nonexistent/hailstone.sock",
    );
    let out = planner(BALANCE, &["-L", "-t", "x"], None);
    assert_refused(
        &out,
        "Error: Only one of the rapi, luxi, and data files options should be given.",
    );
}

#[test]
fn bad_rapi_files_are_refused_with_where() {
    let dir = scratch("live-rapi-bad");
    let copy = |name: &str| {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).expect("dir");
        for f in ["groups", "nodes", "instances", "info"] {
            std::fs::copy(
                fixture("varied.rapi").join(format!("{f}.json")),
                d.join(format!("{f}.json")),
            )
            .expect("copy");
        }
        d
    };
    let edit = |d: &Path, file: &str, from: &str, to: &str| {
        let p = d.join(file);
        let text = read(&p);
        assert!(text.contains(from), "{from}");
        std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
    };
    let run = |d: &Path| planner(BALANCE, &["-m", &format!("file://{}", d.display())], None);
    let d = copy("missing");
    std::fs::remove_file(d.join("nodes.json")).expect("rm");
    assert_refused(
        &run(&d),
        "nodes.json: openFile: does not exist (No such file or directory)",
    );
    let d = copy("json");
    std::fs::write(d.join("instances.json"), "[{").expect("write");
    assert_refused(&run(&d), "instances.json: not valid JSON");
    let d = copy("field");
    edit(&d, "nodes.json", "\"mfree\": 9000", "\"mfree\": \"x\"");
    assert_refused(
        &run(&d),
        "nodes.json: node 'node1.example.com', field mfree: expected an integer, found \"x\"",
    );
    let d = copy("absent");
    edit(&d, "instances.json", "\"disk_usage\": 10240,", "");
    assert_refused(
        &run(&d),
        "instances.json: instance 'web1.example.com', field disk_usage: missing",
    );
    let d = copy("pnode");
    edit(
        &d,
        "instances.json",
        "\"pnode\": \"node5.example.com\"",
        "\"pnode\": \"node9\"",
    );
    assert_refused(
        &run(&d),
        "field pnode: Unknown node 'node9' for instance plain2.example.com",
    );
    let d = copy("shape");
    std::fs::write(d.join("groups.json"), "{}").expect("write");
    assert_refused(&run(&d), "groups.json: (top level): expected an array");
}

/// A one-connection-at-a-time HTTP server: each request gets the body
/// `respond(path)` returns (status and body); returns the requests' heads.
fn http_server(
    respond: impl Fn(&str) -> (u16, Vec<u8>) + Send + 'static,
    count: usize,
) -> (u16, JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let handle = std::thread::spawn(move || {
        let mut heads = Vec::new();
        for _ in 0..count {
            let Ok((s, _)) = listener.accept() else {
                break;
            };
            let mut reader = BufReader::new(s);
            let mut head = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
            let (status, body) = respond(&path);
            let mut s = reader.into_inner();
            let _ = write!(
                s,
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(&body);
            heads.push(head);
        }
        heads
    });
    (port, handle)
}

fn lab_resource(path: &str) -> (u16, Vec<u8>) {
    let file = match path {
        "/2/groups?bulk=1" => "groups.json",
        "/2/nodes?bulk=1" => "nodes.json",
        "/2/instances?bulk=1" => "instances.json",
        "/2/info" => "info.json",
        _ => return (404, b"no".to_vec()),
    };
    (200, fixture_bytes(&format!("lab.rapi/{file}")))
}

/// The system curl fetches the four resources (a plain HTTP server
/// stands in for the master's HTTPS); the user and password reach the
/// server, not the command line.
#[test]
fn rapi_over_http_uses_curl() {
    if Command::new("curl").arg("--version").output().is_err() {
        eprintln!("curl is not installed: skipped");
        return;
    }
    let dir = scratch("live-rapi-http");
    let (port, server) = http_server(lab_resource, 4);
    let save = dir.join("h").to_string_lossy().into_owned();
    let m = format!("http://admin:s3cret@127.0.0.1:{port}");
    let out = planner(BALANCE, &["-m", &m, "-S", &save], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        read(&dir.join("h.original")),
        read(&fixture("lab.rapi.data"))
    );
    let heads = server.join().expect("server");
    let paths: Vec<&str> = heads
        .iter()
        .map(|h| h.split_whitespace().nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        paths,
        [
            "/2/groups?bulk=1",
            "/2/nodes?bulk=1",
            "/2/instances?bulk=1",
            "/2/info"
        ]
    );
    // Basic authentication of admin:s3cret.
    assert!(heads[0].contains("Authorization: Basic YWRtaW46czNjcmV0"));

    let (port, server) = http_server(|_| (500, b"oops".to_vec()), 1);
    let m = format!("http://admin:s3cret@127.0.0.1:{port}");
    let out = planner(BALANCE, &["-m", &m], None);
    assert_refused(
        &out,
        &format!("RAPI resource groups (http://admin@127.0.0.1:{port}/2/groups?bulk=1): curl failed (exit status 22)"),
    );
    assert!(!stderr(&out).contains("s3cret"));
    server.join().expect("server");
}

/// curl gets the URL on its standard input, never as an argument; a
/// missing curl is a clear error.
#[test]
fn curl_gets_the_url_on_stdin_and_may_be_missing() {
    let dir = scratch("live-rapi-curl");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("dir");
    let script = bin.join("curl");
    let log = dir.join("log");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" > {0}.args\ncat > {0}.stdin\necho 'curl: (7) no' >&2\nexit 7\n",
            log.display()
        ),
    )
    .expect("script");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!("{}:/bin:/usr/bin", bin.display());
    let out = planner(
        BALANCE,
        &["-m", "user:pw@master.example.com:5080"],
        Some(Path::new(&path)),
    );
    assert_refused(
        &out,
        "RAPI resource groups (user@master.example.com:5080/2/groups?bulk=1): curl failed \
         (exit status 7): curl: (7) no",
    );
    assert_eq!(read(&dir.join("log.args")), "-q -K -\n");
    let config = read(&dir.join("log.stdin"));
    assert!(config.starts_with("url = \"user:pw@master.example.com:5080/2/groups?bulk=1\"\n"));
    assert!(config.contains("insecure\n") && config.contains("max-time = 60\n"));
    // A host name gets https:// and the port.
    let _ = planner(BALANCE, &["-m", "master"], Some(Path::new(&path)));
    assert!(read(&dir.join("log.stdin")).starts_with("url = \"https://master:5080/2/groups"));

    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("dir");
    let out = planner(BALANCE, &["-m", "master"], Some(&empty));
    assert_refused(&out, "cannot run curl: it is not installed");
}

/// `--mond-data`: the monitoring daemons' reports from a file change the
/// nodes' and instances' CPU load as in hbal (the `-p` tables' `lCpu`, the
/// plan); a collector without data is ignored with hbal's warning, and
/// `--exit-on-missing-mond-data` then stops the run.
#[test]
fn balance_with_monitoring_data_prints_hbals_bytes() {
    let dir = fixture("");
    let data = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let (varied, mond) = (data("varied.luxi.data"), data("varied.mond.json"));
    let mond_arg = format!("--mond-data={mond}");
    let args = [
        "-t",
        &varied,
        "-G",
        "default",
        "--mond=yes",
        &mond_arg,
        "-C",
        "-p",
        "--print-instances",
    ];
    let out = planner(BALANCE, &args, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), read(&fixture("varied.mond.hbal")));
    assert_eq!(stderr(&out), read(&fixture("varied.mond.hbal.err")));

    let (lab, mond) = (data("lab.luxi.data"), data("lab.mond.json"));
    let mond_arg = format!("--mond-data={mond}");
    let args = [
        "-t",
        &lab,
        "--mond=yes",
        &mond_arg,
        "--mond-xen",
        "--exit-on-missing-mond-data",
    ];
    let out = planner(BALANCE, &args, None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), read(&fixture("lab.mond-xen.hbal")));
    assert_eq!(stderr(&out), read(&fixture("lab.mond-xen.hbal.err")));
}

/// A `--mond-data` file that is not a list of nodes' reports, or that is
/// missing: exit 1, nothing on stdout, the file named.
#[test]
fn bad_monitoring_data_files_are_refused() {
    let dir = scratch("live-mond-bad");
    let lab = fixture("lab.luxi.data").to_string_lossy().into_owned();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"[{"node": "node1.example.com"}]"#).unwrap();
    let missing = dir.join("missing.json");
    for (file, want) in [
        (&bad, "can't parse MonD data: "),
        (&missing, "missing.json: openFile: does not exist"),
    ] {
        let arg = format!("--mond-data={}", file.display());
        let out = planner(BALANCE, &["-t", &lab, "--mond", &arg], None);
        assert_refused(&out, want);
        assert!(
            stderr(&out).contains(&*file.to_string_lossy()),
            "{}",
            stderr(&out)
        );
    }
}
