//! SNIA IOTTA MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//!
//! Timestamp is a Windows FILETIME (100 ns ticks since 1601); ResponseTime is in 100 ns ticks.
//! Offsets and sizes are bytes. Times are made relative to the first record's timestamp, so
//! they fit nanoseconds in 64 bits; the record's `issue_ns` is the timestamp and
//! `complete_ns` the timestamp plus the response time. The stream is the disk number.

use std::collections::VecDeque;

use crate::record::op_from_name;
use crate::text::{
    csv_fields, field, is_blank_or_comment, show, u32_len, uint, BadLine, LineParser,
};
use crate::Record;

#[derive(Default)]
pub(crate) struct Parser {
    first_ticks: Option<u64>,
}

impl LineParser for Parser {
    fn parse(&mut self, line: &[u8], out: &mut VecDeque<Record>) -> Result<(), BadLine> {
        if is_blank_or_comment(line) || line.starts_with(b"Timestamp") {
            return Ok(());
        }
        let mut f = csv_fields(line);
        let ticks = uint(field(&mut f, "Timestamp")?, "Timestamp (Windows FILETIME)")?;
        let _host = field(&mut f, "Hostname")?;
        let disk = uint(field(&mut f, "DiskNumber")?, "DiskNumber")?;
        let ty = field(&mut f, "Type (Read or Write)")?;
        let op = std::str::from_utf8(ty)
            .ok()
            .and_then(op_from_name)
            .ok_or_else(|| format!("expected Type Read or Write, found {}", show(ty)))?;
        let offset = uint(field(&mut f, "Offset")?, "Offset (bytes)")?;
        let size = uint(field(&mut f, "Size")?, "Size (bytes)")?;
        let rt = uint(
            field(&mut f, "ResponseTime")?,
            "ResponseTime (100 ns ticks)",
        )?;
        let first = *self.first_ticks.get_or_insert(ticks);
        let t = ticks
            .checked_sub(first)
            .ok_or_else(|| format!("Timestamp {ticks} is before the first record's {first}"))?
            .checked_mul(100)
            .ok_or("Timestamp too far from the first")?;
        let mut r = Record::new(op, offset, u32_len(size, "Size")?, Some(t));
        r.complete_ns = Some(
            rt.checked_mul(100)
                .and_then(|rt| t.checked_add(rt))
                .ok_or("ResponseTime too large")?,
        );
        r.stream = u32::try_from(disk).map_err(|_| "DiskNumber too large")?;
        out.push_back(r);
        Ok(())
    }
}
