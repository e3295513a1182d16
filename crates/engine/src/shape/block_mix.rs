//! Several block sizes in one workload, each with its share of the IOs: fio's `bssplit`.
//! Written `4K:67,8K:10,...` (fio's `4k/67:8k/10` is accepted too).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::shares::Shares;
use crate::pattern::Rng;
use crate::size::{parse_size, SizeError};

/// The sizes and their shares, in percent adding up to 100.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<BlockShare>", into = "Vec<BlockShare>")]
pub struct BlockMix {
    shares: Vec<BlockShare>,
    choice: Shares,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockShare {
    pub bytes: u32,
    pub pct: f64,
}

/// A block-size mix that does not parse, or whose shares are not a mix.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BlockMixError {
    #[error("a block-size mix needs at least one SIZE:PERCENT")]
    NoSizes,
    #[error("a block-size mix of {0} sizes: give at most {MAX_SIZES} (as fio's bssplit)")]
    TooManySizes(usize),
    #[error(
        "block size {} with {}% is not a share of IOs: sizes and percentages must be \
         above 0",
        .0.bytes,
        .0.pct
    )]
    NotAShare(BlockShare),
    #[error("the block-size shares add up to {0}%, not 100%: e.g. 4K:67,8K:10,16K:23")]
    SharesTotal(f64),
    #[error(
        "entry {entry} of the block-size mix '{mix}' is empty: drop the extra '{join}' \
         (e.g. 4K:67,8K:10,16K:23)"
    )]
    EmptyEntry {
        /// From 1.
        entry: usize,
        mix: String,
        join: char,
    },
    #[error("'{0}' is not SIZE:PERCENT: write a mix as 4K:67,8K:10,16K:23")]
    NotSizePercent(String),
    /// The size's own error is in the message, not the source chain: `{:#}` would print
    /// it twice.
    #[error("'{entry}': {size}")]
    Size { entry: String, size: SizeError },
    #[error("block size {0} is above 4 GiB")]
    SizeAbove4GiB(String),
}

/// The most sizes a mix may have: fio's `bssplit` takes as many (its BSSPLIT_MAX).
pub const MAX_SIZES: usize = 64;

/// A mix of more sizes than this is named in a label by its count and range, not listed.
const LISTED_SIZES: usize = 4;

impl BlockMix {
    pub fn new(shares: Vec<BlockShare>) -> Result<BlockMix, BlockMixError> {
        if shares.is_empty() {
            return Err(BlockMixError::NoSizes);
        }
        if shares.len() > MAX_SIZES {
            return Err(BlockMixError::TooManySizes(shares.len()));
        }
        if let Some(s) = shares
            .iter()
            .find(|s| s.bytes == 0 || !s.pct.is_finite() || s.pct <= 0.0)
        {
            return Err(BlockMixError::NotAShare(*s));
        }
        let total: f64 = shares.iter().map(|s| s.pct).sum();
        if (total - 100.0).abs() > 1e-6 {
            return Err(BlockMixError::SharesTotal(total));
        }
        let choice = Shares::new(shares.iter().map(|s| s.pct));
        Ok(BlockMix { shares, choice })
    }

    pub fn shares(&self) -> &[BlockShare] {
        &self.shares
    }

    pub fn smallest(&self) -> u32 {
        self.shares.iter().map(|s| s.bytes).min().unwrap_or(0)
    }

    pub fn largest(&self) -> u32 {
        self.shares.iter().map(|s| s.bytes).max().unwrap_or(0)
    }

    /// The mix in a label of bounded length: listed up to a few sizes, else its count and
    /// range ("mix of 12 sizes 512 B-64 KiB").
    pub fn summary(&self) -> String {
        match self.shares.len() {
            n if n <= LISTED_SIZES => self.to_string(),
            n => format!(
                "mix of {n} sizes {}-{}",
                crate::units::format_size(self.smallest() as u64),
                crate::units::format_size(self.largest() as u64)
            ),
        }
    }

    /// One IO's size.
    #[inline]
    pub(crate) fn draw(&self, rng: &mut Rng) -> u32 {
        self.shares[self.choice.draw(rng)].bytes
    }
}

impl TryFrom<Vec<BlockShare>> for BlockMix {
    type Error = BlockMixError;
    fn try_from(shares: Vec<BlockShare>) -> Result<BlockMix, BlockMixError> {
        BlockMix::new(shares)
    }
}

impl From<BlockMix> for Vec<BlockShare> {
    fn from(mix: BlockMix) -> Vec<BlockShare> {
        mix.shares
    }
}

impl FromStr for BlockMix {
    type Err = BlockMixError;

    fn from_str(s: &str) -> Result<BlockMix, BlockMixError> {
        // fio writes SIZE/PCT joined by ':'; ours is SIZE:PCT joined by ','.
        let fio = s.contains('/');
        let (join, pair) = if fio { (':', '/') } else { (',', ':') };
        let entries: Vec<&str> = s.split(join).collect();
        if let Some(i) = entries.iter().position(|p| p.trim().is_empty()) {
            return Err(BlockMixError::EmptyEntry {
                entry: i + 1,
                mix: s.to_string(),
                join,
            });
        }
        let shares = entries
            .into_iter()
            .map(|p| {
                let bad = || BlockMixError::NotSizePercent(p.to_string());
                let (size, pct) = p.split_once(pair).ok_or_else(bad)?;
                let bytes = parse_size(size.trim()).map_err(|e| BlockMixError::Size {
                    entry: p.to_string(),
                    size: e,
                })?;
                Ok(BlockShare {
                    bytes: u32::try_from(bytes)
                        .map_err(|_| BlockMixError::SizeAbove4GiB(size.to_string()))?,
                    pct: pct
                        .trim()
                        .trim_end_matches('%')
                        .parse()
                        .map_err(|_| bad())?,
                })
            })
            .collect::<Result<Vec<_>, BlockMixError>>()?;
        BlockMix::new(shares)
    }
}

impl fmt::Display for BlockMix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.shares.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            // Exact, so the mix parses back to itself.
            match s.bytes {
                b if b % (1 << 20) == 0 => write!(f, "{sep}{}M:{}", b >> 20, s.pct)?,
                b if b % 1024 == 0 => write!(f, "{sep}{}K:{}", b >> 10, s.pct)?,
                b => write!(f, "{sep}{b}:{}", s.pct)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SNIA PTS composite workload's block sizes.
    const PTS_CBW: &str = "512:4,1K:1,1536:1,2K:1,2560:1,3K:1,3584:1,4K:67,8K:10,16K:7,32K:3,64K:3";

    #[test]
    fn each_size_gets_its_share() {
        let mix: BlockMix = PTS_CBW.parse().unwrap();
        let mut rng = Rng::new(9);
        let n = 1_000_000;
        let mut count = std::collections::HashMap::new();
        for _ in 0..n {
            *count.entry(mix.draw(&mut rng)).or_insert(0u32) += 1;
        }
        for s in mix.shares() {
            let pct = count[&s.bytes] as f64 * 100.0 / n as f64;
            assert!((pct - s.pct).abs() < 0.2, "{} bytes: {pct}%", s.bytes);
        }
        assert_eq!((mix.smallest(), mix.largest()), (512, 65536));
    }

    #[test]
    fn fio_spelling_parses_alike() {
        let ours: BlockMix = "4K:60,64K:40".parse().unwrap();
        let fios: BlockMix = "4k/60:64k/40".parse().unwrap();
        assert_eq!(ours, fios);
        assert_eq!(ours.to_string().parse::<BlockMix>().unwrap(), ours);
    }

    #[test]
    fn bad_mixes_say_what_to_write() {
        for (s, says) in [
            ("4K:60,8K:30", "add up to 90%"),
            ("4K", "not SIZE:PERCENT"),
            ("4Q:100", "'4Q:100'"),
            ("4K:0,8K:100", "must be above 0"),
            (
                "4K:50,,8K:50",
                "entry 2 of the block-size mix '4K:50,,8K:50' is empty",
            ),
            ("4K:100,", "entry 2"),
            ("4k/50::8k/50", "entry 2"),
        ] {
            let e = s.parse::<BlockMix>().unwrap_err().to_string();
            assert!(e.contains(says), "{s}: {e}");
        }
        assert!(serde_json::from_str::<BlockMix>(r#"[{"bytes":4096,"pct":50}]"#).is_err());
    }

    /// `n` sizes of 512 B steps from 512 B, their shares adding up to 100%.
    fn many_sizes(n: usize) -> String {
        let each = 100.0 / n as f64;
        let mut pcts = vec![each; n];
        pcts[n - 1] = 100.0 - each * (n - 1) as f64;
        let entries: Vec<String> = (0..n)
            .map(|i| format!("{}:{}", 512 * (i + 1), pcts[i]))
            .collect();
        entries.join(",")
    }

    #[test]
    fn a_mix_has_at_most_64_sizes() {
        assert_eq!(
            many_sizes(64).parse::<BlockMix>().unwrap().shares().len(),
            64
        );
        let e = many_sizes(1000)
            .parse::<BlockMix>()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("mix of 1000 sizes") && e.contains("at most 64"),
            "{e}"
        );
    }

    #[test]
    fn a_long_mix_is_summarised_in_labels() {
        let few: BlockMix = "4K:60,64K:40".parse().unwrap();
        assert_eq!(few.summary(), "4K:60,64K:40");
        let many: BlockMix = many_sizes(64).parse().unwrap();
        assert_eq!(many.summary(), "mix of 64 sizes 512 B-32 KiB");
    }
}
