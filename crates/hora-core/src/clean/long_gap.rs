//! Long gaps: the threshold from which a gap is long, and the cut of an entity ahead of its grid
//! when the split would drop everything before such a gap anyway (docs/cleaning-policy.md).


use super::blocking;
use super::decisions::{Decision, DecisionId};
use super::entity::{Ctx, Outcome};
use super::notices::Warning;
use super::prepare::Prepared;
use super::stamps;

/// Gaps of at least this many steps are long by default: two seasonal periods, at least 16 steps.
pub fn auto_split_steps(period: usize) -> usize {
    (2 * period).max(16)
}

/// Missing steps from which a gap is long (`options.gap_split_min_steps`, 0 = never). Under
/// `structural_zero` a missing run is a run of zeros, not an outage: no automatic threshold.
pub(super) fn split_threshold(ctx: &Ctx) -> usize {
    match ctx.res.gap_split_min_steps {
        Some(0) => usize::MAX,
        Some(k) => usize::try_from(k).unwrap_or(usize::MAX),
        None if ctx.res.knobs.structural_zero => usize::MAX,
        None => auto_split_steps(ctx.period),
    }
}

/// An entity cut ahead of its grid (`presplit`).
pub struct Cut {
    /// What is kept: from the first value after the gap.
    pub kept: Prepared,
    /// What the cut records, as steps 7 and 8 would: `gap.trim_head` for null rows before the
    /// first value, then `gap.split` for the values dropped (none when there are none).
    pub decisions: Vec<Decision>,
    /// Grid slots of the part cut away, up to the kept part's first stamp, and how many of them
    /// no row filled: the entity's `missing_ratio` counts them as the step-8 split would.
    pub grid_slots: usize,
    pub inserted_slots: usize,
    /// Rows of the part cut away from its first observed value on, and the observed ones among
    /// them: the report still counts them when the split does not apply (a 422).
    pub cut_rows: usize,
    pub cut_observed: usize,
}

impl Cut {
    /// Whether the cut records a `gap.split` (values lay before the gap), whatever its status.
    pub fn splits(&self) -> bool {
        super::decisions::has_split(&self.decisions)
    }

    /// Adds the cut to the kept part's cleaning outcome as if one cleaning had run on the whole
    /// entity: its slots, its rows when its split does not apply, the mask warning, and its
    /// decisions ahead of the entity's own (a later `gap.split` takes the cut's in), their
    /// blocks joined to the entity's.
    pub fn complete(&self, out: &mut Outcome, ctx: &Ctx) {
        out.grid_before = out.grid_before.saturating_add(self.grid_slots);
        out.inserted_before = out.inserted_before.saturating_add(self.inserted_slots);
        if self.decisions.iter().any(|d| d.id == DecisionId::Split && !d.applied()) {
            out.output_points = out.output_points.saturating_add(self.cut_rows);
            out.fed_points = out.fed_points.saturating_add(self.cut_observed);
        }
        let given = out.warnings.iter().any(|w| matches!(w, Warning::LongGapMaskUnavailable { .. }));
        if ctx.res.knobs.long_gap_mask && !given {
            out.warnings.insert(0, mask_unavailable(&self.kept.unique_id));
        }
        let mut own = self.decisions.clone();
        merge_splits(&mut own, &mut out.decisions);
        blocking::join_earlier(&mut out.blocks, blocking::unapplied(&own, None));
        out.decisions.splice(0..0, own);
    }
}

/// The entity cut at its last stamp gap of a long gap's length, when the cleaning would drop
/// everything before that gap anyway: for an entity whose whole grid is too large to build (one
/// stray old row before second-level data), so the grid is built for the part that is kept. The
/// kept part starts at the first value after the gap (null rows after it belong to the gap, as
/// step 8 reads it); None when no value follows it, or when splitting is off. A requested
/// `long_gap: mask` cannot keep a grid that large either, with or without a model, so it gives way
/// here as it does past the model's context (the `long_gap_mask_unavailable` warning,
/// `Cut::complete`).
pub fn presplit(p: &Prepared, ctx: &Ctx) -> Option<Cut> {
    let threshold = split_threshold(ctx);
    if threshold == usize::MAX {
        return None;
    }
    // Slots strictly between two stamps; an off-grid stamp can only make this an overestimate
    // by one, and the cleaning still judges the gaps of what is kept.
    let missing = |i: usize| stamps::grid_len(p.ts[i], p.ts[i + 1], ctx.freq, ctx.zone).saturating_sub(2);
    let gap = (0..p.ts.len().saturating_sub(1)).rev().find(|&i| missing(i) >= threshold as u64)? + 1;
    let start = gap + p.y[gap..].iter().position(|v| v.is_finite())?;
    // Slots from the first stamp up to (not including) the kept part's first one.
    let grid_slots = usize::try_from(stamps::grid_len(p.ts[0], p.ts[start], ctx.freq, ctx.zone).saturating_sub(1)).unwrap_or(usize::MAX);
    let dropped = p.y[..start].iter().filter(|v| v.is_finite()).count();
    let kept = Prepared {
        unique_id: p.unique_id.clone(),
        input_rows: p.input_rows,
        parsed: p.parsed.clone(),
        ts: p.ts[start..].to_vec(),
        y: p.y[start..].to_vec(),
        rows: p.rows[start..].to_vec(),
        decisions: p.decisions.clone(),
        // Without a split the part cut away stays in the series the deprecated rule counts.
        empty_before: if dropped == 0 { grid_slots } else { 0 },
    };
    let inserted_slots = grid_slots.saturating_sub(start);
    let first = p.y[..start].iter().position(|v| v.is_finite()).unwrap_or(start);
    let mut decisions = Vec::new();
    if first > 0 {
        decisions.push(Decision::new(DecisionId::TrimHead, &p.unique_id, first, ctx.res).with_stamps(p.ts[..first].iter().copied()));
    }
    // Nothing observed before the gap (then `first` is `start`): step 8 would split nothing off.
    if dropped > 0 {
        let gap_end = stamps::step(p.ts[start], -1, ctx.freq, ctx.zone).unwrap_or(p.ts[start]);
        decisions.push(Decision::new(DecisionId::Split, &p.unique_id, dropped, ctx.res).with_ranges([(p.ts[first], gap_end)]));
    }
    Some(Cut { kept, decisions, grid_slots, inserted_slots, cut_rows: start - first, cut_observed: dropped })
}

/// One entity, one `gap.split`: when the cleaning of the part a cut kept splits it again at a
/// later long gap, the cut's split (in `cut`) joins that split, as one split of the whole
/// entity would have dropped both: the counts add up, and the range starts where the cut's did.
fn merge_splits(cut: &mut Vec<Decision>, own: &mut [Decision]) {
    let Some(later) = own.iter_mut().find(|d| d.id == DecisionId::Split) else { return };
    let Some(at) = cut.iter().position(|d| d.id == DecisionId::Split) else { return };
    let split = cut.remove(at);
    later.count += split.count;
    if let (Some(from), Some(range)) = (split.ranges.first(), later.ranges.first_mut()) {
        range.0 = from.0;
    }
}

/// The warning for a requested `long_gap: mask` that a split replaced.
pub(super) fn mask_unavailable(unique_id: &str) -> Warning {
    Warning::LongGapMaskUnavailable { unique_id: unique_id.to_string() }
}
