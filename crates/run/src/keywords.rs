//! Keyword arguments as a run's flags: `name=value` is `--name value` (underscores for
//! dashes), `name=True` is `--name`, parsed by the same declaration as the command line, so
//! every flag `ssdlab run` takes is a keyword of Python's `run`, by construction. Refusals
//! name the keyword, not the flag.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, CommandFactory, FromArgMatches, Parser};

use crate::flags::RunFlags;
use crate::suite_flags::SuiteFlags;

/// A keyword argument's value as a script gives it.
pub enum Value {
    /// True or False: a switch (`verify=True`).
    Switch(bool),
    /// Anything else, as text (`qd="Q32T16"`, `bs=4096`, `out=path`).
    Text(String),
    /// A list, for a flag given once for each (`only=["trim", "consistency"]`).
    List(Vec<String>),
}

/// What a face fills in itself rather than taking as a keyword: the test and the target (or
/// targets) are its positional arguments, and a script shows no progress.
const NOT_KEYWORDS: [&str; 5] = ["test", "target", "targets", "quiet", "help"];

#[derive(Parser)]
#[command(no_binary_name = true)]
struct Keywords<F: Args> {
    #[command(flatten)]
    flags: F,
}

/// Why keyword arguments make no run: its Display names the keyword.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct KeywordError(String);

/// The keywords a run takes, in the order `ssdlab run --help` lists their flags.
pub fn names() -> Vec<String> {
    names_of::<RunFlags>()
}

/// The keywords the flags `F` make.
fn names_of<F: Args>() -> Vec<String> {
    Keywords::<F>::command()
        .get_arguments()
        .map(|a| a.get_id().as_str().to_string())
        .filter(|id| !NOT_KEYWORDS.contains(&id.as_str()))
        .collect()
}

/// `ssdlab run TEST --target TARGET` with `keywords` as its flags.
pub fn run_flags(
    test: &str,
    target: &str,
    keywords: &[(String, Value)],
) -> Result<RunFlags, KeywordError> {
    let argv = vec![test.to_string(), "--target".into(), target.into()];
    parse(argv, keywords)
}

/// `ssdlab suite --target TARGET...` with `keywords` as its flags.
pub fn suite_flags(
    targets: &[String],
    keywords: &[(String, Value)],
) -> Result<SuiteFlags, KeywordError> {
    let argv = targets.iter().flat_map(|t| ["--target".into(), t.clone()]);
    parse(argv.collect(), keywords)
}

/// The flags `F` of `argv` (what the face fills in) and `keywords`, quiet.
fn parse<F: Args + FromArgMatches>(
    mut argv: Vec<String>,
    keywords: &[(String, Value)],
) -> Result<F, KeywordError> {
    let command = Keywords::<F>::command();
    argv.push("--quiet".into());
    for (name, value) in keywords {
        let arg = command
            .get_arguments()
            .find(|a| a.get_id().as_str() == name && !NOT_KEYWORDS.contains(&name.as_str()));
        let Some(arg) = arg else {
            let known = names_of::<F>();
            return Err(KeywordError(format!(
                "unknown keyword argument \"{name}\"{}: use one of {}",
                crate::suggest::did_you_mean(name, known.iter().map(String::as_str)),
                known.join(", ")
            )));
        };
        let flag = format!("--{}", arg.get_long().unwrap_or(name));
        let takes_value = arg.get_action().takes_values();
        match value {
            Value::Switch(true) if !takes_value => argv.push(flag),
            Value::Switch(false) if !takes_value => {}
            Value::Text(text) if takes_value => argv.extend([flag, text.clone()]),
            Value::List(texts) if takes_value => {
                argv.extend(texts.iter().flat_map(|t| [flag.clone(), t.clone()]))
            }
            Value::Switch(_) => {
                return Err(KeywordError(format!(
                    "{name}= takes a value, not True or False"
                )))
            }
            Value::Text(text) => {
                return Err(KeywordError(format!(
                    "{name}={text:?}: {name}= is a switch: give True or False"
                )))
            }
            Value::List(_) => {
                return Err(KeywordError(format!(
                    "{name}= is a switch: give True or False, not a list"
                )))
            }
        }
    }
    let matches = command.try_get_matches_from(argv).map_err(keyword_error)?;
    let parsed = Keywords::<F>::from_arg_matches(&matches).map_err(keyword_error)?;
    Ok(parsed.flags)
}

/// A message of the run or the methodology, which names the flags, with each flag of `ssdlab
/// run` or `ssdlab suite` as the keyword a script gives: `--read-pct 70` is `read_pct=70`,
/// `drop --offset` is `drop offset=`. What is not a flag of theirs is left as it is.
pub fn as_keywords(text: &str) -> String {
    let longs: Vec<String> = [
        Keywords::<RunFlags>::command(),
        Keywords::<SuiteFlags>::command(),
    ]
    .iter()
    .flat_map(|c| {
        c.get_arguments()
            .filter_map(|a| a.get_long().map(String::from))
    })
    .collect();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
            .unwrap_or(after.len());
        let name = after[..len].trim_end_matches('-');
        if name.is_empty() || !longs.iter().any(|l| l == name) {
            out.push_str("--");
            rest = after;
            continue;
        }
        out.push_str(&name.replace('-', "_"));
        out.push('=');
        rest = &after[name.len()..];
        // `--qd 0` is `qd=0`: a value follows its flag.
        let mut chars = rest.chars();
        if chars.next() == Some(' ') && chars.next().is_some_and(|c| c.is_ascii_digit()) {
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

/// A refusal of the flags, as the keywords a script gave: `qd=0: ...`.
fn keyword_error(e: clap::Error) -> KeywordError {
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) => Some(v.join(", ")),
        _ => None,
    };
    let arg = text(ContextKind::InvalidArg).map(|a| keyword_of(&a));
    let why = match e.kind() {
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
            let value = text(ContextKind::InvalidValue).unwrap_or_default();
            let why = std::error::Error::source(&e)
                .map(|s| s.to_string())
                .or_else(|| text(ContextKind::ValidValue).map(|v| format!("use one of {v}")))
                .unwrap_or_else(|| "not a value it takes".into());
            format!("{}{value:?}: {why}", arg.unwrap_or_default())
        }
        ErrorKind::MissingRequiredArgument => format!(
            "{} is needed by another keyword given",
            arg.unwrap_or_default()
        ),
        ErrorKind::ArgumentConflict => format!(
            "{} cannot be given with {}",
            arg.unwrap_or_default(),
            text(ContextKind::PriorArg)
                .map(|a| keyword_of(&a))
                .unwrap_or_default()
        ),
        _ => e.kind().to_string(),
    };
    KeywordError(why)
}

/// `--read-pct <READ_PCT>` as `read_pct=`.
fn keyword_of(flag: &str) -> String {
    let long = flag.trim_start_matches('-');
    let long = long.split([' ', '=']).next().unwrap_or(long);
    format!("{}=", long.replace('-', "_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: &str) -> Value {
        Value::Text(v.into())
    }

    #[test]
    fn every_flag_of_run_is_a_keyword() {
        // The keywords are read off the flags: a flag added to `ssdlab run` is one.
        let flags = crate::flags::RunFlags::augment_args(clap::Command::new("run"));
        let ids: Vec<&str> = flags.get_arguments().map(|a| a.get_id().as_str()).collect();
        let names = names();
        for id in ids.iter().filter(|id| !NOT_KEYWORDS.contains(id)) {
            assert!(names.iter().any(|n| n == id), "{id} is no keyword");
        }
        for must in [
            "qd",
            "bs",
            "verify",
            "no_store",
            "db",
            "out",
            "power_meter",
            "backend",
        ] {
            assert!(names.iter().any(|n| n == must), "{must}");
        }
    }

    #[test]
    fn every_flag_of_suite_is_a_keyword_and_a_list_repeats_it() {
        let flags = crate::suite_flags::SuiteFlags::augment_args(clap::Command::new("suite"));
        let names = names_of::<crate::suite_flags::SuiteFlags>();
        for a in flags.get_arguments() {
            let id = a.get_id().as_str();
            assert!(
                NOT_KEYWORDS.contains(&id) || names.iter().any(|n| n == id),
                "{id}"
            );
        }
        let flags = suite_flags(
            &["sim:default".into(), "sim:840-evo-250".into()],
            &[
                ("quick".into(), Value::Switch(true)),
                (
                    "only".into(),
                    Value::List(vec!["seq-read".into(), "trim".into()]),
                ),
                ("methodology".into(), text("pts-c")),
            ],
        )
        .unwrap();
        assert_eq!(flags.targets, ["sim:default", "sim:840-evo-250"]);
        assert_eq!(flags.only, ["seq-read", "trim"]);
        assert!(flags.quick && flags.common.quiet);
        let e = suite_flags(&[], &[("methodology".into(), text("review-2022"))])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("methodology=\"review-2022\": unknown methodology"),
            "{e}"
        );
    }

    #[test]
    fn keywords_parse_as_the_flags_do() {
        let flags = run_flags(
            "custom",
            "sim:default",
            &[
                ("qd".into(), text("Q32T4")),
                ("bs".into(), text("4K:50,8K:50")),
                ("verify".into(), Value::Switch(true)),
                ("no_prefill".into(), Value::Switch(false)),
                ("read_pct".into(), text("70")),
            ],
        )
        .unwrap();
        let r = flags.request().unwrap();
        assert_eq!(r.target, "sim:default");
        let crate::Work::Test(t) = r.work else {
            panic!("a test's flags make a test's run")
        };
        let o = &t.overrides;
        assert_eq!((o.qd, o.threads), (Some(32), Some(4)));
        assert!(o.shape.block_mix.is_some() && t.verify.is_some());
        assert_eq!((o.read_pct, o.prefill), (Some(70), None));
    }

    #[test]
    fn messages_name_flags_as_keywords() {
        assert_eq!(
            as_keywords("--offset: consistency tests from LBA 0; drop --offset, or use custom"),
            "offset=: consistency tests from LBA 0; drop offset=, or use custom"
        );
        assert_eq!(
            as_keywords("--span 8 MiB from --offset 15 MiB; --read-pct 70 and --qd"),
            "span=8 MiB from offset=15 MiB; read_pct=70 and qd="
        );
        assert_eq!(
            as_keywords("--pts-scale shortens them: use --methodology pts-c"),
            "pts_scale= shortens them: use methodology= pts-c"
        );
        // Not flags of theirs: as they were.
        assert_eq!(as_keywords("a -- b --nope --"), "a -- b --nope --");
    }

    #[test]
    fn refusals_name_the_keyword() {
        let refused =
            |kw: Vec<(String, Value)>| run_flags("custom", "sim:x", &kw).unwrap_err().to_string();
        let e = refused(vec![("qd".into(), text("0"))]);
        assert!(
            e.starts_with("qd=\"0\": queue depth 0 is out of range"),
            "{e}"
        );
        let e = refused(vec![("sped".into(), text("3"))]);
        assert!(
            e.contains("unknown keyword argument \"sped\" (did you mean seed?)"),
            "{e}"
        );
        let e = refused(vec![("arrivals".into(), text("poisson"))]);
        assert!(e.starts_with("rate_iops= is needed"), "{e}");
        let e = refused(vec![("verify".into(), text("yes"))]);
        assert!(e.contains("is a switch"), "{e}");
        let e = refused(vec![("access".into(), text("diagonal"))]);
        assert!(
            e.contains("access=\"diagonal\": unknown access 'diagonal'"),
            "{e}"
        );
    }
}
