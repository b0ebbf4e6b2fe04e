//! Placeholder: filled in by its own module work.
