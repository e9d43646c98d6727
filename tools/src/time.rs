//! The `time` domain: the current time in any IANA time zone, conversions between zones, and
//! waiting.
//! The time zone database is bundled, so results do not depend on the host's tzdata.

use jiff::ZonedDateTime;
use jiff::civil::{DateTime, Time};
use jiff::tz::TimeZone;
use tool_core::prelude::*;

use crate::domains::time;

/// A moment as seen in one time zone.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct ZonedTime {
    /// The IANA time zone name.
    pub timezone: String,
    /// Date and time with UTC offset, RFC 3339 (e.g. 2026-03-01T14:30:00+01:00).
    pub datetime: String,
    /// Day of the week, in English.
    pub day_of_week: String,
    /// Offset from UTC, e.g. +01:00.
    pub utc_offset: String,
    /// Whether daylight saving time is in effect.
    pub is_dst: bool,
}

/// The result of converting a time between zones.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct TimeConversion {
    /// The time in the source zone.
    pub source: ZonedTime,
    /// The same moment in the target zone.
    pub target: ZonedTime,
    /// How far the target zone is ahead of the source zone, e.g. +6h or -5.5h.
    pub time_difference: String,
}

/// Returns the current date and time in an IANA time zone (UTC when none is given), with the
/// UTC offset, day of week and whether DST is in effect. Use it whenever the answer depends on
/// "now" or "today".
#[tool(
    domain = time,
    label = "Reading the clock",
    hint = "Current date and time in any IANA time zone",
    examples(
        "Current time in Tokyo" => r#"{"timezone": "Asia/Tokyo"}"#,
        "Current time in UTC" => "{}",
    ),
)]
pub fn get_current_time(
    #[arg(description = "IANA time zone name, e.g. Europe/Paris or America/New_York; default UTC")]
    timezone: Option<String>,
) -> Result<ZonedTime, ToolError> {
    let tz = match timezone.as_deref() {
        Some(name) => zone(name, "timezone")?,
        None => TimeZone::UTC,
    };
    Ok(describe(
        &ZonedDateTime::now().with_time_zone(tz),
        timezone.as_deref().unwrap_or("UTC"),
    ))
}

/// Converts a time from one IANA time zone to another and returns both, with the difference
/// between the zones. `time` is HH:MM (today in the source zone) or a full date and time
/// (YYYY-MM-DDTHH:MM). Use it for meeting times and "what time is it there when ...".
#[tool(
    domain = time,
    label = "Converting time zones",
    hint = "Converts a time between two IANA time zones",
    examples(
        "Paris afternoon in New York" =>
            r#"{"time": "14:30", "from_timezone": "Europe/Paris", "to_timezone": "America/New_York"}"#,
        "A date in Sydney from London" =>
            r#"{"time": "2026-12-24T18:00", "from_timezone": "Europe/London", "to_timezone": "Australia/Sydney"}"#,
    ),
)]
pub fn convert_time(
    #[arg(description = "HH:MM in 24-hour form, or YYYY-MM-DDTHH:MM[:SS]")] time: String,
    #[arg(description = "IANA time zone the time is in, e.g. Europe/Paris")] from_timezone: String,
    #[arg(description = "IANA time zone to convert to, e.g. Asia/Tokyo")] to_timezone: String,
) -> Result<TimeConversion, ToolError> {
    let from = zone(&from_timezone, "from_timezone")?;
    let to = zone(&to_timezone, "to_timezone")?;
    let civil = parse_time(&time, &from)?;
    let source = civil.to_zoned_datetime(from).map_err(|e| {
        ToolError::invalid_input(format!("{time} does not exist in {from_timezone}: {e}"))
            .with_path("time")
    })?;
    let target = source.with_time_zone(to);
    let seconds = target.offset().seconds() - source.offset().seconds();
    Ok(TimeConversion {
        source: describe(&source, &from_timezone),
        target: describe(&target, &to_timezone),
        time_difference: hours(seconds),
    })
}

/// How long [`wait_duration`] waited.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct Waited {
    /// Seconds waited.
    pub seconds: f64,
}

/// Longest wait, in seconds.
const MAX_WAIT: f64 = 600.0;

/// Waits the given number of seconds (at most 600), reporting progress as it goes, and returns
/// how long it waited. Use it to pause before checking on something again, or to space out
/// retries of a rate-limited service.
#[tool(
    domain = time,
    label = "Waiting",
    hint = "Pauses for a number of seconds",
    task,
    timeout = 11m,
    examples("Wait two seconds" => r#"{"seconds": 2}"#),
)]
pub async fn wait_duration(
    ctx: &ToolContext,
    #[arg(description = "How long to wait, in seconds: 0 to 600, fractions allowed")] seconds: f64,
) -> Result<Waited, ToolError> {
    if !(0.0..=MAX_WAIT).contains(&seconds) {
        return Err(ToolError::invalid_input(format!(
            "seconds must be from 0 to {MAX_WAIT}, not {seconds}"
        ))
        .with_path("seconds"));
    }
    // Ten steps, or one a second for long waits, so a UI sees it move.
    let total_ms = (seconds * 1000.0).round() as u64;
    let steps = if total_ms == 0 {
        1
    } else {
        (seconds.ceil() as u64).clamp(10, 600)
    };
    let started = tokio::time::Instant::now();
    for step in 1..=steps {
        let due = started + std::time::Duration::from_millis(total_ms * step / steps);
        tokio::select! {
            () = tokio::time::sleep_until(due) => {}
            () = ctx.cancellation().cancelled() => {
                return Err(ToolError::new(ErrorKind::Cancelled, "the wait was cancelled"));
            }
        }
        let done = total_ms * step / steps;
        ctx.progress(
            done,
            Some(total_ms),
            format!("waited {:.1} s of {seconds} s", done as f64 / 1000.0),
        );
    }
    Ok(Waited { seconds })
}

fn zone(name: &str, field: &str) -> Result<TimeZone, ToolError> {
    TimeZone::get(name).map_err(|_| {
        ToolError::invalid_input(format!(
            "`{}` is not an IANA time zone name; use one like Europe/Paris, America/New_York or UTC",
            short(name)
        ))
        .with_path(field)
    })
}

/// A value quoted back in an error, cut so a huge input does not fill the message.
fn short(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn parse_time(text: &str, tz: &TimeZone) -> Result<DateTime, ToolError> {
    let text = text.trim();
    if let Ok(datetime) = text.parse::<DateTime>() {
        return Ok(datetime);
    }
    match text.parse::<Time>() {
        Ok(time) => Ok(ZonedDateTime::now()
            .with_time_zone(tz.clone())
            .date()
            .to_datetime(time)),
        Err(_) => Err(ToolError::invalid_input(format!(
            "cannot read `{}` as a time; write HH:MM (e.g. 14:30) or YYYY-MM-DDTHH:MM",
            short(text)
        ))
        .with_path("time")),
    }
}

fn describe(zoned: &ZonedDateTime, name: &str) -> ZonedTime {
    let dst = zoned.time_zone().to_offset_info(zoned.timestamp()).dst();
    ZonedTime {
        timezone: name.to_owned(),
        datetime: zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
        day_of_week: zoned.strftime("%A").to_string(),
        utc_offset: zoned.strftime("%:z").to_string(),
        is_dst: dst.is_dst(),
    }
}

/// `+6h`, `-5.5h`, `+5.75h`, `+0h`.
fn hours(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let h = f64::from(seconds.abs()) / 3600.0;
    let text = format!("{h:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{sign}{text}h")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_across_dst_and_half_hour_zones() {
        let out = convert_time(
            "2026-07-01T12:00".into(),
            "Europe/Paris".into(),
            "Asia/Kolkata".into(),
        )
        .unwrap();
        assert_eq!(out.source.datetime, "2026-07-01T12:00:00+02:00");
        assert!(out.source.is_dst);
        assert_eq!(out.target.datetime, "2026-07-01T15:30:00+05:30");
        assert_eq!(out.time_difference, "+3.5h");
        assert_eq!(out.target.day_of_week, "Wednesday");
    }

    #[test]
    fn bad_zone_and_bad_time_name_the_field() {
        let err = convert_time("14:30".into(), "Mars/Olympus".into(), "UTC".into()).unwrap_err();
        assert_eq!(err.path(), Some("from_timezone"));
        assert!(err.message().contains("Mars/Olympus"));
        let err = convert_time("25:99".into(), "UTC".into(), "UTC".into()).unwrap_err();
        assert_eq!(err.path(), Some("time"));
    }

    #[test]
    fn nonexistent_local_times_are_resolved_forward() {
        // 02:30 does not exist in New York on the spring-forward day; jiff moves it forward.
        let out = convert_time(
            "2026-03-08T02:30".into(),
            "America/New_York".into(),
            "UTC".into(),
        )
        .unwrap();
        assert_eq!(out.target.datetime, "2026-03-08T07:30:00+00:00");
    }

    #[test]
    fn differences_read_well() {
        assert_eq!(hours(0), "+0h");
        assert_eq!(hours(-18_000), "-5h");
        assert_eq!(hours(20_700), "+5.75h");
    }

    #[test]
    fn current_time_defaults_to_utc() {
        let now = get_current_time(None).unwrap();
        assert_eq!(now.timezone, "UTC");
        assert_eq!(now.utc_offset, "+00:00");
    }
}
