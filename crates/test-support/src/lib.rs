//! What ssdlab's integration tests share: how a test that cannot run here says so.
//!
//! Some tests need programs (fio, btt, chromium, mkfs.ext4, losetup, ...), root, or the
//! sample traces beside the repository. Where one is missing such a test calls [`skip`]
//! (or a helper that does, such as [`tool`]) and returns:
//!
//! - under CI (the `CI` environment variable set, as `.ci/run` and CI runners do) the skip
//!   **fails** the test, naming what is missing and how `.ci/run` provides it, so a CI machine
//!   short of a tool can never stay green by skipping;
//! - elsewhere the skip is printed at once (past the test harness's output capture, so
//!   `cargo test` shows it), appended to `target/<profile>/skipped-tests.txt`, and every test
//!   binary that skipped prints the list of skips of the whole `cargo test` run so far when it
//!   exits: the last such list is the run's summary.

use std::io::Write;

pub mod guest;
pub mod http;
pub mod postgres;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// Every program a test runs, and the Debian package `.ci/run` installs it from. A test in
/// this crate checks that `.ci/run` installs each of them.
pub const TOOLS: &[(&str, &str)] = &[
    ("fio", "fio"),
    ("btt", "blktrace"),
    ("blktrace", "blktrace"),
    ("blkparse", "blktrace"),
    ("mkfs.ext4", "e2fsprogs"),
    ("fsck.ext4", "e2fsprogs"),
    ("losetup", "util-linux"),
    ("mount", "mount"),
    ("umount", "mount"),
    ("truncate", "coreutils"),
    ("kill", "procps"),
    ("chromium", "chromium"),
    ("qemu-system-x86_64", "qemu-system-x86"),
    ("taskset", "util-linux"),
    ("busybox", "busybox-static"),
    ("strip", "binutils"),
    ("nvme", "nvme-cli"),
    ("xz", "xz-utils"),
];

/// The file skips are recorded in, under the target directory.
pub const SKIP_FILE: &str = "skipped-tests.txt";

/// Whether the tests run under CI: `CI` is set to anything but "", "0" or "false".
pub fn ci() -> bool {
    is_ci(std::env::var("CI").ok().as_deref())
}

fn is_ci(value: Option<&str>) -> bool {
    value.is_some_and(|v| !matches!(v.trim(), "" | "0" | "false" | "no"))
}

/// The current test cannot run: `missing` names what it needs, `fix` how to provide it.
/// Under CI this panics (the test fails); elsewhere it is recorded and summarised.
pub fn skip(missing: &str, fix: &str) {
    let test = current_test();
    if ci() {
        panic!("{}", ci_message(&test, missing, fix));
    }
    record(&test, missing, fix);
}

fn ci_message(test: &str, missing: &str, fix: &str) -> String {
    format!(
        "{test} cannot run: it needs {missing}. Under CI (CI is set) a test may not skip: \
         {fix}; .ci/run installs every tool the tests use and runs them as root"
    )
}

/// Whether `name` is on PATH; if not, the test is skipped (see [`skip`]) naming the package
/// that provides it. Use as `if !test_support::tool("fio") { return; }`.
pub fn tool(name: &str) -> bool {
    if find_tool(name).is_some() {
        return true;
    }
    skip(&format!("`{name}` on PATH"), &install_hint(name));
    false
}

/// `apt-get install PACKAGE` for a tool of [`TOOLS`].
pub fn install_hint(name: &str) -> String {
    match TOOLS.iter().find(|(t, _)| *t == name) {
        Some((_, package)) => format!("apt-get install {package}"),
        None => format!("install {name}"),
    }
}

/// The first `name` found on PATH, without recording anything. A test never unwraps it: it
/// decides with [`tool`] (or `Guest::tool`), which skip, before it runs the tool.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether the tests run as root; if not, the test is skipped (see [`skip`]).
pub fn root(why: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return true;
    }
    skip(
        &format!("root ({why})"),
        "run the tests as root (.ci/run runs in a root container)",
    );
    false
}

/// The test's name as the harness gives it (its thread's name), prefixed with the binary's.
fn current_test() -> String {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("?");
    format!("{}::{test}", binary_name())
}

fn binary_name() -> String {
    let exe = std::env::current_exe().unwrap_or_default();
    let stem = exe
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Cargo names test binaries NAME-HASH.
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_string(),
        _ => stem,
    }
}

/// Names another file for [`skip_file`]: for a test that runs tests of its own (the skip
/// rule's), so their skips stay out of the real run's list.
pub const SKIP_FILE_VAR: &str = "SSDLAB_TEST_SKIP_FILE";

/// `target/<profile>/skipped-tests.txt`, from where the test binary lives
/// (`target/<profile>/deps/NAME-HASH`), unless [`SKIP_FILE_VAR`] names another.
pub fn skip_file() -> PathBuf {
    if let Some(file) = std::env::var_os(SKIP_FILE_VAR) {
        return PathBuf::from(file);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    let mut dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.pop();
    }
    dir.join(SKIP_FILE)
}

/// The `cargo test` run this process belongs to: cargo's process id (the parent's).
fn run_id() -> u32 {
    // SAFETY: getppid has no preconditions.
    unsafe { libc::getppid() as u32 }
}

static LOCK: Mutex<()> = Mutex::new(());
static AT_EXIT: Once = Once::new();

fn record(test: &str, missing: &str, fix: &str) {
    let line = format!("{test}: needs {missing} ({fix})");
    // Written straight to the stderr handle: libtest captures only print!/eprint!, so this
    // shows in `cargo test`'s output even for a passing test.
    let _ = writeln!(std::io::stderr(), "SKIPPED {line}");
    append(&skip_file(), run_id(), &line);
    AT_EXIT.call_once(|| {
        // SAFETY: registering a plain extern "C" function with no captured state.
        unsafe { libc::atexit(summarise) };
    });
}

/// Add `line` to the skips of run `id` in `file`, dropping those of earlier runs.
fn append(file: &Path, id: u32, line: &str) {
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut lines = lines_of_run(file, id);
    lines.push(format!("{id}\t{line}"));
    let _ = std::fs::write(file, lines.join("\n") + "\n");
}

/// The recorded lines of run `id` (those of earlier runs are dropped).
fn lines_of_run(file: &Path, id: u32) -> Vec<String> {
    let prefix = format!("{id}\t");
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .map(str::to_string)
        .collect()
}

/// The skips of this `cargo test` run so far, one per line.
pub fn skips_of_this_run() -> Vec<String> {
    skips_of_run(&skip_file(), run_id())
}

fn skips_of_run(file: &Path, id: u32) -> Vec<String> {
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    lines_of_run(file, id)
        .into_iter()
        .map(|l| l.split_once('\t').map_or(l.clone(), |(_, s)| s.to_string()))
        .collect()
}

extern "C" fn summarise() {
    let skips = skips_of_this_run();
    if skips.is_empty() {
        return;
    }
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "\n{} test(s) skipped so far in this run (listed in {}); under CI=1 each would fail:",
        skips.len(),
        skip_file().display()
    );
    for s in skips {
        let _ = writeln!(err, "  {s}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ci_is_any_value_but_empty_or_false() {
        assert!(is_ci(Some("1")));
        assert!(is_ci(Some("true")));
        assert!(!is_ci(None));
        assert!(!is_ci(Some("")));
        assert!(!is_ci(Some("0")));
        assert!(!is_ci(Some("false")));
    }

    #[test]
    fn a_skip_under_ci_names_what_is_missing_and_the_fix() {
        let m = ci_message("t::x", "`fio` on PATH", &install_hint("fio"));
        assert!(m.contains("t::x cannot run: it needs `fio` on PATH"), "{m}");
        assert!(m.contains("apt-get install fio"), "{m}");
        assert!(m.contains(".ci/run"), "{m}");
    }

    #[test]
    fn skips_are_kept_for_the_current_run_only() {
        let dir = std::env::temp_dir().join(format!("test-support-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(SKIP_FILE);
        append(&file, 7, "old::test: needs x (y)");
        append(&file, 8, "a::one: needs fio (apt-get install fio)");
        append(&file, 8, "b::two: needs root (run as root)");
        assert_eq!(
            skips_of_run(&file, 8),
            vec![
                "a::one: needs fio (apt-get install fio)".to_string(),
                "b::two: needs root (run as root)".to_string()
            ]
        );
        assert!(
            skips_of_run(&file, 7).is_empty(),
            "a new run drops the old one's"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_binary_name_drops_cargos_hash() {
        assert_eq!(binary_name(), "test_support");
        assert!(skip_file().ends_with(SKIP_FILE));
        assert!(skip_file().parent().unwrap().file_name().unwrap() != "deps");
    }

    /// A test that unwraps a tool lookup panics where the tool is missing, before the skip
    /// rule could decide: the fresh-machine failure of `emulated_drives` (issue #22).
    #[test]
    fn no_test_unwraps_a_tool_lookup() {
        let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut offenders = Vec::new();
        let mut dirs = vec![crates];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() && path.file_name().is_some_and(|n| n != "target") {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    offenders.extend(
                        unwrapped_lookups(&text).map(|l| format!("{}: {l}", path.display())),
                    );
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "tool lookups unwrapped (a panic where the tool is missing; use \
             test_support::tool or Guest::tool, which skip):\n{}",
            offenders.join("\n")
        );
        assert_eq!(
            // Spelled in pieces, or this line would be found too.
            unwrapped_lookups(concat!("x.program(find_", "tool(\"nvme\").expect(\"n\"))")).count(),
            1,
            "the check finds the pattern it looks for"
        );
    }

    /// The lines of `text` that call `.expect(` or `.unwrap()` on a `find_tool(...)`.
    fn unwrapped_lookups(text: &str) -> impl Iterator<Item = &str> {
        let lookup = concat!("find_", "tool(");
        text.lines().filter(move |line| {
            line.match_indices(lookup).any(|(at, _)| {
                let rest = &line[at + lookup.len()..];
                let close = rest.find(')').map_or(rest.len(), |i| i + 1);
                let after = rest[close..].trim_start();
                after.starts_with(".expect(") || after.starts_with(".unwrap(")
            })
        })
    }

    #[test]
    fn ci_run_installs_every_tool_the_tests_use() {
        let run = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../.ci/run"))
            .expect(".ci/run");
        for (tool, package) in TOOLS {
            assert!(
                run.contains(&format!("{tool}:{package}")),
                ".ci/run does not install {tool} (package {package}): add {tool}:{package} to its list"
            );
        }
        assert!(
            run.contains("export CI=1"),
            ".ci/run must run the tests under CI=1"
        );
    }
}
