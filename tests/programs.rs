//! The one list of programs (`programs.list`, which the Makefile's install
//! target and debian/rules read) against the code's registries: every
//! program's command line in `PROGRAMS`, in the same order; an entry
//! point in `src/bin/` (the allocator's is `src/main.rs`); the allocators
//! (the programs Ganeti runs) installed where Ganeti looks for them; the
//! htools names `hailstone-htools` answers to.

use std::path::Path;

use hailstone::program::{htools, PROGRAMS};

/// One line of `programs.list`: name, where it is installed, drop-in name.
struct Listed {
    name: String,
    dir: String,
    drop_in: Option<String>,
}

fn listed() -> Vec<Listed> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs.list");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(
                fields.len(),
                3,
                "programs.list: {l:?} is not NAME DIR DROP-IN"
            );
            assert!(
                ["iallocators", "bin"].contains(&fields[1]),
                "programs.list: {l:?}: the directory is iallocators or bin"
            );
            Listed {
                name: fields[0].to_owned(),
                dir: fields[1].to_owned(),
                drop_in: (fields[2] != "-").then(|| fields[2].to_owned()),
            }
        })
        .collect()
}

#[test]
fn the_list_is_the_programs_registry() {
    let list = listed();
    let names: Vec<&str> = list.iter().map(|p| p.name.as_str()).collect();
    let registered: Vec<&str> = PROGRAMS.iter().map(|p| p.name).collect();
    assert_eq!(
        names, registered,
        "programs.list and PROGRAMS (src/program/mod.rs)"
    );
}

#[test]
fn every_listed_program_has_an_entry_point_and_nothing_else_does() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut entries: Vec<String> = std::fs::read_dir(root.join("src/bin"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            path.file_stem().unwrap().to_str().unwrap().to_owned()
        })
        .collect();
    assert!(root.join("src/main.rs").is_file());
    entries.push("hailstone".to_owned());
    entries.sort();
    let mut names: Vec<String> = listed().into_iter().map(|p| p.name).collect();
    names.sort();
    assert_eq!(
        names, entries,
        "programs.list and src/bin/*.rs (with src/main.rs)"
    );
}

#[test]
fn the_allocators_are_installed_where_ganeti_looks() {
    // The allocator answers Ganeti's requests, and hailstone-shadow is
    // the allocator Ganeti runs to try it: each takes the request file
    // as its one argument.
    let allocators: Vec<String> = listed()
        .into_iter()
        .filter(|p| p.dir == "iallocators")
        .map(|p| p.name)
        .collect();
    assert_eq!(allocators, [PROGRAMS[0].name, "hailstone-shadow"]);
    assert_eq!(PROGRAMS[0].original, "hail");
    assert!(htools::SHADOW_INSTALLED.ends_with("/usr/lib/ganeti/iallocators/hailstone-shadow"));
}

#[test]
fn the_drop_in_names_are_hailstone_htools_names() {
    let mut listed: Vec<(String, String)> = listed()
        .into_iter()
        .filter_map(|p| p.drop_in.map(|d| (d, p.name)))
        .collect();
    listed.sort();
    let mut table: Vec<(String, String)> = htools::NAMES
        .iter()
        .map(|(d, n)| ((*d).to_owned(), (*n).to_owned()))
        .collect();
    table.sort();
    assert_eq!(listed, table, "programs.list and hailstone-htools' NAMES");
    // Each drop-in name is the original its program follows.
    for (drop_in, name) in &listed {
        let p = PROGRAMS.iter().find(|p| p.name == name).unwrap();
        assert_eq!(p.original, drop_in, "{name}");
    }
}
