//! A meter command: any program that prints one reading per line (a USB meter's tool, a lab
//! supply's CLI), run by `sh -c` in its own process group so stopping it stops its children.
//!
//! A line is a reading, blank, or a `#` comment. A reading is watts or volts and amps:
//!
//! ```text
//! 3.21          watts
//! 3.21 W        watts (also 3.21W; 850 mW)
//! 5.02 V 0.41 A volts and amps (also mV, mA; either order when both units are given)
//! 5.02,0.41     volts then amps (commas, semicolons and spaces separate alike)
//! ```
//!
//! Each reading is stamped when its line arrives, so the command should print (and flush)
//! each line as it measures it.

use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::bounded_lines::{BoundedLines, Line};
use super::{check_watts, MeterError, ReadingError, Recording};

/// A line longer than this is not a reading (and must not grow memory without bound): on
/// standard output it fails the meter, on standard error the rest is dropped.
const MAX_LINE_BYTES: usize = 4096;

/// One line of the command's output: `Ok(None)` for a blank line or comment.
pub fn parse_reading(text: &str) -> Result<Option<f64>, ReadingError> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let malformed = || ReadingError::malformed(text);
    let quantities = quantities(text).ok_or_else(malformed)?;
    let watts = match quantities[..] {
        [(w, None | Some(Unit::Watts))] => w,
        [(v, None | Some(Unit::Volts)), (a, None | Some(Unit::Amps))]
        | [(a, Some(Unit::Amps)), (v, Some(Unit::Volts))] => {
            for (value, what) in [(v, "a voltage of {} V"), (a, "a current of {} A")] {
                if value.is_nan() || value < 0.0 {
                    return Err(ReadingError::Nonsense {
                        value: what.replace("{}", &super::shown(value)),
                        why: "negative or not a number",
                    });
                }
            }
            v * a
        }
        _ => return Err(malformed()),
    };
    check_watts(watts).map(Some)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Unit {
    Watts,
    Volts,
    Amps,
}

/// The numbers of a line with their units (scaled to W, V, A), or None when a word is
/// neither.
fn quantities(text: &str) -> Option<Vec<(f64, Option<Unit>)>> {
    let unit = |word: &str| -> Option<(f64, Unit)> {
        Some(match word.to_ascii_lowercase().as_str() {
            "w" => (1.0, Unit::Watts),
            "mw" => (1e-3, Unit::Watts),
            "v" => (1.0, Unit::Volts),
            "mv" => (1e-3, Unit::Volts),
            "a" => (1.0, Unit::Amps),
            "ma" => (1e-3, Unit::Amps),
            _ => return None,
        })
    };
    let mut out: Vec<(f64, Option<Unit>)> = Vec::new();
    for word in text.split([' ', '\t', ',', ';']).filter(|w| !w.is_empty()) {
        if let Ok(number) = word.parse::<f64>() {
            out.push((number, None));
        } else if let Some((scale, u)) = unit(word) {
            // A unit on its own belongs to the number before it.
            let last = out.last_mut().filter(|(_, had)| had.is_none())?;
            *last = (last.0 * scale, Some(u));
        } else {
            // A number with its unit attached: "3.2W", "410mA".
            let split = word.find(|c: char| c.is_ascii_alphabetic())?;
            let (number, suffix) = word.split_at(split);
            let (scale, u) = unit(suffix)?;
            out.push((number.parse::<f64>().ok()? * scale, Some(u)));
        }
    }
    Some(out)
}

/// What the command's reader threads hand the meter's thread.
pub(super) enum Event {
    Line(Instant, Line),
    ErrorOutput(String),
    /// Standard error reached its end: no more error output follows.
    ErrorClosed,
    OutputClosed(Instant),
    Stop,
}

pub(super) struct CommandMeter {
    command: String,
    child: Child,
}

impl CommandMeter {
    pub(super) fn spawn(
        command: &str,
    ) -> Result<(CommandMeter, ChildStdout, ChildStderr), MeterError> {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|source| MeterError::Spawn {
                command: command.to_string(),
                error: source,
            })?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        Ok((
            CommandMeter {
                command: command.to_string(),
                child,
            },
            stdout,
            stderr,
        ))
    }

    /// Feed the command's output into `events`: one thread per pipe, each ending at EOF
    /// (when the command's process group is gone).
    pub(super) fn read_output(
        stdout: ChildStdout,
        stderr: ChildStderr,
        events: &mpsc::SyncSender<Event>,
    ) {
        let out = events.clone();
        std::thread::spawn(move || {
            for line in BoundedLines::new(stdout, MAX_LINE_BYTES) {
                let Ok(line) = line else { break };
                if out.send(Event::Line(Instant::now(), line)).is_err() {
                    return;
                }
            }
            let _ = out.send(Event::OutputClosed(Instant::now()));
        });
        let err = events.clone();
        std::thread::spawn(move || {
            for line in BoundedLines::new(stderr, MAX_LINE_BYTES) {
                let Ok(Line { mut text, cut }) = line else {
                    break;
                };
                if cut {
                    text.push_str("...");
                }
                if err.send(Event::ErrorOutput(text)).is_err() {
                    return;
                }
            }
            let _ = err.send(Event::ErrorClosed);
        });
    }

    /// Take readings until told to stop or the command fails; then stop the command.
    pub(super) fn run(mut self, events: mpsc::Receiver<Event>, rec: Recording, silence: Duration) {
        let mut line_number = 0usize;
        let mut readings = 0usize;
        let mut last_reading: Option<Instant> = None;
        let mut error_tail: Vec<String> = Vec::new();
        let mut error_open = true;
        let started = Instant::now();
        loop {
            let waited = last_reading.unwrap_or(started).elapsed();
            let event = match events.recv_timeout(silence.saturating_sub(waited)) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    let from = last_reading.map_or(0.0, |at| rec.t_s(at));
                    rec.fail(
                        from,
                        format!(
                            "the meter command gave no reading for {:.1} s{}",
                            silence.as_secs_f64(),
                            tail(&error_tail)
                        ),
                    );
                    break;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            match event {
                Event::Stop => break,
                Event::ErrorClosed => error_open = false,
                Event::ErrorOutput(line) => {
                    error_tail.push(line);
                    if error_tail.len() > 3 {
                        error_tail.remove(0);
                    }
                }
                Event::Line(at, line) => {
                    line_number += 1;
                    if line.cut {
                        rec.fail(
                            rec.t_s(at),
                            format!(
                                "line {line_number} of the output of {} is longer than \
                                 {MAX_LINE_BYTES} bytes ('{}...'): a reading is a short line \
                                 like '3.2 W'; have the command print one reading per line",
                                self.description(),
                                line.text.chars().take(40).collect::<String>()
                            ),
                        );
                        break;
                    }
                    match parse_reading(&line.text) {
                        Ok(None) => {}
                        Ok(Some(watts)) => {
                            rec.push(at, watts);
                            readings += 1;
                            last_reading = Some(at);
                        }
                        Err(e) => {
                            rec.fail(
                                rec.t_s(at),
                                format!("line {line_number} of the meter's output: {e}"),
                            );
                            break;
                        }
                    }
                }
                Event::OutputClosed(at) => {
                    // The error output says why: wait for its end (not for a guessed moment,
                    // which a loaded machine overruns), at most the silence timeout, in case
                    // something the command started keeps it open.
                    let mut deadline = Instant::now() + silence;
                    while error_open {
                        let left = deadline.saturating_duration_since(Instant::now());
                        match events.recv_timeout(left) {
                            Ok(Event::ErrorOutput(line)) => error_tail.push(line),
                            Ok(Event::Line(..) | Event::OutputClosed(_)) => {}
                            Ok(Event::Stop) => {
                                deadline = Instant::now(); // Stopping: no more waiting.
                                break;
                            }
                            Ok(Event::ErrorClosed) => error_open = false,
                            Err(_) => break,
                        }
                    }
                    error_tail.drain(..error_tail.len().saturating_sub(3));
                    let status = self.exit_status(&events, deadline);
                    rec.fail(
                        rec.t_s(at),
                        format!(
                            "the meter command {status} after {readings} readings{}",
                            tail(&error_tail)
                        ),
                    );
                    break;
                }
            }
        }
        self.stop();
    }

    /// How the command ended, waiting for it until `deadline` (or until told to stop) after
    /// it closed its output.
    fn exit_status(&mut self, events: &mpsc::Receiver<Event>, deadline: Instant) -> String {
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    use std::os::unix::process::ExitStatusExt;
                    return match (status.code(), status.signal()) {
                        (Some(code), _) => format!("exited with status {code}"),
                        (None, Some(signal)) => format!("was killed by signal {signal}"),
                        _ => format!("ended ({status})"),
                    };
                }
                Ok(None) if Instant::now() < deadline => {
                    // Polls the child; a stop cuts the wait short.
                    if let Ok(Event::Stop) | Err(RecvTimeoutError::Disconnected) =
                        events.recv_timeout(Duration::from_millis(10))
                    {
                        return "closed its output".to_string();
                    }
                }
                _ => return "closed its output".to_string(),
            }
        }
    }

    /// Stop the command and everything it started (its process group): SIGTERM, then
    /// SIGKILL if it lingers.
    fn stop(&mut self) {
        let group = -(self.child.id() as libc::pid_t);
        // SAFETY: kill(2) with a process group we created; the leader is not yet reaped, so
        // its id cannot have been reused.
        unsafe { libc::kill(group, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(2);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        // SAFETY: as above; the group may already be gone (ESRCH is fine).
        unsafe { libc::kill(group, libc::SIGKILL) };
        let _ = self.child.wait();
    }

    pub(super) fn description(&self) -> String {
        format!("the meter command `{}`", self.command)
    }
}

fn tail(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("; its last error output: {}", lines.join(" / "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watts(text: &str) -> f64 {
        parse_reading(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .unwrap_or_else(|| panic!("{text}: no reading"))
    }

    #[test]
    fn the_grammar() {
        assert_eq!(watts("3.25"), 3.25);
        assert_eq!(watts(" 3.25 W\n"), 3.25);
        assert_eq!(watts("3.25w"), 3.25);
        assert!((watts("850 mW") - 0.85).abs() < 1e-12);
        assert!((watts("5.02 V 0.41 A") - 5.02 * 0.41).abs() < 1e-12);
        assert!((watts("5.02V 410mA") - 5.02 * 0.41).abs() < 1e-12);
        assert!((watts("0.41 A 5.02 V") - 5.02 * 0.41).abs() < 1e-12);
        assert!((watts("5.02,0.41") - 5.02 * 0.41).abs() < 1e-12);
        assert!((watts("12.0;0.2") - 2.4).abs() < 1e-12);
        assert_eq!(watts("0"), 0.0);
        assert_eq!(parse_reading("").unwrap(), None);
        assert_eq!(parse_reading("# UM25C on COM3").unwrap(), None);
    }

    #[test]
    fn malformed_lines() {
        for text in [
            "Voltage,Current",
            "3.2 V",
            "0.4 A",
            "3.2 W 0.4 A",
            "1 2 3",
            "W 3.2",
            "3.2 W W",
            "0.41 5.02 V",
            "12.3 kW",
        ] {
            let err = parse_reading(text).unwrap_err();
            assert!(matches!(err, ReadingError::Malformed(_)), "{text}: {err}");
            assert!(err.to_string().contains("expected watts"), "{err}");
        }
    }

    #[test]
    fn nonsense_is_rejected_with_a_reason() {
        let why = |text: &str| parse_reading(text).unwrap_err().to_string();
        assert!(why("NaN").contains("not a finite number"), "{}", why("NaN"));
        assert!(why("inf").contains("not a finite number"));
        assert!(why("-1.5").contains("negative"));
        assert!(why("3500").contains("more than 100 W"));
        assert!(why("3500").contains("milliwatts"));
        assert!(why("5 V -0.1 A").contains("a current of -0.1 A"));
        assert!(why("12 V 9 A").contains("more than 100 W"));
        // A reading of 309 digits is shown in a few.
        let huge = why(&format!("1{}", "0".repeat(308)));
        assert!(huge.contains("1.000e308 W") && huge.len() < 200, "{huge}");
        assert!(why("5 V -1e300 A").contains("a current of -1.000e300 A"));
    }
}
