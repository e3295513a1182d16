//! Polling a long operation (NVMe or ATA sanitize) until it ends, with progress and a limit.

use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// What one poll saw.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Poll {
    /// Still running, with the fraction done (0..=1).
    Running(f64),
    Done,
    Failed(String),
}

/// Poll every `interval` until done, failed, or `timeout` passed; report progress each time.
pub(crate) fn wait(
    command: &'static str,
    timeout: Duration,
    interval: Duration,
    mut poll: impl FnMut() -> Result<Poll>,
    progress: &mut dyn FnMut(f64),
) -> Result<()> {
    let start = Instant::now();
    let mut last = 0.0;
    loop {
        match poll()? {
            Poll::Done => {
                progress(1.0);
                return Ok(());
            }
            Poll::Failed(why) => {
                return Err(Error::Refused {
                    command,
                    reason: why,
                })
            }
            Poll::Running(f) => {
                last = if f.is_finite() {
                    f.clamp(0.0, 1.0)
                } else {
                    last
                };
                progress(last);
            }
        }
        if start.elapsed() >= timeout {
            return Err(Error::Timeout {
                command,
                seconds: timeout.as_secs(),
                percent: last * 100.0,
            });
        }
        std::thread::sleep(interval);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_progress_until_done() {
        let mut seq = vec![
            Poll::Running(0.25),
            Poll::Running(f64::NAN),
            Poll::Running(0.5),
            Poll::Done,
        ]
        .into_iter();
        let mut seen = vec![];
        wait(
            "Sanitize",
            Duration::from_secs(60),
            Duration::ZERO,
            || Ok(seq.next().unwrap()),
            &mut |f| seen.push(f),
        )
        .unwrap();
        assert_eq!(seen, [0.25, 0.25, 0.5, 1.0]);
    }

    #[test]
    fn failure_and_timeout_are_errors() {
        let e = wait(
            "Sanitize",
            Duration::from_secs(1),
            Duration::ZERO,
            || Ok(Poll::Failed("it failed".into())),
            &mut |_| {},
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "the drive refused Sanitize: it failed");
        let e = wait(
            "Sanitize",
            Duration::ZERO,
            Duration::ZERO,
            || Ok(Poll::Running(0.4)),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("still running after 0 s (last progress 40.0%)"),
            "{e}"
        );
    }
}
