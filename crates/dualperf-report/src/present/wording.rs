//! The words of a verdict and when it may claim significance.
//!
//! Words follow the metric's direction ([`Wording`], keyed by
//! [`MetricId`]): slower/faster for rates, higher/lower latency for
//! delays, more/less loss for loss. A comparison may be called significant
//! in words only when its CI excludes 0, it rests on at least
//! [`MIN_PAIRS_FOR_SIGNIFICANCE`] pairs and the pairs had some spread
//! ([`claims_significance`]). Both the verdict line and its attribution
//! clause read these rules, so they live below both.

use dualperf_model::{Comparison, MetricId};

/// Fewest paired repetitions for a significance claim.
pub const MIN_PAIRS_FOR_SIGNIFICANCE: u64 = 3;

/// How a verdict words a difference: "<arm> {verb} 4.8 % {more|less} than <baseline>".
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Wording {
    /// "is", "has", "uses" …
    pub verb: &'static str,
    /// When the arm's value is larger, e.g. "faster", "higher latency".
    pub more: &'static str,
    /// When the arm's value is smaller, e.g. "slower", "lower latency".
    pub less: &'static str,
}

const fn words(verb: &'static str, more: &'static str, less: &'static str) -> Wording {
    Wording { verb, more, less }
}

const FASTER: Wording = words("is", "faster", "slower");
const LATENCY: Wording = words("has", "higher latency", "lower latency");
const CONNECT: Wording = words("has", "slower connection setup", "faster connection setup");
const ONE_WAY: Wording = words("has", "higher one-way delay", "lower one-way delay");
const VARIATION: Wording = words("has", "more delay variation", "less delay variation");
const JITTER: Wording = words("has", "more jitter", "less jitter");
const LOSS: Wording = words("has", "more loss", "less loss");
const REORDERING: Wording = words("has", "more reordering", "less reordering");
const CPU: Wording = words("uses", "more CPU", "less CPU");
const CPU_PER_MIB: Wording = words("costs", "more CPU per MiB", "less CPU per MiB");
const CPU_PER_PACKET: Wording = words("costs", "more CPU per packet", "less CPU per packet");

/// The wording of `metric`'s verdicts.
pub fn wording(metric: MetricId) -> Wording {
    use MetricId as M;
    match metric {
        M::GoodputBps
        | M::SenderThroughputBps
        | M::WireThroughputBps
        | M::SentPps
        | M::ReceivedPps
        | M::TransactionsPerSecond
        | M::ConnectionsPerSecond => FASTER,
        M::RttMeanNs | M::RttMinNs | M::RttP50Ns | M::RttP90Ns | M::RttP99Ns | M::RttP999Ns => {
            LATENCY
        }
        M::RttSdNs => words("has", "more RTT spread", "less RTT spread"),
        M::ConnectMeanNs
        | M::ConnectMinNs
        | M::ConnectP50Ns
        | M::ConnectP90Ns
        | M::ConnectP99Ns => CONNECT,
        M::OwdMinNs
        | M::OwdMeanNs
        | M::OwdP50Ns
        | M::OwdP99Ns
        | M::LoadedOwdP50Ns
        | M::LoadedOwdP99Ns => ONE_WAY,
        M::PdvP50Ns
        | M::PdvP99Ns
        | M::Pdv999Ns
        | M::IpdvMeanAbsNs
        | M::IpdvP99AbsNs
        | M::LoadedPdvP99Ns => VARIATION,
        M::JitterNs | M::LoadedJitterNs => JITTER,
        M::LossRatio | M::LoadedLossRatio => LOSS,
        M::LossEpisodes => words("has", "more loss episodes", "fewer loss episodes"),
        M::ReorderedRatio | M::LoadedReorderedRatio => REORDERING,
        M::MaxReorderExtentPackets => words("has", "deeper reordering", "shallower reordering"),
        M::DuplicatePackets => words("has", "more duplicates", "fewer duplicates"),
        M::ForwardLossRatio => words(
            "loses",
            "more packets on the way to the reflector",
            "fewer packets on the way to the reflector",
        ),
        M::ReverseLossRatio => words(
            "loses",
            "more replies on the way back",
            "fewer replies on the way back",
        ),
        M::ReverseOwdP50Ns => words(
            "has",
            "more one-way delay back from the reflector",
            "less one-way delay back from the reflector",
        ),
        M::DscpRemarkedRatio => words(
            "has",
            "more packets re-marked (DSCP) on the way",
            "fewer packets re-marked (DSCP) on the way",
        ),
        M::EcnChangedRatio => words(
            "has",
            "more packets with a changed ECN field",
            "fewer packets with a changed ECN field",
        ),
        M::RetransmittedSegments => words("has", "more retransmissions", "fewer retransmissions"),
        M::TcpEfficiencyRatio => words("is", "more efficient", "less efficient"),
        M::VoiceMos => words(
            "has",
            "better voice quality (MOS)",
            "worse voice quality (MOS)",
        ),
        M::MediaMos | M::MediaFixedBufferMos | M::MediaWorstWindowMos => words(
            "has",
            "better call quality (MOS)",
            "worse call quality (MOS)",
        ),
        M::PlayoutLossRatio => words(
            "loses",
            "more packets to loss and lateness",
            "fewer packets to loss and lateness",
        ),
        M::JitterBufferNs => words(
            "needs",
            "a deeper jitter buffer",
            "a shallower jitter buffer",
        ),
        M::MouthToEarNs => words("has", "more mouth-to-ear delay", "less mouth-to-ear delay"),
        M::LossBurstMaxPackets => words("has", "longer loss bursts", "shorter loss bursts"),
        M::FrameDeliveryRatio => words("delivers", "more whole frames", "fewer whole frames"),
        M::MediaEthernetBps => words("takes", "more of the link", "less of the link"),
        M::MediaEthernetFrameBytes => {
            words("sends", "larger Ethernet frames", "smaller Ethernet frames")
        }
        M::FrameDelayP50Ns | M::FrameDelayP99Ns => {
            words("has", "higher frame delay", "lower frame delay")
        }
        M::ClientCpuCores | M::ServerCpuCores | M::SystemBusyRatio => CPU,
        M::SoftirqRatio => words("uses", "more softirq time", "less softirq time"),
        M::RouterCpuCores => words("costs", "more router CPU", "less router CPU"),
        M::ClientServiceDemandUsPerMib | M::ServerServiceDemandUsPerMib => CPU_PER_MIB,
        M::ClientCpuPerPacketNs | M::ServerCpuPerPacketNs => CPU_PER_PACKET,
        // A metric added to the model after this table: neutral words.
        _ => words("has", "a higher value", "a lower value"),
    }
}

/// True when the comparison's paired differences were all alike: its CI
/// is a single number, which is no interval at all.
pub fn has_no_spread(comparison: &Comparison) -> bool {
    comparison.pairs >= 2
        && comparison
            .difference_ci95
            .is_some_and(|(low, high)| low == high)
}

/// True when the comparison may be called significant in words: its CI
/// excludes 0, it rests on at least [`MIN_PAIRS_FOR_SIGNIFICANCE`] pairs
/// and the pairs had some spread.
pub fn claims_significance(comparison: &Comparison) -> bool {
    comparison.significant
        && comparison.pairs >= MIN_PAIRS_FOR_SIGNIFICANCE
        && !has_no_spread(comparison)
}
