//! The fidelity corpus (`corpus.toml`): published figures for the presets' drives from
//! publications other than the seed articles, one record each, with the protocol the review
//! used and the split its publication is in (fit or validation, decided by publication before
//! any simulated number was looked at). A record whose protocol a measurement of `measure.rs`
//! runs names that figure (`metric`) and is checked as a claim; the others say what test
//! parameter they would need (`protocol_gap`).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{Check, Claim, Measure, Outcome};

/// The corpus, as committed.
pub const CORPUS_TOML: &str = include_str!("corpus.toml");

/// Hosts of the publications the project holds out for the seed drives: no record may come
/// from them (a host matches when it contains one of these).
pub const HELD_OUT_HOSTS: &[&str] = &[
    "tomshardware",
    "tomshw",
    "ht4u",
    "computerbase",
    "cdrlabs",
    "techreport",
    "myce.",
    "hardocp",
    "tecchannel",
    "pcper",
    "hardwareluxx",
    "anandtech",
];

/// The two splits.
pub const SPLITS: &[&str] = &["fit", "validation"];

/// Every figure the measurements of `measure.rs` give, as `prefix.name` ("spare.X" is read
/// through the consistency runs). Names made with `format!` in measure.rs are listed here in
/// full; the corpus test checks the literal ones against measure.rs's text.
pub const FIGURES: &[&str] = &[
    "spec.seq_read_mbps",
    "spec.seq_write_mbps",
    "spec.random_read_iops",
    "spec.random_write_iops",
    "corners.random_read_iops",
    "corners.random_write_iops",
    "corners.random_write_qd32_iops",
    "corners.qd32_scaling",
    "corners.seq_read_mbps",
    "corners.seq_write_mbps",
    "corners.random_read_p50_us",
    "corners.random_read_p99_us",
    "corners.random_write_p50_us",
    "corners.random_write_p99_us",
    "corners.random_write_qd32_p50_us",
    "corners.random_write_qd32_p99_us",
    "asssd.read_mbps",
    "asssd.write_mbps",
    "atto.read_peak_mbps",
    "atto.write_peak_mbps",
    "atto.read_4k_mbps",
    "atto.write_4k_mbps",
    "atto.read_small_mbps",
    "atto.write_small_mbps",
    "consistency.steady_mean",
    "consistency.steady_median",
    "consistency.steady_p1",
    "consistency.steady_p99",
    "consistency.steady_cv",
    "consistency.burst_mean",
    "consistency.drop_s",
    "consistency.plateau",
    "consistency.burst_ratio",
    "consistency.cliff_ratio",
    "consistency.dips_300_800",
    "consistency.dips_800_2000",
    "trim.clean_60s_mbps",
    "trim.dirty_60s_mbps",
    "trim.after_60s_mbps",
    "trim.functional",
    "trim.after_first_10pct_mbps",
    "fill.first_gb_mbps",
    "fill.after_mbps",
    "fill.cache_gb",
    "fill.cache_mbps",
    "heavy.data_rate_mbps",
    "heavy.service_us",
    "light.data_rate_mbps",
    "light.service_us",
    "destroyer.data_rate_mbps",
    "destroyer.service_us",
    "turbo.first_mbps",
    "turbo.drop_s",
    "turbo.after_mbps",
    "turbo.buffer_s",
    "turbo.fold_s",
    "turbo.recovered_mbps",
    "power.idle_w",
    "power.slumber_w",
    "power.seq_write_w",
    "power.random_write_w",
    "power.seq_write_mbps",
    "power.seq_first_30s_w",
    "power.seq_after_30s_w",
    "power.seq_tail_w",
    "power.seq_burst_w",
    "power.seq_after_burst_w",
    "power.random_write_iops",
];

/// Whether `name` is a figure a measurement gives (the consistency ratios as "spare.X", the
/// steady state's deciles as `consistency.steady_q05` ... of [`crate::fit::DECILES`]).
pub fn is_figure(name: &str) -> bool {
    let consistency = name
        .strip_prefix("spare.")
        .or_else(|| name.strip_prefix("consistency25."))
        .or_else(|| name.strip_prefix("consistency."));
    if let Some(rest) = consistency {
        return FIGURES.contains(&format!("consistency.{rest}").as_str())
            || crate::fit::DECILES.contains(&rest);
    }
    FIGURES.contains(&name)
}

/// One published figure.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusRecord {
    pub id: String,
    /// The preset the figure is about.
    pub drive: String,
    pub publication: String,
    pub url: String,
    /// The sentence or table row, verbatim.
    pub quote: String,
    /// What measured it, with its settings.
    pub tool: String,
    #[serde(default)]
    pub block: String,
    #[serde(default)]
    pub depth: String,
    #[serde(default)]
    pub span: String,
    #[serde(default)]
    pub state: String,
    pub figure: f64,
    /// [low, high], for `between`.
    #[serde(default)]
    pub band: Option<[f64; 2]>,
    pub unit: String,
    /// "value", "at_most", "at_least" or "between".
    pub check: String,
    /// Percent, for `value`.
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// "fit" or "validation".
    pub split: String,
    /// A figure of measure.rs running the review's protocol, or "".
    pub metric: String,
    /// When `metric` is "": how the review's procedure differs and what a test would need.
    #[serde(default)]
    pub protocol_gap: String,
    #[serde(default)]
    pub note: String,
    /// When a validation record was looked at while tuning and moved to fit: when and why.
    #[serde(default)]
    pub moved: String,
}

#[derive(Deserialize)]
struct CorpusFile {
    record: Vec<CorpusRecord>,
}

/// Why the committed corpus does not parse.
#[derive(Debug, thiserror::Error)]
#[error("corpus.toml: {0}")]
pub struct CorpusError(#[from] toml::de::Error);

/// Every record of the corpus.
pub fn records() -> Result<Vec<CorpusRecord>, CorpusError> {
    Ok(parse(CORPUS_TOML)?)
}

/// Records in the corpus's format.
pub fn parse(text: &str) -> Result<Vec<CorpusRecord>, toml::de::Error> {
    let file: CorpusFile = toml::from_str(text)?;
    Ok(file.record)
}

/// The host of a URL, lowercased, without "www." and a port.
pub fn host(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next().unwrap_or("").to_ascii_lowercase();
    host.strip_prefix("www.").unwrap_or(&host).to_string()
}

/// The held-out publication a host belongs to, if any.
pub fn held_out(host: &str) -> Option<&'static str> {
    HELD_OUT_HOSTS.iter().copied().find(|h| host.contains(h))
}

/// The table of publications at the top of corpus.toml: (host, publication, split), as the
/// header states them.
pub fn publication_table(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .take_while(|l| l.starts_with('#') || l.trim().is_empty())
        .filter_map(|l| {
            let cells: Vec<&str> = l
                .trim_start_matches('#')
                .trim()
                .strip_prefix('|')?
                .strip_suffix('|')?
                .split('|')
                .map(str::trim)
                .collect();
            match cells.as_slice() {
                [h, p, s] if SPLITS.contains(s) => {
                    Some((h.to_string(), p.to_string(), s.to_string()))
                }
                _ => None,
            }
        })
        .collect()
}

impl CorpusRecord {
    /// What is wrong with the record on its own (fields, check, metric), if anything.
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        for (name, v) in [
            ("id", &self.id),
            ("drive", &self.drive),
            ("publication", &self.publication),
            ("url", &self.url),
            ("quote", &self.quote),
            ("tool", &self.tool),
            ("unit", &self.unit),
        ] {
            if v.trim().is_empty() {
                p.push(format!("{name} is empty"));
            }
        }
        if !self.url.starts_with("http://") && !self.url.starts_with("https://") {
            p.push(format!("url '{}' is not http(s)", self.url));
        }
        if let Some(h) = held_out(&host(&self.url)) {
            p.push(format!("url {} is a held-out publication ({h})", self.url));
        }
        if !SPLITS.contains(&self.split.as_str()) {
            p.push(format!(
                "split '{}' is neither fit nor validation",
                self.split
            ));
        }
        if !self.figure.is_finite() {
            p.push("figure is not a number".into());
        }
        match self.check.as_str() {
            "value" => {
                if self.tolerance.is_none_or(|t| t <= 0.0) {
                    p.push("a value check needs a positive tolerance".into());
                }
            }
            "at_most" | "at_least" => {}
            "between" => match self.band {
                Some([lo, hi]) if lo <= self.figure && self.figure <= hi => {}
                _ => p.push("a between check needs band = [low, high] around the figure".into()),
            },
            c => p.push(format!(
                "check '{c}' is not value, at_most, at_least or between"
            )),
        }
        if self.metric.is_empty() {
            if self.protocol_gap.trim().is_empty() {
                p.push("no metric and no protocol_gap".into());
            }
        } else {
            if !is_figure(&self.metric) {
                p.push(format!(
                    "metric '{}' is no figure of measure.rs",
                    self.metric
                ));
            }
            if let Err(e) = Measure::needed_by(&self.metric) {
                p.push(e.to_string());
            }
        }
        if self.split == "validation" && !self.moved.is_empty() {
            p.push("a record moved (to fit) cannot be in the validation split".into());
        }
        p
    }

    /// The record as a claim of the scorecard, if it names a metric.
    pub fn to_claim(&self) -> Option<Claim> {
        if self.metric.is_empty() {
            return None;
        }
        let (check, published) = match self.check.as_str() {
            "value" => (Check::Value, toml::Value::Float(self.figure)),
            "at_most" => (Check::AtMost, toml::Value::Float(self.figure)),
            "at_least" => (Check::AtLeast, toml::Value::Float(self.figure)),
            "between" => {
                let [lo, hi] = self.band?;
                (
                    Check::Between,
                    toml::Value::Array(vec![toml::Value::Float(lo), toml::Value::Float(hi)]),
                )
            }
            _ => return None,
        };
        Some(Claim {
            id: self.id.clone(),
            kind: if self.tool.contains("spec") {
                "spec".into()
            } else {
                "review".into()
            },
            claim: format!("{}: {} {}", self.publication, self.figure, self.unit),
            source: format!("{} ({}): {}", self.publication, self.url, self.quote),
            on: vec![self.drive.clone()],
            metric: self.metric.clone(),
            check,
            published: Some(published),
            tolerance: self.tolerance,
            than: None,
            factor: None,
            among: Vec::new(),
            fast: false,
        })
    }
}

/// Met and checked, by split and preset: (split, drive) -> (met, checked).
pub fn tally(
    records: &[CorpusRecord],
    outcomes: &[Outcome],
) -> BTreeMap<(String, String), (usize, usize)> {
    let by_id: BTreeMap<&str, &Outcome> = outcomes.iter().map(|o| (o.id.as_str(), o)).collect();
    let mut t: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    for r in records {
        if let Some(o) = by_id.get(r.id.as_str()) {
            let e = t.entry((r.split.clone(), r.drive.clone())).or_default();
            e.0 += o.pass as usize;
            e.1 += 1;
        }
    }
    t
}

/// The protocol gaps, grouped by their text: gap -> record ids.
pub fn gaps(records: &[CorpusRecord]) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.metric.is_empty()) {
        g.entry(r.protocol_gap.clone())
            .or_default()
            .insert(r.id.clone());
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEASURE_RS: &str = include_str!("measure.rs");

    #[test]
    fn every_record_is_whole_and_from_an_open_publication() {
        let rs = records().expect("corpus.toml parses");
        assert!(!rs.is_empty());
        let mut bad = Vec::new();
        for r in &rs {
            for p in r.problems() {
                bad.push(format!("{}: {p}", r.id));
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    #[test]
    fn ids_are_unique_and_drives_are_presets() {
        let rs = records().unwrap();
        let mut seen = BTreeSet::new();
        let presets: BTreeSet<&str> = sim::presets().into_iter().map(|(n, _)| n).collect();
        for r in &rs {
            assert!(seen.insert(r.id.as_str()), "duplicate id {}", r.id);
            assert!(
                presets.contains(r.drive.as_str()),
                "{}: no preset '{}'",
                r.id,
                r.drive
            );
        }
        // No record repeats a seed claim's id.
        let claims: BTreeSet<String> = super::super::claims()
            .unwrap()
            .into_iter()
            .map(|c| c.id)
            .collect();
        for r in &rs {
            assert!(
                !claims.contains(&r.id),
                "{} is a claim of claims.toml",
                r.id
            );
        }
    }

    #[test]
    fn each_publication_has_one_split_as_the_table_says() {
        let rs = records().unwrap();
        let table = publication_table(CORPUS_TOML);
        assert!(
            !table.is_empty(),
            "corpus.toml's header has no publication table"
        );
        let by_pub: BTreeMap<&str, (&str, &str)> = table
            .iter()
            .map(|(h, p, s)| (p.as_str(), (h.as_str(), s.as_str())))
            .collect();
        assert_eq!(
            by_pub.len(),
            table.len(),
            "a publication is in the table twice"
        );
        let mut splits: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for r in &rs {
            splits.entry(&r.publication).or_default().insert(&r.split);
            let Some((h, s)) = by_pub.get(r.publication.as_str()) else {
                panic!(
                    "{}: publication '{}' is not in the table",
                    r.id, r.publication
                );
            };
            assert_eq!(
                host(&r.url),
                *h,
                "{}: its url is not the table's host",
                r.id
            );
            if r.moved.is_empty() {
                assert_eq!(r.split, *s, "{}: not in its publication's split", r.id);
            } else {
                assert_eq!(r.split, "fit", "{}: a moved record is in fit", r.id);
            }
        }
        for (p, s) in &splits {
            // A moved record may sit in fit while its publication is validation; otherwise one split.
            let unmoved: BTreeSet<&str> = rs
                .iter()
                .filter(|r| r.publication == *p && r.moved.is_empty())
                .map(|r| r.split.as_str())
                .collect();
            assert!(unmoved.len() <= 1, "{p} is in both splits: {s:?}");
        }
        for (h, _, _) in &table {
            assert!(held_out(h).is_none(), "the table lists a held-out host {h}");
        }
    }

    #[test]
    fn the_figure_list_is_measure_rs() {
        // Each literal figure name is put by measure.rs; the formatted ones by their pattern.
        let formatted = [
            ("asssd.", "{v}_mbps"),
            ("atto.", "{v}_peak_mbps"),
            ("atto.", "{v}_4k_mbps"),
            ("atto.", "{v}_small_mbps"),
            ("power.", "{state}_w"),
            ("corners.", "{name}_p50_us"),
            ("corners.", "{name}_p99_us"),
        ];
        for f in FIGURES {
            let (prefix, name) = f.split_once('.').unwrap();
            assert!(
                Measure::named(prefix).is_some(),
                "{f}: no measurement '{prefix}'"
            );
            let literal = MEASURE_RS.contains(&format!("\"{name}\""));
            let pattern = formatted.iter().any(|(p, pat)| {
                f.starts_with(p)
                    && MEASURE_RS.contains(pat)
                    && name.ends_with(pat.rsplit('}').next().unwrap())
            });
            assert!(literal || pattern, "{f} is not a figure measure.rs puts");
        }
        // And every metric the seed claims use is in the list.
        for c in super::super::claims().unwrap() {
            if c.metric != "drive" {
                assert!(
                    is_figure(&c.metric),
                    "claims.toml's {} is missing from FIGURES",
                    c.metric
                );
            }
        }
    }

    #[test]
    fn hosts_and_held_out() {
        assert_eq!(host("https://www.TweakTown.com/reviews/1"), "tweaktown.com");
        assert_eq!(
            host("http://ocaholic.ch/modules/x.php?itemid=1"),
            "ocaholic.ch"
        );
        assert_eq!(host("https://example.org:8080/a"), "example.org");
        assert!(held_out(&host("https://www.tomshardware.com/uk/reviews/x")).is_some());
        assert!(held_out(&host("http://www.anandtech.com/show/7006")).is_some());
        assert!(held_out(&host("https://myce.wiki/reviews/x")).is_some());
        assert!(held_out("myce.com").is_some());
        assert!(held_out("techpowerup.com").is_none());
    }

    #[test]
    fn records_with_a_metric_are_claims() {
        let rs = records().unwrap();
        let claims: Vec<Claim> = rs.iter().filter_map(CorpusRecord::to_claim).collect();
        assert_eq!(
            claims.len(),
            rs.iter().filter(|r| !r.metric.is_empty()).count()
        );
        super::super::plan(&claims).expect("every claim's drive and metric is measurable");
    }
}
