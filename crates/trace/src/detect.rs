//! Which format a trace file is in, from its name and first bytes and lines.

use std::io::Read;
use std::path::Path;

use crate::{Format, TraceError};

/// Guess the format of `path`. Binary formats are known by their magic; text formats by the
/// shape of their first non-blank, non-comment line (the header of formats that have one).
pub fn detect(path: &Path) -> Result<Format, TraceError> {
    if !path.exists() {
        // `NAME` for blktrace's NAME.blktrace.N files.
        if crate::blktrace::cpu_files(path).is_ok() {
            return Ok(Format::Blktrace);
        }
        return Err(TraceError::io(
            path,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        ));
    }
    let mut head = vec![0u8; 8192];
    let mut f = crate::TRACE_FILE
        .open(path)
        .map_err(|e| TraceError::io(path, e))?;
    let mut n = 0;
    while n < head.len() {
        let k = f
            .read(&mut head[n..])
            .map_err(|e| TraceError::io(path, e))?;
        if k == 0 {
            break;
        }
        n += k;
    }
    head.truncate(n);
    detect_bytes(&head).ok_or_else(|| {
        TraceError::Format(format!(
            "{}: cannot tell the trace format from its first lines; name it with --format \
             (one of: {})",
            path.display(),
            Format::NAMES.join(", ")
        ))
    })
}

/// Guess a format from the first bytes of a file.
pub fn detect_bytes(head: &[u8]) -> Option<Format> {
    if head.starts_with(crate::native::MAGIC) {
        return Some(Format::Native);
    }
    if head.len() >= 4 {
        let m: [u8; 4] = head[..4].try_into().ok()?;
        let magic = crate::blktrace::MAGIC;
        if u32::from_le_bytes(m) & 0xffff_ff00 == magic
            || u32::from_be_bytes(m) & 0xffff_ff00 == magic
        {
            return Some(Format::Blktrace);
        }
    }
    let text = std::str::from_utf8(head).ok().or_else(|| {
        // The 8 KiB cut may split a UTF-8 character; look at the valid prefix.
        let e = std::str::from_utf8(head).unwrap_err().valid_up_to();
        std::str::from_utf8(&head[..e]).ok()
    })?;
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))?;
    if line == crate::fio_iolog::HEADER_V2 || line == crate::fio_iolog::HEADER_V3 {
        return Some(Format::FioIolog);
    }
    if line.starts_with("Timestamp,Hostname") {
        return Some(Format::Msr);
    }
    if line.starts_with("device_id,") {
        return Some(Format::Alibaba);
    }
    if line.starts_with("Timestamp,Offset") {
        return Some(Format::Tencent);
    }
    let ws: Vec<&str> = line.split_whitespace().collect();
    if ws.len() >= 7 && crate::blkparse::parse_dev(ws[0].as_bytes()).is_ok() {
        return Some(Format::Blkparse);
    }
    let is_uint = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let is_num = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if ws.len() == 5 && is_num(ws[0]) && ws[1..].iter().all(|s| is_uint(s)) {
        return Some(Format::DiskSim);
    }
    let cf: Vec<&str> = line.split(',').map(str::trim).collect();
    if cf.len() == 7 && matches!(cf[3], "Read" | "Write") && is_uint(cf[0]) {
        return Some(Format::Msr);
    }
    if cf.len() == 5 && matches!(cf[1], "R" | "W") && is_uint(cf[0]) {
        return Some(Format::Alibaba);
    }
    if cf.len() >= 5 && matches!(cf[3], "r" | "w" | "R" | "W") && is_num(cf[4]) {
        return Some(Format::Umass);
    }
    if cf.len() == 5 && cf.iter().all(|s| is_uint(s)) && matches!(cf[3], "0" | "1") {
        return Some(Format::Tencent);
    }
    None
}
