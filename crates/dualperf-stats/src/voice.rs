//! Voice quality from delay and loss: the ITU-T G.107 E-model as simplified
//! by Cole and Rosenbluth ("Voice over IP performance monitoring", 2001).
//!
//! ```text
//! R      = 93.2 − Id − Ie_eff
//! Id     = 0.024·Ta + 0.11·(Ta − 177.3)·H(Ta − 177.3)      Ta: mouth-to-ear delay, ms
//! Ie_eff = Ie + (95 − Ie) · Ppl / (Ppl / BurstR + Bpl)     Ppl: loss, percent
//! MOS    = 1 (R < 0), 4.5 (R > 100), else 1 + 0.035·R + R·(R − 60)·(100 − R)·7·10⁻⁶
//! ```
//!
//! 93.2 is G.107's default R with no impairment (MOS ≈ 4.41). Codec values
//! (Ie, Bpl) come from ITU-T G.113 Appendix I.

/// A codec's equipment impairment values (ITU-T G.113 Appendix I).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Codec {
    /// Equipment impairment factor Ie.
    pub ie: f64,
    /// Packet-loss robustness factor Bpl.
    pub bpl: f64,
}

impl Codec {
    /// G.711 without packet-loss concealment: Ie 0, Bpl 4.3.
    pub const G711: Codec = Codec { ie: 0.0, bpl: 4.3 };
    /// G.711 with packet-loss concealment (Appendix I of G.711): Ie 0, Bpl 25.1.
    pub const G711_PLC: Codec = Codec { ie: 0.0, bpl: 25.1 };
    /// G.729 Annex A (CS-ACELP, 8 kbit/s, 20 ms packets): Ie 11, Bpl 19.0
    /// (ITU-T G.113 Appendix I, Tables I.1 and I.3, "G.729A + VAD").
    pub const G729A: Codec = Codec {
        ie: 11.0,
        bpl: 19.0,
    };

    /// Opus (RFC 6716) at `bitrate_bps`, rated as a narrowband codec. No
    /// ITU-T recommendation lists Opus (G.113 Appendix I stops at AMR and
    /// G.722.2; G.107.1 rates wideband only), so this is an assumption,
    /// stated as one: Ie 0 at 24 kbit/s and above (Opus there is at least
    /// as good as G.711 in listening tests: Rämö and Toukomaa, "Voice
    /// quality characterization of IETF Opus codec", Interspeech 2011),
    /// rising linearly to Ie 11 (G.729A's) at 8 kbit/s; Bpl 25.1, the
    /// value of G.711 with concealment, for Opus's built-in packet-loss
    /// concealment (RFC 6716 §4.4).
    pub fn opus(bitrate_bps: u64) -> Codec {
        let kbps = bitrate_bps as f64 / 1000.0;
        let ie = if kbps >= 24.0 {
            0.0
        } else {
            11.0 * (24.0 - kbps.max(8.0)) / 16.0
        };
        Codec { ie, bpl: 25.1 }
    }

    /// The E-model values of a media profile's voice codec: G.711 with
    /// concealment, G.729A, or [`Codec::opus`].
    pub fn of(codec: &dualperf_model::VoiceCodec) -> Codec {
        match codec {
            dualperf_model::VoiceCodec::G711 => Codec::G711_PLC,
            dualperf_model::VoiceCodec::G729 => Codec::G729A,
            dualperf_model::VoiceCodec::Opus { bitrate_bps } => Codec::opus(*bitrate_bps),
        }
    }
}

/// What the E-model needs about a call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallConditions {
    /// Mouth-to-ear delay Ta: network one-way delay + jitter-buffer delay +
    /// packetisation delay, milliseconds.
    pub mouth_to_ear_delay_ms: f64,
    /// Packet loss Ppl, percent (0..=100), late packets included.
    pub packet_loss_percent: f64,
    /// BurstR: 1 for random loss, above 1 for bursty loss.
    pub burst_ratio: f64,
    /// The codec.
    pub codec: Codec,
}

/// The delay impairment Id for a mouth-to-ear delay in ms.
pub fn delay_impairment(mouth_to_ear_delay_ms: f64) -> f64 {
    let ta = mouth_to_ear_delay_ms.max(0.0);
    let beyond = (ta - 177.3).max(0.0);
    0.024 * ta + 0.11 * beyond
}

/// The effective equipment impairment Ie_eff.
pub fn effective_equipment_impairment(conditions: &CallConditions) -> f64 {
    let ppl = conditions.packet_loss_percent.clamp(0.0, 100.0);
    let codec = conditions.codec;
    let burst = conditions.burst_ratio.max(1.0);
    codec.ie + (95.0 - codec.ie) * ppl / (ppl / burst + codec.bpl)
}

/// The rating factor R.
pub fn rating_factor(conditions: &CallConditions) -> f64 {
    93.2 - delay_impairment(conditions.mouth_to_ear_delay_ms)
        - effective_equipment_impairment(conditions)
}

/// The mean opinion score (1..=4.5) of a rating factor R.
pub fn mos_of_rating(r: f64) -> f64 {
    if r < 0.0 {
        1.0
    } else if r > 100.0 {
        4.5
    } else {
        1.0 + 0.035 * r + r * (r - 60.0) * (100.0 - r) * 7e-6
    }
}

/// The MOS of a call.
pub fn mos(conditions: &CallConditions) -> f64 {
    mos_of_rating(rating_factor(conditions))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(delay_ms: f64, loss_percent: f64) -> CallConditions {
        CallConditions {
            mouth_to_ear_delay_ms: delay_ms,
            packet_loss_percent: loss_percent,
            burst_ratio: 1.0,
            codec: Codec::G711_PLC,
        }
    }

    #[test]
    fn no_impairment_gives_r_93_2_and_mos_4_41() {
        assert_eq!(rating_factor(&call(0.0, 0.0)), 93.2);
        // 1 + 3.262 + 93.2·33.2·6.8·7e-6 = 4.4093.
        assert!((mos(&call(0.0, 0.0)) - 4.409_28).abs() < 1e-4);
    }

    #[test]
    fn delay_beyond_177_ms_costs_more() {
        assert!((delay_impairment(150.0) - 3.6).abs() < 1e-12);
        // 0.024·200 + 0.11·22.7 = 4.8 + 2.497.
        assert!((delay_impairment(200.0) - 7.297).abs() < 1e-9);
    }

    #[test]
    fn one_percent_random_loss_with_plc_costs_3_64() {
        // 95·1 / (1 + 25.1) = 3.6398.
        let ie_eff = effective_equipment_impairment(&call(0.0, 1.0));
        assert!((ie_eff - 95.0 / 26.1).abs() < 1e-12);
    }

    #[test]
    fn g729_starts_lower_than_g711_and_opus_sits_between_by_bitrate() {
        let clean = |codec| CallConditions {
            codec,
            ..call(40.0, 0.0)
        };
        assert!(mos(&clean(Codec::G729A)) < mos(&clean(Codec::G711_PLC)) - 0.3);
        assert_eq!(Codec::opus(32_000).ie, 0.0);
        assert!((Codec::opus(8_000).ie - 11.0).abs() < 1e-12);
        assert!((Codec::opus(16_000).ie - 5.5).abs() < 1e-12);
    }

    #[test]
    fn mos_is_clamped_outside_0_to_100() {
        assert_eq!(mos_of_rating(-5.0), 1.0);
        assert_eq!(mos_of_rating(120.0), 4.5);
        assert_eq!(mos_of_rating(0.0), 1.0);
    }

    #[test]
    fn bursty_loss_hurts_more_than_random_loss() {
        let random = mos(&call(50.0, 2.0));
        let bursty = mos(&CallConditions {
            burst_ratio: 2.0,
            ..call(50.0, 2.0)
        });
        assert!(bursty < random);
    }
}
