//! Snapshots of hailstone's behaviour on every request in
//! `protocol-samples/`: exit code, stdout (the answer, exactly as printed)
//! and stderr. A sample `X.json` may have `X.args` with one option per
//! line. The snapshots live in the top-level `snapshots/` folder; each one
//! was checked against hail's answer when it was written.

use std::path::Path;

use crate::run::{assert_contract, on_file};

pub fn sidecar_args(sample: &Path) -> Vec<String> {
    let args = sample.with_extension("args");
    match std::fs::read_to_string(&args) {
        Ok(text) => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn protocol_samples() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        insta::glob!("../protocol-samples", "*.json", |path| {
            let args = sidecar_args(path);
            let out = on_file(path, &args);
            assert_contract(&out, &path.display().to_string());
            let rendered = format!(
                "args: {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
                args.join(" "),
                out.code,
                out.stdout,
                out.stderr
            );
            insta::assert_snapshot!(rendered);
        });
    });
}
