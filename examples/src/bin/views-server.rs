//! `views-server`: toolctl with tools that have views for MCP Apps hosts: `get_forecast` shows
//! its own view (`views/forecast.html`), whose button calls `refresh_forecast`, a tool for
//! views only that asks a person first; `get_report` has none, and shows the framework's card
//! when served with `--views`. For examples/tests/views.rs.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};

use tool_core::data;
use tool_core::prelude::*;

tool_core::domain!(pub weather, "Weather forecasts");
tool_core::domain!(pub reports, "Sales reports");

/// A day of a forecast.
#[data(output)]
struct Day {
    day: String,
    sky: String,
    low: i32,
    high: i32,
}

/// A city's forecast.
#[data(output)]
struct Forecast {
    city: String,
    days: Vec<Day>,
    /// How many times a view refreshed a forecast in this process.
    refreshes: u32,
}

static REFRESHES: AtomicU32 = AtomicU32::new(0);

fn forecast(city: String) -> Forecast {
    let days = [
        ("Mon", "sunny", 11, 19),
        ("Tue", "cloudy", 9, 15),
        ("Wed", "rain", 8, 12),
    ];
    Forecast {
        city,
        days: days
            .into_iter()
            .map(|(day, sky, low, high)| Day {
                day: day.into(),
                sky: sky.into(),
                low,
                high,
            })
            .collect(),
        refreshes: REFRESHES.load(Ordering::SeqCst),
    }
}

/// Returns the three-day forecast for a city: each day's sky and temperatures.
#[tool(
    domain = weather,
    label = "Forecasting",
    hint = "Gets a city's three-day forecast",
    read_only,
    view = "views/forecast.html"
)]
fn get_forecast(city: String) -> Forecast {
    forecast(city)
}

/// Refreshes the forecast a view shows for a city.
#[tool(
    domain = weather,
    label = "Refreshing the forecast",
    hint = "Refreshes the forecast in a view",
    visibility = "app",
    approval = "Refresh the forecast for {city}?"
)]
fn refresh_forecast(city: String) -> Forecast {
    REFRESHES.fetch_add(1, Ordering::SeqCst);
    forecast(city)
}

/// A region's sales.
#[data(output)]
struct Report {
    region: String,
    orders: u32,
    revenue: f64,
}

/// Returns a region's sales this month: orders and revenue.
#[tool(domain = reports, label = "Reading the sales report", hint = "Gets a region's sales", read_only)]
fn get_report(region: String) -> Report {
    Report {
        orders: 42,
        revenue: 1234.5,
        region,
    }
}

fn main() -> ExitCode {
    tool_cli::main!()
}
