//! The contract's closed value lists (presets, imputation methods, `nonnegative`, quantile
//! policies): one list per enum, read by the parsers, the error messages and the service's
//! request schema alike.

use crate::error::HoraError;

pub trait Choice: Copy + 'static {
    /// Every value, in the contract's order.
    const ALL: &'static [Self];

    fn as_str(self) -> &'static str;

    fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.as_str() == s)
    }

    fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|c| c.as_str()).collect()
    }

    /// `value` read as one of the list, else a `VALIDATION_ERROR` naming `field` and the list.
    fn read(field: &str, value: &str) -> Result<Self, HoraError> {
        Self::parse(value).ok_or_else(|| HoraError::field(field, format!("must be {}, not {value:?}", one_of(&Self::names()))))
    }
}

/// `a, b or c`: a field's allowed values, for its error message.
pub fn one_of(values: &[&str]) -> String {
    match values {
        [] => String::new(),
        [only] => (*only).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn allowed_values_read_as_a_list() {
        assert_eq!(super::one_of(&["mask"]), "mask");
        assert_eq!(super::one_of(&["linear", "seasonal", "locf"]), "linear, seasonal or locf");
    }
}
