//! A Linux hwmon sensor on the drive's rail (an INA2xx on a riser, a board's M.2 monitor):
//! `power*_input` in microwatts, or `in*_input` (millivolts) times `curr*_input`
//! (milliamps). Which rail a sensor watches is the board's business: the user names it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{read_integer, read_sysfs, Channel, Chip, MeterError, Sensor, SensorError};

pub(super) struct Hwmon {
    dir: PathBuf,
    name: String,
    files: Files,
}

enum Files {
    Power(PathBuf),
    VoltsAmps(PathBuf, PathBuf),
}

impl Hwmon {
    /// Find the sensor and its files and read them once, so a wrong name fails here.
    pub(super) fn open(
        sysfs_root: &Path,
        chip: &Chip,
        channel: Option<&Channel>,
    ) -> Result<Hwmon, MeterError> {
        let dir = match chip {
            Chip::Path(p) => p.clone(),
            Chip::Name(name) => find_by_name(&sysfs_root.join("class/hwmon"), name)?,
        };
        let name = read_sysfs(&dir.join("name"))
            .map(|n| n.trim().to_string())
            .unwrap_or_else(|_| dir.display().to_string());
        let files = match channel {
            Some(Channel::Power(f)) => Files::Power(dir.join(f)),
            Some(Channel::VoltsAmps { volts, amps }) => {
                Files::VoltsAmps(dir.join(volts), dir.join(amps))
            }
            None => Files::Power(first_power_input(&dir)?),
        };
        let sensor = Hwmon { dir, name, files };
        for path in sensor.paths() {
            let text = read_sysfs(path).map_err(|source| MeterError::Unreadable {
                path: path.display().to_string(),
                error: source,
                hint: "",
            })?;
            if text.trim().parse::<i64>().is_err() {
                return Err(MeterError::NotANumber {
                    path: path.display().to_string(),
                    text: text.trim().to_string(),
                    unit: "micro- or milli-units",
                });
            }
        }
        Ok(sensor)
    }

    fn paths(&self) -> Vec<&Path> {
        match &self.files {
            Files::Power(p) => vec![p],
            Files::VoltsAmps(v, a) => vec![v, a],
        }
    }
}

impl Sensor for Hwmon {
    fn read(&mut self) -> Result<Option<(Instant, f64)>, SensorError> {
        let watts = match &self.files {
            Files::Power(p) => read_integer(p)? as f64 / 1e6,
            Files::VoltsAmps(v, a) => {
                let millivolts = read_integer(v)? as f64;
                let milliamps = read_integer(a)? as f64;
                millivolts * milliamps / 1e6
            }
        };
        Ok(Some((Instant::now(), watts)))
    }

    fn description(&self) -> String {
        let files: Vec<String> = self
            .paths()
            .iter()
            .map(|p| {
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        format!(
            "hwmon sensor {} ({}) {}",
            self.name,
            self.dir.display(),
            files.join(" x ")
        )
    }
}

/// The `hwmonN` directory whose `name` is `name`.
fn find_by_name(class: &Path, name: &str) -> Result<PathBuf, MeterError> {
    let mut present = Vec::new();
    let mut matches = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(class)
        .map_err(|source| MeterError::Unreadable {
            path: class.display().to_string(),
            error: source,
            hint: " (no hwmon here: is sysfs mounted, and does the board have sensors?)",
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    dirs.sort_by_key(|d| trailing_number(&d.to_string_lossy()));
    for dir in dirs {
        let Ok(found) = read_sysfs(&dir.join("name")) else {
            continue;
        };
        let found = found.trim().to_string();
        if found == name {
            matches.push(dir);
        } else {
            present.push(found);
        }
    }
    match matches.len() {
        1 => Ok(matches.remove(0)),
        0 => Err(MeterError::NoSuchSensor {
            name: name.to_string(),
            dir: class.display().to_string(),
            present: if present.is_empty() {
                "none".into()
            } else {
                present.join(", ")
            },
        }),
        count => Err(MeterError::AmbiguousSensor {
            name: name.to_string(),
            count,
            first: matches[0].display().to_string(),
            dirs: matches
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// The lowest-numbered `powerN_input` of a sensor.
fn first_power_input(dir: &Path) -> Result<PathBuf, MeterError> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|source| MeterError::Unreadable {
            path: dir.display().to_string(),
            error: source,
            hint: "",
        })?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with("_input"))
        .collect();
    names.sort_by_key(|n| trailing_number(n.trim_end_matches("_input")));
    let is_power = |n: &&String| n.starts_with("power");
    match names.iter().find(is_power) {
        Some(n) => Ok(dir.join(n)),
        None => Err(MeterError::NoPowerChannel {
            dir: dir.display().to_string(),
            channels: {
                let pairs: Vec<&str> = names
                    .iter()
                    .filter(|n| n.starts_with("in") || n.starts_with("curr"))
                    .map(String::as_str)
                    .collect();
                if pairs.is_empty() {
                    "no voltage or current either".into()
                } else {
                    pairs.join(", ")
                }
            },
        }),
    }
}

/// `hwmon12` -> 12, so hwmon10 sorts after hwmon9.
fn trailing_number(text: &str) -> u64 {
    let digits = text.len() - text.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    text[text.len() - digits..].parse().unwrap_or(0)
}
