//! Words for what set a point's pace and for the lab's link rate
//! (issue 23): "network-bound", "cpu-bound", "unsaturated";
//! "links: 400 Mbit/s each way (htb)".

use dualperf_model::{BitRate, LinkRate, Regime};

/// The word of a regime, as JSON spells it.
pub fn regime_word(regime: Regime) -> &'static str {
    regime.key()
}

/// What a regime means for the comparison at that point, in a few words.
pub fn regime_meaning(regime: Regime) -> &'static str {
    match regime {
        Regime::NetworkBound => "the link set the rate: the comparison measures the path",
        Regime::CpuBound => {
            "an end ran at a full core: the comparison measures CPU cost (see service demand)"
        }
        Regime::Unsaturated => "neither the link nor a core was full",
    }
}

/// The lab's link rate in words, e.g. `links: 400.000 Mbit/s each way (htb)`.
pub fn link_rate_words(rate: &LinkRate) -> String {
    match rate {
        LinkRate::Shaped { bits_per_second } => format!(
            "links: {} each way (htb; --link-rate changes it)",
            BitRate::from_bits_per_second(*bits_per_second)
        ),
        LinkRate::Unshaped => {
            "links: unshaped (--link-rate none): the CPUs, not the path, set the rate".to_string()
        }
        LinkRate::Topology => "links: as the topology shapes them".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_rates_read_as_rates() {
        let shaped = LinkRate::Shaped {
            bits_per_second: 400_000_000,
        };
        assert_eq!(
            link_rate_words(&shaped),
            "links: 400.000 Mbit/s each way (htb; --link-rate changes it)"
        );
        assert!(link_rate_words(&LinkRate::Unshaped).contains("unshaped"));
    }
}
