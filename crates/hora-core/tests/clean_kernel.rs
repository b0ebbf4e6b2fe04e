//! The regrid + linear-impute kernel on the case table it shares with the TypeScript path.

use hora_core::clean::kernels::regrid_impute;
use serde_json::Value;

#[test]
fn every_kernel_case_gives_the_table_grid() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../test/clean-kernel-cases.json");
    let table: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let nums = |v: &Value| -> Vec<f64> { v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect() };
    let idx = |v: &Value| -> Vec<usize> { v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect() };
    let cases = table["cases"].as_array().unwrap();
    assert!(cases.len() >= 8);
    for c in cases {
        let stamps: Vec<i64> = c["stamps"].as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect();
        let (out, off) = regrid_impute(&stamps, &nums(&c["values"]), &idx(&c["indptr"]), c["step"].as_i64().unwrap()).unwrap();
        let expected = nums(&c["expected"]);
        assert_eq!(off, idx(&c["expected_indptr"]), "{}", c["name"]);
        assert_eq!(out.len(), expected.len(), "{}", c["name"]);
        for (a, b) in out.iter().zip(&expected) {
            assert!((a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-12, "{}: {out:?} vs {expected:?}", c["name"]);
        }
    }
}
