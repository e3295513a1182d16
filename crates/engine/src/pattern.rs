//! What is written: data that cannot be compressed or deduplicated, data with a stated
//! compressibility (like fio's `buffer_compress_percentage`), or zeros. Matters for drives
//! that compress (SandForce); the two kinds' results are never comparable.

use serde::{Deserialize, Serialize};

/// The kind of data written.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DataKind {
    /// Fresh pseudo-random bytes for every write.
    Incompressible,
    /// Each 512-byte chunk is `compress_pct`% zeros after random bytes, so the data compresses
    /// to about (100 - compress_pct)% of its size; the random part is fresh for every write.
    Compressible {
        compress_pct: u8,
    },
    Zeros,
}

impl DataKind {
    pub fn parse(text: &str, compress_pct: u8) -> Result<DataKind, UnknownDataKind> {
        match text {
            "incompressible" | "random" => Ok(DataKind::Incompressible),
            "compressible" => Ok(DataKind::Compressible { compress_pct }),
            "zeros" | "zero" => Ok(DataKind::Zeros),
            other => Err(UnknownDataKind(other.to_string())),
        }
    }

    /// A one-word name, for file names and variants.
    pub fn name(self) -> &'static str {
        match self {
            DataKind::Incompressible => "incompressible",
            DataKind::Compressible { .. } => "compressible",
            DataKind::Zeros => "zeros",
        }
    }

    pub fn label(self) -> String {
        match self {
            DataKind::Incompressible => "incompressible".into(),
            DataKind::Compressible { compress_pct } => format!("compressible ({compress_pct}%)"),
            DataKind::Zeros => "zeros".into(),
        }
    }
}

/// A data kind [`DataKind::parse`] does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown data kind '{0}': use incompressible, compressible or zeros")]
pub struct UnknownDataKind(pub String);

const CHUNK: usize = 512;

/// xoshiro256++: fast, small, good enough that no compressor finds structure in its output.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Expand the seed with splitmix64, as the xoshiro authors recommend.
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Rng {
            s: [next(), next(), next(), next()],
        }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = (s[0].wrapping_add(s[3])).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n` (n > 0), by Lemire's multiply-shift; the bias is negligible for
    /// the block counts we draw from.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn fill(&mut self, buf: &mut [u8]) {
        let mut words = buf.chunks_exact_mut(8);
        for w in &mut words {
            w.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = words.into_remainder();
        let last = self.next_u64().to_le_bytes();
        rest.copy_from_slice(&last[..rest.len()]);
    }
}

/// So the samplers of `rand_distr` (zipf, normal, exponential) draw from the workload's one
/// seeded stream.
impl rand_core::TryRng for Rng {
    type Error = std::convert::Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok((self.next_u64() >> 32) as u32)
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.next_u64())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.fill(dst);
        Ok(())
    }
}

/// Fill a write buffer with the given kind of data.
pub fn fill(buf: &mut [u8], kind: DataKind, rng: &mut Rng) {
    match kind {
        DataKind::Incompressible => rng.fill(buf),
        DataKind::Zeros => buf.fill(0),
        DataKind::Compressible { compress_pct } => {
            let random = CHUNK * (100 - compress_pct.min(100) as usize) / 100;
            for chunk in buf.chunks_mut(CHUNK) {
                let cut = random.min(chunk.len());
                rng.fill(&mut chunk[..cut]);
                chunk[cut..].fill(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an independent compressor (DEFLATE at its best) makes of the data.
    fn deflate_ratio(data: &[u8]) -> f64 {
        miniz_oxide::deflate::compress_to_vec(data, 10).len() as f64 / data.len() as f64
    }

    fn written(kind: DataKind) -> Vec<u8> {
        // Many 4 KiB writes concatenated, as a drive (or a dedup engine) would see them.
        let mut rng = Rng::new(7);
        let mut all = Vec::new();
        let mut buf = vec![0u8; 4096];
        for _ in 0..256 {
            fill(&mut buf, kind, &mut rng);
            all.extend_from_slice(&buf);
        }
        all
    }

    #[test]
    fn incompressible_does_not_compress_or_dedup() {
        let data = written(DataKind::Incompressible);
        assert!(
            deflate_ratio(&data) > 0.99,
            "ratio {}",
            deflate_ratio(&data)
        );
        // No two 4 KiB writes are the same.
        let mut blocks: Vec<&[u8]> = data.chunks(4096).collect();
        blocks.sort();
        blocks.dedup();
        assert_eq!(blocks.len(), 256);
    }

    #[test]
    fn compressible_compresses_to_the_stated_ratio() {
        for pct in [25u8, 50, 75] {
            let ratio = deflate_ratio(&written(DataKind::Compressible { compress_pct: pct }));
            let expected = (100 - pct) as f64 / 100.0;
            assert!(
                (ratio - expected).abs() < 0.05,
                "{pct}%: compressed to {ratio:.3}, expected about {expected:.2}"
            );
        }
    }

    #[test]
    fn zeros_are_zeros() {
        assert!(written(DataKind::Zeros).iter().all(|&b| b == 0));
        assert!(deflate_ratio(&written(DataKind::Zeros)) < 0.01);
    }

    #[test]
    fn rng_is_seeded_and_uniform_enough() {
        let mut a = Rng::new(1);
        let mut b = Rng::new(1);
        assert_eq!(a.next_u64(), b.next_u64());
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            counts[a.below(10) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_000..11_000).contains(&c)),
            "{counts:?}"
        );
    }
}
