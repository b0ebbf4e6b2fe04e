//! Writes chrono-tz's prebuilt `timezones.rs` and `directory.rs` from a tz source directory.
//! Usage: hora-tzdata-gen <dir holding tz/> <output dir> (see scripts/tzdata/update.sh).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (root, out) = (&args[1], &args[2]);
    // chrono-tz-build finds tz/ under CARGO_MANIFEST_DIR, as in chrono-tz's own build script.
    std::env::set_var("CARGO_MANIFEST_DIR", root);
    chrono_tz_build::main(std::path::Path::new(out), false, false);
}
