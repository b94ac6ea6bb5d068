//! `boost_recent`: newer items rank higher among matches of similar relevance. The boost is a
//! bounded factor (at most 1 + [`RECENCY_WEIGHT`]), so an old item that matches much better
//! still ranks first: recency breaks near-ties, it does not hide exact matches.

use std::time::{SystemTime, UNIX_EPOCH};

/// The most a brand-new item's score is raised by (halving with each half-life of age).
pub const RECENCY_WEIGHT: f32 = 0.5;

#[derive(Debug, Clone, Copy)]
pub struct Recency {
    now_ms: i64,
    half_life_ms: f64,
}

impl Recency {
    /// Ages measured from now; None for a half-life that is not positive.
    pub fn from_now(half_life_ms: u64) -> Option<Recency> {
        let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
        (half_life_ms > 0).then_some(Recency { now_ms, half_life_ms: half_life_ms as f64 })
    }

    /// The factor for an item of this date (epoch ms); undated items are not boosted, and dates
    /// in the future count as now.
    pub fn factor(&self, date: Option<i64>) -> f32 {
        let Some(date) = date else { return 1.0 };
        let age = self.now_ms.saturating_sub(date).max(0) as f64;
        1.0 + RECENCY_WEIGHT * (0.5f64).powf(age / self.half_life_ms) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_is_boosted_more_and_never_past_the_bound() {
        let r = Recency::from_now(86_400_000).unwrap();
        let day = 86_400_000;
        assert!((r.factor(Some(r.now_ms)) - 1.5).abs() < 1e-6);
        assert!((r.factor(Some(r.now_ms - day)) - 1.25).abs() < 1e-6);
        assert!((r.factor(Some(r.now_ms + day)) - 1.5).abs() < 1e-6);
        assert_eq!(r.factor(None), 1.0);
        assert!(r.factor(Some(i64::MIN)) >= 1.0);
        assert!(Recency::from_now(0).is_none());
    }
}
