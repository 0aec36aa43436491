//! The service's time, which a test can set.

/// Where the service reads the time: the system clock, or one a test sets and advances
/// (the 3-day inactivity rule is tested without waiting 3 days).
#[derive(Debug, Clone, Default)]
pub struct Clock(Option<std::sync::Arc<std::sync::Mutex<time::OffsetDateTime>>>);

impl Clock {
    pub fn system() -> Self {
        Clock(None)
    }

    pub fn fixed(at: time::OffsetDateTime) -> Self {
        Clock(Some(std::sync::Arc::new(std::sync::Mutex::new(at))))
    }

    pub fn now(&self) -> time::OffsetDateTime {
        match &self.0 {
            None => time::OffsetDateTime::now_utc(),
            Some(at) => *at.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// Now, to the second, as decisions take the time.
    pub fn moment(&self) -> warlog_rules::game::Moment {
        warlog_rules::game::Moment::from_unix_seconds(
            u64::try_from(self.now().unix_timestamp()).unwrap_or(0),
        )
    }

    /// Moves a fixed clock on (a system clock moves by itself).
    pub fn advance(&self, by: time::Duration) {
        if let Some(at) = &self.0 {
            let mut at = at.lock().unwrap_or_else(|e| e.into_inner());
            *at += by;
        }
    }
}
