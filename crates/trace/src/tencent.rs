//! Tencent CBS block traces: `Timestamp,Offset,Size,IOType,VolumeID`, timestamp in seconds
//! (Unix epoch), offset and size in 512-byte sectors, IOType 0 = read, 1 = write. The stream is
//! the volume id.

use std::collections::VecDeque;

use crate::text::{csv_fields, field, is_blank_or_comment, show, uint, BadLine, LineParser};
use crate::{Op, Record};

pub(crate) struct Parser;

impl LineParser for Parser {
    fn parse(&mut self, line: &[u8], out: &mut VecDeque<Record>) -> Result<(), BadLine> {
        if is_blank_or_comment(line) || line.starts_with(b"Timestamp") {
            return Ok(());
        }
        let mut f = csv_fields(line);
        let secs = uint(field(&mut f, "Timestamp")?, "Timestamp (seconds)")?;
        let off = uint(field(&mut f, "Offset")?, "Offset (sectors)")?;
        let size = uint(field(&mut f, "Size")?, "Size (sectors)")?;
        let tyf = field(&mut f, "IOType (0 = read, 1 = write)")?;
        let op = match tyf {
            b"0" => Op::Read,
            b"1" => Op::Write,
            _ => {
                return Err(
                    format!("expected IOType 0 (read) or 1 (write), found {}", show(tyf)).into(),
                )
            }
        };
        let vol = uint(field(&mut f, "VolumeID")?, "VolumeID")?;
        if let Some(x) = f.next() {
            return Err(format!("expected 5 fields, found more: {}", show(x)).into());
        }
        let mut r = Record::new(
            op,
            off.checked_mul(512).ok_or("Offset too large")?,
            crate::text::sectors_len(size, "Size")?,
            Some(
                secs.checked_mul(1_000_000_000)
                    .ok_or("Timestamp too large")?,
            ),
        );
        r.stream = u32::try_from(vol).map_err(|_| "VolumeID too large")?;
        out.push_back(r);
        Ok(())
    }
}
