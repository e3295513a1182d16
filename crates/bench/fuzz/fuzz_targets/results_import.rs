#![no_main]
// The results import: bytes of a result file through the parse and the checks `bench import`
// makes. Any panic is a bug; refusals are fine. What is accepted must be safe to name files
// with and to print, and must store in the Bench and read back unchanged.
use std::cell::RefCell;
use std::path::Path;

use bench::db::{Bench, RunRecord};

thread_local! {
    static BENCH: RefCell<Bench> =
        RefCell::new(Bench::open(Path::new(":memory:")).expect("an in-memory Bench"));
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(mut r) = suite::results_dir::parse_result(data, Path::new("fuzz.json")) else {
        return;
    };
    if bench::db::check_result(&r).is_err() {
        return;
    }
    let stem = r.file_stem();
    assert!(!stem.contains('/') && !stem.starts_with('.') && !stem.contains('\0'));
    for text in [&r.label, &r.target.path] {
        let shown = bench::term::printable(text);
        assert!(!shown.chars().any(bench::term::is_unsafe));
    }
    let run_id = r
        .run_id
        .get_or_insert_with(|| uuid::Uuid::new_v4().to_string())
        .clone();
    let run = RunRecord::of_test(run_id, vec![r.clone()], &r, None);
    BENCH.with(|b| {
        let mut b = b.borrow_mut();
        let id = b.store(&run).expect("a checked result stores").id();
        let back = b.results_of_run(id).expect("and reads back");
        assert!(back.iter().any(|s| s.result == r), "read back unchanged");
        assert!(b.remove_run(id).unwrap());
    });
});
