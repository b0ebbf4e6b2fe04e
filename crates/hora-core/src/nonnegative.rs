//! `nonnegative`, which both `options.cleaning` (bounds on imputed values) and `model_options`
//! (clipping the forecast) take, with the same three values.

use crate::choice::Choice;

/// `"auto"`, `"true"` or `"false"` (a JSON boolean is read as its string form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nonnegative {
    /// When every observed value of the history is nonnegative.
    Auto,
    Always,
    Never,
}

impl Choice for Nonnegative {
    const ALL: &'static [Nonnegative] = &[Nonnegative::Auto, Nonnegative::Always, Nonnegative::Never];

    fn as_str(self) -> &'static str {
        match self {
            Nonnegative::Auto => "auto",
            Nonnegative::Always => "true",
            Nonnegative::Never => "false",
        }
    }
}

impl Nonnegative {
    /// Whether values are held at 0 or above; `auto` asks the data (`inferred`, evaluated only
    /// then).
    pub fn holds(self, inferred: impl FnOnce() -> bool) -> bool {
        match self {
            Nonnegative::Always => true,
            Nonnegative::Never => false,
            Nonnegative::Auto => inferred(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_reads_back_as_itself() {
        for &v in Nonnegative::ALL {
            assert_eq!(Nonnegative::parse(v.as_str()), Some(v));
        }
        assert_eq!(Nonnegative::parse("yes"), None);
    }
}
