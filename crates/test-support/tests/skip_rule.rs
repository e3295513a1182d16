//! The skip rule as a newcomer's machine and CI meet it. A test whose tools are missing
//! passes and is listed as skipped when `CI` is unset, and fails naming what is missing and
//! how to install it under `CI`. Both tests below run this binary's
//! `needs_what_this_machine_lacks` again with nothing on PATH and no PostgreSQL, as a fresh
//! machine has them.

use std::path::Path;
use std::process::{Command, Output};

const CHILD: &str = "needs_what_this_machine_lacks";

/// Decides, then would touch: what every test of the repository that needs a tool does.
#[test]
#[ignore = "run by the skip rule's tests, with nothing on PATH"]
fn needs_what_this_machine_lacks() {
    let fio = test_support::tool("fio");
    let guest = test_support::guest::Guest::new().tool("nvme").run();
    let postgres = test_support::postgres::shared();
    assert!(
        !fio && guest.is_none() && postgres.is_none(),
        "this test runs where the tools are missing"
    );
}

/// Run [`needs_what_this_machine_lacks`] on a bare machine, with `ci` as CI.
fn on_a_bare_machine(ci: Option<&str>, scratch: &Path) -> (Output, String) {
    let empty = scratch.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args([CHILD, "--exact", "--ignored", "--nocapture"])
        .env("PATH", &empty)
        .env("PG_BINDIR", &empty)
        .env(test_support::SKIP_FILE_VAR, scratch.join("skips.txt"))
        .env_remove("CI");
    if let Some(ci) = ci {
        c.env("CI", ci);
    }
    let out = c.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

#[test]
fn without_ci_missing_tools_are_skips_listed_at_the_end() {
    let scratch = tempfile_dir("plain");
    let (out, text) = on_a_bare_machine(None, &scratch);
    assert!(out.status.success(), "{text}");
    for missing in [
        "needs `fio` on PATH (apt-get install fio)",
        "needs `qemu-system-x86_64`, `busybox`, `nvme` on PATH (apt-get install \
         qemu-system-x86; apt-get install busybox-static; apt-get install nvme-cli)",
        "needs a PostgreSQL server",
    ] {
        assert!(
            text.contains(&format!("SKIPPED skip_rule::{CHILD}: {missing}")),
            "{text}"
        );
    }
    assert!(
        text.contains("3 test(s) skipped so far in this run")
            && text.contains("under CI=1 each would fail"),
        "the summary lists them: {text}"
    );
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[test]
fn under_ci_a_missing_tool_fails_the_test_naming_it_and_the_fix() {
    let scratch = tempfile_dir("ci");
    let (out, text) = on_a_bare_machine(Some("1"), &scratch);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "skip_rule::{CHILD} cannot run: it needs `fio` on PATH. Under CI (CI is set) a \
             test may not skip: apt-get install fio"
        )),
        "{text}"
    );
    assert!(
        !text.contains("SKIPPED"),
        "nothing is skipped under CI: {text}"
    );
    std::fs::remove_dir_all(&scratch).unwrap();
}

fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("skip-rule-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
