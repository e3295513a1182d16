//! Which test a result is of: the names `ssdlab run` takes and results store, spelled here
//! once. Code everywhere else holds a [`TestId`], so a `match` on it is checked by the
//! compiler when a test is added.

use std::fmt;
use std::str::FromStr;

use super::TestId;
use crate::Result;
use crate::SuiteError;

/// The registry's macro (invoked in `methodology/mod.rs`). Under `tests`, each module of the
/// methodology (declared here, so a new test needs no `mod` line) lists its tests: each line
/// names a test's id, the name results store, and the [`Test`](super::Test) record in the
/// module that `ssdlab run` runs. Under `results`, the ids of results no test of `ssdlab run`
/// makes, with their [`Kind`](super::Kind) and [`ReviewSection`](super::ReviewSection).
macro_rules! registry {
    (
        tests {
            $($module:ident {
                $($(#[$doc:meta])* $id:ident = $name:literal => $test:ident),+ $(,)?
            })*
        }
        results {
            $($(#[$rdoc:meta])* $rid:ident = $rname:literal => ($rkind:expr, $rsection:expr),)*
        }
    ) => {
        $(pub mod $module;)*

        /// A test, as results store it and `ssdlab run` takes it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum TestId {
            $($($(#[$doc])* $id,)+)*
            $($(#[$rdoc])* $rid,)*
        }

        impl TestId {
            /// Every test id, `replay` included.
            pub const ALL: &[TestId] = &[$($(TestId::$id,)+)* $(TestId::$rid,)*];

            /// The name results store and `ssdlab run` takes, e.g. "random-write-qd32".
            pub const fn name(self) -> &'static str {
                match self {
                    $($(TestId::$id => $name,)+)*
                    $(TestId::$rid => $rname,)*
                }
            }

            /// What its results are.
            pub const fn kind(self) -> Kind {
                match self {
                    $($(TestId::$id => $module::$test.kind,)+)*
                    $(TestId::$rid => $rkind,)*
                }
            }

            /// The reviews' section of the page its results are shown in; `None`: its own.
            pub const fn section(self) -> Option<ReviewSection> {
                match self {
                    $($(TestId::$id => $module::$test.section,)+)*
                    $(TestId::$rid => $rsection,)*
                }
            }
        }

        /// Every test `ssdlab run` takes, in the order `ssdlab tests` lists them.
        pub const TESTS: &[Test] = &[$($($module::$test,)+)*];
    };
}

impl fmt::Display for TestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TestId {
    type Err = SuiteError;

    /// An unknown name is an error naming it and the tests there are.
    fn from_str(name: &str) -> Result<TestId> {
        TestId::ALL
            .iter()
            .copied()
            .find(|t| t.name() == name)
            .ok_or_else(|| SuiteError::UnknownTest(name.to_string(), super::names().join(", ")))
    }
}

// By name, as results have always stored it, so every stored result still loads; an
// unknown name fails with the error of `from_str`.
impl serde::Serialize for TestId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for TestId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TestId, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_json_and_parse() {
        for &id in TestId::ALL {
            let json = serde_json::to_string(&id).unwrap();
            assert_eq!(json, format!("\"{}\"", id.name()));
            assert_eq!(serde_json::from_str::<TestId>(&json).unwrap(), id);
            assert_eq!(id.name().parse::<TestId>().unwrap(), id);
        }
    }

    #[test]
    fn an_unknown_name_is_an_error_naming_it_and_the_tests() {
        let e = serde_json::from_str::<TestId>("\"seq-wirte\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown test 'seq-wirte'"), "{e}");
        assert!(e.contains("seq-write") && e.contains("power-idle"), "{e}");
    }
}
