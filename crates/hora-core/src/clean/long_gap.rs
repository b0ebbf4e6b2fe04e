//! Long gaps: the threshold from which a gap is long, and the cut of an entity ahead of its grid
//! when the split would drop everything before such a gap anyway (docs/cleaning-policy.md).


use super::decisions::{Decision, DecisionId};
use super::entity::{Ctx, Outcome};
use super::notices::Warning;
use super::policy::LISTED_MAX;
use super::prepare::Prepared;
use super::stamps;

/// Gaps of at least this many steps are long by default: two seasonal periods, at least 16 steps.
pub fn auto_split_steps(period: usize) -> usize {
    (2 * period).max(16)
}

/// Missing steps from which a gap is long (`options.gap_split_min_steps`, 0 = never).
pub(super) fn split_threshold(ctx: &Ctx) -> usize {
    match ctx.res.gap_split_min_steps {
        Some(0) => usize::MAX,
        Some(k) => usize::try_from(k).unwrap_or(usize::MAX),
        None => auto_split_steps(ctx.period),
    }
}

/// An entity cut ahead of its grid (`presplit`).
pub struct Cut {
    /// What is kept, its `gap.split` decision last.
    pub kept: Prepared,
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
    /// Adds the cut part's slots and the mask warning to the kept part's cleaning outcome, its
    /// rows to the report's figures when the split does not apply, and joins the cut's `gap.split`
    /// (the last split in `pre`, the entity's decisions before its cleaning) to a later one.
    pub fn complete(&self, out: &mut Outcome, pre: &mut Vec<Decision>, ctx: &Ctx) {
        out.grid_before = out.grid_before.saturating_add(self.grid_slots);
        out.inserted_before = out.inserted_before.saturating_add(self.inserted_slots);
        if self.kept.decisions.last().is_some_and(|d| d.id == DecisionId::Split && !d.applied()) {
            out.output_points = out.output_points.saturating_add(self.cut_rows);
            out.fed_points = out.fed_points.saturating_add(self.cut_observed);
        }
        let given = out.warnings.iter().any(|w| matches!(w, Warning::LongGapMaskUnavailable { .. }));
        if ctx.res.knobs.long_gap_mask && !given {
            out.warnings.insert(0, mask_unavailable(&self.kept.unique_id));
        }
        merge_splits(pre, &mut out.decisions);
        merge_head_trims(pre, &mut out.decisions);
    }
}

/// The entity cut at its last stamp gap of a long gap's length, with the decisions steps 7 and 8
/// would record (`gap.trim_head` for null rows before the first value, `gap.split` for the values
/// dropped, none when there are none), when the cleaning would drop everything before that gap anyway: for an entity
/// whose whole grid is too large to build (one stray old row before second-level data), so the
/// grid is built for the part that is kept. A requested `long_gap: mask` cannot keep a grid that
/// large either, with or without a model, so it gives way here as it does past the model's
/// context (the `long_gap_mask_unavailable` warning, `Cut::complete`). None when nothing is cut:
/// splitting off, or no such gap.
pub fn presplit(p: &Prepared, ctx: &Ctx) -> Option<Cut> {
    let threshold = split_threshold(ctx);
    if threshold == usize::MAX {
        return None;
    }
    // Slots strictly between two stamps; an off-grid stamp can only make this an overestimate
    // by one, and the cleaning still judges the gaps of what is kept.
    let missing = |i: usize| stamps::grid_len(p.ts[i], p.ts[i + 1], ctx.freq, ctx.zone).saturating_sub(2);
    let cut = (0..p.ts.len().saturating_sub(1)).rev().find(|&i| missing(i) >= threshold as u64)? + 1;
    let observed = p.y[..cut].iter().position(|v| v.is_finite());
    let mut kept = Prepared {
        unique_id: p.unique_id.clone(),
        input_rows: p.input_rows,
        parsed: p.parsed.clone(),
        ts: p.ts[cut..].to_vec(),
        y: p.y[cut..].to_vec(),
        rows: p.rows[cut..].to_vec(),
        decisions: p.decisions.clone(),
    };
    // Slots from the first stamp up to (not including) the kept part's first one.
    let grid_slots = usize::try_from(stamps::grid_len(p.ts[0], p.ts[cut], ctx.freq, ctx.zone).saturating_sub(1)).unwrap_or(usize::MAX);
    let inserted_slots = grid_slots.saturating_sub(cut);
    // Null rows before the first value are step 7's head trim, wherever the value lies.
    let head = observed.unwrap_or(cut);
    if head > 0 {
        kept.decisions.push(Decision::new(DecisionId::TrimHead, &p.unique_id, head, ctx.res).with_stamps(p.ts[..head].iter().copied()));
    }
    let Some(first) = observed else {
        // Nothing observed before the gap: step 8 would split nothing off, so no `gap.split`.
        return Some(Cut { kept, grid_slots, inserted_slots, cut_rows: 0, cut_observed: 0 });
    };
    let dropped = p.y[..cut].iter().filter(|v| v.is_finite()).count();
    let gap_end = stamps::step(p.ts[cut], -1, ctx.freq, ctx.zone).unwrap_or(p.ts[cut]);
    kept.decisions.push(Decision::new(DecisionId::Split, &p.unique_id, dropped, ctx.res).with_ranges([(p.ts[first], gap_end)]));
    Some(Cut { kept, grid_slots, inserted_slots, cut_rows: cut - first, cut_observed: dropped })
}

/// One entity, one `gap.split`: when the cleaning of the part a cut kept splits it again at a
/// later long gap, the cut (the last split in `pre`) joins that split, as one split of the whole
/// entity would have dropped both: the counts add up, and the range starts where the cut's did.
fn merge_splits(pre: &mut Vec<Decision>, own: &mut [Decision]) {
    let Some(later) = own.iter_mut().find(|d| d.id == DecisionId::Split) else { return };
    let Some(at) = pre.iter().rposition(|d| d.id == DecisionId::Split) else { return };
    let cut = pre.remove(at);
    later.count += cut.count;
    if let (Some(from), Some(range)) = (cut.ranges.first(), later.ranges.first_mut()) {
        range.0 = from.0;
    }
}

/// One entity, one `gap.trim_head`: when the part a cut kept starts with null rows too, its own
/// head trim takes the cut's (counts added, the cut's stamps listed first).
fn merge_head_trims(pre: &mut Vec<Decision>, own: &mut [Decision]) {
    let Some(later) = own.iter_mut().find(|d| d.id == DecisionId::TrimHead) else { return };
    let Some(at) = pre.iter().rposition(|d| d.id == DecisionId::TrimHead) else { return };
    let cut = pre.remove(at);
    later.count += cut.count;
    let own_stamps = std::mem::take(&mut later.stamps);
    later.stamps = cut.stamps.into_iter().chain(own_stamps).take(LISTED_MAX).collect();
}

/// The warning for a requested `long_gap: mask` that a split replaced.
pub(super) fn mask_unavailable(unique_id: &str) -> Warning {
    Warning::LongGapMaskUnavailable { unique_id: unique_id.to_string() }
}
