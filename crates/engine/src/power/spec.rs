//! What `--power-meter` names: `cmd:COMMAND`, `hwmon:NAME_OR_PATH[/CHANNEL]`,
//! `powercap:ZONE`, `nvme-states[:DEVICE]` or `none`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// A `--power-meter` value, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MeterSpec {
    /// No meter: power is not measured (results say it is missing, never zero).
    None,
    /// A command (run by `sh -c`, so quoting and pipes work) printing one reading per line;
    /// see [`super::command::parse_reading`] for what a line may say.
    Command(String),
    /// A Linux hwmon sensor, by its `name` attribute or its sysfs directory.
    Hwmon {
        chip: Chip,
        /// `None`: the chip's first `power*_input`.
        channel: Option<Channel>,
    },
    /// A Linux powercap zone's energy counter (`intel-rapl:0`, or its sysfs directory).
    Powercap(Chip),
    /// The NVMe drive's own power-state table: the rated maximum of the current state, an
    /// estimate. `None`: the target's device.
    NvmeStates(Option<PathBuf>),
}

/// A sysfs object named by the name it reports or by its directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chip {
    Name(String),
    Path(PathBuf),
}

/// Which hwmon files give the power.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Channel {
    /// `powerN_input` (or `_average`): microwatts.
    Power(String),
    /// `inN_input` (millivolts) times `currN_input` (milliamps).
    VoltsAmps { volts: String, amps: String },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error(
        "--power-meter is empty: give cmd:COMMAND, hwmon:NAME, powercap:ZONE, nvme-states or none"
    )]
    Empty,
    #[error("--power-meter '{given}': unknown meter kind '{kind}'; use cmd:COMMAND, hwmon:NAME, powercap:ZONE, nvme-states or none")]
    UnknownKind { given: String, kind: String },
    #[error("--power-meter '{given}': {kind} needs {what}, e.g. {example}")]
    MissingArgument {
        given: String,
        kind: &'static str,
        what: &'static str,
        example: &'static str,
    },
    #[error("--power-meter '{given}': '{channel}' is not an hwmon power channel; name powerN_input (microwatts) or a pair inN_input+currN_input (millivolts times milliamps)")]
    BadChannel { given: String, channel: String },
    #[error("--power-meter '{given}': {kind} takes no argument; did you mean '{kind}'?")]
    UnexpectedArgument { given: String, kind: &'static str },
}

impl FromStr for MeterSpec {
    type Err = SpecError;

    fn from_str(given: &str) -> Result<Self, SpecError> {
        let text = given.trim();
        if text.is_empty() {
            return Err(SpecError::Empty);
        }
        let (kind, arg) = match text.split_once(':') {
            Some((k, a)) => (k, Some(a.trim())),
            None => (text, None),
        };
        let missing = |kind, what, example| SpecError::MissingArgument {
            given: given.to_string(),
            kind,
            what,
            example,
        };
        let arg = arg.filter(|a| !a.is_empty());
        match kind.to_ascii_lowercase().as_str() {
            "none" => match arg {
                None => Ok(MeterSpec::None),
                Some(_) => Err(SpecError::UnexpectedArgument {
                    given: given.to_string(),
                    kind: "none",
                }),
            },
            "cmd" | "command" => arg
                .map(|a| MeterSpec::Command(a.to_string()))
                .ok_or_else(|| {
                    missing(
                        "cmd",
                        "the command that prints one reading per line",
                        "'cmd:my-usb-meter --watts'",
                    )
                }),
            "hwmon" => {
                let arg = arg.ok_or_else(|| {
                    missing(
                        "hwmon",
                        "a sensor name or sysfs path",
                        "hwmon:ina226 or hwmon:/sys/class/hwmon/hwmon3/power1_input",
                    )
                })?;
                parse_hwmon(given, arg)
            }
            "powercap" => {
                let zone = arg.ok_or_else(|| {
                    missing(
                        "powercap",
                        "a zone",
                        "powercap:intel-rapl:0 or powercap:/sys/class/powercap/intel-rapl:0",
                    )
                })?;
                Ok(MeterSpec::Powercap(chip(zone)))
            }
            "nvme-states" => Ok(MeterSpec::NvmeStates(arg.map(PathBuf::from))),
            _ => Err(SpecError::UnknownKind {
                given: given.to_string(),
                kind: kind.to_string(),
            }),
        }
    }
}

fn chip(text: &str) -> Chip {
    if text.starts_with('/') {
        Chip::Path(PathBuf::from(text))
    } else {
        Chip::Name(text.to_string())
    }
}

/// `NAME`, `NAME/CHANNEL`, `/sys/.../hwmonN` or `/sys/.../hwmonN/CHANNEL`.
fn parse_hwmon(given: &str, arg: &str) -> Result<MeterSpec, SpecError> {
    let (chip_text, channel_text) = if arg.starts_with('/') {
        // A path: its last component is a channel when it looks like one.
        let trimmed = arg.trim_end_matches('/');
        match trimmed.rsplit_once('/') {
            Some((dir, last)) if parse_channel(last).is_some() => (dir, Some(last)),
            _ => (trimmed, None),
        }
    } else {
        match arg.split_once('/') {
            Some((name, ch)) => (name, Some(ch)),
            None => (arg, None),
        }
    };
    let channel = channel_text
        .map(|c| {
            parse_channel(c).ok_or_else(|| SpecError::BadChannel {
                given: given.to_string(),
                channel: c.to_string(),
            })
        })
        .transpose()?;
    Ok(MeterSpec::Hwmon {
        chip: chip(chip_text),
        channel,
    })
}

/// `power1`, `power1_input`, `in1+curr1`, `in1_input+curr1_input`; files are named in
/// full (`_input` added when left out).
fn parse_channel(text: &str) -> Option<Channel> {
    let file = |prefix: &str, t: &str| -> Option<String> {
        let rest = t.strip_prefix(prefix)?;
        let (number, suffix) = rest.split_at(rest.find('_').unwrap_or(rest.len()));
        let numbered = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit());
        match suffix {
            "" => numbered.then(|| format!("{prefix}{number}_input")),
            "_input" | "_average" => numbered.then(|| t.to_string()),
            _ => None,
        }
    };
    match text.split_once('+') {
        None => file("power", text).map(Channel::Power),
        Some((a, b)) => {
            let (volts, amps) = match (file("in", a), file("curr", b)) {
                (Some(v), Some(c)) => (v, c),
                _ => (file("in", b)?, file("curr", a)?),
            };
            Some(Channel::VoltsAmps { volts, amps })
        }
    }
}

impl fmt::Display for Chip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Chip::Name(n) => f.write_str(n),
            Chip::Path(p) => write!(f, "{}", p.display()),
        }
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Channel::Power(p) => f.write_str(p),
            Channel::VoltsAmps { volts, amps } => write!(f, "{volts}+{amps}"),
        }
    }
}

/// The spec as it would be typed, so results can say which meter measured them.
impl fmt::Display for MeterSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeterSpec::None => f.write_str("none"),
            MeterSpec::Command(c) => write!(f, "cmd:{c}"),
            MeterSpec::Hwmon { chip, channel } => {
                write!(f, "hwmon:{chip}")?;
                channel.as_ref().map_or(Ok(()), |c| write!(f, "/{c}"))
            }
            MeterSpec::Powercap(zone) => write!(f, "powercap:{zone}"),
            MeterSpec::NvmeStates(None) => f.write_str("nvme-states"),
            MeterSpec::NvmeStates(Some(d)) => write!(f, "nvme-states:{}", d.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<MeterSpec, SpecError> {
        s.parse()
    }

    #[test]
    fn every_kind_parses_and_prints_back() {
        for text in [
            "none",
            "cmd:my-meter --watts | cut -d, -f2",
            "hwmon:ina226",
            "hwmon:ina226/power1_input",
            "hwmon:ina226/in1_input+curr1_input",
            "hwmon:/sys/class/hwmon/hwmon3",
            "hwmon:/sys/class/hwmon/hwmon3/power2_average",
            "powercap:intel-rapl:0",
            "powercap:/sys/class/powercap/intel-rapl:0",
            "nvme-states",
            "nvme-states:/dev/nvme0",
        ] {
            let spec = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(spec.to_string(), text);
        }
    }

    #[test]
    fn aliases_and_short_channel_names() {
        assert_eq!(
            parse("command:  meter ").unwrap(),
            MeterSpec::Command("meter".into())
        );
        assert_eq!(
            parse("hwmon:ina226/curr1+in1").unwrap(),
            MeterSpec::Hwmon {
                chip: Chip::Name("ina226".into()),
                channel: Some(Channel::VoltsAmps {
                    volts: "in1_input".into(),
                    amps: "curr1_input".into()
                }),
            }
        );
        assert_eq!(
            parse("hwmon:/sys/class/hwmon/hwmon3/power1").unwrap(),
            MeterSpec::Hwmon {
                chip: Chip::Path("/sys/class/hwmon/hwmon3".into()),
                channel: Some(Channel::Power("power1_input".into())),
            }
        );
    }

    #[test]
    fn errors_name_the_problem_and_the_fix() {
        let err = |s: &str| parse(s).unwrap_err().to_string();
        assert!(err("").contains("give cmd:COMMAND"));
        assert!(err("usb:1").contains("unknown meter kind 'usb'"));
        assert!(err("cmd:").contains("cmd needs the command"));
        assert!(err("hwmon").contains("hwmon needs a sensor name"));
        assert!(err("powercap: ").contains("e.g. powercap:intel-rapl:0"));
        assert!(err("none:x").contains("takes no argument"));
        let bad = err("hwmon:ina226/temp1_input");
        assert!(
            bad.contains("'temp1_input' is not an hwmon power channel"),
            "{bad}"
        );
        assert!(err("hwmon:ina226/power_input").contains("not an hwmon power channel"));
        assert!(err("hwmon:ina226/in1+in2").contains("not an hwmon power channel"));
    }
}
