use super::*;

fn jobs(text: &str) -> Result<Vec<FioJob>, FioJobError> {
    parse(text, &|_| None)
}

fn refusal(text: &str) -> String {
    jobs(text).unwrap_err().to_string()
}

#[test]
fn a_global_section_is_every_later_jobs_default_and_a_job_overrides_it() {
    let j = jobs(
        "[global]\nioengine=libaio\nrw=randrw\nrwmixread=70\nbs=8k\niodepth=16\nnumjobs=2\ndirect=1\n\
         time_based\nruntime=30\nnorandommap\n[a]\nbs=16k\n",
    )
    .unwrap();
    assert_eq!(j.len(), 1);
    let o = &j[0].overrides;
    assert_eq!(o.access, Some(Access::Random));
    assert_eq!(o.read_pct, Some(70));
    assert_eq!(o.block_bytes, Some(16384));
    assert_eq!((o.qd, o.threads), (Some(16), Some(2)));
    assert_eq!(o.duration_s, Some(30.0));
    assert_eq!(j[0].passes, None, "a time-based job ends by its runtime");
    assert_eq!(o.prefill, Some(false), "fio fills nothing before a job");
    assert!(j[0].deviations.is_empty(), "{:?}", j[0].deviations);
}

#[test]
fn a_job_that_is_not_time_based_ends_after_loops_passes_of_each_copy() {
    let j = jobs("[a]\nrw=write\nsize=64m\nloops=3\nnumjobs=2\ndirect=1\n").unwrap();
    assert_eq!(j[0].passes, Some(6));
    let o = j[0].workload(1 << 30).unwrap();
    assert_eq!(o.bytes, Some(6 * (64 << 20)));
    assert_eq!(o.read_pct, Some(0));
    assert_eq!(o.access, Some(Access::Sequential));
    let whole = jobs("[a]\nrw=read\ndirect=1\n").unwrap();
    assert_eq!(whole[0].workload(1 << 30).unwrap().bytes, Some(1 << 30));
}

#[test]
fn fios_per_job_rate_is_the_threads_together_here() {
    let j = jobs("[a]\nrw=randread\nrate_iops=500\nrate_process=poisson\nnumjobs=4\n").unwrap();
    let rate = j[0].overrides.shape.rate.unwrap();
    assert_eq!(rate.iops, 2000.0);
    assert_eq!(rate.arrivals, engine::shape::Arrivals::Poisson);
}

#[test]
fn bssplit_and_random_distribution_are_fios_syntax() {
    let j = jobs(
        "[a]\nrw=randrw\nbssplit=512/10:4k/60:64k/30\nblockalign=512\n\
         random_distribution=zoned:50/5:30/15:20/\n",
    )
    .unwrap();
    let o = &j[0].overrides;
    let mix = o.shape.block_mix.as_ref().unwrap();
    assert_eq!((mix.smallest(), mix.largest()), (512, 65536));
    assert_eq!(o.block_bytes, None);
    assert!(!o.shape.distribution.is_uniform());
}

#[test]
fn a_sync_engine_fios_default_has_one_io_in_flight_and_says_so() {
    for text in [
        "[a]\nioengine=psync\niodepth=32\ndirect=1\n",
        "[a]\niodepth=32\ndirect=1\n",
    ] {
        let j = jobs(text).unwrap();
        assert_eq!(j[0].overrides.qd, Some(1), "{text}");
        assert!(
            j[0].deviations.iter().any(|d| d.contains("iodepth=32")),
            "{text}"
        );
    }
    let j = jobs("[a]\nioengine=io_uring\niodepth=32\ndirect=1\n").unwrap();
    assert_eq!(j[0].overrides.qd, Some(32));
}

#[test]
fn what_ssdlab_runs_differently_from_fio_is_said() {
    let j = jobs("[a]\nrw=randread\nfilename=/dev/sdq\nramp_time=5\nruntime=10\n").unwrap();
    let said = j[0].deviations.join("\n");
    assert!(said.contains("direct=0"), "{said}");
    assert!(said.contains("norandommap"), "{said}");
    assert!(said.contains("filename=/dev/sdq"), "{said}");
    assert!(said.contains("ramp_time=5s"), "{said}");
    assert_eq!(j[0].ramp_s, Some(5.0));
}

#[test]
fn stonewalled_jobs_run_one_after_another_and_jobs_together_are_refused() {
    let j = jobs("[global]\nstonewall\n[w]\nrw=write\n[r]\nrw=read\n").unwrap();
    assert_eq!(
        j.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(),
        ["w", "r"]
    );
    let e = refusal("[w]\nrw=write\n[r]\nrw=read\n");
    assert!(
        e.contains("'w' and 'r' (line 3)") && e.contains("stonewall"),
        "{e}"
    );
}

#[test]
fn an_option_ssdlab_cannot_run_is_refused_by_name_and_line() {
    let e = refusal("[a]\nrw=randread\nverify=crc32c\n");
    assert!(e.contains("line 3") && e.contains("'verify'"), "{e}");
    let e = refusal("[a]\niodpeth=4\n");
    assert!(e.contains("iodepth"), "a misspelling gets the closest: {e}");
    for (text, names) in [
        ("[a]\nioengine=null\n", "ioengine=null"),
        ("[a]\nrw=read:-8k\n", "rw=read:-8k"),
        ("[a]\nrw=trim\n", "rw=trim"),
        ("[a]\nbs=4k,8k\n", "bs=4k,8k"),
        ("[a]\nbsrange=4k-64k\n", "bsrange=4k-64k"),
        ("[a]\noffset=30%\n", "offset=30%"),
        ("[a]\nbs=4k\nblockalign=8k\n", "blockalign=8192"),
        ("[a]\ntime_based\n", "time_based"),
        ("[a]\niodepth=0\n", "iodepth=0"),
    ] {
        let e = refusal(text);
        assert!(e.contains(names), "{text:?}: {e}");
    }
    assert!(refusal("; nothing\n[global]\nbs=4k\n").contains("no job"));
}
