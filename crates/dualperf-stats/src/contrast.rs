//! Which arm an arm is compared with: the contrasts of the run's design
//! ([`dualperf_model::contrasts`] says how they are declared or derived).

pub use dualperf_model::contrasts::{contrasts, factor_between, same_load};
use dualperf_model::{ArmId, Contrast};

/// The arm `arm` is compared with, or `arm` itself when it is compared with
/// nothing (the run's baseline, or an arm no declared contrast names).
pub fn baseline_of<'a>(contrasts: &'a [Contrast], arm: &'a ArmId) -> &'a ArmId {
    contrasts
        .iter()
        .find(|contrast| &contrast.arm == arm)
        .map_or(arm, |contrast| &contrast.baseline)
}
