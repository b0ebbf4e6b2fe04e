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

/// The name a serialisable value is written with: a unit variant's string, or a tagged enum
/// variant's `code`. The lists the service's schemas are built from come from here, so they are
/// the names serde writes, not a second copy of them.
pub fn wire_name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(v) => v.get("code").and_then(|c| c.as_str()).unwrap_or_default().to_string(),
        Err(_) => String::new(),
    }
}

/// The wire names of `values`, in order.
pub fn wire_names<T: serde::Serialize>(values: &[T]) -> Vec<String> {
    values.iter().map(wire_name).collect()
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
