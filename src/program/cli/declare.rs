//! How an option is declared: [`options!`] takes one entry per option
//! (its letter, long name, argument, completion kind, help text and what
//! its value sets in [`super::Options`]) and makes from the entries the
//! [`super::Opt`] enum, each option's GetOpt row ([`super::Opt::descr`],
//! found by the variant, not by its place) and the fold of a value into
//! the settings ([`super::Opt::apply`]). The entries are
//! [`super::table`]'s.
//!
//! An entry reads:
//!
//! ```text
//! MinGain {
//!     short: 'g',                  // optional
//!     long: "min-gain",
//!     arg: Req("DELTA"),           // No, Flag, Req(NAME) or Optional(NAME)
//!     completion: "float",         // Ganeti's completion kind
//!     help: "minimum gain to aim for ...",
//!     set: |o, a| o.min_gain = a.double("min gain")?,
//! }
//! ```
//!
//! `set` is the body of the option's arm of [`super::Opt::apply`]: `o` is
//! the settings, `a` the value ([`super::value::Arg`]); `?` and
//! `return Err(message)` refuse the value with `message`.

/// Makes `Opt`, `Opt::ALL`, `Opt::descr` and `Opt::apply` from the
/// options' entries (see the module documentation).
macro_rules! options {
    ($(
        $(#[$meta:meta])*
        $name:ident {
            $(short: $short:literal,)?
            long: $long:literal,
            arg: $arg:expr,
            completion: $completion:literal,
            help: $help:literal,
            set: |$o:ident, $a:ident| $set:expr $(,)?
        }
    )*) => {
        /// An option, whatever name it was given by.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Opt {
            $($(#[$meta])* $name,)*
        }

        impl Opt {
            /// Every option, in the order of their entries.
            pub const ALL: &'static [Opt] = &[$(Opt::$name),*];

            /// The option's row: its names, argument, help text and
            /// completion kind.
            pub fn descr(self) -> &'static $crate::program::cli::getopt::OptDescr<Opt> {
                match self {
                    $(Opt::$name => {
                        const ROW: $crate::program::cli::getopt::OptDescr<Opt> =
                            $crate::program::cli::getopt::OptDescr {
                                id: Opt::$name,
                                short: $crate::program::cli::declare::short!($($short)?),
                                long: $long,
                                kind: $arg,
                                help: $help,
                                completion: $completion,
                                own: false,
                            };
                        &ROW
                    })*
                }
            }

            /// Applies one occurrence of the option with its value (`None`
            /// when none was given) to `options`: the fold of Ganeti's
            /// `parseOptsInner`. `Err` is the original's message for a
            /// bad value.
            ///
            /// # Errors
            ///
            /// The message for a value the option refuses.
            pub fn apply(
                self,
                options: &mut $crate::program::cli::Options,
                value: Option<&str>,
            ) -> Result<(), String> {
                let arg = $crate::program::cli::value::Arg::new(self.descr().long, value);
                match self {
                    $(Opt::$name => {
                        let $o: &mut $crate::program::cli::Options = options;
                        let $a: $crate::program::cli::value::Arg<'_> = arg;
                        $set;
                    })*
                }
                Ok(())
            }
        }
    };
}

/// An entry's letter: `Some` when it has one.
macro_rules! short {
    () => {
        None
    };
    ($short:literal) => {
        Some($short)
    };
}

pub(crate) use options;
pub(crate) use short;
