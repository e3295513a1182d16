//! A fio job file's text as sections of `key=value` entries, each with its line, as fio's
//! `parse_jobs_ini` reads it: `;` and `#` start comments, `[name]` starts a job (`[global]`
//! the defaults of the jobs after it), `${VAR}` is the environment's.

use super::FioJobError;

/// One `[name]` and the entries under it.
#[derive(Debug)]
pub struct Section {
    pub name: String,
    pub line: usize,
    pub entries: Vec<Entry>,
}

/// `key=value`, or `key` alone (a switch such as `time_based`).
#[derive(Debug)]
pub struct Entry {
    pub key: String,
    pub value: Option<String>,
    pub line: usize,
}

impl Entry {
    /// As the file gave it: `key=value`, or the key alone.
    pub fn given(&self) -> String {
        match &self.value {
            Some(v) => format!("{}={v}", self.key),
            None => self.key.clone(),
        }
    }
}

impl Section {
    pub fn is_global(&self) -> bool {
        self.name == "global"
    }
}

/// The sections of `text`, in order.
pub fn sections(
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Section>, FioJobError> {
    let mut out: Vec<Section> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let body = raw.split([';', '#']).next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        if let Some(name) = body.strip_prefix('[') {
            let name = name.strip_suffix(']').ok_or_else(|| FioJobError::Syntax {
                line,
                text: raw.trim().to_string(),
                why: "a job's name is written [name]",
            })?;
            out.push(Section {
                name: name.trim().to_string(),
                line,
                entries: Vec::new(),
            });
            continue;
        }
        if body.starts_with("include ") {
            return Err(FioJobError::Syntax {
                line,
                text: raw.trim().to_string(),
                why: "`include` is not followed: put the included file's options in this one",
            });
        }
        let Some(section) = out.last_mut() else {
            return Err(FioJobError::Syntax {
                line,
                text: raw.trim().to_string(),
                why: "an option before any [job] or [global]: start the file with a section",
            });
        };
        let (key, value) = match body.split_once('=') {
            Some((k, v)) => (k.trim(), Some(expand(v.trim(), line, env)?)),
            None => (body, None),
        };
        section.entries.push(Entry {
            key: key.to_ascii_lowercase(),
            value,
            line,
        });
    }
    Ok(out)
}

/// `${VAR}` from the environment; fio's own `$pagesize`-style keywords and arithmetic are
/// refused, as a value they make would be a guess here.
fn expand(
    value: &str,
    line: usize,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, FioJobError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let Some(name) = after.strip_prefix('{').and_then(|a| a.split_once('}')) else {
            return Err(FioJobError::Syntax {
                line,
                text: value.to_string(),
                why: "only ${VAR} from the environment is expanded: write the value itself",
            });
        };
        let (var, tail) = name;
        let got = env(var).ok_or_else(|| FioJobError::UnsetVariable {
            line,
            name: var.to_string(),
        })?;
        out.push_str(&got);
        rest = tail;
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn sections_keep_their_entries_lines_and_switches() {
        let text =
            "; a comment\n[global]\nbs=4k ; trailing\n\n[job1]\ntime_based\nRW = randread  # why\n";
        let s = sections(text, &no_env).unwrap();
        assert_eq!(s.len(), 2);
        assert!(s[0].is_global());
        assert_eq!(s[0].entries[0].key, "bs");
        assert_eq!(s[0].entries[0].value.as_deref(), Some("4k"));
        assert_eq!(s[0].entries[0].line, 3);
        assert_eq!(s[1].name, "job1");
        assert_eq!(s[1].entries[0].value, None);
        assert_eq!(s[1].entries[1].key, "rw");
        assert_eq!(s[1].entries[1].value.as_deref(), Some("randread"));
        assert_eq!(s[1].entries[1].line, 7);
    }

    #[test]
    fn environment_variables_expand_and_unset_ones_are_named() {
        let env = |v: &str| (v == "BS").then(|| "8k".to_string());
        let s = sections("[j]\nbs=${BS}\n", &env).unwrap();
        assert_eq!(s[0].entries[0].value.as_deref(), Some("8k"));
        let e = sections("[j]\nbs=${NOPE}\n", &env).unwrap_err().to_string();
        assert!(e.contains("NOPE") && e.contains("line 2"), "{e}");
        let e = sections("[j]\nbs=$pagesize\n", &env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("${VAR}"), "{e}");
    }

    #[test]
    fn options_outside_a_section_and_includes_are_refused_by_line() {
        let e = sections("bs=4k\n[j]\n", &no_env).unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
        let e = sections("[j]\ninclude other.fio\n", &no_env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("include"), "{e}");
        let e = sections("[j\n", &no_env).unwrap_err().to_string();
        assert!(e.contains("[name]"), "{e}");
    }
}
