//! The recovery requirements (§4.4, §4.5), one declaration for the two tools that recover:
//! `work_item_decide` with decision `recover` and `work_checkpoint` with action `recover`.

use super::declare::Needs::{NonEmpty, Present};
use super::declare::Requirements;

rules! {
    /// The recovery rules, in inventory order.
    pub(super) fn names {
        /// What a recovery requires, in the order checked.
        pub(super) RECOVERY: Requirements = Requirements(&[
            ("recover-requires-recovery-id", Present("recoveryId")),
            ("recover-requires-diagnosis", Present("diagnosis")),
            ("recover-requires-changed-condition", Present("changedCondition")),
            ("recover-requires-verification", NonEmpty("verification")),
        ]);
    }
}
