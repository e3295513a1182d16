//! Bad input gets a clear error naming the problem and the fix, never a panic.

mod common;
use common::*;

fn fails_with(args: &[&str], needle: &str) {
    let o = run(args);
    let t = text(&o);
    assert!(!o.status.success(), "{args:?} succeeded: {t}");
    assert!(!t.contains("panicked"), "{args:?} panicked: {t}");
    assert!(t.contains(needle), "{args:?}: expected '{needle}' in: {t}");
}

#[test]
fn bad_arguments_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    let file = format!("file:{}:16M", dir.path().join("t.img").display());
    let missing = format!("file:{}", dir.path().join("missing.img").display());
    fails_with(
        &["run", "nonsense", "--target", &file],
        "unknown test 'nonsense'",
    );
    fails_with(
        &["run", "custom", "--target", &file, "--bs", "4Q"],
        "unknown unit",
    );
    fails_with(
        &[
            "run", "custom", "--target", &file, "--qd", "0", "--ios", "10",
        ],
        "queue depth 0",
    );
    fails_with(
        &[
            "run", "custom", "--target", &file, "--qd", "5000", "--ios", "10",
        ],
        "1 to 1024",
    );
    fails_with(
        &["run", "custom", "--target", &file, "--span", "150%"],
        "at most 100%",
    );
    fails_with(
        &[
            "run", "custom", "--target", &file, "--bs", "1000", "--ios", "10",
        ],
        "multiple",
    );
    fails_with(
        &[
            "run", "custom", "--target", &file, "--span", "1M", "--bs", "2M", "--ios", "1",
        ],
        "smaller than one block",
    );
    fails_with(
        &["run", "custom", "--target", "/tmp/plain.img"],
        "file:PATH",
    );
    fails_with(&["run", "custom", "--target", &missing], "give a size");
    fails_with(
        &["run", "custom", "--target", &file, "--data", "fluffy"],
        "unknown data kind",
    );
    fails_with(
        &["run", "custom", "--target", &file, "--duration=0"],
        "positive number",
    );
    fails_with(
        &["run", "custom", "--target", "/dev/null"],
        "not a block device",
    );
}
