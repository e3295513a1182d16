//! The arguments of a fit that its refusals name. Each face says them its own way: the command
//! line by its flags (the errors' Display), Python by its keywords (`named(Naming::Keywords)`),
//! so no face rewrites another's message.

/// An argument of a fit, as a refusal names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// The preset the search starts from.
    From,
    Known,
    Params,
    Reference,
    Screen,
    HoldOut,
    Evals,
    /// The twin's file.
    Output,
}

impl Arg {
    /// Its flag on `ssdlab sim fit`; a value follows it after a space (`--evals 40`).
    pub const fn flag(self) -> &'static str {
        match self {
            Arg::From => "--from",
            Arg::Known => "--known",
            Arg::Params => "--params",
            Arg::Reference => "--reference",
            Arg::Screen => "--screen",
            Arg::HoldOut => "--hold-out",
            Arg::Evals => "--evals",
            Arg::Output => "-o",
        }
    }

    /// Its keyword in Python's `ssdlab.sim.fit`; a value follows it after `=` (`evals=40`).
    pub const fn keyword(self) -> &'static str {
        match self {
            Arg::From => "start",
            Arg::Known => "known",
            Arg::Params => "params",
            Arg::Reference => "reference",
            Arg::Screen => "screen",
            Arg::HoldOut => "hold_out",
            Arg::Evals => "evals",
            Arg::Output => "output",
        }
    }
}

/// How a face names an argument: the command line by its flags, Python by its keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    Flags,
    Keywords,
}

impl Naming {
    /// The argument by itself: `--evals`, `evals`.
    pub fn of(self, arg: Arg) -> &'static str {
        match self {
            Naming::Flags => arg.flag(),
            Naming::Keywords => arg.keyword(),
        }
    }

    /// The argument given `value`: `--evals 40`, `evals=40`.
    pub fn with(self, arg: Arg, value: impl std::fmt::Display) -> String {
        match self {
            Naming::Flags => format!("{} {value}", arg.flag()),
            Naming::Keywords => format!("{}={value}", arg.keyword()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ArgError, ParamError};
    use super::*;

    /// Every refusal that names an argument, one of each kind.
    fn refusals() -> Vec<(String, String)> {
        let sim_error = || sim::resolve("no-such-preset").unwrap_err();
        let args = [
            ArgError::Reference {
                drive: "x".into(),
                source: sim_error(),
            },
            ArgError::Screen {
                factor: 8,
                source: sim_error(),
            },
            ArgError::FromFile("twin.toml".into()),
            ArgError::NotKeyValue("op".into()),
            ArgError::NoHeldFigure {
                held: "trim".into(),
                prefixes: vec!["heavy".into()],
            },
            ArgError::TooFewEvaluations {
                evaluations: 4,
                least: 40,
                starts: 2,
                free: 5,
            },
            ArgError::NotEvaluations {
                path: "t.evals.jsonl".into(),
                line: 3,
            },
        ];
        let params = [
            ParamError::NotKeyValue("channels".into()),
            ParamError::KnownAndSearched("channels".into()),
            ParamError::From("nope".into(), sim_error()),
            ParamError::Known("channels=x".into(), sim_error()),
            ParamError::Params(Box::new(ParamError::KnownAndSearched("op".into()))),
        ];
        let args = args
            .iter()
            .map(|e| (e.to_string(), e.named(Naming::Keywords)));
        let params = params
            .iter()
            .map(|e| (e.to_string(), e.named(Naming::Keywords)));
        args.chain(params).collect()
    }

    #[test]
    fn each_face_names_the_arguments_its_own_way() {
        for (flags, keywords) in refusals() {
            assert!(flags.contains("--") || flags.contains(" -o"), "{flags}");
            // Python's message names no flag of the command line, only its keywords.
            let flag = ["--", " -o "].into_iter().find(|f| keywords.contains(f));
            assert!(!keywords.ends_with(" -o"), "{keywords}");
            assert_eq!(flag, None, "{keywords}");
        }
    }

    #[test]
    fn a_value_follows_a_flag_after_a_space_and_a_keyword_after_its_equals_sign() {
        assert_eq!(Naming::Flags.with(Arg::Evals, 40), "--evals 40");
        assert_eq!(Naming::Keywords.with(Arg::Evals, 40), "evals=40");
        assert_eq!(Naming::Keywords.with(Arg::From, "default"), "start=default");
    }
}
