//! blkparse's default text output (`blkparse -i DEV`):
//! `maj,min cpu seq seconds.nanoseconds pid action rwbs [sector + nsectors] [...]`.
//!
//! Events are paired into one record per queued IO by [`crate::pairing`], btt's way. Message
//! lines (`m`), plugs and unplugs are read and ignored; the per-CPU summary blkparse prints at
//! the end (from the first `CPU` or `Total` line) is ignored.

use std::collections::VecDeque;

use crate::pairing::{Action, Event, Pairer, PairingCounts};
use crate::text::{decimal_nano, field, show, uint, ws_fields, LineParser};
use crate::{Op, Record};

pub(crate) struct Parser {
    pub(crate) pairer: Pairer,
    summary: bool,
}

impl Parser {
    pub(crate) fn new() -> Self {
        Parser {
            pairer: Pairer::new(),
            summary: false,
        }
    }

    #[allow(dead_code)]
    pub(crate) fn counts(&self) -> PairingCounts {
        self.pairer.counts
    }
}

/// The op an rwbs string (`R`, `WS`, `DS`, `FWFS`, `FN`, `N`, ...) and a byte count mean.
/// `None` for events without data that are not flushes.
pub(crate) fn op_from_rwbs(rwbs: &[u8], bytes: u32) -> Option<Op> {
    let flush = rwbs.first() == Some(&b'F');
    let body = if flush { &rwbs[1..] } else { rwbs };
    let kind = body.first().copied();
    match kind {
        Some(b'D') => Some(Op::Discard),
        Some(b'W') if bytes > 0 => Some(Op::Write),
        Some(b'R') if bytes > 0 => Some(Op::Read),
        _ if flush => Some(Op::Flush),
        // blkparse prints 'R' for any non-write with data; a write of 0 bytes without the
        // flush flag carries nothing.
        _ => None,
    }
}

fn action_of(a: &[u8]) -> Option<Action> {
    Some(match a {
        b"Q" => Action::Queue,
        b"M" | b"F" => Action::Merge,
        b"D" => Action::Issue,
        b"C" => Action::Complete,
        b"R" => Action::Requeue,
        b"A" | b"G" | b"I" | b"P" | b"U" | b"UT" | b"T" | b"S" | b"X" | b"B" | b"m" => {
            Action::Other
        }
        _ => return None,
    })
}

pub(crate) fn parse_dev(f: &[u8]) -> Result<u32, String> {
    let bad = || format!("expected a device major,minor, found {}", show(f));
    let p = f.iter().position(|&b| b == b',').ok_or_else(bad)?;
    let maj = uint(&f[..p], "major").map_err(|_| bad())?;
    let min = uint(&f[p + 1..], "minor").map_err(|_| bad())?;
    if maj >= 1 << 12 || min >= 1 << 20 {
        return Err(bad());
    }
    Ok(((maj as u32) << 20) | min as u32)
}

impl LineParser for Parser {
    fn parse(&mut self, line: &[u8], out: &mut VecDeque<Record>) -> Result<(), String> {
        if self.summary {
            return Ok(());
        }
        let mut f = ws_fields(line);
        let Some(first) = f.next() else { return Ok(()) };
        if first.starts_with(b"CPU") || first == b"Total" {
            self.summary = true;
            return Ok(());
        }
        let dev = parse_dev(first)?;
        let _cpu = uint(field(&mut f, "cpu")?, "cpu")?;
        let _seq = uint(field(&mut f, "sequence number")?, "sequence number")?;
        let time_ns = decimal_nano(field(&mut f, "time (seconds)")?, "time (seconds)")?;
        let _pid = uint(field(&mut f, "pid")?, "pid")?;
        let af = field(&mut f, "action")?;
        let action = action_of(af).ok_or_else(|| {
            format!(
                "expected an action (Q M F G I D C R A P U ...), found {}",
                show(af)
            )
        })?;
        if action == Action::Other {
            return Ok(());
        }
        let rwbs = field(&mut f, "rwbs")?;
        let (sector, bytes) = match f.next() {
            Some(s) if s[0].is_ascii_digit() => {
                let sector = uint(s, "sector")?;
                if sector > crate::record::MAX_SECTOR {
                    return Err(format!("sector {sector} is beyond any device"));
                }
                match f.next() {
                    Some(b"+") => {
                        let n = uint(field(&mut f, "sector count")?, "sector count")?;
                        let bytes = crate::text::sectors_len(n, "sector count")?;
                        (sector, bytes)
                    }
                    _ => (sector, 0),
                }
            }
            Some(s) if s[0] == b'[' => (0, 0),
            None => (0, 0),
            Some(s) => return Err(format!("expected a sector number, found {}", show(s))),
        };
        let op = op_from_rwbs(rwbs, bytes);
        self.pairer.event(
            Event {
                dev,
                action,
                op,
                sector,
                bytes,
                time_ns,
            },
            out,
        );
        Ok(())
    }

    fn finish(&mut self, out: &mut VecDeque<Record>) {
        self.pairer.finish(out);
    }
}
