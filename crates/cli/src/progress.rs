//! The progress bar: live IOPS, MB/s and ETA per phase; silent when not on a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use engine::driver::Progress;
use engine::Clock;
use suite::context::Observer;

pub struct Bar {
    bar: Option<ProgressBar>,
    visible: bool,
    quiet: bool,
}

impl Bar {
    pub fn new(quiet: bool) -> Bar {
        Bar {
            bar: None,
            visible: !quiet && std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
            quiet,
        }
    }
}

fn si(v: f64) -> String {
    match v {
        v if v >= 1e6 => format!("{:.2}M", v / 1e6),
        v if v >= 1e4 => format!("{:.1}K", v / 1e3),
        v => format!("{v:.0}"),
    }
}

impl Observer for Bar {
    fn phase(&mut self, label: &str, clock: Clock) {
        if !self.visible {
            if !self.quiet {
                eprintln!("{label}...");
            }
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr_with_hz(5));
        let time = match clock {
            Clock::Wall => "",
            Clock::Virtual => " (virtual time)",
        };
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{prefix}} [{{bar:30}}] {{percent:>3}}% {{msg}}{time} ETA {{eta}}"
            ))
            .expect("progress template")
            .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        self.bar = Some(bar);
    }

    fn progress(&mut self, p: &Progress) {
        if let Some(bar) = &self.bar {
            bar.set_position((p.fraction * 1000.0) as u64);
            bar.set_message(format!(
                "{} IOPS {} MB/s t={:.0}s",
                si(p.recent_iops),
                si(p.recent_mbps),
                p.elapsed_ns as f64 / 1e9
            ));
        }
    }

    fn phase_done(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    fn note(&mut self, text: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(bar) => bar.println(format!("note: {text}")),
            None => eprintln!("note: {text}"),
        }
    }
}
