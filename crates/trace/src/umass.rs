//! UMass Trace Repository SPC ASCII (the Financial and WebSearch traces):
//! `ASU,LBA,Size,Opcode,Timestamp[,...]` with LBA in 512-byte sectors, Size in bytes, Opcode
//! r/R or w/W and Timestamp in seconds with a fraction. Extra trailing fields are ignored
//! (some files carry them). The stream is the ASU.

use std::collections::VecDeque;

use crate::text::{
    csv_fields, decimal_nano, field, is_blank_or_comment, show, u32_len, uint, BadLine, LineParser,
};
use crate::{Op, Record};

pub(crate) struct Parser;

impl LineParser for Parser {
    fn parse(&mut self, line: &[u8], out: &mut VecDeque<Record>) -> Result<(), BadLine> {
        if is_blank_or_comment(line) {
            return Ok(());
        }
        let mut f = csv_fields(line);
        let asu = uint(field(&mut f, "ASU")?, "ASU")?;
        let lba = uint(field(&mut f, "LBA")?, "LBA (sectors)")?;
        let size = uint(field(&mut f, "Size")?, "Size (bytes)")?;
        let opf = field(&mut f, "Opcode (r or w)")?;
        let op = match opf {
            b"r" | b"R" => Op::Read,
            b"w" | b"W" => Op::Write,
            _ => return Err(format!("expected Opcode r or w, found {}", show(opf)).into()),
        };
        let t = decimal_nano(field(&mut f, "Timestamp")?, "Timestamp (seconds)")?;
        let mut r = Record::new(
            op,
            lba.checked_mul(512).ok_or("LBA too large")?,
            u32_len(size, "Size")?,
            Some(t),
        );
        r.stream = u32::try_from(asu).map_err(|_| "ASU too large")?;
        out.push_back(r);
        Ok(())
    }
}
