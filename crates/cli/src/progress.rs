//! Progress: on a terminal, a bar per phase with live IOPS, MB/s and ETA (and in a suite the
//! step number and the suite's ETA); otherwise a plain log of a line per step (or per group of
//! phases outside a suite), so a log file gets a few lines, not hundreds. Several drives at
//! once share one display: a bar each, every line named by its drive.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use engine::driver::Progress;
use engine::Clock;
use suite::context::Observer;
use suite::result::TestResult;
use suite::runner::Status;

/// The bar's length: progress fractions in thousandths.
const STEPS: u64 = 1000;

pub struct Bar {
    mode: Mode,
    /// Set by Ctrl-C: a phase ending then was stopped, not finished.
    stop: Arc<AtomicBool>,
    current: Option<Phase>,
    suite: Option<SuiteProgress>,
    /// Outside a suite, the plain log's last phase group.
    logged_group: Option<String>,
    /// With several drives (or steps) at once: this one's name, and the display all their
    /// bars share.
    drive: Option<String>,
    multi: Option<MultiProgress>,
    /// The suite's time left, which a step run beside others cannot tell.
    suite_eta: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bars,
    Plain,
    Quiet,
}

struct Phase {
    bar: Option<ProgressBar>,
    group: String,
    /// Phases of the group so far.
    count: usize,
    last: Option<Progress>,
    /// Ended, its bar at 100% and left for the next phase of its group to reuse.
    done: bool,
}

struct SuiteProgress {
    number: usize,
    of: usize,
    id: String,
    started: Instant,
    /// Wall seconds of each step run so far.
    took: Vec<f64>,
}

/// The suite's time left, as far as the steps run so far can tell.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Left {
    /// The steps still to come at the mean time of those run so far, with what that mean
    /// leaves of this one.
    About(f64),
    /// This step has run longer than the mean, so its end is not known (the phase's own ETA
    /// is the best guess): the steps after it would take this long at the mean.
    AfterThisStep(f64),
}

impl SuiteProgress {
    /// The suite's time left `current_s` into this step; None before a step has run. The
    /// elapsed time is an argument so the arithmetic is testable without a clock.
    fn left_s(&self, current_s: f64) -> Option<Left> {
        if self.took.is_empty() {
            return None;
        }
        let mean = self.took.iter().sum::<f64>() / self.took.len() as f64;
        let after = mean * (self.of - self.number) as f64;
        Some(match current_s <= mean {
            true => Left::About(after + mean - current_s),
            false => Left::AfterThisStep(after),
        })
    }

    fn eta(&self) -> String {
        self.eta_at(self.started.elapsed().as_secs_f64())
    }

    /// The suite's time left in words, `current_s` into this step.
    fn eta_at(&self, current_s: f64) -> String {
        match self.left_s(current_s) {
            Some(Left::About(s)) => format!("suite ETA ~{}", duration(s)),
            // A step far longer than those before (the PTS after quick ones) would otherwise
            // count down to "~0 s" and stay there.
            Some(Left::AfterThisStep(s)) if self.number < self.of => {
                format!("suite ETA: this step, then ~{}", duration(s))
            }
            Some(Left::AfterThisStep(_)) => "suite ETA: this step's end".into(),
            None => "suite ETA after the first step".into(),
        }
    }
}

impl Bar {
    pub fn new(quiet: bool, stop: &Arc<AtomicBool>) -> Bar {
        let mode = if quiet {
            Mode::Quiet
        } else if std::io::stderr().is_terminal() {
            Mode::Bars
        } else {
            Mode::Plain
        };
        Bar {
            mode,
            stop: Arc::clone(stop),
            current: None,
            suite: None,
            logged_group: None,
            drive: None,
            multi: None,
            suite_eta: true,
        }
    }

    /// The progress of `drive`, one of several tested at once, its bars drawn in `multi`.
    pub fn for_drive(
        quiet: bool,
        stop: &Arc<AtomicBool>,
        drive: &str,
        multi: &MultiProgress,
    ) -> Bar {
        let mut bar = Bar::new(quiet, stop);
        bar.drive = Some(drive.to_string());
        if bar.mode == Mode::Bars {
            bar.multi = Some(multi.clone());
        }
        bar
    }

    /// The progress of step `id`, one of several run at once (each on an instance of its own),
    /// its bars drawn in `multi`.
    pub fn for_step(quiet: bool, stop: &Arc<AtomicBool>, id: &str, multi: &MultiProgress) -> Bar {
        let mut bar = Bar::for_drive(quiet, stop, id, multi);
        bar.suite_eta = false;
        bar
    }

    /// End the last bar (before the summary is printed).
    pub fn close(&mut self) {
        if let Some(bar) = self.current.take().and_then(|p| p.bar) {
            bar.finish();
            leave(&bar, self.multi.as_ref());
        }
    }

    fn interrupted(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// A line for the log, above the bar when there is one.
    fn say(&self, text: &str) {
        let text = match &self.drive {
            Some(drive) => format!("{drive}: {text}"),
            None => text.to_string(),
        };
        if let Some(multi) = &self.multi {
            let _ = multi.println(text);
            return;
        }
        match self.current.as_ref().and_then(|p| p.bar.as_ref()) {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }
}

/// A bar's prefix: the drive (when several), the suite step, the phase.
fn prefix(drive: Option<&str>, suite: Option<&SuiteProgress>, label: &str) -> String {
    let step = match suite {
        Some(s) => format!("[{}/{}] {label}", s.number, s.of),
        None => label.to_string(),
    };
    match drive {
        Some(drive) => format!("{drive} {step}"),
        None => step,
    }
}

/// A finished bar stays drawn with the cursor at its end: move on to the next line, so what
/// is printed next does not start beside it. Among several drives' bars it makes way for the
/// drive's next one instead.
fn leave(bar: &ProgressBar, multi: Option<&MultiProgress>) {
    match multi {
        Some(multi) => multi.remove(bar),
        None if !bar.is_hidden() => eprintln!(),
        None => {}
    }
}

/// Phases whose labels agree up to the first ':' but for numbers and sizes ("TRIM test, dirty
/// pass: 42%", "transfer size 4 KiB: sequential read") form a group: they share a bar and a
/// line of the plain log.
fn group_of(label: &str) -> String {
    let head = label.split(':').next().unwrap_or(label);
    head.split_whitespace()
        .filter(|w| {
            !w.starts_with(|c: char| c.is_ascii_digit())
                && !matches!(*w, "B" | "KiB" | "MiB" | "GiB" | "TiB")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn si(v: f64) -> String {
    match v {
        v if v >= 1e6 => format!("{:.2}M", v / 1e6),
        v if v >= 1e4 => format!("{:.1}K", v / 1e3),
        v => format!("{v:.0}"),
    }
}

/// Seconds as a reader takes them: 45 s, 2m31s, 1h05m.
pub fn duration(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    match s {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

/// What a phase did, over all of it.
fn figures(p: &Progress) -> String {
    let s = p.elapsed_ns as f64 / 1e9;
    let per_s = |v: f64| if s > 0.0 { v / s } else { 0.0 };
    format!(
        "{} IOPS {} MB/s in {}",
        si(per_s(p.ios as f64)),
        si(per_s(p.bytes as f64 / 1e6)),
        duration(s)
    )
}

impl Observer for Bar {
    fn phase(&mut self, label: &str, clock: Clock) {
        let group = group_of(label);
        match self.mode {
            Mode::Quiet => return,
            Mode::Plain => {
                // In a suite the step lines say enough; alone, a line per group of phases.
                if self.suite.is_none() && self.logged_group.as_deref() != Some(&group) {
                    eprintln!("{label}...");
                    self.logged_group = Some(group.clone());
                }
                self.current = Some(Phase {
                    bar: None,
                    group,
                    count: 1,
                    last: None,
                    done: false,
                });
                return;
            }
            Mode::Bars => {}
        }
        let prefix = prefix(self.drive.as_deref(), self.suite.as_ref(), label);
        if let Some(p) = self.current.as_mut().filter(|p| p.done && p.group == group) {
            if let Some(bar) = &p.bar {
                bar.set_prefix(prefix);
                bar.set_message("");
                bar.reset();
            }
            p.done = false;
            p.last = None;
            p.count += 1;
            return;
        }
        self.close();
        let mut bar =
            ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::stderr_with_hz(5));
        if let Some(multi) = &self.multi {
            bar = multi.add(bar);
        }
        let time = match clock {
            Clock::Wall => "",
            Clock::Virtual => " (virtual time)",
        };
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{prefix}} [{{bar:30}}] {{percent:>3}}% {{msg}}{time}"
            ))
            .expect("progress template")
            .progress_chars("=> "),
        );
        bar.set_prefix(prefix);
        self.current = Some(Phase {
            bar: Some(bar),
            group,
            count: 1,
            last: None,
            done: false,
        });
    }

    fn progress(&mut self, p: &Progress) {
        let suite_eta = self
            .suite
            .as_ref()
            .filter(|_| self.suite_eta)
            .map(SuiteProgress::eta);
        let Some(phase) = self.current.as_mut() else {
            return;
        };
        phase.last = Some(*p);
        if let Some(bar) = &phase.bar {
            bar.set_position((p.fraction.clamp(0.0, 1.0) * STEPS as f64) as u64);
            let eta = indicatif::HumanDuration(bar.eta());
            bar.set_message(format!(
                "{} IOPS {} MB/s t={:.0}s ETA {eta}{}",
                si(p.recent_iops),
                si(p.recent_mbps),
                p.elapsed_ns as f64 / 1e9,
                suite_eta.map_or(String::new(), |e| format!(", {e}"))
            ));
        }
    }

    fn phase_done(&mut self) {
        let interrupted = self.interrupted();
        let Some(phase) = self.current.as_mut() else {
            return;
        };
        let Some(bar) = &phase.bar else {
            return;
        };
        // A phase's own figures; a group's would be partial (its short phases report none).
        let figures = match (&phase.last, phase.count) {
            (Some(last), 1) => format!(": {}", figures(last)),
            _ => String::new(),
        };
        if phase.count > 1 {
            // The group, not its last member ("TRIM test, dirty pass", not "...: 99%").
            bar.set_prefix(prefix(
                self.drive.as_deref(),
                self.suite.as_ref(),
                &phase.group,
            ));
        }
        if interrupted {
            // Its true final state: where it stopped.
            bar.abandon_with_message(format!("stopped{figures}"));
            leave(bar, self.multi.as_ref());
            self.current = None;
        } else {
            // Shown at 100% when the next phase (or the end) finishes it.
            bar.set_position(STEPS);
            match phase.count {
                1 => bar.set_message(format!("done{figures}")),
                n => bar.set_message(format!("done ({n} phases)")),
            }
            phase.done = true;
        }
    }

    fn note(&mut self, text: &str) {
        if self.mode != Mode::Quiet {
            self.say(&format!("note: {text}"));
        }
    }

    fn step(&mut self, number: usize, of: usize, id: &str) {
        let took = self.suite.take().map(|s| s.took).unwrap_or_default();
        let s = SuiteProgress {
            number,
            of,
            id: id.to_string(),
            started: Instant::now(),
            took,
        };
        if self.mode != Mode::Quiet {
            self.close();
            let eta = match s.left_s(0.0) {
                Some(Left::About(left)) => format!(" (suite ETA ~{})", duration(left)),
                _ => String::new(),
            };
            self.say(&format!("step {number} of {of}: {id}{eta}"));
        }
        self.suite = Some(s);
    }

    fn step_done(&mut self, status: Status, results: &[TestResult]) {
        let Some(s) = self.suite.as_mut() else {
            return;
        };
        let took = s.started.elapsed().as_secs_f64();
        s.took.push(took);
        let line = format!(
            "step {} of {}: {} {} in {}{}",
            s.number,
            s.of,
            s.id,
            format!("{status:?}").to_lowercase(),
            duration(took),
            step_headline(results)
        );
        if self.mode != Mode::Quiet {
            self.close();
            self.say(&line);
        }
    }
}

/// ": the first result's headline figure (+N more)", or nothing without results.
fn step_headline(results: &[TestResult]) -> String {
    match results {
        [] => String::new(),
        [one] => format!(": {}", crate::output::headline(one)),
        [first, rest @ ..] => format!(
            ": {} (+{} more result{})",
            crate::output::headline(first),
            rest.len(),
            if rest.len() == 1 { "" } else { "s" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_group_by_their_label_before_the_colon() {
        assert_eq!(
            group_of("TRIM test, dirty pass: 42%"),
            "TRIM test, dirty pass"
        );
        assert_eq!(
            group_of("transfer size 512 B: sequential write, QD4"),
            group_of("transfer size 64 MiB: sequential read, QD4")
        );
        assert_ne!(
            group_of("TRIM test, clean pass: 0%"),
            "TRIM test, dirty pass"
        );
        assert_eq!(group_of("seq write"), "seq write");
    }

    #[test]
    fn durations_read_as_minutes_and_hours() {
        assert_eq!(duration(45.2), "45 s");
        assert_eq!(duration(151.0), "2m31s");
        assert_eq!(duration(3900.0), "1h05m");
    }

    #[test]
    fn suite_eta_waits_for_a_step_then_extrapolates() {
        let mut s = SuiteProgress {
            number: 1,
            of: 4,
            id: "a".into(),
            started: Instant::now(),
            took: Vec::new(),
        };
        assert_eq!(s.left_s(0.0), None);
        assert_eq!(s.left_s(50.0), None);
        s.took = vec![100.0];
        s.number = 2;
        // Two steps after this one at 100 s each, and this one just begun...
        assert_eq!(s.left_s(0.0), Some(Left::About(300.0)));
        // ...30 s in...
        assert_eq!(s.left_s(30.0), Some(Left::About(270.0)));
        // ...or past the mean: this step's end is not known, only what comes after it.
        assert_eq!(s.left_s(150.0), Some(Left::AfterThisStep(200.0)));
        // The mean of the steps run so far.
        s.took = vec![100.0, 200.0];
        s.number = 3;
        assert_eq!(s.left_s(50.0), Some(Left::About(150.0 + 100.0)));
    }

    #[test]
    fn a_last_step_longer_than_the_others_does_not_count_down_to_nothing() {
        // pts-hir after quick steps: minutes against a mean of 10 s (#66 pk2).
        let s = SuiteProgress {
            number: 5,
            of: 5,
            id: "pts-hir".into(),
            started: Instant::now(),
            took: vec![10.0; 4],
        };
        assert_eq!(s.left_s(0.0), Some(Left::About(10.0)));
        assert_eq!(s.left_s(60.0), Some(Left::AfterThisStep(0.0)));
        assert_eq!(s.eta_at(60.0), "suite ETA: this step's end");
        let middle = SuiteProgress { number: 3, ..s };
        assert_eq!(middle.eta_at(60.0), "suite ETA: this step, then ~20 s");
        assert_eq!(middle.eta_at(4.0), "suite ETA ~26 s");
    }
}
