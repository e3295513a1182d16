//! Alibaba Cloud block traces (2020 release): `device_id,opcode,offset,length,timestamp`,
//! opcode R or W, offset and length in bytes, timestamp in microseconds (Unix epoch). The
//! stream is the device id.

use std::collections::VecDeque;

use crate::text::{
    csv_fields, field, is_blank_or_comment, show, u32_len, uint, BadLine, LineParser,
};
use crate::{Op, Record};

pub(crate) struct Parser;

impl LineParser for Parser {
    fn parse(&mut self, line: &[u8], out: &mut VecDeque<Record>) -> Result<(), BadLine> {
        if is_blank_or_comment(line) || line.starts_with(b"device_id") {
            return Ok(());
        }
        let mut f = csv_fields(line);
        let dev = uint(field(&mut f, "device_id")?, "device_id")?;
        let opf = field(&mut f, "opcode (R or W)")?;
        let op = match opf {
            b"R" | b"r" => Op::Read,
            b"W" | b"w" => Op::Write,
            _ => return Err(format!("expected opcode R or W, found {}", show(opf)).into()),
        };
        let offset = uint(field(&mut f, "offset")?, "offset (bytes)")?;
        let len = uint(field(&mut f, "length")?, "length (bytes)")?;
        let us = uint(field(&mut f, "timestamp")?, "timestamp (microseconds)")?;
        if let Some(x) = f.next() {
            return Err(format!("expected 5 fields, found more: {}", show(x)).into());
        }
        let mut r = Record::new(
            op,
            offset,
            u32_len(len, "length")?,
            Some(us.checked_mul(1000).ok_or("timestamp too large")?),
        );
        r.stream = u32::try_from(dev).map_err(|_| "device_id too large")?;
        out.push_back(r);
        Ok(())
    }
}
