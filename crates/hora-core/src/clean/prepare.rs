//! Per-entity first stage: parse and zone, sort, duplicate stamps keep the last row.

use super::decisions::{Decision, DecisionId};
use super::options::Resolved;
use super::stamps::{self, EntityStamps, Zone};
use crate::time::DayMonthOrder;
use crate::error::Result;
use crate::ingest::RowTable;

/// An entity after parsing, sorting and de-duplication: distinct stamps in time order.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub unique_id: String,
    pub input_rows: usize,
    pub parsed: EntityStamps,
    /// Sorted distinct instants.
    pub ts: Vec<i64>,
    /// `y` per kept stamp; NaN where the kept row held `null`.
    pub y: Vec<f64>,
    /// Table position per kept stamp (the last row of each duplicated stamp): the index into
    /// the table's columns, covariates included.
    pub rows: Vec<u32>,
    pub decisions: Vec<Decision>,
    /// Grid slots before `ts[0]` that a grid-cap cut took away without a split, none of them
    /// observed: the deprecated blocking rule's series starts there, as it would uncut.
    pub empty_before: usize,
}

/// `parsed`: the entity's stamps when validation already read them in the same zone and order.
pub fn prepare(table: &RowTable, e: usize, zone: &Zone, ds_format: Option<DayMonthOrder>, res: &Resolved, parsed: Option<&EntityStamps>) -> Result<Prepared> {
    let name = &table.entities[e];
    let parsed = match parsed {
        Some(p) => p.clone(),
        None => stamps::parse_entity(table, e, zone, ds_format)?,
    };
    let rows = table.entity_range(e);
    let values = table.entity_y(e);
    let t = &parsed.instants;
    let mut decisions = Vec::new();
    let order: Vec<usize> = if t.windows(2).all(|w| w[0] <= w[1]) {
        (0..t.len()).collect()
    } else {
        // Sorting (instant, position sent) pairs keeps rows of one stamp in the order sent, so the
        // last one sent is last, and keeps the comparisons on contiguous memory.
        let mut keyed: Vec<(i64, u32)> = t.iter().enumerate().map(|(i, &x)| (x, i as u32)).collect();
        keyed.sort_unstable();
        let order: Vec<usize> = keyed.into_iter().map(|(_, i)| i as usize).collect();
        let moved = order.iter().enumerate().filter(|(k, i)| *k != **i).count();
        decisions.push(Decision::new(DecisionId::Sort, name, moved, res));
        order
    };
    let mut ts = Vec::with_capacity(order.len());
    let mut y = Vec::with_capacity(order.len());
    let mut kept_rows = Vec::with_capacity(order.len());
    let mut dropped: Vec<i64> = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        if k + 1 < order.len() && t[order[k + 1]] == t[i] {
            dropped.push(t[i]);
            continue;
        }
        ts.push(t[i]);
        y.push(values[i]);
        kept_rows.push((rows.start + i) as u32);
    }
    if !dropped.is_empty() {
        let mut listed = dropped.clone();
        listed.dedup();
        decisions.push(Decision::new(DecisionId::Dedupe, name, dropped.len(), res).with_stamps(listed));
    }
    Ok(Prepared { unique_id: name.clone(), input_rows: rows.len(), parsed, ts, y, rows: kept_rows, decisions, empty_before: 0 })
}

impl Prepared {
    /// Whether any row holds a number (else `SERIES_EMPTY`).
    pub fn has_values(&self) -> bool {
        self.y.iter().any(|v| v.is_finite())
    }
}
