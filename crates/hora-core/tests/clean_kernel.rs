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

/// Slot by slot, the obvious way: place every value, then fill each non-finite slot between two
/// finite ones on their line; everything else non-finite becomes NaN.
fn reference(stamps: &[i64], y: &[f64], step: i64) -> Vec<f64> {
    let Some(&start) = stamps.first() else { return Vec::new() };
    let mut grid = vec![f64::NAN; ((stamps[stamps.len() - 1] - start) / step) as usize + 1];
    for (&t, &v) in stamps.iter().zip(y) {
        grid[((t - start) / step) as usize] = if v.is_finite() { v } else { f64::NAN };
    }
    let finite: Vec<usize> = (0..grid.len()).filter(|&i| grid[i].is_finite()).collect();
    for w in finite.windows(2) {
        let (l, r) = (w[0], w[1]);
        for i in l + 1..r {
            grid[i] = grid[l] + (grid[r] - grid[l]) * (i - l) as f64 / (r - l) as f64;
        }
    }
    grid
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

    /// Runs of every length (the kernel checks eight stamps at a time), gaps, nulls and infinities
    /// anywhere: the kernel writes what the slot-by-slot reference writes.
    #[test]
    fn kernel_matches_the_slot_by_slot_reference(
        entities in proptest::collection::vec(proptest::collection::vec((0u8..20, 0u8..20, -100.0f64..100.0), 0..60), 1..4),
    ) {
        let step = 7i64;
        let (mut stamps, mut y, mut indptr, mut expected) = (Vec::new(), Vec::new(), vec![0usize], Vec::new());
        for draws in &entities {
            let (from, mut t) = (stamps.len(), 1_000i64);
            for &(gap, kind, v) in draws {
                t += step * if gap < 15 { 1 } else { gap as i64 - 13 };
                stamps.push(t);
                y.push(match kind { 0 | 1 => f64::NAN, 2 => f64::INFINITY, _ => v });
            }
            expected.extend(reference(&stamps[from..], &y[from..], step));
            indptr.push(stamps.len());
        }
        let (out, _) = regrid_impute(&stamps, &y, &indptr, step).unwrap();
        proptest::prop_assert_eq!(out.len(), expected.len());
        for (a, b) in out.iter().zip(&expected) {
            proptest::prop_assert!((a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * b.abs().max(1.0), "{:?} vs {:?}", out, expected);
        }
    }
}
